/* A bounded FIFO between threads (see fv_queue.h). */
#include "fv_queue.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fv_clock.h"
#include "fv_err.h"

struct fv_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;             /* an item came, an item is done, or closed (CLOCK_MONOTONIC) */
    size_t size;
    int max, head, count;
    int busy;                      /* taken and not yet done */
    int closed;
    unsigned long finished;
    void (*drop)(void *item);
    unsigned char *ring;           /* max items of size bytes */
};

struct fv_queue *fv_queue_new(size_t item_size, int max, void (*drop)(void *item), char *err, size_t errlen) {
    struct fv_queue *q = fv_zalloc(sizeof *q, err, errlen);
    if (!q) return NULL;
    q->ring = max > 0 && item_size ? calloc((size_t)max, item_size) : NULL;
    if (!q->ring) {
        free(q);
        fv_seterr(err, errlen, max > 0 && item_size ? "out of memory" : "a queue needs items of some size");
        return NULL;
    }
    q->size = item_size;
    q->max = max;
    q->drop = drop;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&q->mu, NULL);
    return q;
}

static void *slot(struct fv_queue *q, int i) { return q->ring + (size_t)((q->head + i) % q->max) * q->size; }

static void clear_locked(struct fv_queue *q) {
    for (; q->count; q->count--, q->head = (q->head + 1) % q->max)
        if (q->drop) q->drop(slot(q, 0));
}

void fv_queue_free(struct fv_queue *q) {
    if (!q) return;
    clear_locked(q);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q->ring);
    free(q);
}

int fv_queue_push(struct fv_queue *q, const void *item) {
    pthread_mutex_lock(&q->mu);
    int ok = !q->closed && q->count < q->max;
    if (ok) {
        memcpy(slot(q, q->count), item, q->size);
        q->count++;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return ok ? 0 : -1;
}

/* Under mu: moves the oldest item to out. */
static void shift_locked(struct fv_queue *q, void *out) {
    memcpy(out, slot(q, 0), q->size);
    q->head = (q->head + 1) % q->max;
    q->count--;
}

int fv_queue_pop(struct fv_queue *q, void *item) {
    pthread_mutex_lock(&q->mu);
    int got = q->count > 0;
    if (got) shift_locked(q, item);
    pthread_mutex_unlock(&q->mu);
    return got;
}

int fv_queue_take(struct fv_queue *q, void *item) {
    pthread_mutex_lock(&q->mu);
    while (!q->count && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    int got = q->count > 0;
    if (got) {
        shift_locked(q, item);
        q->busy++;
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

void fv_queue_done(struct fv_queue *q) {
    pthread_mutex_lock(&q->mu);
    if (q->busy) q->busy--;
    q->finished++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

int fv_queue_wait_idle(struct fv_queue *q, int wait_ms) {
    struct timespec until;
    fv_clock_now(&until);
    fv_clock_after(&until, wait_ms > 0 ? wait_ms : 0, &until);
    pthread_mutex_lock(&q->mu);
    while (wait_ms && (q->count || q->busy)) {
        if (wait_ms < 0) pthread_cond_wait(&q->cv, &q->mu);
        else if (pthread_cond_timedwait(&q->cv, &q->mu, &until)) break;
    }
    int idle = !q->count && !q->busy;
    pthread_mutex_unlock(&q->mu);
    return idle;
}

int fv_queue_count(struct fv_queue *q) {
    pthread_mutex_lock(&q->mu);
    int n = q->count;
    pthread_mutex_unlock(&q->mu);
    return n;
}

unsigned long fv_queue_finished(struct fv_queue *q) {
    pthread_mutex_lock(&q->mu);
    unsigned long n = q->finished;
    pthread_mutex_unlock(&q->mu);
    return n;
}

void fv_queue_close(struct fv_queue *q, int discard) {
    pthread_mutex_lock(&q->mu);
    q->closed = 1;
    if (discard) clear_locked(q);
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void fv_queue_open(struct fv_queue *q) {
    pthread_mutex_lock(&q->mu);
    q->closed = 0;
    pthread_mutex_unlock(&q->mu);
}

int fv_queue_is_open(struct fv_queue *q) {
    pthread_mutex_lock(&q->mu);
    int open = !q->closed;
    pthread_mutex_unlock(&q->mu);
    return open;
}
