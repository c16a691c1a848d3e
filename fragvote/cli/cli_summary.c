/* The end-of-talk summary (see cli_summary.h). */
#include "cli_summary.h"

#include <string.h>

#include "report.h"

void cli_summary_print(FILE *out, struct db *db, int64_t session_id, const char *prog) {
    char err[256];
    struct db_report *rep = db_report_open(db, err, sizeof err);
    if (!rep) {
        fprintf(stderr, "fragvote %s: summary: %s\n", prog, err);
        return;
    }
    struct db_report_session rs;
    if (db_report_session_load(db, rep, session_id, &rs, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote %s: summary: %s\n", prog, err);
        db_report_close(rep);
        return;
    }
    fprintf(out, "\nSession %lld: %s\n", (long long)rs.row.id, rs.row.title);
    for (int i = 0; i < rs.nquestions; i++) {
        const struct db_report_question *q = &rs.questions[i];
        if (strcmp(q->state, "revealed")) continue;
        int total = q->yes + q->no;
        fprintf(out, "  Q%-3d %-10s truth %-7s majority %-4s %s  (%d votes, %d%% right)\n", q->position + 1, q->kind,
                q->truth[0] ? q->truth : "-", q->majority[0] ? q->majority : "-",
                q->correct < 0 ? "unscored" : q->correct == 1 ? "right" : q->correct == 0 ? "wrong" : "tie", total,
                total && q->correct_votes >= 0 ? q->correct_votes * 100 / total : 0);
    }
    if (rs.score.collective >= 0)
        fprintf(out, "This room scored %.0f%% (collective, over %d questions); vote accuracy %.0f%%; %d voters.\n",
                rs.score.collective * 100, rs.score.scored, rs.score.vote_accuracy * 100, rs.score.voters);
    else
        fprintf(out, "No question was scored; %d voters.\n", rs.score.voters);
    db_report_session_free(&rs);
    db_report_close(rep);
}
