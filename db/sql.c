/* What the store and the report reader do alike over their own SQLite
 * connections (see db_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_internal.h"
#include "db_sql.h"

sqlite3 *db_sql_handle(const struct db_sql_conn *c) { return c->h; }
const char *db_sql_path(const struct db_sql_conn *c) { return c->path; }

int db_sql_fail(const struct db_sql_conn *c, char *err, size_t errlen, const char *what) {
    db_seterr(err, errlen, "%s failed in %s: %s", what, c->path, sqlite3_errmsg(c->h));
    return -1;
}

int db_sql_touch(const struct db_sql_conn *c, char *err, size_t errlen) {
    if (sqlite3_exec(c->h, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK)
        return db_sql_fail(c, err, errlen, "reading the schema");
    return 0;
}

static sqlite3_stmt **stmt_of(void *owner, const struct db_sql_stmt *def) {
    return (sqlite3_stmt **)((char *)owner + def->offset);
}

int db_file_private(const char *path) {
    if (!path[0] || !strcmp(path, ":memory:") || !strncmp(path, "file:", 5)) return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, DB_FILE_MODE);
    if (fd < 0) return errno == EEXIST ? 0 : -1;
    close(fd);
    return 1;
}

void *db_sql_open(size_t owner_size, const char *path, int flags, int (*setup)(void *owner, char *err, size_t errlen),
                  const struct db_sql_stmt *defs, size_t n, const char *kind, char *err, size_t errlen) {
    struct db_sql_conn *c = calloc(1, owner_size);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        db_seterr(err, errlen, "out of memory opening %s", path);
        return NULL;
    }
    if (flags & SQLITE_OPEN_CREATE) db_file_private(path);
    if (sqlite3_open_v2(path, &c->h, flags | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
        db_seterr(err, errlen, "cannot open database %s%s: %s", path,
                  flags & SQLITE_OPEN_READONLY ? " for reading" : "", c->h ? sqlite3_errmsg(c->h) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(c->h, DB_BUSY_MS);
    if (setup && setup(c, err, errlen)) goto fail;
    for (size_t i = 0; i < n; i++)
        if (sqlite3_prepare_v3(c->h, defs[i].sql, -1, SQLITE_PREPARE_PERSISTENT, stmt_of(c, &defs[i]), NULL) !=
            SQLITE_OK) {
            db_seterr(err, errlen, "preparing %s %s failed in %s: %s", kind, defs[i].name, path, sqlite3_errmsg(c->h));
            goto fail;
        }
    return c;
fail:
    db_sql_close(c, defs, n);
    return NULL;
}

void db_sql_close(void *owner, const struct db_sql_stmt *defs, size_t n) {
    struct db_sql_conn *c = owner;
    if (!c) return;
    for (size_t i = 0; i < n; i++) sqlite3_finalize(*stmt_of(c, &defs[i]));
    sqlite3_close(c->h);
    free(c->path);
    free(c);
}

char *db_sql_text_dup(sqlite3_stmt *st, int i, size_t max) {
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t) return NULL;
    size_t n = strlen((const char *)t);
    if (n > max) n = max;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, t, n);
    s[n] = '\0';
    return s;
}

void db_sql_text_copy(char *dst, size_t n, sqlite3_stmt *st, int i) {
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(dst, n, "%s", t ? (const char *)t : "");
}

int db_sql_read_cols(sqlite3_stmt *st, int first, const struct db_col *cols, size_t n, size_t max, void *out) {
    int rc = 0;
    for (size_t k = 0; k < n; k++) {
        int i = first + (int)k;
        void *f = (char *)out + cols[k].off;
        switch (cols[k].kind) {
        case DB_COL_INT: *(int *)f = sqlite3_column_int(st, i); break;
        case DB_COL_I64: *(int64_t *)f = sqlite3_column_int64(st, i); break;
        case DB_COL_DOUBLE: *(double *)f = sqlite3_column_double(st, i); break;
        case DB_COL_CHARS: db_sql_text_copy(f, cols[k].size, st, i); break;
        case DB_COL_DUP:
        case DB_COL_DUP_NULL: {
            int null = sqlite3_column_type(st, i) == SQLITE_NULL, keep = cols[k].kind == DB_COL_DUP_NULL;
            char *t = !null ? db_sql_text_dup(st, i, max) : keep ? NULL : strdup("");
            if (!t && !(null && keep)) rc = -1;
            *(char **)f = t;
            break;
        }
        }
    }
    return rc;
}

int db_sql_session_row(sqlite3_stmt *st, size_t max, struct db_session_row *row) {
    memset(row, 0, sizeof *row);
    /* In DB_SQL_SESSION_SELECT's order; only lab may be NULL in the table. */
    typedef struct db_session_row S;
    static const struct db_col cols[] = {
        DB_COL_NUM(S, id),          DB_COL_DUP_NULL(S, title),    DB_COL_DUP_NULL(S, deck_json),
        DB_COL_DUP_NULL(S, host),   DB_COL_DUP_NULL(S, kernel),   DB_COL_DUP_NULL(S, observer),
        DB_COL_DUP_NULL(S, target), DB_COL_DUP_NULL(S, lab_json), DB_COL_DUP_NULL(S, room),
        DB_COL_NUM(S, cursor),      DB_COL_NUM(S, started_at),    DB_COL_NUM(S, ended_at),
        DB_COL_NUM(S, questions),   DB_COL_NUM(S, voters),        DB_COL_NUM(S, purged_at)};
    if (db_sql_read_cols(st, 0, cols, DB_SQL_N(cols), max, row)) {
        db_session_row_free(row);
        return -1;
    }
    row->collective = -1;
    return 0;
}
