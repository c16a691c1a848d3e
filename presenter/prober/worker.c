/* The probe worker thread (see worker.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"

struct wreq {
    uint64_t rid;
    struct probe_spec spec;
};

struct worker {
    struct worker_config cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct wreq q[WORKER_QUEUE_MAX];
    int head, count, quit;
    unsigned long runs;
};

static void *worker_main(void *arg) {
    struct worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->quit && w->count == 0) pthread_cond_wait(&w->cv, &w->mu);
        if (w->quit) break;
        struct wreq req = w->q[w->head];
        w->head = (w->head + 1) % WORKER_QUEUE_MAX;
        w->count--;
        pthread_mutex_unlock(&w->mu);
        struct probe_result *r = malloc(sizeof *r);
        if (r) {
            char err[256] = "";
            if (probe_run(&w->cfg.opts, &req.spec, r, err, sizeof err) < 0) prober_result_unknown(&req.spec, err, r);
            w->cfg.deliver(w->cfg.ctx, req.rid, r);
            free(r);
        }
        pthread_mutex_lock(&w->mu);
        if (r) w->runs++;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct worker *worker_new(const struct worker_config *cfg, char *err, size_t errlen) {
    struct worker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->cfg = *cfg;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w)) {
        snprintf(err, errlen, "cannot start the probe worker thread");
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return NULL;
    }
    return w;
}

int worker_ask(struct worker *w, uint64_t rid, const struct probe_spec *spec) {
    pthread_mutex_lock(&w->mu);
    if (w->count == WORKER_QUEUE_MAX) {
        pthread_mutex_unlock(&w->mu);
        return -1;
    }
    struct wreq *r = &w->q[(w->head + w->count) % WORKER_QUEUE_MAX];
    r->rid = rid;
    r->spec = *spec;
    w->count++;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int worker_prober_ask(void *ctx, const struct prober_ask *a) { return worker_ask(ctx, a->rid, a->spec); }

unsigned long worker_runs(struct worker *w) {
    pthread_mutex_lock(&w->mu);
    unsigned long n = w->runs;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void worker_free(struct worker *w) {
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}
