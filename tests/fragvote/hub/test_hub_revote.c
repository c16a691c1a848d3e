/* Re-vote rounds (peer instruction): after close the presenter opens a
 * second round on the same question (protocol cmd "revote"); both rounds are
 * stored (round_votes holds the first, votes the final), the final round is
 * scored, the reveal shows the shift ("first round 0 % right → after
 * discussion 100 %"), a resumed room keeps both rounds, and the exports and
 * replay show them. The real hub on a free loopback port, real phones, the
 * real SQLite file and the real `fragvote` for the exports. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "console.h"
#include "session_fixture.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "revote.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "revote-test-secret"
#define SHIFT_0_100 "first round 0 % right \xe2\x86\x92 after discussion 100 %"

static struct hubfix F;
static struct deck D;
static char dbpath[256];

static int start(int64_t resume) {
    deck_fixture_one(&D, "re-vote test", DECK_FIXTURE_DF | DECK_FIXTURE_FRAG);
    static int files;
    if (!resume) snprintf(dbpath, sizeof dbpath, "%s/revote-%d.db", check_tmpdir(), ++files); /* session 1 in each */
    return hubfix_start_yes_yes_no(&F, dbpath, &D, "REVOTE", resume, SECRET, NULL);
}

static int cmd(struct wsc *p, const char *name, char *err, size_t errlen) { return fvr_cmd(p, name, T_MS, err, errlen); }

static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

static struct quiz_qinfo current(void) {
    struct hub_status st;
    hub_snapshot(F.hub, &st);
    return st.current;
}

/* The next state on w that carries a reveal. */
static json_t *state_with_reveal(struct wsc *w) {
    for (int i = 0; i < 20; i++) {
        json_t *m = wsc_recv_type(w, "state", T_MS);
        if (!m) return NULL;
        if (json_object_get(m, "reveal")) return m;
        json_decref(m);
    }
    return NULL;
}

static long long sql_int(const char *sql) { return hubfix_sql_int(dbpath, sql); }

static void test_console_knows_the_revote(void) {
    struct console_cmd c;
    char err[128];
    REQUIRE(console_parse_line("revote", &c, err, sizeof err) == 0);
    CHECK_INT(c.verb, CONSOLE_ACT);
    CHECK_INT(c.act, HUB_CMD_REVOTE);
    REQUIRE(console_parse_line("re-vote", &c, err, sizeof err) == 0);
    CHECK_INT(c.act, HUB_CMD_REVOTE);
    REQUIRE(console_parse_key('v', &c) == 0);
    CHECK_INT(c.act, HUB_CMD_REVOTE);
    CHECK_STR(console_act_name(HUB_CMD_REVOTE), "revote");
}

static void test_shift_line_is_pure(void) {
    char buf[REVOTE_SHIFT_MAX];
    revote_shift_line(9, 11, 18, 7, 1, buf, sizeof buf); /* 45 % -> 72 % */
    CHECK_STR(buf, "first round 45 % right \xe2\x86\x92 after discussion 72 %");
    revote_shift_line(0, 0, 1, 1, 0, buf, sizeof buf);
    CHECK_STR(buf, "first round no votes \xe2\x86\x92 after discussion 50 %");
    revote_shift_line(3, 1, 1, 3, -1, buf, sizeof buf);
    CHECK_STR(buf, "");
}

/* Round 1 both wrong, round 2 both right: stored, scored by round 2, shown. */
static void test_second_round_is_stored_scored_and_shown(void) {
    REQUIRE(start(0) == 0);
    char err[256];
    struct wsc *a, *b, *s, *p;
    REQUIRE(fvr_cast("127.0.0.1", F.port, "REVOTE", SECRET, T_MS, &a, &b, &s, &p, err, sizeof err) == 0);
    CHECK(cmd(p, "revote", err, sizeof err) < 0); /* pending: nothing to re-vote yet */
    CHECK_CONTAINS(err, "re-vote opens after close");
    REQUIRE(step(p, "open") == 0);
    CHECK(cmd(p, "revote", err, sizeof err) < 0); /* still voting */
    REQUIRE(fvr_vote(a, 1, 0, 0, T_MS, NULL) == 0 && fvr_vote(b, 1, 0, 0, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0);
    REQUIRE(step(p, "revote") == 0);
    struct quiz_qinfo q = current();
    CHECK_INT(q.round, 2);
    CHECK_INT(q.state, QUIZ_VOTING);
    CHECK_INT(q.first_no, 2);
    CHECK_INT(q.yes + q.no, 0); /* everyone votes again */
    CHECK_INT(sql_int("SELECT count(*) FROM round_votes WHERE round = 1 AND answer = 0"), 2);
    CHECK_INT(sql_int("SELECT count(*) FROM votes"), 0);
    CHECK_INT(sql_int("SELECT round FROM questions WHERE position = 0"), 2);
    CHECK(cmd(p, "revote", err, sizeof err) < 0); /* one second round only */
    REQUIRE(fvr_vote(a, 2, 0, 1, T_MS, NULL) == 0 && fvr_vote(b, 2, 0, 1, T_MS, NULL) == 0);
    CHECK_INT(sql_int("SELECT count(*) FROM votes WHERE answer = 1"), 2); /* acked: committed */
    REQUIRE(step(p, "close") == 0);
    REQUIRE(step(p, "measure") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    CHECK(cmd(p, "revote", err, sizeof err) < 0); /* measured: too late */
    json_t *x;
    while ((x = wsc_recv_type(s, "never", 200))) json_decref(x);
    CHECK(!strstr(wsc_transcript(s), "\"shift\"")); /* the shift comes with the reveal only */
    CHECK(strstr(wsc_transcript(s), "\"round\":2") != NULL); /* the screen knows it is round 2 */
    REQUIRE(step(p, "reveal") == 0);
    json_t *st = state_with_reveal(s);
    REQUIRE(st);
    json_t *rv = json_object_get(st, "reveal");
    CHECK_STR(json_string_value(json_object_get(rv, "shift")), SHIFT_0_100);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(rv, "first_round"), "no")), 2);
    CHECK_INT(json_integer_value(json_object_get(rv, "yes")), 2);
    CHECK(json_real_value(json_object_get(rv, "correct")) == 1.0); /* the final round is scored */
    CHECK(json_real_value(json_object_get(st, "collective")) == 1.0);
    json_decref(st);
    /* the store's own score agrees: the final round */
    struct db_sscore sc;
    REQUIRE(db_session_score(F.db, room_session_id(F.room), &sc, err, sizeof err) == 0);
    CHECK(sc.collective == 1.0);
    CHECK_INT(sc.votes_correct, 2);
    wsc_close_all(a, b, s, p);
    hubfix_stop(&F);

    /* Resume (a crash or restart): both rounds come back */
    REQUIRE(start(1) == 0);
    q = current();
    CHECK_INT(q.round, 2);
    CHECK_INT(q.first_no, 2);
    CHECK_INT(q.first_yes, 0);
    CHECK_INT(q.yes, 2);
    CHECK_INT(q.state, QUIZ_REVEALED);
    hubfix_stop(&F);
}

/* A crash in the middle of round 2 keeps round 1 apart and round 2 open. */
static void test_resume_during_the_second_round(void) {
    REQUIRE(start(0) == 0);
    char err[256];
    struct wsc *a = fvr_phone("127.0.0.1", F.port, "REVOTE", 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(a && p);
    REQUIRE(step(p, "open") == 0 && fvr_vote(a, 1, 0, 1, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0 && step(p, "revote") == 0);
    REQUIRE(fvr_vote(a, 2, 0, 0, T_MS, NULL) == 0);
    wsc_close_all(a, p);
    hubfix_stop(&F);
    REQUIRE(start(1) == 0);
    struct quiz_qinfo q = current();
    CHECK_INT(q.state, QUIZ_VOTING);
    CHECK_INT(q.round, 2);
    CHECK_INT(q.first_yes, 1);
    CHECK_INT(q.no, 1);
    CHECK_INT(q.yes, 0);
    hubfix_stop(&F);
}

/* The exports and replay of the first test's database show both rounds. */
static void test_exports_and_replay_show_both_rounds(void) {
    char args[600], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "export 1 --format json --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    json_t *root = json_loads(out, 0, NULL);
    REQUIRE(root);
    json_t *q0 = json_array_get(json_object_get(json_array_get(json_object_get(root, "sessions"), 0), "questions"), 0);
    CHECK_INT(json_integer_value(json_object_get(q0, "round")), 2);
    CHECK_INT(json_integer_value(json_object_get(q0, "yes")), 2);
    json_t *fr = json_object_get(q0, "first_round");
    CHECK_INT(json_integer_value(json_object_get(fr, "no")), 2);
    CHECK_INT(json_integer_value(json_object_get(fr, "correct_votes")), 0);
    CHECK(json_real_value(json_object_get(fr, "accuracy")) == 0.0);
    CHECK_STR(json_string_value(json_object_get(q0, "shift")), SHIFT_0_100);
    CHECK(json_is_null(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(root, "sessions"),
                                                                                      0), "questions"), 1),
                                       "first_round")));
    json_decref(root);
    free(out);
    free(errs);
    snprintf(args, sizeof args, "export 1 --format csv --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, ",round,first_yes,first_no,confidence,probability,confidence_votes,confidence_right,"
                        "confidence_share_right,brier\n");
    CHECK_CONTAINS(out, ",,,,2,0,2,,,,,,\n"); /* no confidence in this session: its columns empty */
    free(out);
    free(errs);
    snprintf(args, sizeof args, "export 1 --format markdown --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "- Q1 re-voted: first round yes 0 · no 2, final round yes 2 · no 0; " SHIFT_0_100);
    free(out);
    free(errs);
    snprintf(args, sizeof args, "export 1 --format svg --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "<rect class=\"bar-first\" data-position=\"0\" data-accuracy=\"0%\"");
    CHECK_CONTAINS(out, "<rect class=\"bar\" data-position=\"0\" data-accuracy=\"100%\"");
    CHECK(!strstr(out, "class=\"bar-first\" data-position=\"1\"")); /* Q2 had one round */
    CHECK_CONTAINS(out, "dashed: first round");
    free(out);
    free(errs);
    snprintf(args, sizeof args, "replay 1 --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "    round 1   yes 0 · no 2 (re-voted: " SHIFT_0_100 ")");
    free(out);
    free(errs);
}

/* ---- the console's script word against the real hub (hub_post / hub_snapshot) ---- */

static int be_post(void *ctx, enum hub_cmd_kind k, int seconds) {
    (void)ctx;
    struct hub_cmd c = {.kind = k, .seconds = seconds};
    return hub_post(F.hub, &c);
}

static void be_status(void *ctx, struct console_status *out) {
    (void)ctx;
    memset(out, 0, sizeof *out);
    hub_snapshot(F.hub, &out->hub);
}

static int script(struct console *c, const char *text, char *err, size_t errlen) {
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    int rc = console_run_script(c, in, "revote.script", err, errlen);
    fclose(in);
    return rc;
}

static void test_console_script_revote_through_the_hub(void) {
    REQUIRE(start(0) == 0);
    char err[512] = "", *log = NULL;
    size_t loglen = 0;
    FILE *logf = open_memstream(&log, &loglen);
    struct console c = {.be = {be_post, be_status, NULL}, .out = logf, .view = {.title = "re-vote test"}};
    struct wsc *a = fvr_phone("127.0.0.1", F.port, "REVOTE", 1, NULL, T_MS, NULL, err, sizeof err);
    REQUIRE(a);
    CHECK_INT(script(&c, "expect-refused revote\nopen\nwait-state voting 2000\nexpect-refused revote\n", err,
                     sizeof err), 0);
    REQUIRE(fvr_vote(a, 1, 0, 0, T_MS, NULL) == 0);
    CHECK_INT(script(&c, "wait-votes 1 2000\nclose\nrevote\nwait-state voting 2000\nexpect-refused re-vote\nshow\n",
                     err, sizeof err), 0);
    if (err[0]) fprintf(stderr, "%s\n", err);
    REQUIRE(fvr_vote(a, 2, 0, 1, T_MS, NULL) == 0);
    CHECK_INT(script(&c, "wait-votes 1 2000\nclose\nmeasure\nwait-measured 2000\nreveal\n", err, sizeof err), 0);
    CHECK_INT(c.refused_unexpected, 0);
    fflush(logf);
    CHECK_CONTAINS(log, "State: voting (round 2: re-vote)");
    CHECK_CONTAINS(log, "revote: question 1/2 voting");
    /* The console's screen after the reveal, as serve fills it (truth from the store). */
    struct console_status st;
    be_status(NULL, &st);
    st.revealed = 1;
    snprintf(st.truth, sizeof st.truth, "yes");
    snprintf(st.majority, sizeof st.majority, "yes");
    st.correct = 1;
    st.correct_votes = 1;
    char *screen = NULL;
    size_t screenlen = 0;
    FILE *sf = open_memstream(&screen, &screenlen);
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "Re-vote: first round 0 % right \xe2\x86\x92 after discussion 100 %");
    free(screen);
    fclose(logf);
    free(log);
    wsc_close(a, 1000);
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_console_knows_the_revote);
    RUN(test_shift_line_is_pure);
    RUN(test_second_round_is_stored_scored_and_shown);
    RUN(test_exports_and_replay_show_both_rounds);
    RUN(test_resume_during_the_second_round);
    RUN(test_console_script_revote_through_the_hub);
    return check_summary_and_clean();
}
