/* A worker thread with an ordered queue (see fv_qthread.h). */
#include "fv_qthread.h"

#include <pthread.h>
#include <stdlib.h>

#include "fv_err.h"
#include "fv_queue.h"

struct fv_qthread {
    struct fv_qthread_config cfg;
    struct fv_queue *q;
    void *item;                    /* the thread's copy of the item it runs */
    pthread_t thread;
};

static void *qthread_main(void *arg) {
    struct fv_qthread *t = arg;
    while (fv_queue_take(t->q, t->item)) {
        t->cfg.run(t->cfg.ctx, t->item);
        fv_queue_done(t->q);
        if (t->cfg.after) t->cfg.after(t->cfg.ctx);
    }
    return NULL;
}

struct fv_qthread *fv_qthread_start(const struct fv_qthread_config *cfg, char *err, size_t errlen) {
    struct fv_qthread *t = fv_zalloc(sizeof *t, err, errlen);
    if (!t) return NULL;
    t->cfg = *cfg;
    t->item = fv_zalloc(cfg->item_size ? cfg->item_size : 1, err, errlen);
    if (t->item) t->q = fv_queue_new(cfg->item_size, cfg->max, NULL, err, errlen);
    if (t->q && pthread_create(&t->thread, NULL, qthread_main, t) == 0) return t;
    if (t->q) fv_seterr(err, errlen, "cannot start %s", cfg->name);
    fv_queue_free(t->q);
    free(t->item);
    free(t);
    return NULL;
}

int fv_qthread_push(struct fv_qthread *t, const void *item) { return fv_queue_push(t->q, item); }

int fv_qthread_wait(struct fv_qthread *t, int wait_ms) { return fv_queue_wait_idle(t->q, wait_ms); }

unsigned long fv_qthread_runs(struct fv_qthread *t) { return fv_queue_finished(t->q); }

void fv_qthread_stop(struct fv_qthread *t, enum fv_qthread_end end) {
    if (!t) return;
    fv_queue_close(t->q, end == FV_QTHREAD_DISCARD);
    pthread_join(t->thread, NULL);
    fv_queue_free(t->q);
    free(t->item);
    free(t);
}
