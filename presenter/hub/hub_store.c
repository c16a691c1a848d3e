/* The hub's store thread: the SQL of the group commit (room_write_run) runs
 * here, so a database held locked by another process holds up only the
 * votes waiting for that commit -- never the loop, the pings, the acks of
 * other batches or the fan-out. One batch is in flight at a time: the loop
 * plans it and applies what was committed (hub_conn.c); a vote is acked
 * only after its COMMIT, as before. Only lws_cancel_service() crosses back
 * to the loop; the room's memory stays the loop's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub_internal.h"

struct hub_store {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;             /* a job came, the job is done, or stop */
    int stop;
    int queued, done;              /* the job in flight: handed over / finished */
    struct room_write *w;          /* the loop's array, the thread's until done */
    int n;
    int rc;
    char err[256];
};

static void *store_main(void *arg) {
    struct hub *h = arg;
    struct hub_store *s = h->store;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && !s->queued) pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop) break;
        s->queued = 0;
        pthread_mutex_unlock(&s->mu);
        /* The wait for a lock another process holds happens here, not on the
         * loop: as long as HUB_STORE_BUSY_MS, then the batch is refused. The
         * loop writes to the database only while no batch is in flight, with
         * the live timeout (ROOM_BUSY_LIVE_MS) the room sets back afterwards. */
        char err[256] = "";
        int rc = room_write_run(h->room, s->w, s->n, HUB_STORE_BUSY_MS, err, sizeof err);
        pthread_mutex_lock(&s->mu);
        s->rc = rc;
        snprintf(s->err, sizeof s->err, "%s", err);
        s->done = 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        lws_cancel_service(h->ctx);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int hub_store_start(struct hub *h, char *err, size_t errlen) {
    struct hub_store *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory starting the store thread"), -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    h->store = s;
    if (pthread_create(&s->thread, NULL, store_main, h)) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s);
        h->store = NULL;
        return snprintf(err, errlen, "cannot start the hub's store thread"), -1;
    }
    return 0;
}

void hub_store_stop(struct hub *h) {
    struct hub_store *s = h->store;
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
    h->store = NULL;
}

void hub_store_submit(struct hub *h, struct room_write *w, int n) {
    struct hub_store *s = h->store;
    pthread_mutex_lock(&s->mu);
    s->w = w;
    s->n = n;
    s->done = 0;
    s->queued = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int hub_store_result(struct hub *h, int wait_ms, char *err, size_t errlen) {
    struct hub_store *s = h->store;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long long ns = until.tv_nsec + (long long)(wait_ms > 0 ? wait_ms : 0) * 1000000LL;
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    pthread_mutex_lock(&s->mu);
    while (wait_ms && !s->done) {
        if (wait_ms < 0) pthread_cond_wait(&s->cv, &s->mu);
        else if (pthread_cond_timedwait(&s->cv, &s->mu, &until)) break;
    }
    int rc = s->done ? s->rc : 1;
    if (s->done) snprintf(err, errlen, "%s", s->err);
    pthread_mutex_unlock(&s->mu);
    return rc;
}
