/* Retention (issue 39, docs/PRIVACY.md) on real SQLite files with the real
 * program: `fragvote sessions --purge` deletes a session's voters (rows,
 * token hashes, the token key; no vote keeps its voter) and the database
 * file no longer holds their token hashes, while every score, tally,
 * distribution and measurement reads as before: replay, export (JSON, CSV,
 * Markdown), the sessions list and the league print the same bytes.
 * --older-than leaves a newer session as it was, --session ID purges one, a
 * session that has not ended is never purged, `serve --retain DAYS` purges
 * at start, and `serve --resume` refuses a purged session. The sessions are
 * session_fixture.h's (hand-worked numbers) plus one with a re-vote. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "db.h"
#include "session_fixture.h"
#include "report.h"

#define OLD_DAYS 40 /* the old sessions' age; the purges ask for older than 30 */

static char dbfile[256];

/* One number from raw SQL on the file (its own connection), or -1. */
static long long raw_int(const char *sql) {
    sqlite3 *h;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(dbfile, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) return -1;
    sqlite3_busy_timeout(h, 5000);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
        else if (rc == SQLITE_DONE) v = 0; /* a write */
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static long long rawf(const char *fmt, long long id) {
    char sql[512];
    snprintf(sql, sizeof sql, fmt, id, id);
    return raw_int(sql);
}

/* Runs `fragvote CMD --db DBFILE` (cmd: a format with one %lld, id) and
 * checks its exit code and that stdout holds out_has and stderr err_has
 * (NULL: anything). */
static void run_expect(const char *cmd, long long id, int rc, const char *out_has, const char *err_has) {
    char c[512], args[1024], *out, *errs;
    snprintf(c, sizeof c, cmd, id);
    snprintf(args, sizeof args, "%s --db '%s'", c, dbfile);
    int got = fx_run(args, &out, &errs);
    CHECK_INT(got, rc);
    if (out_has) CHECK_CONTAINS(out, out_has);
    if (err_has) CHECK_CONTAINS(errs, err_has);
    if (check_cur_failed_) fprintf(stderr, "fragvote %s:\n%s%s", args, out ? out : "", errs ? errs : "");
    free(out);
    free(errs);
}

/* Makes session sid started `days` days ago. */
static void age(int64_t sid, int days) {
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE sessions SET started_at = started_at - %d * 86400.0 WHERE id = %lld", days,
             (long long)sid);
    CHECK_INT(raw_int(sql), 0);
}

/* The token hash fx_record gave voter i of session sid. */
static void fixture_hash(int64_t sid, int i, char out[65]) {
    char tok[40];
    snprintf(tok, sizeof tok, "%032x", 0xabc00 + i + (unsigned)(sid * 16));
    db_token_hash(tok, out);
}

/* Whether the bytes of path hold s. */
static int file_holds(const char *path, const char *s) {
    size_t n;
    char *b = check_read_file(path, &n);
    if (!b) return 0;
    int found = 0;
    size_t l = strlen(s);
    for (size_t i = 0; i + l <= n && !found; i++) found = !memcmp(b + i, s, l);
    free(b);
    return found;
}

/* A session of three voters on one question with a re-vote: round 1 yes 2
 * no 1, round 2 yes 1 no 2, truth no; ended. */
static int64_t record_revote(struct db *db) {
    char err[256];
    struct db_session_info info = {.title = "re-vote", .deck_json = "{}", .token_key = "00ff"};
    int64_t sid = db_session_create(db, &info, err, sizeof err), live = db_session_live_set(db, sid, err, sizeof err);
    int64_t q = fx_question(db, sid, 0, 0, "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400}", QKIND_SENT,
                            "sent?");
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        char tok[40];
        snprintf(tok, sizeof tok, "%032x", 0xfee0 + i);
        v[i] = db_voter_join(db, sid, tok, err, sizeof err);
    }
    static const int r1[6] = {1, 1, 0, -1, -1, -1}, r2[6] = {1, 0, 0, -1, -1, -1};
    if (fx_vote_round(db, q, v, r1) || db_question_set_state(db, q, "closed", err, sizeof err) ||
        db_question_revote(db, q, err, sizeof err) || fx_vote_round(db, q, v, r2) ||
        fx_finish(db, q, live, "no", "one packet, MF=0") || db_session_end(db, sid, err, sizeof err)) {
        fprintf(stderr, "record_revote: %s\n", err);
        return -1;
    }
    return sid;
}

/* What the program prints about session sid: replay, three exports, and
 * the sessions list and league of the whole file, concatenated. */
static char *outputs(int64_t sid) {
    static const char *const cmds[] = {"replay %lld", "export %lld --format json", "export %lld --format csv",
                                       "export %lld --format markdown", "sessions", "sessions --league"};
    size_t cap = 1, len = 0;
    char *all = calloc(1, cap);
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds && all; i++) {
        char args[512], cmd[128], *out = NULL;
        snprintf(cmd, sizeof cmd, cmds[i], (long long)sid);
        snprintf(args, sizeof args, "%s --db '%s'", cmd, dbfile);
        int rc = fx_run(args, &out, NULL);
        CHECK_INT(rc, 0);
        size_t n = out ? strlen(out) : 0;
        char *na = realloc(all, cap + n + strlen(cmd) + 4);
        if (na) {
            all = na;
            len += (size_t)sprintf(all + len, "$ %s\n%s", cmd, out ? out : "");
            cap = len + 1;
        } else {
            free(all);
            all = NULL;
        }
        free(out);
    }
    return all;
}

/* The report of sid as the reader sees it; 0, or -1. */
static int load(int64_t sid, struct db_report_session *rs) {
    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    struct db_report *r = db ? db_report_open(db, err, sizeof err) : NULL;
    int rc = r ? db_report_session_load(db, r, sid, rs, err, sizeof err) : -1;
    if (rc) fprintf(stderr, "load: %s\n", err);
    db_report_close(r);
    db_close(db);
    return rc;
}

/* A new file of the test's (dbfile, fx_path(name)) opened; NULL after
 * printing why. */
static struct db *open_new(const char *name) {
    char err[256];
    snprintf(dbfile, sizeof dbfile, "%s", fx_path(name));
    struct db *db = db_open(dbfile, err, sizeof err);
    if (!db) fprintf(stderr, "%s: %s\n", dbfile, err);
    return db;
}

static void test_purge_keeps_scores_and_deletes_voters(void) {
    char err[256];
    int64_t qids[FX_NQ];
    struct db *db = open_new("retention.db");
    REQUIRE(db);
    int64_t old = fx_record(db, FX_TITLE, qids), old_voter = fx_last_voters[0];
    /* a phone played the old session's replay (docs/SERVE.md "After the talk") */
    int stored = -1, added = 0;
    char replay_hash[65];
    db_token_hash("0123456789abcdef0123456789abcdef", replay_hash);
    CHECK(db_replay_vote_put(db, qids[0], replay_hash, 1, &stored, &added, err, sizeof err) == DB_VOTE_OK && added);
    int64_t revote = record_revote(db);
    int64_t newer = fx_record(db, "newer", qids);
    db_close(db);
    REQUIRE(old > 0 && revote > 0 && newer > 0);
    age(old, OLD_DAYS);
    age(revote, OLD_DAYS);
    char hash[65];
    fixture_hash(old, 0, hash);
    CHECK(file_holds(dbfile, hash) || file_holds(fx_path("retention.db-wal"), hash)); /* it can fail below */

    struct db_report_session before, before_rv;
    REQUIRE(load(old, &before) == 0 && load(revote, &before_rv) == 0);
    char *out_before = outputs(old), *rv_before = outputs(revote);
    REQUIRE(out_before && rv_before);

    char args[512], *out, *errs;
    snprintf(args, sizeof args, "sessions --purge --older-than 30 --db '%s'", dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    char line[160];
    snprintf(line, sizeof line, "Purged session %lld: 6 voters deleted", (long long)old);
    CHECK_CONTAINS(out, line);
    snprintf(line, sizeof line, "Purged session %lld: 3 voters deleted", (long long)revote);
    CHECK_CONTAINS(out, line);
    CHECK_CONTAINS(out, "Purged 2 sessions, 9 voters in all.");
    CHECK(out && !strstr(out, "Note:")); /* nothing else had the file open: the log was emptied */
    free(out);
    free(errs);

    /* the voters are gone, every vote stays without one */
    const char *in_q = "(SELECT id FROM questions WHERE session_id = %lld)";
    char sql[256];
    CHECK_INT(rawf("SELECT count(*) FROM voters WHERE session_id = %lld", old), 0);
    CHECK_INT(rawf("SELECT count(*) FROM voters WHERE session_id = %lld", revote), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM votes WHERE question_id IN %s", in_q);
    CHECK_INT(rawf(sql, old), 16); /* the fixture's 5 + 5 + 4 + 2 */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM votes WHERE voter_id IS NOT NULL AND question_id IN %s", in_q);
    CHECK_INT(rawf(sql, old), 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM round_votes WHERE voter_id IS NULL AND question_id IN %s", in_q);
    CHECK_INT(rawf(sql, revote), 3);
    CHECK_INT(rawf("SELECT count(*) FROM sessions WHERE id = %lld AND token_key IS NULL", revote), 1);
    /* the replay's answer stays, its token's hash goes */
    snprintf(sql, sizeof sql, "SELECT count(*) FROM replay_votes WHERE token_hash IS NULL AND question_id IN %s", in_q);
    CHECK_INT(rawf(sql, old), 1);
    CHECK_INT(rawf("SELECT count(*) FROM replay_votes WHERE token_hash IS NOT NULL", 0LL), 0);
    CHECK_INT(rawf("SELECT count(*) FROM sessions WHERE id = %lld AND purged_at > 0", old), 1);
    CHECK(!file_holds(dbfile, hash));
    CHECK(!file_holds(fx_path("retention.db-wal"), hash));
    /* the newer session is as it was */
    CHECK_INT(rawf("SELECT count(*) FROM voters WHERE session_id = %lld", newer), 6);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM votes WHERE voter_id IS NOT NULL AND question_id IN %s", in_q);
    CHECK_INT(rawf(sql, newer), 16);
    CHECK_INT(rawf("SELECT count(*) FROM sessions WHERE id = %lld AND purged_at IS NULL", newer), 1);
    fixture_hash(newer, 0, hash);
    CHECK(file_holds(dbfile, hash) || file_holds(fx_path("retention.db-wal"), hash));

    /* the same numbers, and the same bytes out of every command */
    struct db_report_session after;
    REQUIRE(load(old, &after) == 0);
    CHECK_INT(after.score.voters, FX_VOTERS);
    CHECK(after.score.collective == FX_COLLECTIVE && after.score.vote_accuracy == FX_VOTE_ACCURACY);
    CHECK_INT(after.score.votes_scored, FX_VOTES_SCORED);
    CHECK_INT(after.dist.voters_unscored, FX_UNSCORED_VOTERS);
    for (int k = 0; k < 4; k++) CHECK_INT(after.dist.voters[k], fx_dist[k]);
    REQUIRE(after.nquestions == FX_NQ);
    for (int i = 0; i < FX_NQ; i++) {
        CHECK_INT(after.questions[i].yes, fx_q[i].yes);
        CHECK_INT(after.questions[i].no, fx_q[i].no);
        CHECK_INT(after.questions[i].changes, before.questions[i].changes);
        CHECK_STR(after.questions[i].live.evidence, before.questions[i].live.evidence);
    }
    CHECK_INT(after.nsets, 2);
    char *out_after = outputs(old), *rv_after = outputs(revote);
    CHECK_STR(out_after, out_before);
    CHECK_STR(rv_after, rv_before);
    struct db_report_session after_rv;
    if (load(revote, &after_rv) == 0) {
        CHECK_INT(after_rv.questions[0].first_yes, 2);
        CHECK_INT(after_rv.questions[0].first_no, 1);
        CHECK_INT(after_rv.questions[0].yes, 1);
        CHECK_INT(after_rv.questions[0].no, 2);
        CHECK_INT(after_rv.score.voters, 3);
        db_report_session_free(&after_rv);
    }
    /* a per-voter score has nobody left to be about */
    db = db_open(dbfile, err, sizeof err);
    struct db_vscore vs;
    CHECK(db && db_voter_score(db, old_voter, &vs, err, sizeof err) < 0);
    db_close(db);
    free(out_after);
    free(rv_after);
    free(out_before);
    free(rv_before);
    db_report_session_free(&before);
    db_report_session_free(&before_rv);
    db_report_session_free(&after);
}

static void test_purge_one_and_never_a_running_session(void) {
    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    REQUIRE(db);
    struct db_session_info info = {.title = "running", .deck_json = "{}"};
    int64_t running = db_session_create(db, &info, err, sizeof err);
    CHECK(running > 0 && db_voter_join(db, running, "0123456789abcdef0123456789abcdef", err, sizeof err) > 0);
    db_close(db);
    age(running, OLD_DAYS);
    run_expect("sessions --purge --session %lld", running, 1, NULL, "has not ended");
    run_expect("sessions --purge", 0, 0, "Left alone: 1 session old enough that never ended", NULL);
    CHECK_INT(rawf("SELECT count(*) FROM voters WHERE session_id = %lld", running), 1);
    /* the plain --purge took the newer session too; --session purges one again harmlessly */
    CHECK_INT(raw_int("SELECT count(*) FROM voters WHERE session_id IN (SELECT id FROM sessions WHERE title = 'newer')"), 0);
    run_expect("sessions --purge --session %lld", 1, 0, "Purged session 1: 0 voters deleted", NULL);
    run_expect("sessions --purge --session %lld", 999, 7, NULL, "no session 999");
    static const struct fx_misuse bad[] = {
        {"sessions --older-than 3", 2, "go with --purge"},
        {"sessions --purge --older-than 3 --session 1", 2, "not both"},
        {"sessions --purge --league", 2, "do not go together"},
        {"sessions --purge --older-than -1", 2, "--older-than wants"},
        {"sessions --purge --session x", 2, "--session wants"},
    };
    fx_check_misuse(bad, sizeof bad / sizeof *bad, dbfile);
}

/* serve on loopback (no lab, no root) with a script that quits at once,
 * then `extra` (which may hold the one %lld of run_expect). */
static void serve_expect(const char *extra, long long id, int rc, const char *out_has, const char *err_has) {
    const char *script = fx_path("quit.txt");
    FILE *f = fopen(script, "w");
    if (f) {
        fputs("quit\n", f);
        fclose(f);
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "serve --port 0 --bind 127.0.0.1 --target 127.0.0.1 --no-qr --no-prefetch --script '%s' %s",
             script, extra);
    run_expect(cmd, id, rc, out_has, err_has);
}

static void test_serve_retain_purges_at_start(void) {
    int64_t qids[FX_NQ];
    struct db *db = open_new("retain.db");
    REQUIRE(db);
    int64_t old = fx_record(db, "old", qids), recent = fx_record(db, "recent", qids);
    db_close(db);
    REQUIRE(old > 0 && recent > 0);
    age(old, OLD_DAYS);
    char line[160];
    snprintf(line, sizeof line, "Purged session %lld: 6 voters deleted", (long long)old);
    serve_expect("--retain 30", 0, 0, line, NULL);
    CHECK_INT(rawf("SELECT count(*) FROM voters WHERE session_id = %lld", old), 0);
    CHECK_INT(rawf("SELECT count(*) FROM voters WHERE session_id = %lld", recent), 6);
    CHECK_INT(raw_int("SELECT count(*) FROM sessions"), 3); /* serve recorded its own */
    /* a purged session cannot go on */
    serve_expect("--resume %lld", old, 2, NULL, "had its voters purged");
    static const struct fx_misuse bad[] = {{"serve --retain x", 2, "--retain wants"}};
    fx_check_misuse(bad, 1, dbfile);
}

int main(void) {
    RUN(test_purge_keeps_scores_and_deletes_voters);
    RUN(test_purge_one_and_never_a_running_session);
    RUN(test_serve_retain_purges_at_start);
    return check_summary_and_clean();
}
