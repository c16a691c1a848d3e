/* The probe worker thread (see worker.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"

enum wreq_kind { WREQ_PREFETCH, WREQ_MEASURE };
struct wreq {
    enum wreq_kind kind;
    int position, test_index;
    struct probe_spec spec;
};

/* Per test: NONE never probed; RUNNING/READY a prefetch; USED measured
 * already (a later prefetch would only send packets nobody reads: the quiz
 * reuses a test's measurement for all its questions, and only a rerun
 * measures again). */
enum wpf_state { WPF_NONE, WPF_RUNNING, WPF_READY, WPF_USED };
struct wpf {
    enum wpf_state state;
    struct probe_spec spec;
    struct probe_result r;
};

struct worker {
    struct worker_config cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct wreq q[WORKER_QUEUE_MAX];
    int head, count, quit;
    unsigned long requests, runs, hits;
    struct wpf pf[DECK_TESTS_MAX];
};

void worker_result_unknown(const struct probe_spec *spec, const char *why, struct probe_result *r) {
    memset(r, 0, sizeof *r);
    r->spec = *spec;
    struct probe_fact *f[3] = {&r->sent, &r->df, &r->fragmented};
    for (int i = 0; i < 3; i++) {
        f[i]->answer = PROBE_ANS_UNKNOWN;
        f[i]->basis = PROBE_BASIS_UNKNOWN;
        snprintf(f[i]->why, sizeof f[i]->why, "the test could not run");
    }
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    r->quoted_len = r->quoted_df = r->quoted_mf = r->quoted_offset = r->quoted_frag_hdr = -1;
    snprintf(r->evidence, sizeof r->evidence, "not measured: %s", why);
}

static void run_one(struct worker *w, const struct probe_spec *spec, struct probe_result *r) {
    char err[256] = "";
    if (probe_run(&w->cfg.opts, spec, r, err, sizeof err) < 0) worker_result_unknown(spec, err, r);
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->quit && w->count == 0) pthread_cond_wait(&w->cv, &w->mu);
        if (w->quit) break;
        struct wreq req = w->q[w->head];
        w->head = (w->head + 1) % WORKER_QUEUE_MAX;
        w->count--;
        struct wpf *pf = req.test_index >= 0 && req.test_index < DECK_TESTS_MAX ? &w->pf[req.test_index] : NULL;
        if (req.kind == WREQ_PREFETCH) {
            if (!pf || pf->state != WPF_NONE) continue;
            pf->state = WPF_RUNNING;
            pf->spec = req.spec;
            pthread_mutex_unlock(&w->mu);
            struct probe_result r;
            run_one(w, &req.spec, &r);
            pthread_mutex_lock(&w->mu);
            w->runs++;
            pf->r = r;
            pf->state = WPF_READY;
            continue;
        }
        /* A measure: a ready prefetch of the same spec answers it once. */
        struct probe_result *r = malloc(sizeof *r);
        if (!r) continue;
        int hit = pf && pf->state == WPF_READY && !memcmp(&pf->spec, &req.spec, sizeof req.spec);
        if (hit) {
            *r = pf->r;
            w->hits++;
        }
        if (pf) pf->state = WPF_USED;
        pthread_mutex_unlock(&w->mu);
        if (!hit) run_one(w, &req.spec, r);
        w->cfg.deliver(w->cfg.ctx, req.position, r);
        free(r);
        pthread_mutex_lock(&w->mu);
        if (!hit) w->runs++;
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

static int push(struct worker *w, enum wreq_kind kind, int position, int test_index, const struct probe_spec *spec) {
    pthread_mutex_lock(&w->mu);
    if (w->count == WORKER_QUEUE_MAX) {
        pthread_mutex_unlock(&w->mu);
        return -1;
    }
    struct wreq *r = &w->q[(w->head + w->count) % WORKER_QUEUE_MAX];
    r->kind = kind;
    r->position = position;
    r->test_index = test_index;
    r->spec = *spec;
    w->count++;
    if (kind == WREQ_MEASURE) w->requests++;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

int worker_prefetch(struct worker *w, int test_index, const struct probe_spec *spec) {
    if (!w->cfg.prefetch) return 0;
    pthread_mutex_lock(&w->mu);
    int known = test_index >= 0 && test_index < DECK_TESTS_MAX && w->pf[test_index].state != WPF_NONE;
    pthread_mutex_unlock(&w->mu);
    return known ? 0 : push(w, WREQ_PREFETCH, -1, test_index, spec);
}

int worker_measure(struct worker *w, int position, int test_index, const struct probe_spec *spec) {
    return push(w, WREQ_MEASURE, position, test_index, spec);
}

unsigned long worker_requests(struct worker *w) {
    pthread_mutex_lock(&w->mu);
    unsigned long n = w->requests;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void worker_counts(struct worker *w, unsigned long *runs, unsigned long *hits) {
    pthread_mutex_lock(&w->mu);
    *runs = w->runs;
    *hits = w->hits;
    pthread_mutex_unlock(&w->mu);
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
