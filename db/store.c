/* The SQLite store: open/migrate, prepared statements, writes and scores. */
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "db_ckpt.h"
#include "db_internal.h"
#include "db_sql.h"
#include "score.h"

extern const char db_schema_sql[];

/* Every statement the store runs more than once, prepared at open. */
#define DB_STATEMENTS(X)                                                                              \
    X(session_insert, "INSERT INTO sessions(title, deck, host, kernel, observer, target, lab, room, "  \
                      "started_at, token_key) VALUES (?,?,?,?,?,?,?,?,?,?)")                         \
    X(session_key, "UPDATE sessions SET token_key = ? WHERE id = ?")                                 \
    X(session_cursor, "UPDATE sessions SET cursor = ? WHERE id = ?")                                \
    X(session_end, "UPDATE sessions SET ended_at = ? WHERE id = ?")                                  \
    X(session_get, DB_SQL_SESSION_SELECT "WHERE (?1 = 0 OR id = ?1) ORDER BY id")                      \
    X(live_set, "SELECT id FROM measurement_sets WHERE session_id = ? AND kind = 'live' ORDER BY id LIMIT 1") \
    X(question_insert, "INSERT INTO questions(session_id, position, test_index, spec, kind, text) "   \
                       "VALUES (?,?,?,?,?,?)")                                                        \
    X(question_state, "UPDATE questions SET state = ?1, "                                             \
                      "opened_at = CASE WHEN ?1 = 'voting' THEN coalesce(opened_at, ?2) ELSE opened_at END, " \
                      "closed_at = CASE WHEN ?1 = 'closed' THEN coalesce(closed_at, ?2) ELSE closed_at END, " \
                      "revealed_at = CASE WHEN ?1 = 'revealed' THEN coalesce(revealed_at, ?2) ELSE revealed_at END " \
                      "WHERE id = ?3")                                                                \
    X(question_measuring, "UPDATE questions SET measuring = ? WHERE id = ?")                           \
    X(voter_find, "SELECT id FROM voters WHERE session_id = ? AND token_hash = ?")                    \
    X(voter_insert, "INSERT INTO voters(session_id, token_hash, joined_at) VALUES (?,?,?)")           \
    X(vote_upsert, "INSERT INTO votes(question_id, voter_id, answer, voted_at, confidence) "          \
                   "SELECT q.id, vr.id, ?3, ?4, ?5 FROM questions q JOIN voters vr "                  \
                   "ON vr.session_id = q.session_id WHERE q.id = ?1 AND vr.id = ?2 AND q.state = 'voting' " \
                   "ON CONFLICT(question_id, voter_id) DO UPDATE SET "                                \
                   "changes = changes + (answer != excluded.answer), answer = excluded.answer, "     \
                   "voted_at = excluded.voted_at, confidence = excluded.confidence")                 \
    X(question_state_get, "SELECT state FROM questions WHERE id = ?")                                 \
    X(question_revote, "UPDATE questions SET round = 2, state = 'voting', revoted_at = ?2 "            \
                       "WHERE id = ?1 AND state = 'closed' AND round = 1")                            \
    X(round_archive, "INSERT INTO round_votes(question_id, voter_id, round, answer, voted_at, changes, confidence) " \
                     "SELECT question_id, voter_id, 1, answer, voted_at, changes, confidence FROM votes "  \
                     "WHERE question_id = ?")                                                          \
    X(round_clear, "DELETE FROM votes WHERE question_id = ?")                                         \
    X(vote_get, "SELECT answer FROM votes WHERE question_id = ? AND voter_id = ?")                    \
    X(set_insert, "INSERT INTO measurement_sets(session_id, kind, host, kernel, target, lab, created_at) " \
                  "VALUES (?,?,?,?,?,?,?)")                                                           \
    X(measurement_insert, "INSERT INTO measurements(set_id, question_id, answer, basis, evidence, "   \
                          "observation, observer, measured_at) VALUES (?,?,?,?,?,?,?,?)")             \
    X(qscore, "SELECT yes, no, coalesce(truth, ''), coalesce(majority, ''), coalesce(correct, -1) "   \
              "FROM question_score WHERE question_id = ?")                                            \
    X(sscore, "SELECT (SELECT count(*) FROM questions WHERE session_id = ?1), "                       \
              "count(correct), coalesce(avg(correct), -1), "                                          \
              "coalesce(sum(CASE WHEN truth IN ('yes','no') THEN total END), 0), "                    \
              "coalesce(sum(correct_votes), 0), "                                                     \
              DB_SQL_VOTERS_OF_S1 " "                                                                 \
              "FROM question_score WHERE session_id = ?1")                                            \
    X(vscore, "SELECT (SELECT count(*) FROM votes WHERE voter_id = ?1), scored, correct "             \
              "FROM voter_score WHERE voter_id = ?1")

struct db {
    struct db_sql_conn c; /* first: db_sql_open/db_sql_close */
    DB_STATEMENTS(DB_SQL_MEMBER)
    struct db_ckpt *ckpt; /* the checkpointer's connection and thread, if opened (ckpt.c) */
    struct db_report *report; /* the held report reader, if any (report.c) */
};
#define DB_SQL_OWNER struct db
static const struct db_sql_stmt db_statements[] = {DB_STATEMENTS(DB_SQL_ENTRY)};

void db_seterr(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

double db_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1000.0;
}

const char *db_path(const struct db *db) { return db->c.path; }

void db_set_busy_timeout(struct db *db, int ms) { sqlite3_busy_timeout(db->c.h, ms); }

/* Finds the "-- migration: N" markers; returns the text after the marker of
 * version `want` (up to the next marker) via start and len, or 0 if absent. */
static int find_migration(int want, const char **start, size_t *len) {
    const char *mark = "-- migration: ";
    const char *p = db_schema_sql;
    while ((p = strstr(p, mark))) {
        int v = atoi(p + strlen(mark));
        const char *body = strchr(p, '\n');
        if (!body) return 0;
        const char *next = strstr(body, mark);
        if (v == want) {
            *start = body;
            *len = next ? (size_t)(next - body) : strlen(body);
            return 1;
        }
        p = body;
    }
    return 0;
}

int db_schema_latest(void) {
    int v = 0;
    const char *s;
    size_t l;
    while (find_migration(v + 1, &s, &l)) v++;
    return v;
}

static int exec(struct db *db, const char *sql, char *err, size_t errlen, const char *what) {
    char *msg = NULL;
    if (sqlite3_exec(db->c.h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        db_seterr(err, errlen, "%s failed in %s: %s", what, db->c.path, msg ? msg : sqlite3_errmsg(db->c.h));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int read_version(struct db *db, int *version, char *err, size_t errlen) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->c.h, "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'", -1,
                                &st, NULL);
    if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return db_sql_fail(&db->c, err, errlen, "reading the schema version");
    }
    int exists = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    *version = 0;
    if (!exists) return 0;
    if (sqlite3_prepare_v2(db->c.h, "SELECT version FROM schema_version", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return db_sql_fail(&db->c, err, errlen, "reading the schema version");
    }
    *version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* Migrations run with foreign keys off (store_setup turns them on after):
 * a table rebuilt the way SQLite's ALTER TABLE documentation says (new
 * table, copy, drop, rename; migration 6) must not cascade its DROP into
 * the rows that refer to it. So each migration ends by checking that every
 * reference still holds. 0, or -1 with err (the migration is rolled back). */
static int foreign_keys_hold(struct db *db, const char *what, char *err, size_t errlen) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->c.h, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK)
        return db_sql_fail(&db->c, err, errlen, what);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        db_seterr(err, errlen, "%s: a row of %s refers to a missing row of %s", what,
                  (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 2));
    else if (rc != SQLITE_DONE)
        db_sql_fail(&db->c, err, errlen, what);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int migrate(struct db *db, char *err, size_t errlen) {
    int version = 0, latest = db_schema_latest();
    if (read_version(db, &version, err, errlen)) return -1;
    if (version > latest) {
        db_seterr(err, errlen,
               "%s was written by a newer fragvote (schema version %d; this build knows up to %d): "
               "upgrade fragvote or use another --db file",
               db->c.path, version, latest);
        return -1;
    }
    for (int v = version + 1; v <= latest; v++) {
        const char *body = NULL;
        size_t len = 0;
        if (!find_migration(v, &body, &len)) {
            db_seterr(err, errlen, "schema migration to version %d is missing from this build", v);
            return -1;
        }
        char *sql = malloc(len + 64);
        if (!sql) {
            db_seterr(err, errlen, "out of memory migrating %s", db->c.path);
            return -1;
        }
        memcpy(sql, body, len);
        snprintf(sql + len, 64, "\nUPDATE schema_version SET version = %d;", v);
        char what[64];
        snprintf(what, sizeof what, "schema migration to version %d", v);
        int rc = exec(db, "BEGIN IMMEDIATE", err, errlen, what);
        if (!rc) rc = exec(db, sql, err, errlen, what);
        if (!rc) rc = foreign_keys_hold(db, what, err, errlen);
        if (!rc) rc = exec(db, "COMMIT", err, errlen, what);
        free(sql);
        if (rc) {
            sqlite3_exec(db->c.h, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    return 0;
}

/* What the store checks and sets on the file before its statements. */
static int store_setup(void *owner, char *err, size_t errlen) {
    struct db *db = owner;
    if (sqlite3_db_readonly(db->c.h, "main") == 1) {
        db_seterr(err, errlen, "database %s is read-only: fragvote must write every vote; "
               "fix its permissions or choose another file with --db", db->c.path);
        return -1;
    }
    sqlite3_extended_result_codes(db->c.h, 1);
    /* WAL + synchronous=NORMAL: a commit is durable against a crash of
     * fragvote (the kill -9 case); a power loss may lose the last commits.
     * See docs/SCORING.md "Durability". */
    if (exec(db, "PRAGMA journal_mode=WAL", err, errlen, "opening the database (is it a fragvote database?)") ||
        exec(db, "PRAGMA synchronous=NORMAL", err, errlen, "configuring the database") ||
        migrate(db, err, errlen) || /* foreign keys still off: see foreign_keys_hold */
        exec(db, "PRAGMA foreign_keys=ON", err, errlen, "configuring the database"))
        return -1;
    return 0;
}

struct db *db_open(const char *path, char *err, size_t errlen) {
    return db_sql_open(sizeof(struct db), path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, store_setup,
                       db_statements, DB_SQL_N(db_statements), "statement", err, errlen);
}

void db_close(struct db *db) {
    if (db && *db_report_slot(db)) {
        /* Files held (db_hold_files): SQLite's own checkpoint at the last
         * close first checks the file's path, which a process that dropped
         * privileges may no longer reach, and then skips it. So the whole log
         * goes into the file here, and the log is emptied. */
        db_ckpt_stop(db);
        db_report_unhold(db);
        sqlite3_wal_checkpoint_v2(db->c.h, "main", SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    }
    if (db) db_ckpt_stop(db);
    db_sql_close(db, db_statements, DB_SQL_N(db_statements));
}

struct db_sql_conn *db_conn(struct db *db) { return &db->c; }
struct db_ckpt **db_ckpt_slot(struct db *db) { return &db->ckpt; }
struct db_report **db_report_slot(struct db *db) { return &db->report; }

int db_version(struct db *db) {
    int v = -1;
    read_version(db, &v, NULL, 0);
    return v;
}

int db_begin(struct db *db, char *err, size_t errlen) { return exec(db, "BEGIN IMMEDIATE", err, errlen, "BEGIN"); }
int db_commit(struct db *db, char *err, size_t errlen) { return exec(db, "COMMIT", err, errlen, "COMMIT"); }
void db_rollback(struct db *db) { sqlite3_exec(db->c.h, "ROLLBACK", NULL, NULL, NULL); }

/* Runs a prepared write statement to completion; resets it either way. */
static int step_done(struct db *db, sqlite3_stmt *st, char *err, size_t errlen, const char *what) {
    int rc = sqlite3_step(st);
    int ok = rc == SQLITE_DONE;
    if (!ok) db_sql_fail(&db->c, err, errlen, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ok ? 0 : -1;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s) {
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

int64_t db_session_create(struct db *db, const struct db_session_info *in, char *err, size_t errlen) {
    if (!in->title || !in->deck_json) {
        db_seterr(err, errlen, "a session needs a title and a deck");
        return -1;
    }
    sqlite3_stmt *st = db->session_insert;
    bind_text(st, 1, in->title);
    bind_text(st, 2, in->deck_json);
    bind_text(st, 3, in->host ? in->host : "");
    bind_text(st, 4, in->kernel ? in->kernel : "");
    bind_text(st, 5, in->observer ? in->observer : "");
    bind_text(st, 6, in->target ? in->target : "");
    bind_text(st, 7, in->lab_json);
    bind_text(st, 8, in->room ? in->room : "");
    sqlite3_bind_double(st, 9, db_now());
    bind_text(st, 10, in->token_key);
    if (step_done(db, st, err, errlen, "creating a session")) return -1;
    int64_t id = sqlite3_last_insert_rowid(db->c.h);
    if (db_measurement_set_add(db, id, "live", in->host, in->kernel, in->target, in->lab_json, err, errlen) < 0)
        return -1;
    return id;
}

int db_session_set_cursor(struct db *db, int64_t session_id, int position, char *err, size_t errlen) {
    sqlite3_bind_int(db->session_cursor, 1, position);
    sqlite3_bind_int64(db->session_cursor, 2, session_id);
    return step_done(db, db->session_cursor, err, errlen, "saving the current question");
}

int db_session_set_token_key(struct db *db, int64_t session_id, const char *key_hex, char *err, size_t errlen) {
    bind_text(db->session_key, 1, key_hex);
    sqlite3_bind_int64(db->session_key, 2, session_id);
    return step_done(db, db->session_key, err, errlen, "saving the session's token key");
}

/* One statement prepared for this call (rare writes: not worth a slot in struct db). */
static int exec_bound(struct db *db, const char *sql, int64_t id, const char *a, const char *b, char *err,
                      size_t errlen, const char *what) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->c.h, sql, -1, &st, NULL) != SQLITE_OK) {
        db_sql_fail(&db->c, err, errlen, what);
        return -1;
    }
    int n = 1;
    if (a) bind_text(st, n++, a);
    if (b) bind_text(st, n++, b);
    sqlite3_bind_int64(st, n, id);
    int rc = step_done(db, st, err, errlen, what);
    sqlite3_finalize(st);
    return rc;
}

int db_session_redeck(struct db *db, int64_t session_id, const char *title, const char *deck_json, char *err,
                      size_t errlen) {
    if (exec_bound(db, "UPDATE sessions SET title = ?, deck = ? WHERE id = ?", session_id, title, deck_json, err,
                   errlen, "storing the session's new deck"))
        return -1;
    return exec_bound(db, "DELETE FROM questions WHERE session_id = ?", session_id, NULL, NULL, err, errlen,
                      "removing the session's old questions");
}

/* One UPDATE of the prober's facts: ?1 host, ?2 kernel ("" unknown: an
 * older laptop that does not say it; never the hub's own), ?3 target (""
 * keeps the stored one), ?4 lab (NULL: not the lab), ?5 observer, ?6 the
 * row. The session keeps its own target ("remote": what --resume checks)
 * and lab; the live measurement set takes the laptop's. */
static int facts_update(struct db *db, const char *sql, int64_t id, const struct db_session_info *f, char *err,
                        size_t errlen, const char *what) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->c.h, sql, -1, &st, NULL) != SQLITE_OK) {
        db_sql_fail(&db->c, err, errlen, what);
        return -1;
    }
    const char *text[] = {f->host, f->kernel, f->target};
    for (int i = 0; i < 3; i++) bind_text(st, i + 1, text[i] ? text[i] : "");
    if (f->lab_json) bind_text(st, 4, f->lab_json);
    else sqlite3_bind_null(st, 4);
    bind_text(st, 5, f->observer ? f->observer : ""); /* (numbered: a statement may leave some out) */
    sqlite3_bind_int64(st, 6, id);
    int rc = step_done(db, st, err, errlen, what);
    sqlite3_finalize(st);
    return rc;
}

int db_session_set_prober(struct db *db, int64_t session_id, const struct db_session_info *f, char *err,
                          size_t errlen) {
    if (sqlite3_exec(db->c.h, "SAVEPOINT prober_facts", NULL, NULL, NULL) != SQLITE_OK) {
        db_sql_fail(&db->c, err, errlen, "storing the prober's facts");
        return -1;
    }
    int rc = facts_update(db, "UPDATE sessions SET host = ?1, kernel = ?2, observer = ?5 WHERE id = ?6", session_id,
                          f, err, errlen, "storing the prober's facts");
    if (!rc)
        rc = facts_update(db,
                          "UPDATE measurement_sets SET host = ?1, kernel = ?2, target = coalesce(nullif(?3, ''), target), "
                          "lab = ?4 WHERE session_id = ?6 AND kind = 'live'",
                          session_id, f, err, errlen, "storing the prober's facts with the live measurements");
    sqlite3_exec(db->c.h, rc ? "ROLLBACK TO prober_facts; RELEASE prober_facts" : "RELEASE prober_facts", NULL, NULL,
                 NULL);
    return rc;
}

int db_session_end(struct db *db, int64_t session_id, char *err, size_t errlen) {
    sqlite3_bind_double(db->session_end, 1, db_now());
    sqlite3_bind_int64(db->session_end, 2, session_id);
    return step_done(db, db->session_end, err, errlen, "ending the session");
}

int64_t db_session_live_set(struct db *db, int64_t session_id, char *err, size_t errlen) {
    sqlite3_stmt *st = db->live_set;
    sqlite3_bind_int64(st, 1, session_id);
    int64_t id = -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE) db_seterr(err, errlen, "session %lld has no live measurement set", (long long)session_id);
    else db_sql_fail(&db->c, err, errlen, "finding the live measurement set");
    sqlite3_reset(st);
    return id;
}

void db_session_row_free(struct db_session_row *r) {
    if (!r) return;
    free(r->title); free(r->deck_json); free(r->host); free(r->kernel);
    free(r->observer); free(r->target); free(r->lab_json); free(r->room);
    memset(r, 0, sizeof *r);
}

int db_session_each(struct db *db, int (*fn)(const struct db_session_row *, void *), void *arg, char *err,
                    size_t errlen) {
    /* Collect ids first: db_session_get reuses the statement, and fn may run others. */
    sqlite3_stmt *st = db->session_get;
    sqlite3_bind_int64(st, 1, 0);
    size_t n = 0, cap = 0;
    int64_t *ids = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            int64_t *nids = realloc(ids, cap * sizeof *ids);
            if (!nids) { rc = SQLITE_NOMEM; break; }
            ids = nids;
        }
        ids[n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        free(ids);
        return db_sql_fail(&db->c, err, errlen, "listing sessions");
    }
    int ret = 0;
    for (size_t i = 0; i < n && !ret; i++) {
        struct db_session_row row;
        if (db_session_get(db, ids[i], &row, err, errlen)) { ret = -1; break; }
        if (fn(&row, arg)) ret = 1;
        db_session_row_free(&row);
    }
    free(ids);
    return ret < 0 ? -1 : 0;
}

int db_session_get(struct db *db, int64_t session_id, struct db_session_row *out, char *err, size_t errlen) {
    sqlite3_stmt *st = db->session_get;
    sqlite3_bind_int64(st, 1, session_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        /* Scoring runs other statements: finish this one first. */
        struct db_session_row tmp;
        int oom = db_sql_session_row(st, SIZE_MAX, &tmp);
        sqlite3_reset(st);
        if (oom) {
            db_seterr(err, errlen, "out of memory reading session %lld", (long long)session_id);
            return -1;
        }
        struct db_sscore sc;
        tmp.collective = db_session_score(db, tmp.id, &sc, NULL, 0) == 0 ? sc.collective : -1;
        *out = tmp;
        return 0;
    }
    sqlite3_reset(st);
    if (rc == SQLITE_DONE) db_seterr(err, errlen, "no session %lld in %s", (long long)session_id, db->c.path);
    else db_sql_fail(&db->c, err, errlen, "reading a session");
    return -1;
}


int64_t db_question_add(struct db *db, int64_t session_id, int position, int test_index, const char *spec_json,
                        enum qkind kind, const char *text, char *err, size_t errlen) {
    sqlite3_stmt *st = db->question_insert;
    sqlite3_bind_int64(st, 1, session_id);
    sqlite3_bind_int(st, 2, position);
    sqlite3_bind_int(st, 3, test_index);
    bind_text(st, 4, spec_json);
    bind_text(st, 5, qkind_name(kind));
    bind_text(st, 6, text);
    if (step_done(db, st, err, errlen, "adding a question")) return -1;
    return sqlite3_last_insert_rowid(db->c.h);
}

/* Runs st, an UPDATE of one question: -1 unless it changed exactly that one. */
static int question_update(struct db *db, sqlite3_stmt *st, int64_t question_id, const char *what, char *err,
                           size_t errlen) {
    if (step_done(db, st, err, errlen, what)) return -1;
    if (sqlite3_changes(db->c.h) != 1) {
        db_seterr(err, errlen, "no question %lld", (long long)question_id);
        return -1;
    }
    return 0;
}

int db_question_set_state(struct db *db, int64_t question_id, const char *state, char *err, size_t errlen) {
    sqlite3_stmt *st = db->question_state;
    bind_text(st, 1, state);
    sqlite3_bind_double(st, 2, db_now());
    sqlite3_bind_int64(st, 3, question_id);
    return question_update(db, st, question_id, "changing a question's state", err, errlen);
}

int db_question_set_measuring(struct db *db, int64_t question_id, int measuring, char *err, size_t errlen) {
    sqlite3_stmt *st = db->question_measuring;
    sqlite3_bind_int(st, 1, measuring ? 1 : 0);
    sqlite3_bind_int64(st, 2, question_id);
    return question_update(db, st, question_id, "marking a question's measurement", err, errlen);
}

/* The id of the session's voter with this token hash, 0 if none, -1 on
 * error. Reads every voter of the session (no index by token since schema 6). */
static int64_t voter_find(struct db *db, int64_t session_id, const char *token_hash, char *err, size_t errlen) {
    sqlite3_stmt *st = db->voter_find;
    sqlite3_bind_int64(st, 1, session_id);
    bind_text(st, 2, token_hash);
    int rc = sqlite3_step(st);
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_sql_fail(&db->c, err, errlen, "finding a voter");
    return id;
}

int64_t db_voter_add(struct db *db, int64_t session_id, const char *token_hash, char *err, size_t errlen) {
    sqlite3_stmt *st = db->voter_insert;
    sqlite3_bind_int64(st, 1, session_id);
    bind_text(st, 2, token_hash);
    sqlite3_bind_double(st, 3, db_now());
    if (step_done(db, st, err, errlen, "adding a voter")) return -1;
    return sqlite3_last_insert_rowid(db->c.h);
}

int64_t db_voter_join(struct db *db, int64_t session_id, const char *token, char *err, size_t errlen) {
    char hash[65];
    db_token_hash(token, hash);
    int64_t id = voter_find(db, session_id, hash, err, errlen);
    return id ? id : db_voter_add(db, session_id, hash, err, errlen);
}

enum db_vote_result db_vote_put(struct db *db, int64_t question_id, int64_t voter_id, int yes, enum confidence conf,
                                char *err, size_t errlen) {
    sqlite3_stmt *st = db->vote_upsert;
    sqlite3_bind_int64(st, 1, question_id);
    sqlite3_bind_int64(st, 2, voter_id);
    sqlite3_bind_int(st, 3, yes ? 1 : 0);
    sqlite3_bind_double(st, 4, db_now());
    bind_text(st, 5, confidence_name(conf)); /* NULL: none */
    if (step_done(db, st, err, errlen, "recording a vote")) return DB_VOTE_ERROR;
    if (sqlite3_changes(db->c.h) == 1) return DB_VOTE_OK;
    /* Nothing written: say why. */
    st = db->question_state_get;
    sqlite3_bind_int64(st, 1, question_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        db_seterr(err, errlen, "question %lld is %s, not open for voting", (long long)question_id,
               (const char *)sqlite3_column_text(st, 0));
    else
        db_seterr(err, errlen, "no question %lld", (long long)question_id);
    sqlite3_reset(st);
    return DB_VOTE_REFUSED;
}

int db_question_revote(struct db *db, int64_t question_id, char *err, size_t errlen) {
    if (exec(db, "SAVEPOINT revote", err, errlen, "opening the second round")) return -1;
    sqlite3_bind_int64(db->question_revote, 1, question_id);
    sqlite3_bind_double(db->question_revote, 2, db_now());
    if (step_done(db, db->question_revote, err, errlen, "opening the second round")) goto undo;
    if (sqlite3_changes(db->c.h) != 1) {
        sqlite3_stmt *st = db->question_state_get;
        sqlite3_bind_int64(st, 1, question_id);
        if (sqlite3_step(st) == SQLITE_ROW)
            db_seterr(err, errlen, "question %lld is %s or had its second round: a re-vote opens once, after close",
                      (long long)question_id, (const char *)sqlite3_column_text(st, 0));
        else
            db_seterr(err, errlen, "no question %lld", (long long)question_id);
        sqlite3_reset(st);
        sqlite3_exec(db->c.h, "ROLLBACK TO revote; RELEASE revote", NULL, NULL, NULL);
        return 1;
    }
    sqlite3_bind_int64(db->round_archive, 1, question_id);
    if (step_done(db, db->round_archive, err, errlen, "keeping the first round's votes")) goto undo;
    sqlite3_bind_int64(db->round_clear, 1, question_id);
    if (step_done(db, db->round_clear, err, errlen, "clearing the votes for the second round")) goto undo;
    if (exec(db, "RELEASE revote", err, errlen, "committing the second round")) goto undo;
    return 0;
undo:
    sqlite3_exec(db->c.h, "ROLLBACK TO revote; RELEASE revote", NULL, NULL, NULL);
    return -1;
}

int db_vote_get(struct db *db, int64_t question_id, int64_t voter_id) {
    sqlite3_stmt *st = db->vote_get;
    sqlite3_bind_int64(st, 1, question_id);
    sqlite3_bind_int64(st, 2, voter_id);
    int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_reset(st);
    return v;
}

int64_t db_measurement_set_add(struct db *db, int64_t session_id, const char *kind, const char *host,
                               const char *kernel, const char *target, const char *lab_json, char *err,
                               size_t errlen) {
    sqlite3_stmt *st = db->set_insert;
    sqlite3_bind_int64(st, 1, session_id);
    bind_text(st, 2, kind);
    bind_text(st, 3, host ? host : "");
    bind_text(st, 4, kernel ? kernel : "");
    bind_text(st, 5, target ? target : "");
    bind_text(st, 6, lab_json);
    sqlite3_bind_double(st, 7, db_now());
    if (step_done(db, st, err, errlen, "adding a measurement set")) return -1;
    return sqlite3_last_insert_rowid(db->c.h);
}

int64_t db_measurement_add(struct db *db, int64_t set_id, int64_t question_id, const char *answer,
                           const char *basis, const char *evidence, const char *observation_json,
                           const char *observer, char *err, size_t errlen) {
    sqlite3_stmt *st = db->measurement_insert;
    sqlite3_bind_int64(st, 1, set_id);
    sqlite3_bind_int64(st, 2, question_id);
    bind_text(st, 3, answer);
    bind_text(st, 4, basis ? basis : "observed");
    bind_text(st, 5, evidence ? evidence : "");
    bind_text(st, 6, observation_json ? observation_json : "{}");
    bind_text(st, 7, observer ? observer : "");
    sqlite3_bind_double(st, 8, db_now());
    if (step_done(db, st, err, errlen, "recording a measurement")) return -1;
    return sqlite3_last_insert_rowid(db->c.h);
}

/* The one row of `id` (bound to ?1) that st selects, given to read(st, out);
 * resets st. 0; or -1 with "no NOUN ID" when there is no row, or the SQL
 * error ("WHAT failed in ..."). */
static int one_row(struct db *db, sqlite3_stmt *st, int64_t id, void (*read)(sqlite3_stmt *st, void *out), void *out,
                   const char *noun, const char *what, char *err, size_t errlen) {
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) read(st, out);
    sqlite3_reset(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) db_seterr(err, errlen, "no %s %lld", noun, (long long)id);
    else db_sql_fail(&db->c, err, errlen, what);
    return -1;
}

static void read_qscore(sqlite3_stmt *st, void *p) {
    typedef struct db_qscore Q;
    static const struct db_col cols[] = {DB_COL_NUM(Q, yes), DB_COL_NUM(Q, no), DB_COL_CHARS(Q, truth),
                                         DB_COL_CHARS(Q, majority), DB_COL_NUM(Q, correct)};
    db_sql_read_cols(st, 0, cols, DB_SQL_N(cols), 0, p); /* no strings to allocate */
}

int db_question_score(struct db *db, int64_t question_id, struct db_qscore *out, char *err, size_t errlen) {
    return one_row(db, db->qscore, question_id, read_qscore, out, "question", "scoring a question", err, errlen);
}

static void read_sscore(sqlite3_stmt *st, void *p) {
    struct db_sscore *out = p;
    typedef struct db_sscore T;
    static const struct db_col cols[] = {DB_COL_NUM(T, questions),    DB_COL_NUM(T, scored),
                                         DB_COL_NUM(T, collective),   DB_COL_NUM(T, votes_scored),
                                         DB_COL_NUM(T, votes_correct), DB_COL_NUM(T, voters)};
    db_sql_read_cols(st, 0, cols, DB_SQL_N(cols), 0, out); /* numbers only */
    struct score_sum votes = {.votes_scored = out->votes_scored, .votes_correct = out->votes_correct};
    out->vote_accuracy = score_vote_accuracy(&votes);
}

/* An aggregate: there is always a row, for an unknown session one of zeros. */
int db_session_score(struct db *db, int64_t session_id, struct db_sscore *out, char *err, size_t errlen) {
    return one_row(db, db->sscore, session_id, read_sscore, out, "session", "scoring a session", err, errlen);
}

static void read_vscore(sqlite3_stmt *st, void *p) {
    typedef struct db_vscore V;
    static const struct db_col cols[] = {DB_COL_NUM(V, answered), DB_COL_NUM(V, scored), DB_COL_NUM(V, correct)};
    db_sql_read_cols(st, 0, cols, DB_SQL_N(cols), 0, p); /* numbers only */
}

int db_voter_score(struct db *db, int64_t voter_id, struct db_vscore *out, char *err, size_t errlen) {
    return one_row(db, db->vscore, voter_id, read_vscore, out, "voter", "scoring a voter", err, errlen);
}
