/* The SQL helper of db/ (sql.c): a connection owned by a struct that holds
 * its prepared statements, the tables that list those statements, and the
 * tables that read a result row into a struct's fields. Seen by sql.c, by
 * the two owners of a connection, the store (store.c) and the report reader
 * (report.c), and by the checkpointer (ckpt.c: its own connection, touched
 * as the others are); the other files of db/ reach the store's connection
 * through db_internal.h (db_conn, db_sql_handle, db_sql_fail). Internal to
 * db/. */
#ifndef FRAGVOTE_DB_SQL_H
#define FRAGVOTE_DB_SQL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "db_internal.h"

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
/* Finalizes the owner's statements of defs, closes it, frees it; NULL: nothing. */
void db_sql_close(void *owner, const struct db_sql_stmt *defs, size_t n);

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

#endif
