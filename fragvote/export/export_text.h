/* Small text helpers shared by export, replay and sessions: times, the test
 * of a question in one line, and the verdict words. */
#ifndef FRAGVOTE_EXPORT_TEXT_H
#define FRAGVOTE_EXPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#define EXPORT_TEST_SUMMARY_MAX 160

/* "2026-12-03T07:40:00.123Z" (UTC); "" for t <= 0. */
void export_iso_time(char *buf, size_t len, double t);
/* "2026-12-03 08:40" in local time; "" for t <= 0. */
void export_local_time(char *buf, size_t len, double t);
/* A question's stored test spec (JSON text) in one line, e.g.
 * "udp4 do 1400 B TTL 2"; the compact text itself when it is not a spec object. */
void export_test_summary(const char *spec_json, char *buf, size_t len);
/* "right" (1), "wrong" (0), "tie" (0.5), "unscored" (anything else). */
const char *export_verdict(double correct);
/* Text from the deck and the store as Markdown that renders as typed: <, >,
 * & as entities, Markdown's punctuation backslashed, line breaks as spaces. */
void export_md_text(FILE *out, const char *s);
/* XML text: escaped; control characters (invalid in XML 1.0) dropped; bytes
 * that are not UTF-8 become '?'. */
void export_xml_text(FILE *out, const char *s);

#endif
