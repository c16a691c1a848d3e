/* fragvote check --hub URL: one websocket to a hosted hub over the laptop's
 * link (present_link.c), held open for a while, the protocol's `ping` once a
 * second and its `pong` timed: does a websocket survive through the path a
 * phone takes? The facts go to check/'s judge (check_judge_hub). */
#ifndef FRAGVOTE_PRESENT_CHECK_H
#define FRAGVOTE_PRESENT_CHECK_H

#include <stddef.h>

#include "check_venue.h"

/* Fills *h (h->url and h->hold_ms set by the caller; ca_file: a self-signed
 * hub's certificate, or NULL). Blocks about hold_ms (plus the connection's
 * PRESENT_CONNECT_S at most). 0, or -1 with err (the URL does not parse, no
 * thread). */
int present_check_hub(struct check_hub *h, const char *ca_file, char *err, size_t errlen);

#endif
