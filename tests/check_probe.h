/* A canned probe result for tests that feed the room, hub or quiz a
 * measurement without running a probe. */
#ifndef FRAGVOTE_CHECK_PROBE_H
#define FRAGVOTE_CHECK_PROBE_H
#include <stdio.h>
#include <string.h>

#include "fragprobe.h"

/* The three answers (PROBE_ANS_*), the evidence line, observer "raw"; the
 * rest zero (bases observed): a test sets what else it needs. */
static inline struct probe_result check_probe_result(int sent, int df, int frag, const char *evidence) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.sent.answer = sent;
    r.df.answer = df;
    r.fragmented.answer = frag;
    snprintf(r.evidence, sizeof r.evidence, "%s", evidence);
    snprintf(r.observer, sizeof r.observer, "raw");
    return r;
}
#endif
