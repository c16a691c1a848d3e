/* Opening the store for a subcommand (see cli.h): the one place that turns
 * a store that will not open into the message and FV_EXIT_DB. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "db.h"
#include "report.h"

int cli_store_open(const char *cmd, const char *path, struct db **db) {
    char err[512];
    *db = db_open(path, err, sizeof err);
    if (*db) return FV_EXIT_OK;
    fprintf(stderr, "fragvote %s: %s\n", cmd, err);
    return FV_EXIT_DB;
}

int cli_store_read(const char *cmd, const char *path, struct db **db, struct db_report **r) {
    char err[512];
    *db = NULL;
    *r = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fv_seterr(err, sizeof err, "no database %s (%s): give the file `fragvote serve` recorded with --db FILE", path,
                  strerror(errno));
        goto fail;
    }
    if (!(*db = db_open(path, err, sizeof err))) goto fail;
    if (!(*r = db_report_open(*db, err, sizeof err))) {
        db_close(*db);
        *db = NULL;
        goto fail;
    }
    return FV_EXIT_OK;
fail:
    fprintf(stderr, "fragvote %s: %s\n", cmd, err);
    return FV_EXIT_DB;
}
