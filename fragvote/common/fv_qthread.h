/* A worker thread with an ordered queue (fv_queue.h): any thread pushes
 * items; the thread runs the caller's function on each, one at a time, in
 * push order, with no lock held. The caller keeps its own state and its own
 * way of waking whoever waits for results (lws_cancel_service() in the hub):
 * the `after` hook runs once an item counts as done, so a woken loop that
 * asks fv_qthread_wait(.., 0) finds it done.
 *
 * Used by the hub's store thread (hub/hub_store.c) and the local prober
 * (probe_worker/worker.c). */
#ifndef FRAGVOTE_FV_QTHREAD_H
#define FRAGVOTE_FV_QTHREAD_H

#include <stddef.h>

struct fv_qthread_config {
    const char *name;                     /* in errors: "cannot start <name>" */
    size_t item_size;                     /* bytes of one item, copied in by fv_qthread_push */
    int max;                              /* items queued at most; more are refused */
    void (*run)(void *ctx, void *item);   /* on the thread, for each item in push order */
    void (*after)(void *ctx);             /* may be NULL: on the thread, after each item counts as done */
    void *ctx;
};

/* What fv_qthread_stop does with items still queued. */
enum fv_qthread_end {
    FV_QTHREAD_DISCARD,                   /* dropped: the thread ends after the item it runs */
    FV_QTHREAD_DRAIN                      /* run: the thread ends when the queue is empty */
};

struct fv_qthread;

/* Starts the thread. Returns it (fv_qthread_stop), or NULL with err. */
struct fv_qthread *fv_qthread_start(const struct fv_qthread_config *cfg, char *err, size_t errlen);
/* Queues a copy of item (any thread, never blocks): 0, or -1 when full or stopping. */
int fv_qthread_push(struct fv_qthread *t, const void *item);
/* 1 once nothing is queued or running, 0 when still busy after wait_ms (0:
 * only look; < 0: as long as it takes). */
int fv_qthread_wait(struct fv_qthread *t, int wait_ms);
/* Items run so far. */
unsigned long fv_qthread_runs(struct fv_qthread *t);
/* Ends the thread (see enum fv_qthread_end), joins it and frees t (NULL:
 * nothing). Not from the thread itself. */
void fv_qthread_stop(struct fv_qthread *t, enum fv_qthread_end end);

#endif
