/* What the store and the report reader do alike over their own SQLite
 * connections (see db_internal.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

int db_sql_fail(sqlite3 *h, const char *path, char *err, size_t errlen, const char *what) {
    db_seterr(err, errlen, "%s failed in %s: %s", what, path, sqlite3_errmsg(h));
    return -1;
}

int db_sql_prepare_all(sqlite3 *h, const char *path, void *owner, const struct db_sql_stmt *defs, size_t n,
                       const char *kind, char *err, size_t errlen) {
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt **st = (sqlite3_stmt **)((char *)owner + defs[i].offset);
        if (sqlite3_prepare_v3(h, defs[i].sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
            db_seterr(err, errlen, "preparing %s %s failed in %s: %s", kind, defs[i].name, path, sqlite3_errmsg(h));
            return -1;
        }
    }
    return 0;
}

void db_sql_finalize_all(void *owner, const struct db_sql_stmt *defs, size_t n) {
    for (size_t i = 0; i < n; i++) sqlite3_finalize(*(sqlite3_stmt **)((char *)owner + defs[i].offset));
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

int db_sql_session_row(sqlite3_stmt *st, size_t max, struct db_session_row *row) {
    memset(row, 0, sizeof *row);
    row->id = sqlite3_column_int64(st, 0);
    char **text[] = {&row->title, &row->deck_json, &row->host, &row->kernel, &row->observer, &row->target,
                     &row->lab_json, &row->room};
    for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
        *text[i] = db_sql_text_dup(st, 1 + (int)i, max);
        /* NULL from a value is out of memory (only lab may be NULL in the table) */
        if (!*text[i] && sqlite3_column_type(st, 1 + (int)i) != SQLITE_NULL) {
            db_session_row_free(row);
            return -1;
        }
    }
    row->cursor = sqlite3_column_int(st, 9);
    row->started_at = sqlite3_column_double(st, 10);
    row->ended_at = sqlite3_column_double(st, 11);
    row->questions = sqlite3_column_int(st, 12);
    row->voters = sqlite3_column_int(st, 13);
    row->collective = -1;
    return 0;
}
