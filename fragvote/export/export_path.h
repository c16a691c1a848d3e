/* Each test's path picture in a session's exports (issue 20): the hop table
 * in Markdown, an inline SVG drawing (black on white, shapes and words carry
 * the meaning). From the path stored with each test's live measurement;
 * tests without one (rows from before issue 20) are left out. */
#ifndef FRAGVOTE_EXPORT_PATH_H
#define FRAGVOTE_EXPORT_PATH_H

#include <stdio.h>

#include "report.h"

#define EXPORT_PATH_SVG_H 600 /* one test's band, 1920 wide */

/* Tests of s with a stored path. */
int export_path_count(const struct db_report_session *s);
/* "## Paths", then per test "### Test N: <test>" and its hop table
 * (probe_path_rows). Nothing when no test has a path. */
void export_path_markdown(FILE *out, const struct db_report_session *s);
/* Height the SVG bands of s take (EXPORT_PATH_SVG_H per test with a path). */
int export_path_svg_height(const struct db_report_session *s);
/* The bands, one <g class="path" data-test="N"> per test, from y down. */
void export_path_svg(FILE *out, const struct db_report_session *s, int y);

#endif
