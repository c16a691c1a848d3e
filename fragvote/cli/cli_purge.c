/* Retention on the terminal (see cli_purge.h). */
#include "cli_purge.h"

#include <stdint.h>

#include "cli.h"

void cli_purge_line(FILE *out, int64_t id, int voters) {
    fprintf(out, "Purged session %lld: %d voter%s deleted; its votes, scores and measurements kept.\n",
            (long long)id, voters, voters == 1 ? "" : "s");
}

static int purged_line(int64_t id, int voters, void *arg) {
    cli_purge_line(arg, id, voters);
    return 0;
}

void cli_purge_log_note(FILE *out, const struct db_purge *p) {
    if (p->sessions && !p->scrubbed)
        fprintf(out, "Note: another program has the database open, so its write-ahead log still holds the "
                     "deleted rows until that program's next checkpoint.\n");
}

void cli_purge_report(FILE *out, const struct db_purge *p) {
    if (!p->sessions) fprintf(out, "No session to purge.\n");
    else
        fprintf(out, "Purged %d session%s, %d voter%s in all.\n", p->sessions, p->sessions == 1 ? "" : "s", p->voters,
                p->voters == 1 ? "" : "s");
    if (p->running)
        fprintf(out,
                "Left alone: %d session%s old enough that never ended (running, or stopped by a crash: "
                "`fragvote serve --resume ID`, then quit, ends one).\n",
                p->running, p->running == 1 ? "" : "s");
    cli_purge_log_note(out, p);
}

int cli_purge_older(const char *cmd, struct db *db, long days, FILE *out) {
    char err[512];
    struct db_purge p;
    int rc = db_purge_before(db, db_now() - (double)days * CLI_PURGE_DAY_S, purged_line, out, &p, err, sizeof err);
    cli_purge_report(out, &p);
    fflush(out);
    if (rc) {
        fprintf(stderr, "fragvote %s: %s\n", cmd, err);
        return FV_EXIT_DB;
    }
    return FV_EXIT_OK;
}
