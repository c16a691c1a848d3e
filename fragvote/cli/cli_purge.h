/* Retention on the terminal: `fragvote sessions --purge --older-than DAYS`
 * and `fragvote serve --retain DAYS` delete the voters of the sessions
 * older than DAYS (db_purge_before; docs/PRIVACY.md) and say what they did. */
#ifndef FRAGVOTE_CLI_PURGE_H
#define FRAGVOTE_CLI_PURGE_H

#include <stdint.h>
#include <stdio.h>

#include "db.h"

#define CLI_PURGE_DAYS_MAX 36500 /* --older-than / --retain: at most 100 years */
#define CLI_PURGE_DAY_S 86400.0

/* Purges every ended session of db that started more than days days ago
 * (0: before now), one line per session and a closing line on out. A
 * store error: "fragvote CMD: why" on stderr and FV_EXIT_DB; else
 * FV_EXIT_OK. */
int cli_purge_older(const char *cmd, struct db *db, long days, FILE *out);
/* "Purged session ID: N voters deleted; ..." */
void cli_purge_line(FILE *out, int64_t id, int voters);
/* A line when the write-ahead log could not be emptied (p->scrubbed 0). */
void cli_purge_log_note(FILE *out, const struct db_purge *p);
/* The closing lines of a purge: what was purged, what was left (sessions
 * not ended) and whether the write-ahead log could be emptied. */
void cli_purge_report(FILE *out, const struct db_purge *p);

#endif
