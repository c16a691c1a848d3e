/* Helpers shared by the files of db/ (not part of the store's API): errors,
 * the store's connection and its parts, the SQL the store and the report
 * reader share. The connection's fields and the statement and column tables
 * are db_sql.h's. Internal to db/. */
#ifndef FRAGVOTE_DB_INTERNAL_H
#define FRAGVOTE_DB_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>

#include "db.h"

/* printf into a caller's error buffer; err may be NULL (then nothing). */
void db_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An SQLite connection (db_sql.h): its handle and its file's path, for the
 * files that run SQL on the store's connection without owning it. */
struct db_sql_conn;
sqlite3 *db_sql_handle(const struct db_sql_conn *c);
const char *db_sql_path(const struct db_sql_conn *c);
/* A database file created by the program is its user's alone (it holds
 * token_key and unrevealed measurements): created DB_FILE_MODE before
 * SQLite opens it (SQLite gives its -wal, -shm and -journal the main file's
 * mode), never through a symlink. 1 created, 0 it existed (or is not a
 * file: ":memory:", a URI), -1 could not (SQLite then says why). */
#define DB_FILE_MODE 0600
int db_file_private(const char *path);
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
