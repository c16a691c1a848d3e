/* Replay of a recorded session in the terminal: each question with its vote
 * split, the measured truth with its evidence, right/wrong and timings, all
 * read back from the store (db/report.h). Pure formatting: no database access. */
#ifndef FRAGVOTE_REPLAY_H
#define FRAGVOTE_REPLAY_H

#include <stdio.h>

#include "report.h"

/* Writes the timeline of s to out. Lines a script may rely on (docs/EXPORT.md
 * "Replay"): "Q<n>  ..." starts a question; then
 *   "    votes     yes <Y> · no <N> ..." and "    truth     <yes|no|unknown|not measured> ..." */
void replay_print(FILE *out, const struct db_report_session *s);

#endif

/* ---- remeasure: what changed and why (presenter/replay_diff.c, pure) ---- */

#define REPLAY_REASON_MAX 640

struct replay_diff {
    int changed;                   /* 1: the answer differs (both measured) */
    int comparable;                /* 0: one side was never measured */
    char then_answer[8], now_answer[8]; /* "" when not measured */
    char reason[REPLAY_REASON_MAX];     /* one line: why it changed, or what differs though it did not */
};

/* Compares the measurement of one question in two sets (stored form: answer,
 * evidence, observation JSON; set host/kernel/target/lab JSON). Pure: no I/O. */
void replay_diff_explain(const struct db_report_measure *then, const struct db_report_set *then_set,
                         const struct db_report_measure *now, const struct db_report_set *now_set,
                         struct replay_diff *out);
/* "1500/1280/1500" (+ " reassembling at r1") from a lab JSON as serve stores
 * it; "" when lab_json is NULL or has no links. */
void replay_lab_summary(const char *lab_json, char *buf, size_t len);
