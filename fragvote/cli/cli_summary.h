/* The end of a talk on the terminal: per revealed question truth, majority
 * and how many were right, then the room's score, read from the store's
 * report (db/report.h) -- the same numbers as `fragvote export`. */
#ifndef FRAGVOTE_CLI_SUMMARY_H
#define FRAGVOTE_CLI_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "db.h"

/* Prints session_id's summary to out; a store error goes to stderr as
 * "fragvote PROG: summary: ..." and nothing more is printed. */
void cli_summary_print(FILE *out, struct db *db, int64_t session_id, const char *prog);

#endif
