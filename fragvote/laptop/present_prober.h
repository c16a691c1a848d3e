/* The laptop as the hosted room's prober (`fragvote present`): the hub's
 * `measure` asks run on the laptop's probe worker (worker.c, the same engine,
 * observers, witness and lab as serve), and each result goes back as a
 * `result` frame with the ask's request id (docs/PROTOCOL.md "The remote
 * prober").
 *
 * A result is kept until the hub answered `result_ok` for it: when the link
 * drops first, it is sent again after the next `prober_ok`. An ask the hub
 * repeats (it re-sends what is pending after `prober_ok`) for a rid the
 * laptop is measuring or has measured is not probed again. The laptop does
 * not prefetch on its own: the room asks for a test when voting opens (q -1)
 * and holds the answer until the presenter measures.
 *
 * No lws: frames go out through the send callback. Thread-safe: the link's
 * thread calls the present_prober_* functions, the worker thread delivers. */
#ifndef FRAGVOTE_PRESENT_PROBER_H
#define FRAGVOTE_PRESENT_PROBER_H

#include <stddef.h>

#include "console.h"
#include "deck.h"
#include "present_frame.h"
#include "worker.h"

#define PRESENT_KEEP_MAX 256 /* asks being measured or results not yet acknowledged; more are refused */

struct present_prober_config {
    const struct deck *deck;         /* the laptop's deck with its --target applied (outlives the prober) */
    struct probe_run_opts opts;      /* observer, lab, flush, witness: as serve's worker */
    /* Queues one frame on the link (with ctx): 0, or -1 when the link is down. */
    int (*send)(void *ctx, const char *text);
    /* The worker's optional steps: the lab scenario of the deck's test
     * (before), or the test run by the privileged helper (run). */
    struct worker_steps steps;
    void *ctx;
};

struct present_prober;

/* The prober with its probe worker thread: present_prober_free() stops the
 * worker (after the run in progress) and frees it. */
struct present_prober *present_prober_new(const struct present_prober_config *cfg, char *err, size_t errlen);

/* The hub said prober_ok on the current connection, with its epoch: results
 * kept from that epoch are sent now; those of another epoch (the hub
 * restarted: its rids start again) are dropped, and the hub asks afresh. */
void present_prober_ready(struct present_prober *p, const char *epoch);
/* The connection is gone: nothing is sent until the next ready. */
void present_prober_lost(struct present_prober *p);
/* A `measure` ask. Returns 0, or -1 with err when it cannot be taken (its
 * rid is answered at once with an "unknown" result saying why, so the room is
 * never left waiting). */
int present_prober_measure(struct present_prober *p, const struct present_frame *f, char *err, size_t errlen);
/* The hub stored the result of rid (result_ok), or refused it (error with
 * rid): forget it. rids are the current epoch's. */
void present_prober_done(struct present_prober *p, long long rid);

struct present_prober_counts {
    unsigned long asked, results_sent, resent, acked, dropped, runs, prefetch_hits;
    int kept;                        /* results measured and not yet acknowledged */
};
void present_prober_counts(struct present_prober *p, struct present_prober_counts *out);

void present_prober_free(struct present_prober *p);

#endif
