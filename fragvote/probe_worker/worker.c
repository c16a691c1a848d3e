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

void worker_measure(const struct worker_config *cfg, int test_index, const struct probe_spec *spec,
                    struct probe_result *out) {
    char err[256] = "";
    memset(out, 0, sizeof *out);
    int rc;
    const struct worker_steps *st = &cfg->steps;
    if (st->run) rc = st->run(st->ctx, test_index, spec, out, err, sizeof err);
    else if (st->before && st->before(st->ctx, test_index, err, sizeof err) < 0) rc = -1;
    else rc = probe_run(&cfg->opts, spec, out, err, sizeof err);
    if (rc < 0) prober_result_unknown(spec, err, out);
}

/* On the thread: one ask, its result delivered (an "unknown" one if it cannot run). */
static void worker_run(void *ctx, void *item) {
    struct worker *w = ctx;
    struct wreq *req = item;
    worker_measure(&w->cfg, req->test_index, &req->spec, &w->result);
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
