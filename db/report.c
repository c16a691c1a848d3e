/* Read-only reports over the store (see report.h). */
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "score.h"
#include "db_internal.h"
#include "db_sql.h"

#define REPORT_STATEMENTS(X)                                                                          \
    X(session, DB_SQL_SESSION_SELECT "WHERE id = ?")                                                    \
    X(questions, "SELECT q.id, q.position, q.test_index, q.kind, q.state, q.text, q.spec, "           \
                 "coalesce(q.opened_at, 0), coalesce(q.closed_at, 0), coalesce(q.revealed_at, 0), "    \
                 "s.yes, s.no, coalesce(s.truth, ''), coalesce(s.majority, ''), coalesce(s.correct, -1), " \
                 "coalesce(s.correct_votes, -1), coalesce(c.changes, 0), q.round, coalesce(q.revoted_at, 0), " \
                 "(SELECT count(*) FROM round_votes rv WHERE rv.question_id = q.id AND rv.answer = 1), " \
                 "(SELECT count(*) FROM round_votes rv WHERE rv.question_id = q.id AND rv.answer = 0) " \
                 "FROM questions q JOIN question_score s ON s.question_id = q.id "                     \
                 "LEFT JOIN (SELECT v.question_id AS qid, sum(v.changes) AS changes FROM votes v "     \
                 "  JOIN questions q2 ON q2.id = v.question_id WHERE q2.session_id = ?1 "              \
                 "  GROUP BY v.question_id) c ON c.qid = q.id "                                        \
                 "WHERE q.session_id = ?1 ORDER BY q.position")                                        \
    X(live_measure, "SELECT m.answer, m.basis, m.observer, m.measured_at, m.evidence, m.observation " \
                    "FROM measurements m JOIN measurement_sets s ON s.id = m.set_id "                  \
                    "WHERE m.question_id = ? AND s.kind = 'live' ORDER BY m.id DESC LIMIT 1")          \
    X(set_measure, "SELECT answer, basis, observer, measured_at, evidence, observation "              \
                   "FROM measurements WHERE set_id = ? AND question_id = ? ORDER BY id DESC LIMIT 1")  \
    X(sets, "SELECT s.id, s.kind, s.host, s.kernel, s.target, s.lab, s.created_at, "                  \
            "(SELECT count(*) FROM measurements m WHERE m.set_id = s.id) "                             \
            "FROM measurement_sets s WHERE s.session_id = ? ORDER BY s.id")                            \
    /* The voter_score view's numbers for the voters still stored, and      \
     * those a purge kept of its voters (purged_scores). */                   \
    X(dist, DB_SQL_VOTER_CORRECT_S1                                                                    \
            "SELECT correct, sum(n) FROM (SELECT correct, count(*) AS n FROM per GROUP BY correct "    \
            "UNION ALL SELECT correct, voters FROM purged_scores WHERE session_id = ?1) "              \
            "GROUP BY correct ORDER BY correct")                                                       \
    X(voters, "SELECT " DB_SQL_VOTERS_OF_S1)                                                           \
    /* Each question's votes by confidence, final round and first. */       \
    X(conf_final, "SELECT v.question_id, coalesce(v.confidence, ''), v.answer, count(*) FROM votes v "  \
                  "JOIN questions q ON q.id = v.question_id WHERE q.session_id = ?1 GROUP BY 1, 2, 3") \
    X(conf_first, "SELECT v.question_id, coalesce(v.confidence, ''), v.answer, count(*) FROM round_votes v " \
                  "JOIN questions q ON q.id = v.question_id WHERE q.session_id = ?1 GROUP BY 1, 2, 3") \
    X(ids, "SELECT id FROM sessions ORDER BY id")

struct db_report {
    struct db_sql_conn c; /* first: db_sql_open/db_sql_close */
    REPORT_STATEMENTS(DB_SQL_MEMBER)
    int held;   /* db_report_hold's: closed by db_close, not by db_report_close */
    int in_use; /* held: handed out by db_report_open (atomic) */
};
#define DB_SQL_OWNER struct db_report
static const struct db_sql_stmt report_statements[] = {REPORT_STATEMENTS(DB_SQL_ENTRY)};

static struct db_report *report_new(struct db *db, char *err, size_t errlen) {
    return db_sql_open(sizeof(struct db_report), db_path(db), SQLITE_OPEN_READONLY, NULL, report_statements,
                       DB_SQL_N(report_statements), "report statement", err, errlen);
}

struct db_report *db_report_open(struct db *db, char *err, size_t errlen) {
    struct db_report *held = *db_report_slot(db);
    int free_ = 0;
    if (held && __atomic_compare_exchange_n(&held->in_use, &free_, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return held;
    return report_new(db, err, errlen);
}

void db_report_close(struct db_report *r) {
    if (r && r->held) __atomic_store_n(&r->in_use, 0, __ATOMIC_RELEASE);
    else db_sql_close(r, report_statements, DB_SQL_N(report_statements));
}

int db_report_hold(struct db *db, char *err, size_t errlen) {
    struct db_report **slot = db_report_slot(db);
    if (*slot) return 0;
    struct db_report *r = report_new(db, err, errlen);
    if (!r) return -1;
    if (db_sql_touch(&r->c, err, errlen) < 0) {
        db_sql_close(r, report_statements, DB_SQL_N(report_statements));
        return -1;
    }
    r->held = 1;
    *slot = r;
    return 0;
}

void db_report_unhold(struct db *db) {
    struct db_report **slot = db_report_slot(db);
    db_sql_close(*slot, report_statements, DB_SQL_N(report_statements));
    *slot = NULL;
}

/* Room for one more row in a growing array of n used of *cap (doubling from
 * first): the array, moved or not; or NULL out of memory, with st reset and
 * "out of memory WHAT" in err (arr is then still the caller's to free). */
static void *grow(void *arr, int n, int *cap, int first, size_t size, sqlite3_stmt *st, const char *what, char *err,
                  size_t errlen) {
    if (n < *cap) return arr;
    int nc = *cap ? *cap * 2 : first;
    void *na = realloc(arr, (size_t)nc * size);
    if (na) {
        *cap = nc;
        return na;
    }
    sqlite3_reset(st);
    db_seterr(err, errlen, "out of memory %s", what);
    return NULL;
}

/* st's rows (bound) appended to *arr, a growing array of *n elements of
 * size bytes (room for first, then doubling), each read as cols say. 0 when
 * every row was read; 1 when a row came beyond max (the rest unread); or -1
 * with err ("out of memory WHAT" or the SQL error). st is reset. */
static int read_rows(struct db_report *r, sqlite3_stmt *st, void **arr, int *n, size_t size, int first, int max,
                     const struct db_col *cols, size_t ncols, const char *what, char *err, size_t errlen) {
    int rc, cap = *n;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == max) {
            sqlite3_reset(st);
            return 1;
        }
        void *na = grow(*arr, *n, &cap, first, size, st, what, err, errlen);
        if (!na) return -1;
        *arr = na;
        void *row = (char *)na + (size_t)(*n)++ * size;
        memset(row, 0, size);
        if (db_sql_read_cols(st, 0, cols, ncols, DB_REPORT_TEXT_MAX, row)) {
            sqlite3_reset(st);
            db_seterr(err, errlen, "out of memory %s", what);
            return -1;
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : db_sql_fail(&r->c, err, errlen, what);
}

void db_report_measure_free(struct db_report_measure *m) {
    if (!m) return;
    free(m->evidence);
    free(m->observation_json);
    memset(m, 0, sizeof *m);
}

/* Reads one measurement row from st (already bound); resets st. */
static int read_measure(struct db_report *r, sqlite3_stmt *st, struct db_report_measure *out, char *err,
                        size_t errlen) {
    memset(out, 0, sizeof *out);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        typedef struct db_report_measure M;
        static const struct db_col cols[] = {DB_COL_CHARS(M, answer),      DB_COL_CHARS(M, basis),
                                             DB_COL_CHARS(M, observer),    DB_COL_NUM(M, measured_at),
                                             DB_COL_DUP(M, evidence),      DB_COL_DUP(M, observation_json)};
        out->measured = 1;
        db_sql_read_cols(st, 0, cols, DB_SQL_N(cols), DB_REPORT_TEXT_MAX, out); /* NULLs: below */
    } else {
        out->evidence = strdup("");
        out->observation_json = strdup("");
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_sql_fail(&r->c, err, errlen, "reading a measurement");
    if (!out->evidence || !out->observation_json) {
        db_report_measure_free(out);
        db_seterr(err, errlen, "out of memory reading a measurement");
        return -1;
    }
    return 0;
}

int db_report_measure_get(struct db_report *r, int64_t set_id, int64_t question_id, struct db_report_measure *out,
                          char *err, size_t errlen) {
    sqlite3_bind_int64(r->set_measure, 1, set_id);
    sqlite3_bind_int64(r->set_measure, 2, question_id);
    return read_measure(r, r->set_measure, out, err, errlen);
}

void db_report_session_free(struct db_report_session *s) {
    if (!s) return;
    db_session_row_free(&s->row);
    for (int i = 0; i < s->nquestions; i++) {
        free(s->questions[i].text);
        free(s->questions[i].spec_json);
        db_report_measure_free(&s->questions[i].live);
    }
    free(s->questions);
    for (int i = 0; i < s->nsets; i++) {
        free(s->sets[i].host);
        free(s->sets[i].kernel);
        free(s->sets[i].target);
        free(s->sets[i].lab_json);
    }
    free(s->sets);
    free(s->dist.voters);
    memset(s, 0, sizeof *s);
}

/* A question row, in the order of report_statements' questions query. */
typedef struct db_report_question Q;
static const struct db_col question_cols[] = {
    DB_COL_NUM(Q, id),           DB_COL_NUM(Q, position),    DB_COL_NUM(Q, test_index),  DB_COL_CHARS(Q, kind),
    DB_COL_CHARS(Q, state),      DB_COL_DUP(Q, text),        DB_COL_DUP(Q, spec_json),   DB_COL_NUM(Q, opened_at),
    DB_COL_NUM(Q, closed_at),    DB_COL_NUM(Q, revealed_at), DB_COL_NUM(Q, yes),         DB_COL_NUM(Q, no),
    DB_COL_CHARS(Q, truth),      DB_COL_CHARS(Q, majority),  DB_COL_NUM(Q, correct),     DB_COL_NUM(Q, correct_votes),
    DB_COL_NUM(Q, changes),      DB_COL_NUM(Q, round),       DB_COL_NUM(Q, revoted_at),  DB_COL_NUM(Q, first_yes),
    DB_COL_NUM(Q, first_no)};

static int load_questions(struct db_report *r, struct db_report_session *s, char *err, size_t errlen) {
    sqlite3_bind_int64(r->questions, 1, s->row.id);
    void *rows = s->questions;
    int rc = read_rows(r, r->questions, &rows, &s->nquestions, sizeof *s->questions, 16, DB_REPORT_QUESTIONS_MAX,
                       question_cols, DB_SQL_N(question_cols), "reading questions", err, errlen);
    s->questions = rows;
    if (rc > 0)
        db_seterr(err, errlen, "session %lld has more than %d questions", (long long)s->row.id,
                  DB_REPORT_QUESTIONS_MAX);
    if (rc) return -1;
    for (int i = 0; i < s->nquestions; i++) {
        sqlite3_bind_int64(r->live_measure, 1, s->questions[i].id);
        if (read_measure(r, r->live_measure, &s->questions[i].live, err, errlen)) return -1;
    }
    return 0;
}

/* The rows of st (conf_final or conf_first) into each question's split. */
static int load_split(struct db_report *r, struct db_report_session *s, sqlite3_stmt *st, int first, char *err,
                      size_t errlen) {
    sqlite3_bind_int64(st, 1, s->row.id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t qid = sqlite3_column_int64(st, 0);
        enum confidence c = CONFIDENCE_NONE;
        confidence_parse((const char *)sqlite3_column_text(st, 1), &c); /* "" (none) stays NONE */
        int answer = sqlite3_column_int(st, 2), n = sqlite3_column_int(st, 3);
        for (int i = 0; i < s->nquestions; i++) {
            if (s->questions[i].id != qid) continue;
            struct confidence_split *sp = first ? &s->questions[i].first_conf : &s->questions[i].conf;
            if (answer) sp->yes[c] += n;
            else sp->no[c] += n;
            break;
        }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return db_sql_fail(&r->c, err, errlen, "reading the votes' confidence");
    return 0;
}

static int load_sets(struct db_report *r, struct db_report_session *s, char *err, size_t errlen) {
    typedef struct db_report_set T;
    static const struct db_col cols[] = {DB_COL_NUM(T, id),         DB_COL_CHARS(T, kind),
                                         DB_COL_DUP(T, host),       DB_COL_DUP(T, kernel),
                                         DB_COL_DUP(T, target),     DB_COL_DUP_NULL(T, lab_json),
                                         DB_COL_NUM(T, created_at), DB_COL_NUM(T, measurements)};
    sqlite3_bind_int64(r->sets, 1, s->row.id);
    void *rows = s->sets;
    /* Beyond DB_REPORT_SETS_MAX: the oldest are the ones that matter. */
    int rc = read_rows(r, r->sets, &rows, &s->nsets, sizeof *s->sets, 4, DB_REPORT_SETS_MAX, cols, DB_SQL_N(cols),
                       "reading measurement sets", err, errlen);
    s->sets = rows;
    return rc < 0 ? -1 : 0;
}

static int load_dist(struct db_report *r, struct db_report_session *s, char *err, size_t errlen) {
    struct db_report_dist *d = &s->dist;
    /* A voter can be right at most once per question with a yes/no truth. */
    int slots = 1;
    for (int i = 0; i < s->nquestions; i++)
        if (!strcmp(s->questions[i].truth, "yes") || !strcmp(s->questions[i].truth, "no")) slots++;
    d->voters = calloc((size_t)slots, sizeof *d->voters);
    if (!d->voters) {
        db_seterr(err, errlen, "out of memory reading the score distribution");
        return -1;
    }
    d->max_correct = slots - 1;
    sqlite3_stmt *st = r->dist;
    sqlite3_bind_int64(st, 1, s->row.id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int k = sqlite3_column_int(st, 0), n = sqlite3_column_int(st, 1);
        if (k < 0 || k >= slots) continue; /* impossible with one vote per question */
        d->voters[k] = n;
        d->voters_scored += n;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return db_sql_fail(&r->c, err, errlen, "reading the score distribution");
    st = r->voters;
    sqlite3_bind_int64(st, 1, s->row.id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) d->voters_unscored = sqlite3_column_int(st, 0) - d->voters_scored;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW) return db_sql_fail(&r->c, err, errlen, "counting voters");
    return 0;
}

static int load_row(struct db_report *r, int64_t session_id, struct db_session_row *row, char *err, size_t errlen) {
    sqlite3_stmt *st = r->session;
    sqlite3_bind_int64(st, 1, session_id);
    int rc = sqlite3_step(st);
    int oom = rc == SQLITE_ROW && db_sql_session_row(st, DB_REPORT_TEXT_MAX, row);
    sqlite3_reset(st);
    if (rc == SQLITE_DONE) {
        db_seterr(err, errlen, "no session %lld in %s", (long long)session_id, r->c.path);
        return -1;
    }
    if (rc != SQLITE_ROW) return db_sql_fail(&r->c, err, errlen, "reading a session");
    if (oom) {
        db_seterr(err, errlen, "out of memory reading session %lld", (long long)session_id);
        return -1;
    }
    return 0;
}

/* The session score exactly as the store's sscore statement aggregates the
 * question_score rows (docs/SCORING.md); tests/fragvote/export checks it against
 * db_session_score(). Done here from the rows already read because the
 * store's query re-derives every question's counts several times. */
static void aggregate_score(struct db_report_session *s) {
    struct db_sscore *sc = &s->score;
    struct score_sum sum = {0};
    memset(sc, 0, sizeof *sc);
    sc->questions = s->nquestions;
    sc->voters = s->row.voters;
    for (int i = 0; i < s->nquestions; i++) {
        const struct db_report_question *q = &s->questions[i];
        score_sum_add(&sum, q->yes, q->no, score_truth_parse(q->truth));
    }
    sc->scored = sum.scored;
    sc->votes_scored = sum.votes_scored;
    sc->votes_correct = sum.votes_correct;
    sc->collective = score_collective(&sum);
    sc->vote_accuracy = score_vote_accuracy(&sum);
    s->row.collective = sc->collective;
    for (int i = 0; i < s->nquestions; i++) /* as the live room: revealed questions (calibration.c) */
        if (!strcmp(s->questions[i].state, "revealed"))
            confidence_calib_add(&s->calib, &s->questions[i].conf, score_truth_parse(s->questions[i].truth));
}

int db_report_session_load(struct db *db, struct db_report *r, int64_t session_id, struct db_report_session *out,
                           char *err, size_t errlen) {
    (void)db; /* the reader has its own connection to the same file */
    memset(out, 0, sizeof *out);
    if (load_row(r, session_id, &out->row, err, errlen) || load_questions(r, out, err, errlen) ||
        load_split(r, out, r->conf_final, 0, err, errlen) || load_split(r, out, r->conf_first, 1, err, errlen) ||
        load_sets(r, out, err, errlen) || load_dist(r, out, err, errlen)) {
        db_report_session_free(out);
        return -1;
    }
    aggregate_score(out);
    return 0;
}

int db_report_session_ids(struct db_report *r, int64_t **ids, int *n, char *err, size_t errlen) {
    *ids = NULL;
    *n = 0;
    int cap = 0, rc;
    sqlite3_stmt *st = r->ids;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *ni = grow(*ids, *n, &cap, 16, sizeof *ni, st, "listing sessions", err, errlen);
        if (!ni) {
            free(*ids);
            *ids = NULL;
            *n = 0;
            return -1;
        }
        *ids = ni;
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        free(*ids);
        *ids = NULL;
        *n = 0;
        return db_sql_fail(&r->c, err, errlen, "listing sessions");
    }
    return 0;
}

int db_report_snapshot(struct db_report *r, const char *dest_path, char *err, size_t errlen) {
    sqlite3 *dst = NULL;
    /* SQLITE_OPEN_EXCLUSIVE is not for files: refuse an existing file
     * ourselves, at once with creating it private (db_file_private). */
    int made = db_file_private(dest_path);
    if (made <= 0) {
        db_seterr(err, errlen, "cannot copy %s to %s: %s", r->c.path, dest_path,
                  made == 0 ? "the file exists" : strerror(errno));
        return -1;
    }
    if (sqlite3_open_v2(dest_path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        db_seterr(err, errlen, "cannot create %s: %s", dest_path, dst ? sqlite3_errmsg(dst) : "out of memory");
        sqlite3_close(dst);
        return -1;
    }
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", r->c.h, "main");
    int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
    if (b) sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        db_seterr(err, errlen, "copying %s to %s failed: %s", r->c.path, dest_path, sqlite3_errmsg(dst));
        sqlite3_close(dst);
        remove(dest_path);
        return -1;
    }
    sqlite3_close(dst);
    return 0;
}
