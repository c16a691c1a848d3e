/* Score summaries of recorded sessions: CSV, JSON (schema in docs/EXPORT.md),
 * Markdown and an SVG bar chart of per-question vote accuracy for a slide.
 *
 * The writers are pure: they format the db_report_session structs they are
 * given (the store's own numbers) and do no database access. */
#ifndef FRAGVOTE_EXPORT_H
#define FRAGVOTE_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "db.h"
#include "report.h"

#define EXPORT_DEFAULT_DB "fragvote.db"
#define EXPORT_JSON_VERSION 1          /* "version" in the JSON export; bump on incompatible change */

enum export_format { EXPORT_CSV, EXPORT_JSON, EXPORT_MARKDOWN, EXPORT_SVG };

/* "csv" "json" "markdown" (or "md") "svg"; returns 0, or -1 for an unknown name. */
int export_format_parse(const char *name, enum export_format *out);
const char *export_format_name(enum export_format f);

/* Writes the summary of sessions s[0..n) to out. JSON and CSV hold every
 * session in one document/table; Markdown one section each; SVG one chart
 * each, stacked in one document. Returns 0, or -1 with err on a write error. */
int export_write(FILE *out, enum export_format f, const struct db_report_session *s, int n,
                 char *err, size_t errlen);

/* Session session_id of db as `fragvote export --format FORMAT ID` writes
 * it, in *out (malloc'd, the caller frees). FORMAT as export_format_parse.
 * Returns 0, or -1 with err (unknown format, no such session, database). */
int export_session_text(struct db *db, int64_t session_id, const char *format, char **out, char *err,
                        size_t errlen);

/* Pure: one CSV text field: quoted when needed; one starting with = + - @,
 * a TAB or a CR gets a ' first, so that a spreadsheet never evaluates a
 * title, a question or a nickname as a formula (OWASP's CSV injection list). */
void export_csv_text(FILE *out, const char *s);

/* Per-question vote accuracy: correct votes / votes, or -1 when unscored
 * (no votes, or no yes/no truth). */
double export_question_accuracy(const struct db_report_question *q);

/* The shortest decimal that reads back as exactly v (for CSV / Markdown numbers). */
void export_fmt_double(char *buf, size_t len, double v);

/* Parses a session id argument ("12"); returns 0, or -1 if not a positive integer. */
int export_parse_id(const char *s, int64_t *out);

#endif
