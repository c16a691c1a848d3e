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
