/* The room's calibration in a session's exports (issue 37, item 5;
 * docs/EXPORT.md): share right per confidence level and the Brier score
 * (docs/SCORING.md "Confidence"), and each question's votes split by
 * confidence. From the report's splits (db_report_session.calib and each
 * question's conf/first_conf); a session without a vote carrying a
 * confidence (every one stored before it) shows none. Pure writers. */
#ifndef FRAGVOTE_EXPORT_CALIB_H
#define FRAGVOTE_EXPORT_CALIB_H

#include <jansson.h>
#include <stdio.h>

#include "report.h"

/* The CSV columns this part fills, after the others: the header's tail and
 * how many there are (the other record types leave them empty). */
#define EXPORT_CALIB_CSV_HEADER "confidence,probability,confidence_votes,confidence_right,confidence_share_right,brier"
#define EXPORT_CALIB_CSV_COLUMNS 6
/* The session row's values of those columns (only brier), with the leading comma. */
void export_calib_csv_session(FILE *out, const struct db_report_session *s);
/* Empty values of those columns, with the leading commas (question and distribution rows). */
void export_calib_csv_empty(FILE *out);
/* One "calibration" row per level (columns before these empty but record
 * and session); nothing when no vote carries a confidence. before: how
 * many columns come before these. */
void export_calib_csv_rows(FILE *out, const struct db_report_session *s, int before);

/* The session's "calibration" (calibration_json; null without a confidence). */
json_t *export_calib_json(const struct db_report_session *s);
/* A question's "confidence" (calibration_reveal_json; null without one). */
json_t *export_calib_question_json(const struct db_report_question *q);

/* "Confidence" table, Brier line, and each question's headline and shift;
 * nothing without a confidence. */
void export_calib_markdown(FILE *out, const struct db_report_session *s);
/* "sure 62% right · think so 55% right · guessing no votes · Brier 0.21"
 * (the slide's and replay's line); "" without a confidence. */
void export_calib_text(const struct confidence_calib *c, char *buf, size_t len);
/* The slide's calibration line at y (one <text class="calibration">):
 * "Confidence: " and export_calib_text; nothing without a confidence. */
void export_calib_svg(FILE *out, const struct db_report_session *s, int y);

#endif
