/* The local prober: one background thread that runs probe_run() for the
 * room's asks (prober.h), so that the hub's loop never blocks on the network.
 *
 * A plain ordered queue: worker_ask() (non-blocking, safe from the loop
 * thread) queues (rid, spec); the thread runs each in turn and hands the
 * result to deliver() (normally hub_post()s HUB_CMD_MEASURED), from the
 * worker thread. Tests run one at a time, in ask order, so PMTU-cache effects
 * between tests follow the deck. A test that cannot run at all is delivered
 * as a result whose three answers are "unknown", with the reason as
 * evidence. What to ask and when (prefetch, reuse, rerun) is the room's. */
#ifndef FRAGVOTE_WORKER_H
#define FRAGVOTE_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "fragprobe.h"
#include "prober.h"

#define WORKER_QUEUE_MAX 64 /* pending asks; more are refused */

/* How the worker runs a test besides probe_run() with its options: both
 * optional, called on the worker thread with ctx. */
struct worker_steps {
    /* Before each run: readies what test test_index (-1 unknown) needs (a
     * deck's lab scenario). 0, or -1 with err: the test is delivered
     * "unknown" with that reason. */
    int (*before)(void *ctx, int test_index, char *err, size_t errlen);
    /* Instead of before and probe_run: runs the test elsewhere (serve's
     * privileged helper, fragvote/privsep/). 0 with *out, or -1 with err:
     * delivered "unknown" with that reason. */
    int (*run)(void *ctx, int test_index, const struct probe_spec *spec, struct probe_result *out, char *err,
               size_t errlen);
    void *ctx;
};

struct worker_config {
    struct probe_run_opts opts;   /* observer, timeout, lab, flush_pmtu (lab pointer must outlive the worker) */
    /* Called on the worker thread with each ask's result (with ctx). */
    void (*deliver)(void *ctx, uint64_t rid, const struct probe_result *r);
    struct worker_steps steps;
    void *ctx;
};

struct worker;

/* Starts the thread. Caller owns the result; release with worker_free(). */
struct worker *worker_new(const struct worker_config *cfg, char *err, size_t errlen);
/* Queues an ask: 0, or -1 when the queue is full. */
int worker_ask(struct worker *w, uint64_t rid, const struct probe_spec *spec);
/* The same for the deck's test test_index (what `before` is told). */
int worker_ask_test(struct worker *w, uint64_t rid, int test_index, const struct probe_spec *spec);
/* struct prober's ask for a worker (ctx: the worker). */
int worker_prober_ask(void *ctx, const struct prober_ask *a);
/* What the thread does for one ask, on the caller's thread: run (or before
 * and probe_run with cfg->opts) into out, "unknown" with the reason when the
 * test cannot run. deliver is not called. */
void worker_measure(const struct worker_config *cfg, int test_index, const struct probe_spec *spec,
                    struct probe_result *out);
/* Probe runs done so far. */
unsigned long worker_runs(struct worker *w);
/* Stops the thread after the ask being run (queued asks are dropped) and
 * frees the worker. */
void worker_free(struct worker *w);

#endif
