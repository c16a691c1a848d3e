/* The prober interface: how the room asks for measurements and gets them back.
 *
 * The room (room.h) decides when a test must be measured: a prefetch when
 * voting on it opens, a measure or rerun by the presenter. It hands each ask
 * to whatever runs probes -- the local worker thread (worker.h) in serve and
 * play, a remote prober connection in a hosted hub -- through struct prober,
 * and takes the answer for that ask's request id with room_prober_result().
 * The room keeps the one cache of results: a prefetched result is held in
 * memory (never in any frame) until the presenter measures; what a reveal
 * shows is decided by quiz_truth().
 *
 * Everything here runs on the room's thread (the hub's loop); a prober that
 * works elsewhere must hand results back to that thread (hub_post). */
#ifndef FRAGVOTE_PROBER_H
#define FRAGVOTE_PROBER_H

#include <stdint.h>

#include "fragprobe.h"

struct prober_ask {
    uint64_t rid;                  /* room-unique, increasing, never 0 (per process: not stored) */
    int test_index;                /* the deck's test */
    int position;                  /* the question waiting for it; -1: a prefetch (voting opened) */
    const struct probe_spec *spec; /* valid during the call (room_prober_pending: until the next room call) */
    int rerun;                     /* 1: the presenter asked to measure again */
};

struct prober {
    /* Called on the room's thread; must not block. Returns 0 queued (a
     * prober that cannot send now keeps it, or finds it again with
     * room_prober_pending), or -1 refused: the room answers a measure at once
     * with an honest "unknown" (prober_result_unknown) and forgets a prefetch. */
    int (*ask)(void *ctx, const struct prober_ask *a);
    void *ctx;
};

/* Fills out as the answer to a test that could not run: all facts unknown,
 * the reason as evidence ("not measured: <why>"). */
void prober_result_unknown(const struct probe_spec *spec, const char *why, struct probe_result *out);

/* Whether a result answers an ask of spec: the same protocol, mode and size
 * (host, port and TTL are filled in as run). */
int prober_result_matches(const struct probe_spec *spec, const struct probe_result *res);

#endif
