/* fragvote export: score summaries of recorded sessions. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "fv_file.h"

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

struct export_args {
    const char *path, *outpath, *id_arg;
    enum export_format fmt;
    int all;
    int64_t id; /* id_arg's */
};

/* The command line into *a: 0, 1 (--help), or -1 after saying why. */
static int export_args(int argc, char **argv, struct export_args *a) {
    *a = (struct export_args){.path = EXPORT_DEFAULT_DB, .fmt = EXPORT_MARKDOWN};
    enum { O_DB = 256, O_ALL };
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
                                         {"db", required_argument, NULL, O_DB},      {"all", no_argument, NULL, O_ALL},
                                         {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":hf:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (export_format_parse(optarg, &a->fmt))
                return cli_opt_fail("export", "unknown format '%s' (csv, json, markdown, svg)", optarg);
            break;
        case O_DB: a->path = optarg; break;
        case 'o': a->outpath = optarg; break;
        case O_ALL: a->all = 1; break;
        default: return cli_opt_other("export", c, argv);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (a->id_arg) return cli_opt_fail("export", "more than one session id ('%s')", argv[i]);
        a->id_arg = argv[i];
    }
    if (a->all && a->id_arg) return cli_opt_fail("export", "give a session id or --all, not both ('%s')", a->id_arg);
    if (!a->all && !a->id_arg)
        return cli_opt_fail("export", "which session? give its id (see `fragvote sessions`) or --all");
    if (a->id_arg && export_parse_id(a->id_arg, &a->id))
        return cli_opt_fail("export", "'%s' is not a session id", a->id_arg);
    return 0;
}

int cmd_export(int argc, char **argv) {
    if (cli_help(argc, argv, usage)) return FV_EXIT_OK;
    struct export_args a;
    int urc = cli_opts_end(export_args(argc, argv, &a), "export", usage);
    if (urc >= 0) return urc;
    const char *outpath = a.outpath;
    char err[512];
    struct db *db;
    struct db_report *r;
    int orc = cli_store_read("export", a.path, &db, &r);
    if (orc) return orc;
    int rc = FV_EXIT_OK, n = 0, loaded = 0;
    int64_t *ids = NULL;
    struct db_report_session *ss = NULL;
    char *tmppath = NULL;
    FILE *out = stdout;
    if (a.all) {
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
        ids[0] = a.id;
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
        /* Private (0600), written next to the target under a random name, then
         * renamed: a failed export never leaves half a file (fv_file.h). */
        size_t len = strlen(outpath) + 16;
        tmppath = malloc(len);
        if (!tmppath) {
            snprintf(err, sizeof err, "out of memory");
            rc = FV_EXIT_FAIL;
            goto fail;
        }
        out = fv_file_begin(outpath, tmppath, len, err, sizeof err);
        if (!out) {
            out = stdout;
            rc = FV_EXIT_FAIL;
            goto fail;
        }
    }
    if (export_write(out, a.fmt, ss, n, err, sizeof err)) rc = FV_EXIT_FAIL;
    if (outpath) {
        if (rc)
            fv_file_abort(out, tmppath);
        else if (fv_file_commit(out, tmppath, outpath, err, sizeof err))
            rc = FV_EXIT_FAIL;
        out = stdout;
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
