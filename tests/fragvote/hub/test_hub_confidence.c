/* Confidence (issue 37, item 5: "confidently wrong, measured"): phones vote
 * with and without a confidence, change it until close, and a malformed one
 * is refused with a clear error; the ack carries it, and it is in the same
 * row as the answer. Nothing of the split reaches anyone before the reveal;
 * the reveal's split (and its headline), a re-vote's first round and how
 * confidence moved, and the final screen's calibration (share right per
 * level, Brier score) equal what SQL over the database says. A resumed room
 * keeps every confidence (a phone's welcome gives it back its own), and the
 * JSON export and `sessions --league` show the same calibration. The real
 * hub on a free loopback port, real phones, the real SQLite file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_fixture.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "confidence-test-secret"
#define NPHONES 12

static struct hubfix F;
static struct deck D;
static char dbpath[256];
static struct wsc *P[NPHONES];
static char tok0[64];

static int start(int64_t resume) {
    deck_fixture_one(&D, "confidence test", DECK_FIXTURE_DF | DECK_FIXTURE_FRAG); /* measured: DF yes, fragmented no */
    if (!resume) snprintf(dbpath, sizeof dbpath, "%s/confidence.db", check_tmpdir());
    return hubfix_start_yes_yes_no(&F, dbpath, &D, "CONFID", resume, SECRET, NULL);
}

static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

/* A vote with "confidence": conf (NULL: the key left out; "null": JSON null). */
static int vote(struct wsc *w, int id, int q, int yes, const char *conf, json_t **reply) {
    int rc;
    if (!conf) rc = wsc_send_json(w, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", id, "q", q, "yes", yes);
    else if (!strcmp(conf, "null"))
        rc = wsc_send_json(w, "{s:s, s:i, s:i, s:b, s:n}", "t", "vote", "id", id, "q", q, "yes", yes, "confidence");
    else
        rc = wsc_send_json(w, "{s:s, s:i, s:i, s:b, s:s}", "t", "vote", "id", id, "q", q, "yes", yes, "confidence",
                           conf);
    return rc < 0 ? -1 : fvr_vote_answer(w, id, T_MS, reply);
}

static long long sql_int(const char *sql) { return hubfix_sql_int(dbpath, sql); }

static double sql_double(const char *sql) { return hubfix_sql_double(dbpath, sql); }

/* The next state on w that carries a reveal (or ended, when want_end). */
static json_t *next_state(struct wsc *w, int want_end) {
    for (int i = 0; i < 40; i++) {
        json_t *m = wsc_recv_type(w, "state", T_MS);
        if (!m) return NULL;
        if (want_end ? json_is_true(json_object_get(m, "ended")) : json_object_get(m, "reveal") != NULL) return m;
        json_decref(m);
    }
    return NULL;
}

static json_t *level(json_t *split, const char *name) {
    json_t *levels = json_object_get(split, "levels");
    for (size_t i = 0; i < json_array_size(levels); i++) {
        json_t *l = json_array_get(levels, i);
        if (!strcmp(json_string_value(json_object_get(l, "level")), name)) return l;
    }
    return NULL;
}

/* The split of question pos's votes in table (votes / round_votes) by SQL
 * equals split: per level yes, no, and right under truth ('yes'/'no'). */
static void check_split_is_the_tables(json_t *split, const char *table, int pos, const char *truth) {
    static const char *const names[] = {"sure", "think_so", "guessing"};
    REQUIRE(split);
    for (int i = 0; i < 3; i++) {
        json_t *l = level(split, names[i]);
        REQUIRE(l);
        char sql[512];
        for (int yes = 0; yes <= 1; yes++) {
            snprintf(sql, sizeof sql,
                     "SELECT count(*) FROM %s v JOIN questions q ON q.id = v.question_id WHERE q.position = %d "
                     "AND v.confidence = '%s' AND v.answer = %d",
                     table, pos, names[i], yes);
            CHECK_INT(json_integer_value(json_object_get(l, yes ? "yes" : "no")), sql_int(sql));
        }
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM %s v JOIN questions q ON q.id = v.question_id WHERE q.position = %d "
                 "AND v.confidence = '%s' AND v.answer = %d",
                 table, pos, names[i], !strcmp(truth, "yes"));
        CHECK_INT(json_integer_value(json_object_get(l, "right")), sql_int(sql));
    }
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM %s v JOIN questions q ON q.id = v.question_id WHERE q.position = %d "
             "AND v.confidence IS NULL AND v.answer = 1",
             table, pos);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(split, "none"), "yes")), sql_int(sql));
}

/* The calibration over revealed questions, by SQL: per level votes and
 * right, and the Brier score computed in SQL from the documented
 * probabilities (not by score/confidence.c). */
#define CALIB_FROM                                                                                          \
    "FROM votes v JOIN questions q ON q.id = v.question_id JOIN question_truth t ON t.question_id = q.id "   \
    "WHERE q.state = 'revealed' AND t.truth IN ('yes', 'no') "
static void check_calibration_is_the_tables(json_t *cal) {
    static const char *const names[] = {"sure", "think_so", "guessing"};
    REQUIRE(cal);
    char sql[512];
    for (int i = 0; i < 3; i++) {
        json_t *l = level(cal, names[i]);
        REQUIRE(l);
        snprintf(sql, sizeof sql, "SELECT count(*) " CALIB_FROM "AND v.confidence = '%s'", names[i]);
        CHECK_INT(json_integer_value(json_object_get(l, "votes")), sql_int(sql));
        snprintf(sql, sizeof sql,
                 "SELECT count(*) " CALIB_FROM "AND v.confidence = '%s' AND (v.answer = 1) = (t.truth = 'yes')",
                 names[i]);
        CHECK_INT(json_integer_value(json_object_get(l, "right")), sql_int(sql));
    }
    CHECK_INT(json_integer_value(json_object_get(cal, "votes")),
              sql_int("SELECT count(*) " CALIB_FROM "AND v.confidence IS NOT NULL"));
    CHECK_INT(json_integer_value(json_object_get(cal, "without")),
              sql_int("SELECT count(*) " CALIB_FROM "AND v.confidence IS NULL"));
    double brier = sql_double("SELECT avg((p - o) * (p - o)) FROM (SELECT CASE v.confidence WHEN 'sure' THEN 0.9 "
                              "WHEN 'think_so' THEN 0.7 ELSE 0.5 END AS p, (v.answer = 1) = (t.truth = 'yes') AS o "
                              CALIB_FROM "AND v.confidence IS NOT NULL)");
    CHECK(brier > 0);
    CHECK(fabs(json_real_value(json_object_get(cal, "brier")) - brier) < 1e-9);
}

/* Question 1 (DF, measured yes): 7 sure (6 wrong), a think-so, two
 * guessing (one changed from sure), two without; malformed ones refused. */
static void play_question_1(struct wsc *p, struct wsc *s) {
    REQUIRE(step(p, "open") == 0);
    json_t *r = NULL;
    for (int i = 0; i < 6; i++) CHECK_INT(vote(P[i], 10 + i, 0, 0, "sure", NULL), 0);
    CHECK_INT(vote(P[6], 16, 0, 1, "sure", NULL), 0);
    CHECK_INT(vote(P[7], 17, 0, 1, "sure", NULL), 0);
    CHECK_INT(vote(P[7], 18, 0, 1, "guessing", &r), 0); /* changed until close, like the vote */
    REQUIRE(r);
    CHECK_STR(json_string_value(json_object_get(r, "confidence")), "guessing"); /* the ack says what was stored */
    json_decref(r);
    CHECK_INT(vote(P[8], 19, 0, 1, "think_so", NULL), 0);
    CHECK_INT(vote(P[9], 20, 0, 0, "guessing", NULL), 0);
    r = NULL;
    CHECK_INT(vote(P[10], 21, 0, 1, NULL, &r), 0); /* an old client: no confidence at all */
    REQUIRE(r);
    CHECK(json_object_get(r, "confidence") == NULL);
    json_decref(r);
    CHECK_INT(vote(P[11], 22, 0, 1, "null", NULL), 0);
    /* malformed: refused with a clear error, the vote stored before unchanged */
    r = NULL;
    CHECK_INT(vote(P[10], 23, 0, 0, "very", &r), 1);
    REQUIRE(r);
    CHECK_STR(json_string_value(json_object_get(r, "code")), "bad_vote");
    CHECK_CONTAINS(json_string_value(json_object_get(r, "message")), "\"sure\", \"think_so\" or \"guessing\"");
    json_decref(r);
    CHECK(wsc_send_json(P[11], "{s:s, s:i, s:i, s:b, s:i}", "t", "vote", "id", 24, "q", 0, "yes", 0, "confidence",
                        3) == 0);
    CHECK_INT(fvr_vote_answer(P[11], 24, T_MS, NULL), 1);
    CHECK_INT(sql_int("SELECT count(*) FROM votes"), 12);
    CHECK_INT(sql_int("SELECT count(*) FROM votes WHERE confidence IS NULL AND answer = 1"), 2);
    /* P[7]'s vote, its confidence changed: that is no changed answer */
    CHECK_INT(sql_int("SELECT changes FROM votes ORDER BY id LIMIT 1 OFFSET 7"), 0);
    REQUIRE(step(p, "close") == 0);
    REQUIRE(step(p, "measure") == 0);
    REQUIRE(hubfix_wait_state(&F, QUIZ_MEASURED) == 0);
    json_t *x;
    while ((x = wsc_recv_type(s, "never", 200))) json_decref(x);
    CHECK(!strstr(wsc_transcript(s), "\"confidence\"")); /* before the reveal: nothing of the split */
    CHECK(!strstr(wsc_transcript(s), "headline"));
    CHECK(!strstr(wsc_transcript(P[10]), "\"confidence\":{"));
    REQUIRE(step(p, "reveal") == 0);
    json_t *st = next_state(s, 0);
    REQUIRE(st);
    json_t *c = json_object_get(json_object_get(st, "reveal"), "confidence");
    check_split_is_the_tables(c, "votes", 0, "yes");
    CHECK_INT(json_integer_value(json_object_get(level(c, "sure"), "votes")), 7);
    CHECK_INT(json_integer_value(json_object_get(level(c, "sure"), "right")), 1);
    CHECK_STR(json_string_value(json_object_get(c, "headline")), "6 of the 7 who were sure were wrong");
    json_t *hm = json_object_get(c, "headline_msg"); /* the same as a message, which the pages word */
    CHECK_STR(json_string_value(json_object_get(hm, "key")), "headline.of");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(hm, "args"), "wrong")), 6);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(hm, "args"), "sure")), 7);
    CHECK(json_object_get(c, "first_round") == NULL);
    json_decref(st);
    REQUIRE(step(p, "next") == 0);
}

/* Question 2 (fragmented, measured no), re-voted: confidence moves. */
static void play_question_2(struct wsc *p, struct wsc *s) {
    REQUIRE(step(p, "open") == 0);
    for (int i = 0; i < 4; i++) CHECK_INT(vote(P[i], 30 + i, 1, 1, "sure", NULL), 0);
    CHECK_INT(vote(P[4], 34, 1, 0, "guessing", NULL), 0);
    REQUIRE(step(p, "close") == 0);
    REQUIRE(step(p, "revote") == 0);
    CHECK_INT(sql_int("SELECT count(*) FROM round_votes WHERE confidence = 'sure'"), 4); /* moved with the answer */
    CHECK_INT(vote(P[0], 40, 1, 0, "think_so", NULL), 0);
    CHECK_INT(vote(P[1], 41, 1, 0, "think_so", NULL), 0);
    CHECK_INT(vote(P[2], 42, 1, 1, "sure", NULL), 0);
    CHECK_INT(vote(P[3], 43, 1, 0, NULL, NULL), 0);
    CHECK_INT(vote(P[4], 44, 1, 0, "sure", NULL), 0);
    REQUIRE(step(p, "close") == 0);
    REQUIRE(step(p, "measure") == 0);
    REQUIRE(hubfix_wait_state(&F, QUIZ_MEASURED) == 0);
    REQUIRE(step(p, "reveal") == 0);
    json_t *st = next_state(s, 0);
    REQUIRE(st);
    json_t *c = json_object_get(json_object_get(st, "reveal"), "confidence");
    check_split_is_the_tables(c, "votes", 1, "no");
    check_split_is_the_tables(json_object_get(c, "first_round"), "round_votes", 1, "no");
    CHECK_STR(json_string_value(json_object_get(c, "moved")),
              "confidence after discussion: sure 4 \xe2\x86\x92 2 \xc2\xb7 think so 0 \xe2\x86\x92 2 \xc2\xb7 "
              "guessing 1 \xe2\x86\x92 0");
    CHECK(json_object_get(c, "headline") == NULL); /* 1 of 2 sure wrong: too few to bite */
    json_decref(st);
    REQUIRE(step(p, "next") == 0); /* past the last: the final screen */
}

static void test_confidence_through_the_room(void) {
    REQUIRE(start(0) == 0);
    char err[256];
    for (int i = 0; i < NPHONES; i++) {
        json_t *w = NULL;
        P[i] = fvr_phone("127.0.0.1", F.port, "CONFID", 1, NULL, T_MS, i ? NULL : &w, err, sizeof err);
        REQUIRE(P[i]);
        if (w) snprintf(tok0, sizeof tok0, "%s", json_string_value(json_object_get(w, "token")));
        json_decref(w);
    }
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(s && p);
    play_question_1(p, s);
    play_question_2(p, s);
    json_t *fin = next_state(s, 1);
    REQUIRE(fin);
    json_t *cal = json_object_get(fin, "calibration");
    check_calibration_is_the_tables(cal);
    CHECK_INT(json_integer_value(json_object_get(cal, "votes")), 10 + 4); /* Q1's 10, Q2's final 4 */
    char *final_text = json_dumps(cal, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(fin);
    for (int i = 0; i < NPHONES; i++) wsc_close(P[i], 1000);
    wsc_close_all(s, p);
    struct quiz_qinfo before[2];
    for (int i = 0; i < 2; i++) quiz_get(room_quiz(F.room), i, &before[i]);
    hubfix_stop(&F);

    /* Resumed: every split as it was, and a phone gets its own confidence back */
    REQUIRE(start(1) == 0);
    for (int i = 0; i < 2; i++) {
        struct quiz_qinfo q;
        quiz_get(room_quiz(F.room), i, &q);
        CHECK(!memcmp(&q.conf, &before[i].conf, sizeof q.conf));
        CHECK(!memcmp(&q.first_conf, &before[i].first_conf, sizeof q.first_conf));
    }
    json_t *w = NULL;
    struct wsc *again = fvr_phone("127.0.0.1", F.port, "CONFID", 1, tok0, T_MS, &w, err, sizeof err);
    REQUIRE(again && w);
    json_t *confs = json_object_get(w, "confidence");
    CHECK_STR(json_string_value(json_array_get(confs, 0)), "sure");
    CHECK_STR(json_string_value(json_array_get(confs, 1)), "think_so");
    json_decref(w);
    wsc_close(again, 1000);
    hubfix_stop(&F);

    /* The JSON export and the league show the same calibration */
    char args[600], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "export 1 --format json --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    json_t *root = json_loads(out ? out : "", 0, NULL);
    REQUIRE(root);
    json_t *sess = json_array_get(json_object_get(root, "sessions"), 0);
    char *export_text = json_dumps(json_object_get(sess, "calibration"), JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_STR(export_text, final_text);
    json_t *q0c = json_object_get(json_array_get(json_object_get(sess, "questions"), 0), "confidence");
    CHECK_STR(json_string_value(json_object_get(q0c, "headline")), "6 of the 7 who were sure were wrong");
    char brier[32];
    snprintf(brier, sizeof brier, "%.3f\n", json_real_value(json_object_get(json_object_get(sess, "calibration"),
                                                                             "brier")));
    json_decref(root);
    free(export_text);
    free(out);
    free(errs);
    snprintf(args, sizeof args, "sessions --league --db '%s'", dbpath);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "BRIER");
    CHECK_CONTAINS(out, brier);
    free(out);
    free(errs);
    /* the other formats and replay's timeline carry it too */
    static const char *const other[][2] = {
        {"export 1 --format csv", "\ncalibration,1,"},
        {"export 1 --format markdown", "| sure | 90% | 9 | 2 | 22% |"}, /* Q1: 1 of 7, Q2: 1 of 2 */
        {"export 1 --format svg", "<text class=\"calibration\""},
        {"replay 1", "6 of the 7 who were sure were wrong"},
    };
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        snprintf(args, sizeof args, "%s --db '%s'", other[i][0], dbpath);
        CHECK_INT(fx_run(args, &out, &errs), 0);
        CHECK_CONTAINS(out, other[i][1]);
        free(out);
        free(errs);
    }
    free(final_text);
}

int main(void) {
    RUN(test_confidence_through_the_room);
    return check_summary_and_clean();
}
