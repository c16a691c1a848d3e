/* Resume reads for the hub (see db_hub.h). */
#include <sqlite3.h>
#include <stdio.h>

#include "db_hub.h"
#include "db_internal.h"

enum row_kind { ROW_QUESTION, ROW_TRUTH, ROW_VOTER, ROW_VOTE, ROW_FIRST_ROUND, ROW_KEY, ROW_ANONYMOUS };

static const char *const row_sql[] = {
    [ROW_QUESTION] = "SELECT id, position, state, measuring FROM questions WHERE session_id = ? ORDER BY position",
    [ROW_TRUTH] = "SELECT m.question_id, m.answer, m.basis, m.evidence, m.observation FROM measurements m "
                  "JOIN measurement_sets s ON s.id = m.set_id JOIN questions q ON q.id = m.question_id "
                  "WHERE q.session_id = ?1 AND s.kind = 'live' AND m.id = (SELECT max(m2.id) FROM measurements m2 "
                  "JOIN measurement_sets s2 ON s2.id = m2.set_id WHERE m2.question_id = m.question_id "
                  "AND s2.kind = 'live')",
    [ROW_VOTER] = "SELECT id, token_hash FROM voters WHERE session_id = ? ORDER BY id",
    [ROW_VOTE] = "SELECT v.question_id, v.voter_id, v.answer, coalesce(v.confidence, '') FROM votes v "
                 "JOIN questions q ON q.id = v.question_id WHERE q.session_id = ?",
    [ROW_FIRST_ROUND] = "SELECT q.id, coalesce(rv.confidence, ''), coalesce(sum(rv.answer = 1), 0), "
                        "coalesce(sum(rv.answer = 0), 0) FROM questions q "
                        "LEFT JOIN round_votes rv ON rv.question_id = q.id "
                        "WHERE q.session_id = ? AND q.round = 2 GROUP BY q.id, rv.confidence",
    [ROW_KEY] = "SELECT coalesce(token_key, '') FROM sessions WHERE id = ?",
    [ROW_ANONYMOUS] = "SELECT q.position, coalesce(v.confidence, ''), sum(v.answer = 1), sum(v.answer = 0) "
                      "FROM votes v JOIN questions q ON q.id = v.question_id "
                      "WHERE q.session_id = ? AND v.voter_id IS NULL "
                      "GROUP BY q.id, v.confidence ORDER BY q.position",
};

static const char *col(sqlite3_stmt *st, int i) {
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? s : "";
}

static int each(struct db *db, int64_t session_id, enum row_kind kind, void *fn, void *arg, char *err,
                size_t errlen) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    h = db_sql_handle(db_conn(db));
    if (sqlite3_prepare_v2(h, row_sql[kind], -1, &st, NULL) != SQLITE_OK) goto sqlfail;
    sqlite3_bind_int64(st, 1, session_id);
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int stop = 0;
        switch (kind) {
        case ROW_QUESTION:
            stop = ((int (*)(int64_t, int, const char *, int, void *))fn)(
                sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1), col(st, 2), sqlite3_column_int(st, 3), arg);
            break;
        case ROW_TRUTH:
            stop = ((int (*)(int64_t, const char *, const char *, const char *, const char *, void *))fn)(
                sqlite3_column_int64(st, 0), col(st, 1), col(st, 2), col(st, 3), col(st, 4), arg);
            break;
        case ROW_VOTER:
            stop = ((int (*)(int64_t, const char *, void *))fn)(sqlite3_column_int64(st, 0), col(st, 1), arg);
            break;
        case ROW_FIRST_ROUND:
            stop = ((int (*)(int64_t, const char *, int, int, void *))fn)(
                sqlite3_column_int64(st, 0), col(st, 1), sqlite3_column_int(st, 2), sqlite3_column_int(st, 3), arg);
            break;
        case ROW_ANONYMOUS:
            stop = ((int (*)(int, const char *, int, int, void *))fn)(
                sqlite3_column_int(st, 0), col(st, 1), sqlite3_column_int(st, 2), sqlite3_column_int(st, 3), arg);
            break;
        case ROW_KEY: stop = ((int (*)(const char *, void *))fn)(col(st, 0), arg); break;
        case ROW_VOTE:
            stop = ((int (*)(int64_t, int64_t, int, const char *, void *))fn)(
                sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int(st, 2), col(st, 3), arg);
            break;
        }
        if (stop) break;
    }
    if (step != SQLITE_ROW && step != SQLITE_DONE) goto sqlfail;
    rc = 0;
    goto out;
sqlfail:
    snprintf(err, errlen, "reading session %lld from %s to resume it: %s", (long long)session_id, db_path(db),
             h ? sqlite3_errmsg(h) : "out of memory");
out:
    sqlite3_finalize(st);
    return rc;
}

int db_hub_questions_each(struct db *db, int64_t session_id, int (*fn)(int64_t, int, const char *, int, void *),
                          void *arg, char *err, size_t errlen) {
    return each(db, session_id, ROW_QUESTION, (void *)fn, arg, err, errlen);
}
int db_hub_truths_each(struct db *db, int64_t session_id,
                       int (*fn)(int64_t, const char *, const char *, const char *, const char *, void *), void *arg,
                       char *err, size_t errlen) {
    return each(db, session_id, ROW_TRUTH, (void *)fn, arg, err, errlen);
}
int db_hub_voters_each(struct db *db, int64_t session_id, int (*fn)(int64_t, const char *, void *), void *arg,
                       char *err, size_t errlen) {
    return each(db, session_id, ROW_VOTER, (void *)fn, arg, err, errlen);
}
int db_hub_votes_each(struct db *db, int64_t session_id, int (*fn)(int64_t, int64_t, int, const char *, void *),
                      void *arg, char *err, size_t errlen) {
    return each(db, session_id, ROW_VOTE, (void *)fn, arg, err, errlen);
}
int db_hub_first_rounds_each(struct db *db, int64_t session_id, int (*fn)(int64_t, const char *, int, int, void *),
                             void *arg, char *err, size_t errlen) {
    return each(db, session_id, ROW_FIRST_ROUND, (void *)fn, arg, err, errlen);
}

int db_hub_anonymous_votes_each(struct db *db, int64_t session_id, int (*fn)(int, const char *, int, int, void *),
                                void *arg, char *err, size_t errlen) {
    return each(db, session_id, ROW_ANONYMOUS, (void *)fn, arg, err, errlen);
}

struct key_out {
    char *out;
    size_t outlen;
    int found;
};

static int key_row(const char *key, void *arg) {
    struct key_out *k = arg;
    snprintf(k->out, k->outlen, "%s", key);
    k->found = 1;
    return 1;
}

int db_hub_token_key(struct db *db, int64_t session_id, char *out, size_t outlen, char *err, size_t errlen) {
    struct key_out k = {out, outlen, 0};
    if (outlen) out[0] = 0;
    if (each(db, session_id, ROW_KEY, (void *)key_row, &k, err, errlen)) return -1;
    if (!k.found) {
        snprintf(err, errlen, "no session %lld in %s", (long long)session_id, db_path(db));
        return -1;
    }
    return 0;
}
