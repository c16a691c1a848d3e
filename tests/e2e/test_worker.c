/* The probe worker on the real lab (root): a prefetch answers the measure
 * that follows it with a single probe run; a test already measured is never
 * prefetched again; a second measure (rerun) probes again; a test that cannot
 * run is delivered as "unknown" with the reason; results carry the position
 * they were asked for. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "worker.h"

static struct probe_lab lab;
static int lab_built;

struct inbox {
    pthread_mutex_t mu;
    int n;
    int position[16];
    struct probe_result r[16];
};
static struct inbox box = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void deliver(void *ctx, int position, const struct probe_result *r) {
    struct inbox *b = ctx;
    pthread_mutex_lock(&b->mu);
    if (b->n < 16) {
        b->position[b->n] = position;
        b->r[b->n] = *r;
        b->n++;
    }
    pthread_mutex_unlock(&b->mu);
}

static int wait_box(int n, int timeout_ms) {
    for (int t = 0; t < timeout_ms; t += 10) {
        pthread_mutex_lock(&box.mu);
        int have = box.n;
        pthread_mutex_unlock(&box.mu);
        if (have >= n) return 0;
        usleep(10000);
    }
    return -1;
}

static struct worker *start(void) {
    char err[256];
    struct worker_config cfg = {.opts = {.observer = PROBE_OBS_AUTO, .lab = &lab, .flush_pmtu = 1},
                                .prefetch = 1, .deliver = deliver, .ctx = &box};
    box.n = 0;
    struct worker *w = worker_new(&cfg, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

static struct probe_spec spec(enum probe_proto p, enum probe_mode m, int size) {
    struct probe_spec s;
    memset(&s, 0, sizeof s);
    s.proto = p;
    s.mode = m;
    s.size = size;
    return s;
}

static void test_prefetch_answers_the_measure_with_one_run(void) {
    struct worker *w = start();
    REQUIRE(w);
    struct probe_spec s = spec(PROBE_UDP4, PROBE_MODE_DONT, 1400);
    CHECK(worker_prefetch(w, 3, &s) == 0);
    CHECK(worker_prefetch(w, 3, &s) == 0); /* a second prefetch of the same test is ignored */
    usleep(300000);
    CHECK_INT(box.n, 0); /* a prefetch alone is never delivered */
    CHECK(worker_measure(w, 7, 3, &s) == 0);
    REQUIRE(wait_box(1, 10000) == 0);
    unsigned long runs, hits;
    worker_counts(w, &runs, &hits);
    CHECK_INT(runs, 1);
    CHECK_INT(hits, 1);
    CHECK_INT(worker_requests(w), 1);
    CHECK_INT(box.position[0], 7);
    CHECK_INT(box.r[0].spec.size, 1400);
    /* DONT on the 1500/1280/1500 lab: sent whole with DF=0, r1 fragments. */
    CHECK_INT(box.r[0].sent.answer, PROBE_ANS_YES);
    CHECK_INT(box.r[0].df.answer, PROBE_ANS_NO);
    /* Measured: a later prefetch of that test sends nothing. */
    CHECK(worker_prefetch(w, 3, &s) == 0);
    usleep(300000);
    worker_counts(w, &runs, &hits);
    CHECK_INT(runs, 1);
    /* A rerun measures again. */
    CHECK(worker_measure(w, 7, 3, &s) == 0);
    REQUIRE(wait_box(2, 10000) == 0);
    worker_counts(w, &runs, &hits);
    CHECK_INT(runs, 2);
    CHECK_INT(hits, 1);
    worker_free(w);
}

static void test_measure_without_prefetch_runs_now(void) {
    struct worker *w = start();
    REQUIRE(w);
    struct probe_spec s = spec(PROBE_UDP6, PROBE_MODE_DO, 2000);
    CHECK(worker_measure(w, 0, 0, &s) == 0);
    REQUIRE(wait_box(1, 10000) == 0);
    unsigned long runs, hits;
    worker_counts(w, &runs, &hits);
    CHECK_INT(runs, 1);
    CHECK_INT(hits, 0);
    /* IPV6_PMTUDISC_DO above the device MTU: EMSGSIZE, not sent. */
    CHECK_INT(box.r[0].sent.answer, PROBE_ANS_NO);
    worker_free(w);
}

static void test_a_test_that_cannot_run_is_unknown_with_the_reason(void) {
    struct worker *w = start();
    REQUIRE(w);
    struct probe_spec s = spec(PROBE_UDP4, PROBE_MODE_DEFAULT, 20); /* below any IP packet */
    CHECK(worker_measure(w, 4, 1, &s) == 0);
    REQUIRE(wait_box(1, 10000) == 0);
    CHECK_INT(box.position[0], 4);
    CHECK_INT(box.r[0].sent.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(box.r[0].df.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(box.r[0].fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_CONTAINS(box.r[0].evidence, "not measured: ");
    printf("evidence: %s\n", box.r[0].evidence);
    worker_free(w);
}

static void down(void) {
    if (lab_built) {
        char err[256];
        probe_lab_down(lab.cfg.prefix, err, sizeof err);
        lab_built = 0;
    }
}

int main(void) {
    if (geteuid() != 0) SKIP_ALL("needs root: the worker probes in the namespace lab");
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "fvw%d", (int)(getpid() % 100000));
    char err[256];
    if (probe_lab_up(&cfg, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab up: %s\n", err);
        return 1;
    }
    lab_built = 1;
    atexit(down);
    RUN(test_prefetch_answers_the_measure_with_one_run);
    RUN(test_measure_without_prefetch_runs_now);
    RUN(test_a_test_that_cannot_run_is_unknown_with_the_reason);
    down();
    return check_summary();
}
