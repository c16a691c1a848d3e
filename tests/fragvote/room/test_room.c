/* The room: quiz transitions persisted to a real SQLite file, voters and
 * group-commit batches, resume after a restart. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "hubfix.h"
#include "check_probe.h"
#include "db.h"
#include "deck_fixture.h"
#include "room.h"

static struct deck deck;

static void make_deck(struct deck *d) {
    deck_fixture(d, "room deck");
    deck_fixture_test(d, PROBE_UDP4, PROBE_MODE_DO, 1400, DECK_FIXTURE_SENT | DECK_FIXTURE_DF);
    deck_fixture_test(d, PROBE_TCP4, PROBE_MODE_WANT, 2000, DECK_FIXTURE_FRAG);
}

static const char *dbfile(const char *name) { return check_tmp_path(name); }

/* The file of the test under way and its database: fresh() sets both;
 * err, the last refusal's reason. */
static const char *path;
static struct db *db;
static char err[256];

/* A room on the test deck with info (NULL: none) in the new file name. */
static struct room *fresh(const char *name, const struct room_info *info) {
    path = dbfile(name);
    return hubfix_room(path, &deck, info, &db);
}

/* The end of a test: its room and database closed. */
static void done(struct room *r) {
    room_free(r);
    db_close(db);
}

/* One text value from the file, through an independent connection. */
static const char *query(const char *path, const char *sql) {
    static char out[4096];
    out[0] = 0;
    sqlite3 *h;
    sqlite3_stmt *st;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return "(open failed)";
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    } else {
        snprintf(out, sizeof out, "(sql error %s)", sqlite3_errmsg(h));
    }
    sqlite3_close(h);
    return out;
}

static struct probe_result result(int sent, int df, int frag) {
    struct probe_result r = check_probe_result(sent, df, frag, "the evidence line");
    r.df.basis = PROBE_BASIS_INFERRED;
    r.egress.kernel_mtu = 1280;
    return r;
}

static void test_tokens_are_issued_by_their_room_only(void) {
    char a[ROOM_TOKEN_HEX + 1], b[ROOM_TOKEN_HEX + 1], c[ROOM_TOKEN_HEX + 1], err[256];
    path = dbfile("tokens.db");
    db = db_open(path, err, sizeof err);
    REQUIRE(db);
    struct room *r = room_create(db, &deck, NULL, err, sizeof err), *other = room_create(db, &deck, NULL, err, sizeof err);
    REQUIRE(r && other);
    REQUIRE(room_token_new(r, a, err, sizeof err) == 0);
    REQUIRE(room_token_new(r, b, err, sizeof err) == 0);
    REQUIRE(room_token_new(other, c, err, sizeof err) == 0);
    CHECK_INT(strlen(a), 32);
    CHECK(room_token_valid(a) && room_token_issued(r, a) && room_token_issued(r, b));
    CHECK(strcmp(a, b) != 0);
    CHECK(!room_token_issued(r, c));                        /* another session's */
    CHECK(room_token_valid("0123456789abcdef0123456789abcdef")); /* well-formed ... */
    CHECK(!room_token_issued(r, "0123456789abcdef0123456789abcdef")); /* ... but made up */
    char forged[ROOM_TOKEN_HEX + 1];
    memcpy(forged, a, sizeof forged);
    forged[ROOM_TOKEN_HEX - 1] = forged[ROOM_TOKEN_HEX - 1] == '0' ? '1' : '0'; /* one MAC digit off */
    CHECK(!room_token_issued(r, forged));
    memcpy(forged, a, sizeof forged);
    forged[0] = forged[0] == '0' ? '1' : '0'; /* another id under a's MAC */
    CHECK(!room_token_issued(r, forged));
    struct room_write w;
    CHECK_INT(room_write_plan_join(r, &w, "0123456789abcdef0123456789abcdef", 0, err, sizeof err), 1);
    CHECK_CONTAINS(err, "not a voter token of this room");
    /* a vote with a made-up token: refused unless the caller says it checked the token (the hub, at hello) */
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) == 0);
    CHECK_INT(room_write_plan(r, &w, -1, "0123456789abcdef0123456789abcdef", 0, 1, CONFIDENCE_NONE, 0, err, sizeof err), 1);
    CHECK_CONTAINS(err, "not a voter token of this room");
    CHECK_INT(room_write_plan(r, &w, ROOM_VOTER_CHECKED, "0123456789abcdef0123456789abcdef", 0, 1, CONFIDENCE_NONE, 0, err,
                              sizeof err), 0);
    CHECK_INT(w.voter, -1); /* new: the write would make it (the caller vouched for the token: no HMAC here) */
    CHECK_INT(room_write_plan_join(r, &w, c, 0, err, sizeof err), 1);
    REQUIRE(room_write_plan_join(r, &w, a, 0, err, sizeof err) == 0);
    CHECK_INT(room_write_commit(r, &w, 1, err, sizeof err), 0);
    CHECK(w.voter >= 0);
    CHECK(!room_token_valid(""));
    CHECK(!room_token_valid(NULL));
    CHECK(!room_token_valid("0123456789abcdef0123456789abcdeF"));  /* upper case */
    CHECK(!room_token_valid("0123456789abcdef0123456789abcde"));   /* short */
    CHECK(!room_token_valid("0123456789abcdef0123456789abcdef0")); /* long */
    /* After a restart the stored key still knows b, which never joined. */
    int64_t sid = room_session_id(r);
    room_free(r);
    r = room_resume(db, sid, &deck, err, sizeof err);
    REQUIRE(r);
    CHECK(room_token_issued(r, b) && room_token_issued(r, a));
    CHECK(!room_token_issued(r, c));
    room_free(r);
    room_free(other);
    db_close(db);
}

/* A session stored before tokens were keyed: resuming gives it a key, and
 * its voters (made-up tokens then) are still themselves. */
static void test_a_session_from_before_keyed_tokens_keeps_its_voters(void) {
    const char *old = "00112233445566778899aabbccddeeff";
    struct room *r = fresh("legacy.db", NULL);
    REQUIRE(r);
    int64_t sid = room_session_id(r);
    room_free(r);
    REQUIRE(db_voter_join(db, sid, old, err, sizeof err) > 0);
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE sessions SET token_key = NULL WHERE id = %lld", (long long)sid);
    sqlite3 *h;
    REQUIRE(sqlite3_open(path, &h) == SQLITE_OK);
    CHECK_INT(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    CHECK_STR(query(path, "SELECT count(*) FROM sessions WHERE token_key IS NULL"), "1");
    r = room_resume(db, sid, &deck, err, sizeof err);
    REQUIRE(r);
    CHECK_STR(query(path, "SELECT length(token_key) FROM sessions"), "64");
    CHECK(room_token_issued(r, old));
    CHECK(!room_token_issued(r, "ffeeddccbbaa99887766554433221100"));
    struct room_write w;
    REQUIRE(room_write_plan_join(r, &w, old, 0, err, sizeof err) == 0);
    CHECK_INT(room_write_commit(r, &w, 1, err, sizeof err), 0);
    CHECK_INT(w.voter, room_voter_find(r, old));
    CHECK_INT(room_voter_count(r), 1);
    done(r);
}

static void test_create_stores_session_and_questions_with_room_code(void) {
    struct room *r = fresh("create.db", &(struct room_info){.host = "laptop"});
    REQUIRE(r);
    CHECK_INT(strlen(room_code(r)), ROOM_CODE_LEN);
    for (const char *c = room_code(r); *c; c++) CHECK(strchr(ROOM_CODE_ALPHABET, *c) != NULL);
    CHECK_STR(query(path, "SELECT count(*) FROM questions"), "3");
    CHECK_STR(query(path, "SELECT group_concat(kind, ',') FROM (SELECT kind FROM questions ORDER BY position)"),
              "sent,df,fragmented");
    CHECK_STR(query(path, "SELECT room FROM sessions"), room_code(r));
    CHECK_STR(query(path, "SELECT host FROM sessions"), "laptop");
    CHECK_CONTAINS(query(path, "SELECT spec FROM questions WHERE position = 2"), "tcp4");
    done(r);
}

static void test_every_transition_and_the_cursor_are_persisted(void) {
    struct room *r = fresh("persist.db", NULL);
    REQUIRE(r);
    CHECK_INT(room_act(r, ROOM_OPEN, err, sizeof err), 0);
    CHECK_STR(query(path, "SELECT state FROM questions WHERE position = 0"), "voting");
    CHECK_STR(query(path, "SELECT opened_at IS NOT NULL FROM questions WHERE position = 0"), "1");
    CHECK_INT(room_act(r, ROOM_REVEAL, err, sizeof err), -1); /* refused: nothing written */
    CHECK_STR(query(path, "SELECT state FROM questions WHERE position = 0"), "voting");
    CHECK_INT(room_act(r, ROOM_CLOSE, err, sizeof err), 0);
    CHECK_INT(room_act(r, ROOM_MEASURE, err, sizeof err), QUIZ_MEASURE_PROBE);
    struct probe_result res = result(0, -1, -1);
    CHECK_INT(room_measured(r, 0, &res, err, sizeof err), 0);
    CHECK_STR(query(path, "SELECT state FROM questions WHERE position = 0"), "measured");
    CHECK_STR(query(path, "SELECT answer || '/' || basis || '/' || evidence FROM measurements"),
              "no/observed/the evidence line");
    CHECK_CONTAINS(query(path, "SELECT observation FROM measurements"), "\"kernel_mtu\":1280");
    CHECK_INT(room_act(r, ROOM_REVEAL, err, sizeof err), 0);
    /* not sent: the df question of that test is skipped, in the file too */
    CHECK_STR(query(path, "SELECT state FROM questions WHERE position = 1"), "skipped");
    CHECK_INT(room_act(r, ROOM_NEXT, err, sizeof err), 0);
    CHECK_STR(query(path, "SELECT cursor FROM sessions"), "2");
    CHECK_INT(room_act(r, ROOM_SKIP, err, sizeof err), 0);
    CHECK(quiz_ended(room_quiz(r)));
    CHECK_STR(query(path, "SELECT ended_at IS NOT NULL FROM sessions"), "1");
    done(r);
}

static void test_reused_measurement_is_stored_for_each_question(void) {
    struct room *r = fresh("reuse.db", NULL);
    REQUIRE(r);
    room_act(r, ROOM_OPEN, err, sizeof err);
    room_act(r, ROOM_CLOSE, err, sizeof err);
    room_act(r, ROOM_MEASURE, err, sizeof err);
    struct probe_result res = result(1, 1, 0);
    room_measured(r, 0, &res, err, sizeof err);
    room_act(r, ROOM_REVEAL, err, sizeof err);
    room_act(r, ROOM_NEXT, err, sizeof err);
    room_act(r, ROOM_OPEN, err, sizeof err);
    room_act(r, ROOM_CLOSE, err, sizeof err);
    CHECK_INT(room_act(r, ROOM_MEASURE, err, sizeof err), 0); /* same test: no probe */
    CHECK_STR(query(path, "SELECT answer || '/' || basis FROM measurements m JOIN questions q "
                          "ON q.id = m.question_id WHERE q.position = 1"),
              "yes/inferred");
    done(r);
}

static void test_batches_commit_joins_and_votes_together(void) {
    char err[256], t1[ROOM_TOKEN_HEX + 1], t2[ROOM_TOKEN_HEX + 1];
    struct room *r = fresh("batch.db", NULL);
    REQUIRE(r);
    room_token_new(r, t1, err, sizeof err);
    room_token_new(r, t2, err, sizeof err);
    struct room_write w[4];
    REQUIRE(room_write_plan_join(r, &w[0], t1, 0, err, sizeof err) == 0);
    REQUIRE(room_write_plan_join(r, &w[1], t2, 1, err, sizeof err) == 0);
    REQUIRE(room_write_plan_join(r, &w[2], t1, 2, err, sizeof err) == 0);
    CHECK_INT(room_write_plan_join(r, &w[3], "nonsense", 3, err, sizeof err), 1);
    CHECK_INT(room_write_plan(r, &w[3], -1, t1, 0, 1, CONFIDENCE_NONE, 3, err, sizeof err), 1); /* pending question */
    CHECK_INT(room_write_commit(r, w, 3, err, sizeof err), 0);
    int a = w[0].voter, b = w[1].voter;
    CHECK(a >= 0 && b >= 0 && a != b);
    CHECK_INT(w[2].voter, a); /* same token, same voter */
    CHECK_INT(room_voter_count(r), 2);
    CHECK_STR(query(path, "SELECT count(*) FROM voters"), "2");
    CHECK_INT(room_voter_find(r, t2), b);
    room_act(r, ROOM_OPEN, err, sizeof err);
    CHECK_INT(room_write_plan(r, &w[0], a, NULL, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err), 0);
    CHECK_INT(room_write_plan(r, &w[1], b, NULL, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err), 0);
    CHECK_INT(room_write_plan(r, &w[2], a, NULL, 0, 0, CONFIDENCE_NONE, 0, err, sizeof err), 0); /* changed in the same batch */
    CHECK_INT(room_write_plan(r, &w[3], a, NULL, 1, 0, CONFIDENCE_NONE, 0, err, sizeof err), 1);  /* not the open question */
    struct quiz_qinfo qi;
    quiz_get(room_quiz(r), 0, &qi);
    CHECK_INT(qi.yes + qi.no, 0); /* nothing counts before the commit */
    CHECK_INT(room_write_commit(r, w, 3, err, sizeof err), 0);
    quiz_get(room_quiz(r), 0, &qi);
    CHECK_INT(qi.yes, 1);
    CHECK_INT(qi.no, 1);
    CHECK_INT(room_voter_vote(r, a, 0), 0);
    CHECK_INT(room_voter_vote(r, b, 0), 1);
    CHECK_STR(query(path, "SELECT group_concat(answer, ',') FROM (SELECT answer FROM votes ORDER BY voter_id)"),
              "0,1");
    done(r);
}

/* The one "may this vote count" rule (room_vote_check): only the current
 * question, only while voting, never after the end; asked by the hub before
 * a vote joins a batch and again by the batch itself. */
static void test_a_vote_counts_only_on_the_current_open_question(void) {
    char err[256], tok[ROOM_TOKEN_HEX + 1];
    struct room *r = fresh("votecheck.db", NULL);
    REQUIRE(r);
    REQUIRE(room_token_new(r, tok, err, sizeof err) == 0);
    struct room_write w;
    CHECK_INT(room_vote_check(r, 0, err, sizeof err), -1);
    CHECK_CONTAINS(err, "question 1 is pending");
    CHECK_INT(room_write_plan(r, &w, -1, tok, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err), 1);
    CHECK_CONTAINS(err, "pending");
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) == 0);
    CHECK_INT(room_vote_check(r, 0, err, sizeof err), 0);
    CHECK_INT(room_write_plan(r, &w, -1, tok, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err), 0);
    CHECK_INT(room_vote_check(r, 1, err, sizeof err), -1); /* not the current one */
    CHECK_CONTAINS(err, "question 2 is pending");
    CHECK_INT(room_vote_check(r, 42, err, sizeof err), -1);
    CHECK_CONTAINS(err, "there is no question 43");
    CHECK_INT(room_vote_check(r, -1, err, sizeof err), -1);
    CHECK_CONTAINS(err, "there is no question 0");
    CHECK_INT(room_vote_check(r, 2147483648LL, err, sizeof err), -1); /* beyond an int: no wrap-around */
    CHECK_CONTAINS(err, "there is no question 2147483649");
    CHECK_INT(room_vote_check(r, 9223372036854775807LL, err, sizeof err), -1);
    CHECK_CONTAINS(err, "there is no question 9223372036854775807");
    REQUIRE(room_act(r, ROOM_CLOSE, err, sizeof err) == 0);
    CHECK_INT(room_vote_check(r, 0, err, sizeof err), -1);
    CHECK_CONTAINS(err, "closed");
    CHECK_INT(room_write_plan(r, &w, -1, tok, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err), 1);
    REQUIRE(room_act(r, ROOM_REVOTE, err, sizeof err) == 0); /* the second round is open again */
    CHECK_INT(room_vote_check(r, 0, err, sizeof err), 0);
    struct quiz *q = room_quiz(r);
    while (!quiz_ended(q)) REQUIRE(room_act(r, ROOM_SKIP, err, sizeof err) == 0);
    CHECK_INT(room_vote_check(r, quiz_count(q) - 1, err, sizeof err), -1);
    done(r);
}

/* The voters table no longer keeps a token to one voter (schema 6: no
 * index by token hash); the room does. A batch carrying a new token's
 * first vote twice, or twice alongside other new voters, stores one voter;
 * the next batch finds it in memory; a new voter whose vote the SQL
 * refused is still known to the room, so its next vote adds no second row. */
static void test_a_new_token_is_one_voter_within_and_across_batches(void) {
    char err[256], a[ROOM_TOKEN_HEX + 1], b[ROOM_TOKEN_HEX + 1], c[ROOM_TOKEN_HEX + 1];
    struct room *r = fresh("onevoter.db", NULL);
    REQUIRE(r);
    REQUIRE(room_token_new(r, a, err, sizeof err) == 0);
    REQUIRE(room_token_new(r, b, err, sizeof err) == 0);
    REQUIRE(room_token_new(r, c, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) == 0);
    struct room_write w[5];
    const char *tok[5] = {a, b, a, c, a}; /* a voted, changed its mind, changed it back */
    const int yes[5] = {1, 1, 0, 0, 1};
    for (int i = 0; i < 5; i++)
        REQUIRE(room_write_plan(r, &w[i], -1, tok[i], 0, yes[i], CONFIDENCE_NONE, i, err, sizeof err) == 0);
    REQUIRE(room_write_run(r, w, 5, 1000, err, sizeof err) == 0);
    for (int i = 0; i < 5; i++) CHECK_INT(w[i].result, 0);
    CHECK(w[0].new_id > 0);
    CHECK(w[2].new_id == w[0].new_id && w[4].new_id == w[0].new_id);
    CHECK(w[1].new_id != w[0].new_id && w[3].new_id != w[0].new_id && w[1].new_id != w[3].new_id);
    REQUIRE(room_write_apply(r, w, 5, err, sizeof err) == 0);
    CHECK_INT(room_voter_count(r), 3);
    CHECK_STR(query(path, "SELECT count(*) FROM voters"), "3");
    CHECK_STR(query(path, "SELECT count(*) FROM votes"), "3");
    CHECK_STR(query(path, "SELECT answer FROM votes WHERE voter_id = (SELECT min(id) FROM voters)"), "1");
    CHECK_INT(room_voter_vote(r, room_voter_find(r, a), 0), 1);

    /* the next batch: a is known (its index, not a new row) */
    REQUIRE(room_write_plan(r, &w[0], -1, a, 0, 0, CONFIDENCE_NONE, 0, err, sizeof err) == 0);
    CHECK_INT(w[0].voter, room_voter_find(r, a));
    REQUIRE(room_write_run(r, w, 1, 1000, err, sizeof err) == 0);
    REQUIRE(room_write_apply(r, w, 1, err, sizeof err) == 0);
    CHECK_STR(query(path, "SELECT count(*) FROM voters"), "3");

    /* a new voter whose vote the SQL refuses (the question closed between
     * the plan and the commit): its row is committed, and the room knows it */
    char d[ROOM_TOKEN_HEX + 1];
    REQUIRE(room_token_new(r, d, err, sizeof err) == 0);
    REQUIRE(room_write_plan(r, &w[0], -1, d, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err) == 0);
    REQUIRE(db_question_set_state(db, w[0].qid, "closed", err, sizeof err) == 0);
    REQUIRE(room_write_run(r, w, 1, 1000, err, sizeof err) == 0);
    CHECK_INT(w[0].result, 1);
    REQUIRE(room_write_apply(r, w, 1, err, sizeof err) == 0);
    CHECK(room_voter_find(r, d) >= 0);
    CHECK_INT(room_voter_count(r), 4);
    REQUIRE(db_question_set_state(db, w[0].qid, "voting", err, sizeof err) == 0);
    REQUIRE(room_write_plan(r, &w[0], -1, d, 0, 1, CONFIDENCE_NONE, 0, err, sizeof err) == 0);
    CHECK_INT(w[0].voter, room_voter_find(r, d));
    REQUIRE(room_write_run(r, w, 1, 1000, err, sizeof err) == 0);
    CHECK_INT(w[0].result, 0);
    CHECK_STR(query(path, "SELECT count(*) FROM voters"), "4");
    done(r);
}

static void test_resume_needs_the_same_deck(void) {
    struct room *r = fresh("resume.db", &(struct room_info){.code = "ABCDEF"});
    REQUIRE(r);
    int64_t sid = room_session_id(r);
    room_act(r, ROOM_OPEN, err, sizeof err);
    room_free(r);
    struct deck other = deck;
    other.tests[1].ask[QKIND_SENT] = 1; /* one question more */
    err[0] = 0;
    CHECK(room_resume(db, sid, &other, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "not the same deck");
    r = room_resume(db, sid, &deck, err, sizeof err);
    REQUIRE(r);
    CHECK_STR(room_code(r), "ABCDEF");
    struct quiz_qinfo qi;
    quiz_get(room_quiz(r), 0, &qi);
    CHECK_INT(qi.state, QUIZ_VOTING); /* still open after the restart */
    CHECK(room_resume(db, sid + 100, &deck, err, sizeof err) == NULL);
    done(r);
}

/* A remote prober's deck (issue 17): adopted while nothing has happened
 * (questions, title and stored deck replaced, the room code kept; a resume
 * reads the new deck back), afterwards only a deck with the same questions. */
static void test_a_probers_deck_is_adopted_until_the_session_starts(void) {
    char err[256] = "";
    remove(dbfile("adopt.db"));
    struct room *r = fresh("adopt.db", &(struct room_info){.code = "ADOPT2"});
    REQUIRE(r);
    struct deck other = deck;
    snprintf(other.title, sizeof other.title, "the laptop's deck");
    other.json = "{\"title\":\"the laptop's deck\"}";
    other.ntests = 3;
    other.tests[2].spec = (struct probe_spec){.proto = PROBE_UDP6, .mode = PROBE_MODE_DONT, .size = 1500, .ttl = 2};
    other.tests[2].ask[QKIND_SENT] = 1;
    int adopted = -1;
    REQUIRE(room_deck_adopt(r, &other, &adopted, err, sizeof err) == 0);
    CHECK_INT(adopted, 1);
    CHECK_INT(quiz_count(room_quiz(r)), 4);
    CHECK_STR(room_title(r), "the laptop's deck");
    CHECK_STR(room_code(r), "ADOPT2");
    CHECK_STR(query(path, "SELECT count(*) FROM questions"), "4");
    CHECK_STR(query(path, "SELECT deck || '|' || title FROM sessions"), "{\"title\":\"the laptop's deck\"}|the laptop's deck");
    CHECK_STR(query(path, "SELECT kind FROM questions WHERE position = 3"), "sent");
    /* voting opens: from now on only the same questions */
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) >= 0);
    adopted = -1;
    CHECK_INT(room_deck_adopt(r, &deck, &adopted, err, sizeof err), -1);
    CHECK_CONTAINS(err, "has started with deck 'the laptop's deck' (4 questions)");
    CHECK_INT(quiz_count(room_quiz(r)), 4);
    struct deck retargeted = other;
    snprintf(retargeted.title, sizeof retargeted.title, "another title");
    for (int t = 0; t < retargeted.ntests; t++) snprintf(retargeted.tests[t].spec.host, 16, "192.0.2.1");
    CHECK_INT(room_deck_adopt(r, &retargeted, &adopted, err, sizeof err), 0);
    CHECK_INT(adopted, 0);
    CHECK_STR(room_title(r), "the laptop's deck");
    struct deck bigger = other;
    bigger.tests[2].spec.size = 1501;
    CHECK_INT(room_deck_adopt(r, &bigger, &adopted, err, sizeof err), -1);
    int64_t id = room_session_id(r);
    room_free(r);
    r = room_resume(db, id, &other, err, sizeof err);
    CHECK(r != NULL);
    if (r) CHECK_INT(quiz_count(room_quiz(r)), 4);
    done(r);
}

int main(void) {
    make_deck(&deck);
    RUN(test_tokens_are_issued_by_their_room_only);
    RUN(test_a_session_from_before_keyed_tokens_keeps_its_voters);
    RUN(test_create_stores_session_and_questions_with_room_code);
    RUN(test_every_transition_and_the_cursor_are_persisted);
    RUN(test_reused_measurement_is_stored_for_each_question);
    RUN(test_batches_commit_joins_and_votes_together);
    RUN(test_a_vote_counts_only_on_the_current_open_question);
    RUN(test_a_new_token_is_one_voter_within_and_across_batches);
    RUN(test_resume_needs_the_same_deck);
    RUN(test_a_probers_deck_is_adopted_until_the_session_starts);
    return check_summary();
}
