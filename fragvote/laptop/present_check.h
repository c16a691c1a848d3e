/* fragvote check --hub URL: one websocket to a hosted hub over the laptop's
 * link (present_link.c), held open for a while, the protocol's `ping` once a
 * second and its `pong` timed: does a websocket survive through the path a
 * phone takes? With --phone, the presenter's connection (its secret) shows
 * the room's join URL and waits for a phone to join through the hub. The
 * facts go to check/'s judges (check_judge_hub, check_judge_phone). */
#ifndef FRAGVOTE_PRESENT_CHECK_H
#define FRAGVOTE_PRESENT_CHECK_H

#include <stddef.h>

#include "check_venue.h"

/* Fills *h (h->url and h->hold_ms set by the caller; ca_file: a self-signed
 * hub's certificate, or NULL). Blocks about hold_ms (plus the connection's
 * PRESENT_CONNECT_S at most). 0, or -1 with err (the URL does not parse, no
 * thread). */
int present_check_hub(struct check_hub *h, const char *ca_file, char *err, size_t errlen);

/* Fills *p (p->url and p->wait_ms set by the caller): connects as the
 * presenter (secret), calls show(ctx, join_url) once the hub has taken the
 * secret and sent its state, then waits up to wait_ms for the hub's tally
 * to count one more phone joined. 0, or -1 with err (as above). */
int present_check_phone(struct check_phone *p, const char *ca_file, const char *secret,
                        void (*show)(void *ctx, const char *join_url), void *ctx, char *err, size_t errlen);

#endif
