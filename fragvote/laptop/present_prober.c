/* The laptop as the room's prober (see present_prober.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_err.h"
#include "present_prober.h"
#include "probe_json.h"

/* ORPHAN: being measured for a hub process that is gone (its result is dropped on delivery). */
enum ask_state { ASK_FREE, ASK_MEASURING, ASK_DONE, ASK_ORPHAN };

struct ask {
    enum ask_state state;
    long long rid;
    char epoch[PRESENT_EPOCH_MAX];   /* the hub process that asked */
    uint64_t wid;                    /* the worker's id of its probe run (slot + sequence) */
    char *observation;               /* ASK_DONE: probe_observation_json() text */
    unsigned long sent_gen;          /* the connection it was last sent on (0: never) */
};

struct present_prober {
    struct present_prober_config cfg;
    struct worker *worker;
    pthread_mutex_t mu;
    struct ask asks[PRESENT_KEEP_MAX];
    uint64_t seq;                    /* the worker ids' sequence */
    int queued;                      /* asks the worker has and has not answered */
    int ready;
    char epoch[PRESENT_EPOCH_MAX];   /* the current connection's hub process */
    unsigned long gen;               /* connections on which the hub said prober_ok */
    struct present_prober_counts n;
};

static struct ask *find(struct present_prober *p, const char *epoch, long long rid) {
    for (int i = 0; i < PRESENT_KEEP_MAX; i++)
        if (p->asks[i].state != ASK_FREE && p->asks[i].rid == rid && !strcmp(p->asks[i].epoch, epoch))
            return &p->asks[i];
    return NULL;
}

static void forget(struct ask *a) {
    free(a->observation);
    a->observation = NULL;
    a->state = ASK_FREE;
}

static struct ask *slot(struct present_prober *p) {
    for (int i = 0; i < PRESENT_KEEP_MAX; i++)
        if (p->asks[i].state == ASK_FREE) return &p->asks[i];
    return NULL;
}

/* Sends a done ask's result if the hub is listening (under mu). */
static void send_locked(struct present_prober *p, struct ask *a) {
    if (!p->ready || a->state != ASK_DONE || a->sent_gen == p->gen || strcmp(a->epoch, p->epoch)) return;
    char *text = present_frame_result(a->epoch, a->rid, a->observation);
    if (text && p->cfg.send(p->cfg.ctx, text) == 0) {
        if (a->sent_gen) p->n.resent++;
        else p->n.results_sent++;
        a->sent_gen = p->gen;
    }
    free(text);
}

static void finish_locked(struct present_prober *p, struct ask *a, const struct probe_result *r) {
    a->observation = probe_observation_json(r);
    if (!a->observation) {
        a->state = ASK_FREE; /* out of memory: the hub asks again after the next prober_ok */
        return;
    }
    a->state = ASK_DONE;
    a->sent_gen = 0;
    p->n.kept++;
    send_locked(p, a);
}

/* On the worker thread: the result of the run with worker id wid (its slot in the low bits). */
static void deliver(void *ctx, uint64_t wid, const struct probe_result *r) {
    struct present_prober *p = ctx;
    pthread_mutex_lock(&p->mu);
    struct ask *a = &p->asks[wid % PRESENT_KEEP_MAX];
    if (p->queued) p->queued--;
    if (a->wid == wid && a->state == ASK_MEASURING) finish_locked(p, a, r);
    else if (a->wid == wid && a->state == ASK_ORPHAN) forget(a); /* its hub process is gone: nobody waits */
    pthread_mutex_unlock(&p->mu);
}

struct present_prober *present_prober_new(const struct present_prober_config *cfg, char *err, size_t errlen) {
    struct present_prober *p = fv_zalloc(sizeof *p, err, errlen);
    if (!p) return NULL;
    p->cfg = *cfg;
    pthread_mutex_init(&p->mu, NULL);
    struct worker_config wc = {.opts = cfg->opts, .deliver = deliver, .steps = cfg->steps, .ctx = p};
    p->worker = worker_new(&wc, err, errlen);
    if (!p->worker) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

void present_prober_free(struct present_prober *p) {
    if (!p) return;
    worker_free(p->worker);
    for (int i = 0; i < PRESENT_KEEP_MAX; i++) free(p->asks[i].observation);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void present_prober_ready(struct present_prober *p, const char *epoch) {
    pthread_mutex_lock(&p->mu);
    p->ready = 1;
    p->gen++;
    if (strcmp(p->epoch, epoch)) {
        snprintf(p->epoch, sizeof p->epoch, "%s", epoch);
        for (int i = 0; i < PRESENT_KEEP_MAX; i++) {
            struct ask *a = &p->asks[i];
            if (a->state == ASK_FREE || a->state == ASK_ORPHAN || !strcmp(a->epoch, epoch)) continue;
            p->n.dropped++;
            if (a->state == ASK_DONE) {
                p->n.kept--;
                forget(a);
            } else {
                a->state = ASK_ORPHAN;
            }
        }
    }
    for (int i = 0; i < PRESENT_KEEP_MAX; i++) send_locked(p, &p->asks[i]);
    pthread_mutex_unlock(&p->mu);
}

void present_prober_lost(struct present_prober *p) {
    pthread_mutex_lock(&p->mu);
    p->ready = 0;
    pthread_mutex_unlock(&p->mu);
}

/* Whether the hub's spec is the one the laptop's deck has for that test
 * (the host may differ: the laptop's --target decides where packets go). */
static int spec_agrees(const struct probe_spec *a, const struct probe_spec *b) {
    return a->proto == b->proto && a->mode == b->mode && a->size == b->size && a->ttl == b->ttl;
}

int present_prober_measure(struct present_prober *p, const struct present_frame *f, char *err, size_t errlen) {
    pthread_mutex_lock(&p->mu);
    p->n.asked++;
    struct ask *a = find(p, f->epoch, f->rid);
    if (a) { /* asked again (after prober_ok): being measured, or measured and not acknowledged */
        if (a->state == ASK_DONE) send_locked(p, a); /* not twice on one connection */
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    const struct deck *d = p->cfg.deck;
    const char *why = NULL;
    char whybuf[160];
    a = slot(p);
    if (!a) {
        why = "the laptop holds too many results the hub has not acknowledged";
    } else if (f->test < 0 || f->test >= d->ntests) {
        snprintf(whybuf, sizeof whybuf, "the laptop's deck has no test %d", f->test + 1);
        why = whybuf;
    } else if (f->has_spec && !spec_agrees(&f->spec_seen, &d->tests[f->test].spec)) {
        snprintf(whybuf, sizeof whybuf, "test %d of the laptop's deck is not the hub's", f->test + 1);
        why = whybuf;
    } else if (p->queued == WORKER_QUEUE_MAX) {
        why = "the probe worker's queue is full";
    }
    if (a) {
        a->rid = f->rid;
        snprintf(a->epoch, sizeof a->epoch, "%s", f->epoch);
        a->observation = NULL;
        a->sent_gen = 0;
    }
    if (why) {
        snprintf(err, errlen, "measure %lld: %s", f->rid, why);
        if (a) { /* an honest "unknown" now: the room is not left waiting */
            struct probe_result r;
            struct probe_spec spec = f->test >= 0 && f->test < d->ntests ? d->tests[f->test].spec : f->spec_seen;
            prober_result_unknown(&spec, why, &r);
            a->state = ASK_MEASURING;
            finish_locked(p, a, &r);
        }
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    a->state = ASK_MEASURING;
    /* A rerun too: every ask probes (what to ask, and when, is the hub's room's). */
    a->wid = ++p->seq * PRESENT_KEEP_MAX + (uint64_t)(a - p->asks);
    if (worker_ask_test(p->worker, a->wid, f->test, &d->tests[f->test].spec) < 0) {
        struct probe_result r;
        prober_result_unknown(&d->tests[f->test].spec, "the probe worker's queue is full", &r);
        finish_locked(p, a, &r);
        snprintf(err, errlen, "measure %lld: the probe worker's queue is full", f->rid);
        pthread_mutex_unlock(&p->mu);
        return -1;
    }
    p->queued++;
    pthread_mutex_unlock(&p->mu);
    return 0;
}

void present_prober_done(struct present_prober *p, long long rid) {
    pthread_mutex_lock(&p->mu);
    struct ask *a = find(p, p->epoch, rid);
    if (a && a->state == ASK_DONE) {
        forget(a);
        p->n.kept--;
        p->n.acked++;
    }
    pthread_mutex_unlock(&p->mu);
}

void present_prober_counts(struct present_prober *p, struct present_prober_counts *out) {
    pthread_mutex_lock(&p->mu);
    *out = p->n;
    pthread_mutex_unlock(&p->mu);
    out->runs = worker_runs(p->worker);
    out->prefetch_hits = 0; /* the hub's room prefetches, not the laptop */
}
