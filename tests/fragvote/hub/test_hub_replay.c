/* Issue 37, item 4: after the talk, the quiz lives on. Once the presenter
 * ended the talk, a phone asks for the self-paced replay (the revealed
 * questions with the room's recorded truths, explanations and paths; a
 * question skipped after it was measured is not in it), answers each one
 * (its first answer kept), and the answers land in replay_votes: the live
 * session's rows (votes, voters, measurements, scores) are read with sqlite3
 * before and after and are the same. The real hub on a free loopback port,
 * real phones, a real SQLite file. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fv_roles.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "replay-test-secret"
#define ROOM "REPLAY"

static struct hubfix F;
static struct deck D;
static char dbpath[256];

/* Two tests of the same spec: the first asks DF? and fragmented?, the
 * second sent? (measured, then skipped by end). */
static int start(void) {
    memset(&D, 0, sizeof D);
    snprintf(D.title, sizeof D.title, "replay test");
    D.ntests = 2;
    for (int t = 0; t < 2; t++)
        D.tests[t].spec = (struct probe_spec){.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = 1400, .ttl = 2};
    D.tests[0].ask[QKIND_DF] = D.tests[0].ask[QKIND_FRAGMENTED] = 1;
    D.tests[1].ask[QKIND_SENT] = 1;
    snprintf(dbpath, sizeof dbpath, "%s/replay.db", check_tmpdir());
    return hubfix_start_yes_yes_no(&F, dbpath, &D, ROOM, 0, SECRET, NULL);
}

static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

/* Every row of the live session, as text, read by a connection of its
 * own: what the replay must never change. */
static const char *const live_sql[] = {
    "SELECT * FROM sessions ORDER BY id",
    "SELECT * FROM questions ORDER BY id",
    "SELECT * FROM voters ORDER BY id",
    "SELECT * FROM votes ORDER BY id",
    "SELECT * FROM round_votes ORDER BY id",
    "SELECT * FROM measurement_sets ORDER BY id",
    "SELECT * FROM measurements ORDER BY id",
    "SELECT * FROM question_score ORDER BY question_id",
    "SELECT * FROM voter_score ORDER BY voter_id",
    "SELECT * FROM purged_scores ORDER BY session_id, correct",
};

struct text {
    char *s;
    size_t len;
};

static int add_row(void *arg, int n, char **vals, char **names) {
    struct text *t = arg;
    for (int i = 0; i < n; i++) {
        const char *v = vals[i] ? vals[i] : "NULL";
        size_t need = strlen(names[i]) + strlen(v) + 3;
        char *s = realloc(t->s, t->len + need + 1);
        if (!s) return 1;
        t->s = s;
        t->len += (size_t)sprintf(t->s + t->len, "%s=%s%c", names[i], v, i + 1 < n ? '|' : '\n');
    }
    return 0;
}

static char *live_rows(void) {
    sqlite3 *h = NULL;
    struct text t = {calloc(1, 1), 0};
    if (sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return NULL;
    for (size_t i = 0; i < sizeof live_sql / sizeof *live_sql; i++)
        if (sqlite3_exec(h, live_sql[i], add_row, &t, NULL) != SQLITE_OK) {
            fprintf(stderr, "%s: %s\n", live_sql[i], sqlite3_errmsg(h));
            free(t.s);
            t.s = NULL;
            break;
        }
    sqlite3_close(h);
    return t.s;
}

static long long count_sql(const char *sql) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return n;
}

/* Sends a replay answer and waits for its answer: the replay_ack's "yes"
 * (1/0), or -2 with *code the error's code, -1 nothing came. */
static int replay_vote(struct wsc *w, int id, int q, int yes, char *code, size_t codelen) {
    if (wsc_send_json(w, "{s:s, s:i, s:i, s:b}", "t", "replay_vote", "id", id, "q", q, "yes", yes) < 0)
        return -1;
    json_t *m;
    while ((m = wsc_recv_types(w, "replay_ack", "error", T_MS))) {
        if (json_integer_value(json_object_get(m, "id")) != id) {
            json_decref(m);
            continue;
        }
        int r = -2;
        if (!strcmp(json_string_value(json_object_get(m, "t")), "replay_ack")) {
            r = json_is_true(json_object_get(m, "yes"));
            CHECK_INT(json_integer_value(json_object_get(m, "q")), q);
        } else if (code) {
            snprintf(code, codelen, "%s", json_string_value(json_object_get(m, "code")));
        }
        json_decref(m);
        return r;
    }
    return -1;
}

/* Asks for the replay: the message, or NULL with *code the error's code. */
static json_t *ask_replay(struct wsc *w, char *code, size_t codelen) {
    if (wsc_send_json(w, "{s:s}", "t", "replay") < 0) return NULL;
    json_t *m = wsc_recv_types(w, "replay", "error", T_MS);
    if (m && !strcmp(json_string_value(json_object_get(m, "t")), "error")) {
        snprintf(code, codelen, "%s", json_string_value(json_object_get(m, "code")));
        json_decref(m);
        return NULL;
    }
    return m;
}

static void test_replay_after_the_talk(void) {
    REQUIRE(start() == 0);
    char err[256], code[64] = "";
    struct wsc *a = fvr_phone("127.0.0.1", F.port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(a && p);
    /* Before the end: no replay, no replay answer, and the state offers none. */
    CHECK(ask_replay(a, code, sizeof code) == NULL);
    CHECK_STR(code, "not_ended");
    CHECK_INT(replay_vote(a, 90, 0, 1, code, sizeof code), -2);
    CHECK_STR(code, "not_ended");
    /* Q1 DF? (truth yes): a says yes. Q2 fragmented? (truth no): a says yes. */
    REQUIRE(step(p, "open") == 0 && fvr_vote(a, 1, 0, 1, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0 && step(p, "measure") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    REQUIRE(step(p, "reveal") == 0 && step(p, "next") == 0 && step(p, "open") == 0);
    REQUIRE(fvr_vote(a, 2, 1, 1, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0 && step(p, "measure") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    REQUIRE(step(p, "reveal") == 0 && step(p, "next") == 0);
    /* Q3 sent? measured, never revealed: end skips it. */
    REQUIRE(step(p, "open") == 0 && fvr_vote(a, 3, 2, 0, T_MS, NULL) == 0);
    REQUIRE(step(p, "close") == 0 && step(p, "measure") == 0);
    hubfix_wait_state(&F, QUIZ_MEASURED);
    CHECK(!strstr(wsc_transcript(a), "\"replay\":true"));
    REQUIRE(step(p, "end") == 0);
    json_t *fin = fvr_final_state(a, T_MS);
    REQUIRE(fin);
    CHECK(json_is_true(json_object_get(fin, "replay")));
    double room = json_real_value(json_object_get(fin, "collective"));
    json_decref(fin);
    char *before = live_rows();
    REQUIRE(before);

    /* The replay: the two revealed questions with their recorded truths. */
    json_t *r = ask_replay(a, code, sizeof code);
    REQUIRE(r);
    json_t *qs = json_object_get(r, "questions");
    CHECK_INT(json_array_size(qs), 2);
    CHECK_STR(json_string_value(json_object_get(r, "room")), ROOM);
    CHECK(json_real_value(json_object_get(r, "collective")) == room);
    const char *truth[] = {"yes", "no"};
    for (size_t i = 0; i < json_array_size(qs) && i < 2; i++) {
        json_t *q = json_array_get(qs, i), *rv = json_object_get(q, "reveal");
        CHECK_INT(json_integer_value(json_object_get(q, "pos")), (long long)i);
        CHECK_STR(json_string_value(json_object_get(q, "state")), "revealed");
        CHECK(json_string_length(json_object_get(q, "text")) > 0);
        CHECK(json_is_object(json_object_get(q, "ask")));
        CHECK_STR(json_string_value(json_object_get(rv, "truth")), truth[i]);
        CHECK_STR(json_string_value(json_object_get(rv, "evidence")), "DF=1 seen on the wire");
        CHECK_INT(json_integer_value(json_object_get(rv, "yes")), 1);
    }
    json_decref(r);
    /* The skipped question's measurement is in no replay frame: only
     * positions 0 and 1 appear, and nothing says what Q3's answer was. */
    CHECK(!strstr(wsc_transcript(a), "\"pos\":2,\"test\":1,\"kind\":\"sent\",\"state\":\"skipped\",\"truth\""));

    /* a plays: its first answer is kept; a skipped or unknown question is refused. */
    CHECK_INT(replay_vote(a, 10, 0, 0, code, sizeof code), 0);
    CHECK_INT(replay_vote(a, 11, 0, 1, code, sizeof code), 0); /* changed after the truth: kept as first given */
    CHECK_INT(replay_vote(a, 12, 1, 0, code, sizeof code), 0);
    CHECK_INT(replay_vote(a, 13, 2, 1, code, sizeof code), -2);
    CHECK_STR(code, "refused");
    CHECK_INT(replay_vote(a, 14, 99, 1, code, sizeof code), -2);
    CHECK_STR(code, "refused");
    /* A phone that joins after the end and never voted live plays too. */
    struct wsc *c = fvr_phone("127.0.0.1", F.port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    REQUIRE(c);
    r = ask_replay(c, code, sizeof code);
    CHECK(r && json_array_size(json_object_get(r, "questions")) == 2);
    json_decref(r);
    CHECK_INT(replay_vote(c, 1, 0, 1, code, sizeof code), 1);
    CHECK_INT(replay_vote(c, 2, 1, 0, code, sizeof code), 0);
    /* A page asks once; a client asking on and on is refused. */
    for (int i = 0; i < HUB_REPLAY_ASKS - 1; i++) json_decref(ask_replay(c, code, sizeof code));
    CHECK(ask_replay(c, code, sizeof code) == NULL);
    CHECK_STR(code, "busy");
    /* Screens do not play. */
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    REQUIRE(s);
    CHECK_INT(replay_vote(s, 5, 0, 1, code, sizeof code), -2);
    CHECK_STR(code, "forbidden");

    /* The live session is as it was; the replay's answers are apart. */
    char *after = live_rows();
    REQUIRE(after);
    CHECK_STR(after, before);
    CHECK_CONTAINS(before, "answer=1"); /* the dump holds the votes it compares */
    CHECK_INT(count_sql("SELECT count(*) FROM votes"), 3);
    CHECK_INT(count_sql("SELECT count(*) FROM voters"), 1);
    CHECK_INT(count_sql("SELECT count(*) FROM replay_votes"), 4);
    CHECK_INT(count_sql("SELECT count(DISTINCT token_hash) FROM replay_votes"), 2);
    CHECK_INT(count_sql("SELECT answer FROM replay_votes r JOIN questions q ON q.id = r.question_id "
                        "WHERE q.position = 0 AND r.token_hash = (SELECT token_hash FROM voters)"),
              0);
    free(before);
    free(after);
    wsc_close_all(a, c, s, p);
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_replay_after_the_talk);
    return check_summary();
}
