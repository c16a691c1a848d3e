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

/* "WHAT failed in PATH: SQLite's message" into err; returns -1. */
int db_sql_fail(sqlite3 *h, const char *path, char *err, size_t errlen, const char *what);

/* A statement prepared at open into the sqlite3_stmt * member at `offset`
 * of its owner (struct db, struct db_report): a table of these, made from
 * the owner's list of statements, is what db_sql_prepare_all() and
 * db_sql_finalize_all() walk. */
struct db_sql_stmt {
    const char *name, *sql;
    size_t offset;
};
/* Prepares (persistent) every statement of defs into owner: 0, or -1 with
 * "preparing KIND NAME failed in PATH: why" in err. */
int db_sql_prepare_all(sqlite3 *h, const char *path, void *owner, const struct db_sql_stmt *defs, size_t n,
                       const char *kind, char *err, size_t errlen);
/* Finalizes every statement of defs in owner (those not prepared are NULL). */
void db_sql_finalize_all(void *owner, const struct db_sql_stmt *defs, size_t n);

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
    "(SELECT count(*) FROM voters v WHERE v.session_id = s.id) FROM sessions s "
/* Reads the row st stands on (DB_SQL_SESSION_SELECT) into *row, texts cut
 * at max bytes, collective -1 (the caller scores it): 0, or -1 out of memory
 * (row freed). */
int db_sql_session_row(sqlite3_stmt *st, size_t max, struct db_session_row *row);

#endif
