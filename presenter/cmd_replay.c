/* fragvote replay: a recorded session's timeline in the terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "replay.h"

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote replay ID [OPTIONS]\n"
            "\n"
            "Shows a recorded session question by question: the vote split, the\n"
            "measured truth with its evidence, right or wrong, and the timings.\n"
            "\n"
            "Options:\n"
            "  --db FILE    the database (default ./%s); an older schema is migrated\n"
            "  --serve      projector read-only replay mode (not implemented yet)\n"
            "  --remeasure  run the session's tests again now (not implemented yet)\n"
            "  -h, --help   show this help\n"
            "\n"
            "Exit codes: 0 ok, 1 no such session, 2 usage error,\n"
            "7 database missing, unreadable or newer.\n",
            EXPORT_DEFAULT_DB);
}

int cmd_replay(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return FV_EXIT_OK;
    }
    const char *path = EXPORT_DEFAULT_DB, *id_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--db")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "fragvote replay: --db needs a file\n");
                return FV_EXIT_USAGE;
            }
            path = argv[++i];
        } else if (!strncmp(a, "--db=", 5)) {
            path = a + 5;
        } else if (!strcmp(a, "--serve") || !strcmp(a, "--remeasure")) {
            fprintf(stderr, "fragvote replay: %s is not implemented yet\n", a);
            return FV_EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "fragvote replay: unknown option '%s' (see fragvote replay --help)\n", a);
            return FV_EXIT_USAGE;
        } else if (id_arg) {
            fprintf(stderr, "fragvote replay: more than one session id ('%s')\n", a);
            return FV_EXIT_USAGE;
        } else {
            id_arg = a;
        }
    }
    int64_t id;
    if (!id_arg || export_parse_id(id_arg, &id)) {
        fprintf(stderr, "fragvote replay: give a session id (see `fragvote sessions`)%s%s%s\n",
                id_arg ? ", not '" : "", id_arg ? id_arg : "", id_arg ? "'" : "");
        return FV_EXIT_USAGE;
    }
    char err[512];
    struct db *db;
    struct db_report *r;
    if (export_open(path, &db, &r, err, sizeof err)) {
        fprintf(stderr, "fragvote replay: %s\n", err);
        return FV_EXIT_DB;
    }
    struct db_report_session s;
    int rc = FV_EXIT_OK;
    if (db_report_session_load(db, r, id, &s, err, sizeof err)) {
        fprintf(stderr, "fragvote replay: %s\n", err);
        rc = FV_EXIT_FAIL;
    } else {
        replay_print(stdout, &s);
        db_report_session_free(&s);
    }
    db_report_close(r);
    db_close(db);
    return rc;
}
