/* Retention: a session's voters deleted, its tallies and scores kept (see
 * db.h "retention" and docs/PRIVACY.md). */
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "db.h"
#include "db_internal.h"

/* One purge of session ?1 at time ?2, in this order, inside one savepoint:
 * what the reports need of the voters first (their score distribution and
 * their number), then the votes lose their voter, then the voters go. */
static const struct {
    const char *what, *sql;
} purge_steps[] = {
    {"keeping the purged voters' score distribution",
     DB_SQL_VOTER_CORRECT_S1 "INSERT INTO purged_scores(session_id, correct, voters) "
                             "SELECT ?1, correct, count(*) FROM per WHERE true GROUP BY correct "
                             "ON CONFLICT(session_id, correct) DO UPDATE SET voters = voters + excluded.voters"},
    {"counting the purged voters",
     "UPDATE sessions SET purged_voters = purged_voters + (SELECT count(*) FROM voters WHERE session_id = ?1), "
     "purged_at = ?2, token_key = NULL WHERE id = ?1"},
    {"detaching the final round's votes from their voters",
     "UPDATE votes SET voter_id = NULL WHERE voter_id IN (SELECT id FROM voters WHERE session_id = ?1)"},
    {"detaching the first round's votes from their voters",
     "UPDATE round_votes SET voter_id = NULL WHERE voter_id IN (SELECT id FROM voters WHERE session_id = ?1)"},
    {"forgetting the replay's token hashes",
     "UPDATE replay_votes SET token_hash = NULL WHERE question_id IN (SELECT id FROM questions WHERE session_id = ?1)"},
    {"deleting the voters", "DELETE FROM voters WHERE session_id = ?1"},
};

/* Runs sql once with ?1 = id and ?2 = now (where the statement has them);
 * 0 and the rows it changed in *changed (may be NULL), or -1 with err. */
static int run(struct db_sql_conn *c, const char *sql, int64_t id, double now, int *changed, const char *what,
               char *err, size_t errlen) {
    sqlite3 *h = db_sql_handle(c);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) return db_sql_fail(c, err, errlen, what);
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_bind_parameter_count(st) >= 2) sqlite3_bind_double(st, 2, now);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_sql_fail(c, err, errlen, what);
    if (changed) *changed = sqlite3_changes(h);
    return 0;
}

/* Whether session id has ended: 1 yes, 0 not yet, -1 no such session or an
 * error (err says which). */
static int session_ended(struct db_sql_conn *c, int64_t id, char *err, size_t errlen) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db_sql_handle(c), "SELECT ended_at IS NOT NULL FROM sessions WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return db_sql_fail(c, err, errlen, "reading a session");
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st), ended = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) db_seterr(err, errlen, "no session %lld in %s", (long long)id, db_sql_path(c));
    else if (rc != SQLITE_ROW) db_sql_fail(c, err, errlen, "reading a session");
    return ended;
}

/* The steps of one purge in a savepoint: 0 and the voters deleted in
 * *voters, or -1 with err (nothing changed). */
static int purge_one(struct db_sql_conn *c, int64_t id, int *voters, char *err, size_t errlen) {
    sqlite3 *h = db_sql_handle(c);
    if (sqlite3_exec(h, "SAVEPOINT purge", NULL, NULL, NULL) != SQLITE_OK)
        return db_sql_fail(c, err, errlen, "starting a purge");
    double now = db_now();
    for (size_t i = 0; i < sizeof purge_steps / sizeof *purge_steps; i++)
        if (run(c, purge_steps[i].sql, id, now, voters, purge_steps[i].what, err, errlen)) {
            sqlite3_exec(h, "ROLLBACK TO purge; RELEASE purge", NULL, NULL, NULL);
            return -1;
        }
    /* *voters now holds the last step's count: the voters deleted */
    if (sqlite3_exec(h, "RELEASE purge", NULL, NULL, NULL) != SQLITE_OK) {
        db_sql_fail(c, err, errlen, "committing a purge");
        sqlite3_exec(h, "ROLLBACK TO purge; RELEASE purge", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

/* secure_delete on (1) or back to what it was (0, with *was). */
static void secure_delete(struct db_sql_conn *c, int on, int *was) {
    sqlite3 *h = db_sql_handle(c);
    if (on) {
        sqlite3_stmt *st = NULL;
        *was = 0;
        if (sqlite3_prepare_v2(h, "PRAGMA secure_delete", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            *was = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        sqlite3_exec(h, "PRAGMA secure_delete = ON", NULL, NULL, NULL);
    } else {
        sqlite3_exec(h, *was ? "PRAGMA secure_delete = ON" : "PRAGMA secure_delete = OFF", NULL, NULL, NULL);
    }
}

/* After the purges: the write-ahead log, which still holds the pages as
 * they were before, copied into the file and cut to nothing. 1 done; 0
 * another connection (a running serve, a reader) kept part of it. */
static int scrub_log(struct db_sql_conn *c) {
    int log = 0, done = 0;
    int rc = sqlite3_wal_checkpoint_v2(db_sql_handle(c), "main", SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    return rc == SQLITE_OK;
}

int db_session_purge(struct db *db, int64_t session_id, struct db_purge *out, char *err, size_t errlen) {
    struct db_sql_conn *c = db_conn(db);
    memset(out, 0, sizeof *out);
    int ended = session_ended(c, session_id, err, errlen);
    if (ended < 0) return -1;
    if (!ended) {
        db_seterr(err, errlen,
                  "session %lld has not ended (it may be running): its voters are purged once it has "
                  "(`fragvote serve --resume %lld`, then quit)",
                  (long long)session_id, (long long)session_id);
        return 1;
    }
    int was;
    secure_delete(c, 1, &was);
    int rc = purge_one(c, session_id, &out->voters, err, errlen);
    secure_delete(c, 0, &was);
    if (rc) return -1;
    out->sessions = 1;
    out->scrubbed = scrub_log(c);
    return 0;
}

/* The ids of the ended sessions started before `before` and never purged,
 * into ids (at most max; *n of them), and how many started before it have
 * not ended into *running. 0, or -1 with err. */
static int purge_due(struct db_sql_conn *c, double before, int64_t *ids, int max, int *n, int *running, char *err,
                     size_t errlen) {
    sqlite3_stmt *st = NULL;
    *n = *running = 0;
    if (sqlite3_prepare_v2(db_sql_handle(c),
                           "SELECT id, ended_at IS NOT NULL FROM sessions WHERE started_at < ? AND purged_at IS NULL "
                           "ORDER BY id",
                           -1, &st, NULL) != SQLITE_OK)
        return db_sql_fail(c, err, errlen, "choosing the sessions to purge");
    sqlite3_bind_double(st, 1, before);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!sqlite3_column_int(st, 1)) (*running)++;
        else if (*n < max) ids[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_sql_fail(c, err, errlen, "choosing the sessions to purge");
    return 0;
}

int db_purge_before(struct db *db, double before, int (*fn)(int64_t id, int voters, void *arg), void *arg,
                    struct db_purge *out, char *err, size_t errlen) {
    struct db_sql_conn *c = db_conn(db);
    memset(out, 0, sizeof *out);
    int64_t ids[DB_PURGE_BATCH];
    int n, was, rc = 0;
    secure_delete(c, 1, &was);
    /* in batches: each purged session leaves the selection (purged_at) */
    do {
        if ((rc = purge_due(c, before, ids, DB_PURGE_BATCH, &n, &out->running, err, errlen))) break;
        for (int i = 0; i < n && !rc; i++) {
            int voters = 0;
            if ((rc = purge_one(c, ids[i], &voters, err, errlen))) break;
            out->sessions++;
            out->voters += voters;
            if (fn && fn(ids[i], voters, arg)) n = 0; /* stop after this one */
        }
    } while (!rc && n == DB_PURGE_BATCH);
    secure_delete(c, 0, &was);
    if (out->sessions) out->scrubbed = scrub_log(c);
    return rc ? -1 : 0;
}
