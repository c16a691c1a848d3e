/* The probe worker thread (see worker.h): an fv_qthread whose items are asks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_err.h"
#include "fv_qthread.h"
#include "worker.h"

struct wreq {
    uint64_t rid;
    int test_index;
    struct probe_spec spec;
};

struct worker {
    struct worker_config cfg;
    struct fv_qthread *thread;
    struct probe_result result;    /* the thread's: the run in progress */
};

/* On the thread: one ask, its result delivered (an "unknown" one if it cannot run). */
static void worker_run(void *ctx, void *item) {
    struct worker *w = ctx;
    struct wreq *req = item;
    char err[256] = "";
    memset(&w->result, 0, sizeof w->result);
    if (w->cfg.before && w->cfg.before(w->cfg.ctx, req->test_index, err, sizeof err) < 0)
        prober_result_unknown(&req->spec, err, &w->result);
    else if (probe_run(&w->cfg.opts, &req->spec, &w->result, err, sizeof err) < 0)
        prober_result_unknown(&req->spec, err, &w->result);
    w->cfg.deliver(w->cfg.ctx, req->rid, &w->result);
}

struct worker *worker_new(const struct worker_config *cfg, char *err, size_t errlen) {
    struct worker *w = fv_zalloc(sizeof *w, err, errlen);
    if (!w) return NULL;
    w->cfg = *cfg;
    struct fv_qthread_config tc = {.name = "the probe worker thread", .item_size = sizeof(struct wreq),
                                   .max = WORKER_QUEUE_MAX, .run = worker_run, .ctx = w};
    w->thread = fv_qthread_start(&tc, err, errlen);
    if (!w->thread) {
        free(w);
        return NULL;
    }
    return w;
}

int worker_ask_test(struct worker *w, uint64_t rid, int test_index, const struct probe_spec *spec) {
    struct wreq req = {.rid = rid, .test_index = test_index, .spec = *spec};
    return fv_qthread_push(w->thread, &req);
}

int worker_ask(struct worker *w, uint64_t rid, const struct probe_spec *spec) { return worker_ask_test(w, rid, -1, spec); }

int worker_prober_ask(void *ctx, const struct prober_ask *a) { return worker_ask_test(ctx, a->rid, a->test_index, a->spec); }

unsigned long worker_runs(struct worker *w) { return fv_qthread_runs(w->thread); }

void worker_free(struct worker *w) {
    if (!w) return;
    fv_qthread_stop(w->thread, FV_QTHREAD_DISCARD);
    free(w);
}
