/* Internal to libfragprobe: which packet of the test a quote is about
 * (probe/quote_about.c, pure): an observer keeps every answer of the test's
 * flow (probe_answer_matches); the judges answer only from those about the
 * packet the question is about. */
#ifndef FRAGPROBE_QUOTE_ABOUT_H
#define FRAGPROBE_QUOTE_ABOUT_H

#include <stddef.h>

#include "fv_msg.h"
#include "packet_seen.h"
#include "probe_wire.h"
#include "sendinfo.h"

enum probe_about { PROBE_ABOUT_OTHER = 0, PROBE_ABOUT_THIS = 1, PROBE_ABOUT_UNSURE = 2 };
/* THIS, OTHER (what it is goes into what, e.g. "another segment (seq +2896,
 * 104 bytes)"), or UNSURE when nothing ties it to either (what says why);
 * the same as a message into msg (ev.quote_*) when msg is not NULL. */
enum probe_about probe_quote_about(const struct probe_sendinfo *si, const struct probe_packet_seen *pkt,
                                   const struct probe_quote *q, char *what, size_t len, struct fv_msg *msg);

#endif
