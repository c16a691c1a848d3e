/* fragvote sessions: list the recorded sessions of a database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "export_text.h"

#define SESSIONS_TITLE_COLS 32 /* title bytes shown in the table */

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote sessions [--db FILE]\n"
            "\n"
            "Lists the sessions recorded in the database: id, date, title, questions,\n"
            "voters and the collective score (share of scored questions the room's\n"
            "majority got right; see docs/SCORING.md).\n"
            "\n"
            "Options:\n"
            "  --db FILE   the database (default ./%s); an older schema is migrated\n"
            "  -h, --help  show this help\n"
            "\n"
            "Exit codes: 0 ok, 2 usage error, 7 database missing, unreadable or newer.\n",
            EXPORT_DEFAULT_DB);
}

/* Copies at most cols bytes of s without cutting a UTF-8 sequence. */
static void clip(char *dst, size_t dstlen, const char *s, size_t cols) {
    size_t n = strlen(s);
    if (n > cols) {
        n = cols;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    if (n >= dstlen) n = dstlen - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
}

int cmd_sessions(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return FV_EXIT_OK;
    }
    const char *path = EXPORT_DEFAULT_DB;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc) path = argv[++i];
        else if (!strncmp(argv[i], "--db=", 5)) path = argv[i] + 5;
        else {
            fprintf(stderr, "fragvote sessions: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return FV_EXIT_USAGE;
        }
    }
    char err[512];
    struct db *db;
    struct db_report *r;
    if (export_open(path, &db, &r, err, sizeof err)) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        return FV_EXIT_DB;
    }
    int64_t *ids;
    int n, rc = FV_EXIT_OK;
    if (db_report_session_ids(r, &ids, &n, err, sizeof err)) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        rc = FV_EXIT_DB;
        goto done;
    }
    if (n == 0) {
        printf("No sessions in %s yet: `fragvote serve --db %s` records one.\n", path, path);
        free(ids);
        goto done;
    }
    printf("%5s  %-16s  %-*s  %9s  %6s  %5s\n", "ID", "DATE", SESSIONS_TITLE_COLS, "TITLE", "QUESTIONS", "VOTERS",
           "SCORE");
    for (int i = 0; i < n; i++) {
        struct db_session_row row;
        if (db_session_get(db, ids[i], &row, err, sizeof err)) {
            fprintf(stderr, "fragvote sessions: %s\n", err);
            rc = FV_EXIT_DB;
            break;
        }
        char when[40], title[SESSIONS_TITLE_COLS * 2 + 1], score[16];
        export_local_time(when, sizeof when, row.started_at);
        clip(title, sizeof title, row.title ? row.title : "", SESSIONS_TITLE_COLS);
        if (row.collective >= 0) snprintf(score, sizeof score, "%.0f%%", row.collective * 100);
        else snprintf(score, sizeof score, "-");
        printf("%5lld  %-16s  %-*s  %9d  %6d  %5s\n", (long long)row.id, when, SESSIONS_TITLE_COLS, title,
               row.questions, row.voters, score);
        db_session_row_free(&row);
    }
    free(ids);
done:
    db_report_close(r);
    db_close(db);
    return rc;
}
