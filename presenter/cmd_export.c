/* fragvote export: score summaries of recorded sessions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote export ID [OPTIONS]\n"
            "       fragvote export --all [OPTIONS]\n"
            "\n"
            "Writes a session's score summary: collective score, vote accuracy, the\n"
            "per-question table (test, question, yes, no, majority, truth, evidence),\n"
            "voters and their anonymous score distribution. The JSON schema is in\n"
            "docs/EXPORT.md; the SVG is a bar chart of per-question accuracy for a slide.\n"
            "\n"
            "Options:\n"
            "  --format F, -f F  csv, json, markdown (md) or svg (default markdown)\n"
            "  --all             every session in the database, oldest first\n"
            "  -o FILE           write to FILE (replaced only when complete); default stdout\n"
            "  --db FILE         the database (default ./%s); an older schema is migrated\n"
            "  -h, --help        show this help\n"
            "\n"
            "Exit codes: 0 ok, 1 no such session or write error, 2 usage error,\n"
            "7 database missing, unreadable or newer.\n",
            EXPORT_DEFAULT_DB);
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "fragvote export: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see fragvote export --help)\n");
    return FV_EXIT_USAGE;
}

int cmd_export(int argc, char **argv) {
    if (cli_help(argc, argv, usage)) return FV_EXIT_OK;
    const char *path = EXPORT_DEFAULT_DB, *outpath = NULL, *id_arg = NULL;
    enum export_format fmt = EXPORT_MARKDOWN;
    int all = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if ((!strcmp(a, "--format") || !strcmp(a, "-f") || !strcmp(a, "--db") || !strcmp(a, "-o") ||
             !strcmp(a, "--output"))) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            val = argv[++i];
        }
        if (!strncmp(a, "--format=", 9)) a = "--format", val = argv[i] + 9;
        else if (!strncmp(a, "--db=", 5)) a = "--db", val = argv[i] + 5;
        else if (!strncmp(a, "--output=", 9)) a = "-o", val = argv[i] + 9;

        if (!strcmp(a, "--format") || !strcmp(a, "-f")) {
            if (export_format_parse(val, &fmt)) return usage_error("unknown format '%s' (csv, json, markdown, svg)", val);
        } else if (!strcmp(a, "--db")) {
            path = val;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            outpath = val;
        } else if (!strcmp(a, "--all")) {
            all = 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (id_arg) {
            return usage_error("more than one session id ('%s')", a);
        } else {
            id_arg = a;
        }
    }
    int64_t id = 0;
    if (all && id_arg) return usage_error("give a session id or --all, not both ('%s')", id_arg);
    if (!all && !id_arg) return usage_error("%s", "which session? give its id (see `fragvote sessions`) or --all");
    if (id_arg && export_parse_id(id_arg, &id)) return usage_error("'%s' is not a session id", id_arg);

    char err[512];
    struct db *db;
    struct db_report *r;
    int orc = cli_store_read("export", path, &db, &r);
    if (orc) return orc;
    int rc = FV_EXIT_OK, n = 0, loaded = 0;
    int64_t *ids = NULL;
    struct db_report_session *ss = NULL;
    char *tmppath = NULL;
    FILE *out = stdout;
    if (all) {
        if (db_report_session_ids(r, &ids, &n, err, sizeof err)) {
            rc = FV_EXIT_DB;
            goto fail;
        }
    } else {
        ids = malloc(sizeof *ids);
        if (!ids) {
            snprintf(err, sizeof err, "out of memory");
            rc = FV_EXIT_FAIL;
            goto fail;
        }
        ids[0] = id;
        n = 1;
    }
    ss = calloc(n ? (size_t)n : 1, sizeof *ss);
    if (!ss) {
        snprintf(err, sizeof err, "out of memory");
        rc = FV_EXIT_FAIL;
        goto fail;
    }
    for (; loaded < n; loaded++)
        if (db_report_session_load(db, r, ids[loaded], &ss[loaded], err, sizeof err)) {
            rc = FV_EXIT_FAIL;
            goto fail;
        }
    if (outpath) {
        /* Write next to the target, then rename: a failed export never leaves half a file. */
        size_t len = strlen(outpath) + 16;
        tmppath = malloc(len);
        if (!tmppath) {
            snprintf(err, sizeof err, "out of memory");
            rc = FV_EXIT_FAIL;
            goto fail;
        }
        snprintf(tmppath, len, "%s.tmp%ld", outpath, (long)getpid());
        out = fopen(tmppath, "w");
        if (!out) {
            snprintf(err, sizeof err, "cannot write %s: %s", outpath, strerror(errno));
            out = stdout;
            rc = FV_EXIT_FAIL;
            goto fail;
        }
    }
    if (export_write(out, fmt, ss, n, err, sizeof err)) rc = FV_EXIT_FAIL;
    if (outpath) {
        if (fclose(out) && !rc) {
            snprintf(err, sizeof err, "writing %s failed: %s", outpath, strerror(errno));
            rc = FV_EXIT_FAIL;
        }
        out = stdout;
        if (!rc && rename(tmppath, outpath)) {
            snprintf(err, sizeof err, "cannot write %s: %s", outpath, strerror(errno));
            rc = FV_EXIT_FAIL;
        }
        if (rc) unlink(tmppath);
    }
    if (rc) goto fail;
    goto done;
fail:
    fprintf(stderr, "fragvote export: %s\n", err);
done:
    for (int i = 0; i < loaded; i++) db_report_session_free(&ss[i]);
    free(ss);
    free(ids);
    free(tmppath);
    db_report_close(r);
    db_close(db);
    return rc;
}
