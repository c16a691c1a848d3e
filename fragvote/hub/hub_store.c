/* The hub's store thread: the SQL of the group commit (room_write_run) runs
 * here, so a database held locked by another process holds up only the
 * votes waiting for that commit -- never the loop, the pings, the acks of
 * other batches or the fan-out. One batch is in flight at a time: the loop
 * plans it and applies what was committed (hub_batch.c); a vote is acked
 * only after its COMMIT, as before. Only lws_cancel_service() crosses back
 * to the loop; the room's memory stays the loop's. */
#include <stdio.h>
#include <stdlib.h>

#include <libwebsockets.h>

#include "fv_err.h"
#include "fv_qthread.h"
#include "hub.h"
#include "hub_store.h"
#include "room.h"

struct store_job {
    struct room_write *w;          /* the loop's array, the thread's until done */
    int n;
};

struct hub_store {
    struct room *room;             /* its memory stays the loop's: the thread only runs the SQL */
    struct lws_context *ctx;
    struct fv_qthread *thread;     /* one job at a time */
    int rc;                        /* the last job's, read by the loop once fv_qthread_wait says done */
    char err[256];
};

static void store_run(void *ctx, void *item) {
    struct hub_store *s = ctx;
    struct store_job *job = item;
    /* The wait for a lock another process holds happens here, not on the
     * loop: as long as HUB_STORE_BUSY_MS, then the batch is refused. The
     * loop writes to the database only while no batch is in flight, with
     * the live timeout (ROOM_BUSY_LIVE_MS) the room sets back afterwards. */
    s->err[0] = 0;
    s->rc = room_write_run(s->room, job->w, job->n, HUB_STORE_BUSY_MS, s->err, sizeof s->err);
}

/* After the job counts as done: the loop wakes and finds it so. */
static void store_after(void *ctx) {
    struct hub_store *s = ctx;
    lws_cancel_service(s->ctx);
}

struct hub_store *hub_store_start(struct room *room, struct lws_context *ctx, char *warn, size_t warnlen, char *err,
                                  size_t errlen) {
    struct hub_store *s = fv_zalloc(sizeof *s, err, errlen);
    if (!s) return NULL;
    s->room = room;
    s->ctx = ctx;
    struct fv_qthread_config tc = {.name = "the hub's store thread", .item_size = sizeof(struct store_job), .max = 1,
                                   .run = store_run, .after = store_after, .ctx = s};
    s->thread = fv_qthread_start(&tc, err, errlen);
    if (!s->thread) {
        free(s);
        return NULL;
    }
    /* Checkpoints of the log go on a thread of their own too: inside a
     * commit they would hold its votes' acks 8-15 ms every ~25 batches. */
    char cerr[256];
    snprintf(warn, warnlen, "%s", room_write_checkpoints_apart(room, cerr, sizeof cerr) ? cerr : "");
    return s;
}

void hub_store_stop(struct hub_store *s) {
    if (!s) return;
    fv_qthread_stop(s->thread, FV_QTHREAD_DISCARD);
    free(s);
}

void hub_store_submit(struct hub_store *s, struct room_write *w, int n) {
    struct store_job job = {.w = w, .n = n};
    fv_qthread_push(s->thread, &job); /* never full: the loop submits only while no batch is in flight */
}

int hub_store_result(struct hub_store *s, int wait_ms, char *err, size_t errlen) {
    if (!fv_qthread_wait(s->thread, wait_ms)) return 1;
    snprintf(err, errlen, "%s", s->err);
    return s->rc;
}
