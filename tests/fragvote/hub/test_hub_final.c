/* The final projector screen compares the room with the RIPE 87 audience:
 * once the quiz has ended, the state carries "This room: N % — RIPE 87's
 * network engineers: just under 80 %" (the room's collective score), and
 * not before. The real hub on a free loopback port, real phones. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "league.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "final-test-secret"

static struct hubfix F;
static struct deck D;

static int start(void) {
    char path[256];
    deck_fixture_one(&D, "final screen test", DECK_FIXTURE_DF | DECK_FIXTURE_FRAG);
    snprintf(path, sizeof path, "%s/final.db", check_tmpdir());
    return hubfix_start_yes_yes_no(&F, path, &D, "FINAL2", 0, SECRET, NULL);
}

static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

static void test_final_state_carries_the_league_line(void) {
    REQUIRE(start() == 0);
    char err[256];
    struct wsc *a, *b, *s, *p;
    REQUIRE(fvr_cast("127.0.0.1", F.port, "FINAL2", SECRET, T_MS, &a, &b, &s, &p, err, sizeof err) == 0);
    /* Q1 "DF set?" (truth yes): both right. Q2 "fragmented?" (truth no): a wrong, b right: a tie. */
    REQUIRE(step(p, "open") == 0);
    REQUIRE(fvr_vote(a, 1, 0, 1, T_MS, NULL) == 0 && fvr_vote(b, 1, 0, 1, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0 && step(p, "measure") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    REQUIRE(step(p, "reveal") == 0 && step(p, "next") == 0 && step(p, "open") == 0);
    REQUIRE(fvr_vote(a, 2, 1, 1, T_MS, NULL) == 0 && fvr_vote(b, 2, 1, 0, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0 && step(p, "measure") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    REQUIRE(step(p, "reveal") == 0);
    json_t *x;
    while ((x = wsc_recv_type(s, "never", 200))) json_decref(x);
    CHECK(!strstr(wsc_transcript(s), "RIPE 87")); /* revealed, not ended: no league line yet */
    REQUIRE(step(p, "next") == 0);
    json_t *fin = fvr_final_state(s, T_MS);
    REQUIRE(fin);
    char want[LEAGUE_LINE_MAX];
    league_line(0.75, want, sizeof want); /* (1 + 0.5) / 2 */
    CHECK_STR(json_string_value(json_object_get(fin, "league")), want);
    CHECK_CONTAINS(want, "This room: 75 % \xe2\x80\x94 RIPE 87's network engineers: just under 80 %");
    json_t *lm = json_object_get(fin, "league_msg"); /* the same line as a message, which the pages word */
    CHECK_STR(json_string_value(json_object_get(lm, "key")), "league.line");
    CHECK_STR(json_string_value(json_object_get(json_object_get(lm, "args"), "score")), "75");
    /* the finale: no question the majority missed (Q2 was a tie), no re-vote */
    json_t *fi = json_object_get(fin, "finale");
    CHECK(json_is_array(json_object_get(fi, "missed")) && json_array_size(json_object_get(fi, "missed")) == 0);
    CHECK(json_object_get(fi, "shift") == NULL);
    json_decref(fin);
    fin = fvr_final_state(a, T_MS); /* phones get the same final state */
    CHECK(fin && json_object_get(fin, "league"));
    json_decref(fin);
    wsc_close_all(a, b, s, p);
    hubfix_stop(&F);
}

/* Issue 37, item 6: `end` from the presenter at question 1 (voting) goes
 * to the final state at once, every question not revealed skipped, and the
 * session is over in the store. */
static void test_end_goes_to_the_final_state(void) {
    REQUIRE(start() == 0);
    char err[256];
    struct wsc *a, *s, *p;
    REQUIRE(fvr_cast("127.0.0.1", F.port, "FINAL2", SECRET, T_MS, &a, NULL, &s, &p, err, sizeof err) == 0);
    REQUIRE(step(p, "open") == 0);
    REQUIRE(fvr_vote(a, 1, 0, 1, T_MS, NULL) == 0);
    REQUIRE(step(p, "end") == 0);
    json_t *fin = fvr_final_state(s, T_MS);
    REQUIRE(fin);
    CHECK_INT(json_array_size(json_object_get(fin, "questions")), 2);
    CHECK_INT(fvr_questions_in(fin, "skipped"), 2);
    json_decref(fin);
    CHECK(step(p, "end") != 0); /* once */
    struct db_session_row row;
    REQUIRE(db_session_get(F.db, room_session_id(F.room), &row, err, sizeof err) == 0);
    CHECK(row.ended_at > 0);
    db_session_row_free(&row);
    wsc_close_all(a, s, p);
    hubfix_stop(&F);
}

/* Issue 37, item 6: `answer` measures the pending question without a
 * vote; reveal shows the result to the room with no votes. */
static void test_answer_without_a_vote(void) {
    REQUIRE(start() == 0);
    char err[256];
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(s && p);
    REQUIRE(step(p, "answer") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    REQUIRE(step(p, "reveal") == 0);
    json_t *st = NULL, *x;
    while ((x = wsc_recv_type(s, "state", 1000))) {
        json_decref(st);
        st = x;
    }
    REQUIRE(st);
    json_t *q = json_object_get(st, "q"), *rv = json_object_get(st, "reveal");
    CHECK_STR(json_string_value(json_object_get(q, "state")), "revealed");
    CHECK_STR(json_string_value(json_object_get(rv, "truth")), "yes");
    CHECK_INT(json_integer_value(json_object_get(rv, "yes")) + json_integer_value(json_object_get(rv, "no")), 0);
    json_decref(st);
    CHECK(step(p, "answer") != 0); /* revealed: no answer without a vote */
    wsc_close_all(s, p);
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_final_state_carries_the_league_line);
    RUN(test_answer_without_a_vote);
    RUN(test_end_goes_to_the_final_state);
    return check_summary();
}
