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
    enum { O_DB = 256, O_ALL };
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
                                         {"db", required_argument, NULL, O_DB},      {"all", no_argument, NULL, O_ALL},
                                         {NULL, 0, NULL, 0}};
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":f:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (export_format_parse(optarg, &fmt))
                return usage_error("unknown format '%s' (csv, json, markdown, svg)", optarg);
            break;
        case O_DB: path = optarg; break;
        case 'o': outpath = optarg; break;
        case O_ALL: all = 1; break;
        case ':': return usage_error("%s needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (id_arg) return usage_error("more than one session id ('%s')", argv[i]);
        id_arg = argv[i];
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
    if (export_write(out, fmt, ss, n, err, sizeof err)) rc = FV_EXIT_FAIL;
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
