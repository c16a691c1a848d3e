/* The probe worker: one background thread that runs probe_run() for the
 * quiz, so that the hub's loop never blocks on the network.
 *
 * Two kinds of requests, both non-blocking to submit (safe from the lws
 * thread's hooks):
 *   - prefetch(test): start measuring a test while the room still votes on
 *     it; the result is kept inside the worker, never delivered on its own;
 *   - measure(position, test): the quiz asks for the truth. If a prefetched
 *     result for that test is ready (or being computed) it is used once;
 *     otherwise the probe runs now. The result goes to deliver() (which
 *     normally hub_post()s HUB_CMD_MEASURED), from the worker thread.
 * Tests run one at a time, in request order, so PMTU-cache effects between
 * tests follow the deck. A test that cannot run at all is delivered as a
 * result whose three answers are "unknown", with the reason as evidence. */
#ifndef FRAGVOTE_WORKER_H
#define FRAGVOTE_WORKER_H

#include <stddef.h>

#include "deck.h"
#include "fragprobe.h"

#define WORKER_QUEUE_MAX 64 /* pending requests; more are refused (answered "unknown") */

struct worker_config {
    struct probe_run_opts opts;   /* observer, timeout, lab, flush_pmtu (lab pointer must outlive the worker) */
    int prefetch;                 /* 1: honour prefetch requests */
    /* Called on the worker thread with each measure request's result. */
    void (*deliver)(void *ctx, int position, const struct probe_result *r);
    void *ctx;
};

struct worker;

/* Starts the thread. Caller owns the result; release with worker_free(). */
struct worker *worker_new(const struct worker_config *cfg, char *err, size_t errlen);
/* Both return 0, or -1 when the queue is full. */
int worker_prefetch(struct worker *w, int test_index, const struct probe_spec *spec);
int worker_measure(struct worker *w, int position, int test_index, const struct probe_spec *spec);
/* Measure requests taken so far (for the console to see that measure was taken). */
unsigned long worker_requests(struct worker *w);
/* Probe runs done so far, and how many measure requests a prefetch answered. */
void worker_counts(struct worker *w, unsigned long *runs, unsigned long *prefetch_hits);
/* Stops the thread after the request being run (pending requests are
 * dropped) and frees the worker. */
void worker_free(struct worker *w);

/* Fills r as the answer to a test that could not run: all facts unknown. */
void worker_result_unknown(const struct probe_spec *spec, const char *why, struct probe_result *r);

#endif
