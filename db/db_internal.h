/* Helpers shared by the files of db/ only (not part of the store's API):
 * what the store (store.c) and the report reader (report.c), each with its
 * own SQLite connection, do alike (sql.c). */
#ifndef FRAGVOTE_DB_INTERNAL_H
#define FRAGVOTE_DB_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>

#include "db.h"

/* printf into a caller's error buffer; err may be NULL (then nothing). */
void db_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An SQLite connection: the first member of its owner (struct db, struct
 * db_report), which db_sql_open() allocates and db_sql_close() frees. */
struct db_sql_conn {
    sqlite3 *h;
    char *path;
};
/* A statement prepared at open into the sqlite3_stmt * member at `offset`
 * of its owner: the owner's list of statements as a table of these. */
struct db_sql_stmt {
    const char *name, *sql;
    size_t offset;
};
/* For an owner's X-macro list of statements (X(name, sql)): LIST(DB_SQL_MEMBER)
 * declares them in the owner struct; LIST(DB_SQL_ENTRY) is its table, with
 * DB_SQL_OWNER defined as the owner's type. */
#define DB_SQL_MEMBER(name, sql) sqlite3_stmt *name;
#define DB_SQL_ENTRY(name, sql) {#name, sql, offsetof(DB_SQL_OWNER, name)},
#define DB_SQL_N(table) (sizeof(table) / sizeof *(table))
/* The one way the store and the report reader open the file: an owner of
 * owner_size bytes (zeroed), its connection (SQLite open flags; busy timeout
 * DB_BUSY_MS), then setup(owner) unless NULL (the store's checks, pragmas and
 * migration), then every statement of defs (persistent). The owner, or NULL
 * with err: "cannot open database PATH[ for reading]: why", setup's message,
 * or "preparing KIND NAME failed in PATH: why". */
void *db_sql_open(size_t owner_size, const char *path, int flags, int (*setup)(void *owner, char *err, size_t errlen),
                  const struct db_sql_stmt *defs, size_t n, const char *kind, char *err, size_t errlen);
/* A database file created by the program is its user's alone (it holds
 * token_key and unrevealed measurements): created DB_FILE_MODE before
 * SQLite opens it (SQLite gives its -wal, -shm and -journal the main file's
 * mode), never through a symlink. 1 created, 0 it existed (or is not a
 * file: ":memory:", a URI), -1 could not (SQLite then says why). */
#define DB_FILE_MODE 0600
int db_file_private(const char *path);
/* Finalizes the owner's statements of defs, closes it, frees it; NULL: nothing. */
void db_sql_close(void *owner, const struct db_sql_stmt *defs, size_t n);
/* "WHAT failed in PATH: SQLite's message" into err; returns -1. */
int db_sql_fail(const struct db_sql_conn *c, char *err, size_t errlen, const char *what);

/* A read on c (the schema's first page), so that on a WAL file it has
 * opened the -wal, and the process the -shm, as it keeps them open from
 * then on (db_hold_files). 0, or -1 with err. */
int db_sql_touch(const struct db_sql_conn *c, char *err, size_t errlen);

/* The store's connection, and where it keeps its checkpointer (ckpt.c) and
 * its held report reader (report.c, db_report_hold). */
struct db_sql_conn *db_conn(struct db *db);
struct db_ckpt **db_ckpt_slot(struct db *db);
struct db_report **db_report_slot(struct db *db);
/* The report reader db_report_open hands out while it is free: opened now
 * and read once (db_sql_touch); db_close closes it (db_report_unhold).
 * 0 (also when held already), or -1 with err. */
int db_report_hold(struct db *db, char *err, size_t errlen);
void db_report_unhold(struct db *db);

/* Column i as a malloc'd string of at most max bytes (longer is cut); NULL
 * for SQL NULL, and out of memory. */
char *db_sql_text_dup(sqlite3_stmt *st, int i, size_t max);
/* Column i into dst (n bytes), "" for NULL. */
void db_sql_text_copy(char *dst, size_t n, sqlite3_stmt *st, int i);

/* One column of a result row read into a field of a struct: column i of the
 * row into the field that entry i of a table names (db_sql_read_cols). */
enum db_col_kind {
    DB_COL_INT,      /* int */
    DB_COL_I64,      /* int64_t */
    DB_COL_DOUBLE,   /* double */
    DB_COL_CHARS,    /* char[N]: a copy, cut to N-1 bytes; "" for NULL */
    DB_COL_DUP,      /* char *: malloc'd, "" for NULL */
    DB_COL_DUP_NULL, /* char *: malloc'd, NULL for NULL */
};
struct db_col {
    enum db_col_kind kind;
    size_t off, size;
};
/* A number column: its kind follows the field's type (int, int64_t or
 * double; any other type does not compile). */
#define DB_COL_NUM(type, field)                                                                          \
    {_Generic(((type *)0)->field, int: DB_COL_INT, int64_t: DB_COL_I64, double: DB_COL_DOUBLE),            \
     offsetof(type, field), sizeof(((type *)0)->field)}
/* A text column into a char array, a malloc'd string, or one that keeps NULL. */
#define DB_COL_CHARS(type, field) {DB_COL_CHARS, offsetof(type, field), sizeof(((type *)0)->field)}
#define DB_COL_DUP(type, field) {DB_COL_DUP, offsetof(type, field), sizeof(((type *)0)->field)}
#define DB_COL_DUP_NULL(type, field) {DB_COL_DUP_NULL, offsetof(type, field), sizeof(((type *)0)->field)}
/* Columns first .. first+n-1 of st's current row into the struct at out, as
 * cols[0..n-1] say; strings at most max bytes. 0, or -1 out of memory (the
 * strings read so far stay in out, for the caller's free). */
int db_sql_read_cols(sqlite3_stmt *st, int first, const struct db_col *cols, size_t n, size_t max, void *out);

/* The columns of a session row, in the order db_sql_session_row() reads
 * them; the query goes on with its WHERE. */
#define DB_SQL_SESSION_SELECT                                                                     \
    "SELECT id, title, deck, host, kernel, observer, target, lab, room, cursor, started_at, "      \
    "coalesce(ended_at, 0), (SELECT count(*) FROM questions q WHERE q.session_id = s.id), "        \
    "(SELECT count(*) FROM voters v WHERE v.session_id = s.id) + s.purged_voters, "                \
    "coalesce(purged_at, 0) FROM sessions s "
/* The voters of session ?1 who joined: those still stored and those a
 * purge deleted (schema migration 8), as one SQL expression. */
#define DB_SQL_VOTERS_OF_S1                                                                        \
    "((SELECT count(*) FROM voters WHERE session_id = ?1) + "                                      \
    "coalesce((SELECT purged_voters FROM sessions WHERE id = ?1), 0))"
/* Each stored voter of session ?1 with a scored answer (a question of it
 * with a yes/no truth) and how many of those were right: rows (voter_id,
 * correct). The score distribution (report.c) and what a purge keeps of
 * it (purge.c). The truths are materialized once: the voter_score view
 * re-derives a truth per vote (11 s for 720k votes; this takes under 2 s);
 * tests/fragvote/export checks both agree voter by voter. */
#define DB_SQL_VOTER_CORRECT_S1                                                                    \
    "WITH t AS MATERIALIZED (SELECT question_id AS qid, truth FROM question_truth "                \
    "WHERE session_id = ?1 AND truth IN ('yes', 'no')), "                                          \
    "per AS (SELECT v.voter_id, sum((v.answer = 1) = (t.truth = 'yes')) AS correct "              \
    "FROM votes v JOIN t ON t.qid = v.question_id WHERE v.voter_id IS NOT NULL GROUP BY v.voter_id) "
/* Reads the row st stands on (DB_SQL_SESSION_SELECT) into *row, texts cut
 * at max bytes, collective -1 (the caller scores it): 0, or -1 out of memory
 * (row freed). */
int db_sql_session_row(sqlite3_stmt *st, size_t max, struct db_session_row *row);

#endif
