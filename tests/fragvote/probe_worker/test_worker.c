/* The probe worker on the real lab (root): asks run in order and each
 * result comes back with its request id; a test that cannot run is delivered
 * as "unknown" with the reason; behind a room (its prober), the prefetch
 * asked when voting opens answers the measure that follows with a single
 * probe run, and a rerun probes again. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_probe.h"
#include "db.h"
#include "room.h"
#include "worker.h"

static struct probe_lab lab;
static int lab_built;

struct inbox {
    pthread_mutex_t mu;
    int n;
    uint64_t rid[16];
    struct probe_result r[16];
};
static struct inbox box = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void deliver(void *ctx, uint64_t rid, const struct probe_result *r) {
    struct inbox *b = ctx;
    pthread_mutex_lock(&b->mu);
    if (b->n < 16) {
        b->rid[b->n] = rid;
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
                                .deliver = deliver, .ctx = &box};
    box.n = 0;
    struct worker *w = worker_new(&cfg, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

static struct probe_spec spec(enum probe_proto p, enum probe_mode m, int size) { return check_probe_spec(p, m, size, 0); }

static void test_asks_run_in_order_each_with_its_rid(void) {
    struct worker *w = start();
    REQUIRE(w);
    struct probe_spec a = spec(PROBE_UDP4, PROBE_MODE_DONT, 1400), b = spec(PROBE_UDP6, PROBE_MODE_DO, 2000);
    CHECK(worker_ask(w, 5, &a) == 0);
    struct prober_ask pa = {.rid = 6, .test_index = 1, .position = -1, .spec = &b};
    CHECK(worker_prober_ask(w, &pa) == 0);
    REQUIRE(wait_box(2, 20000) == 0);
    CHECK_INT(worker_runs(w), 2);
    CHECK_INT(box.rid[0], 5);
    CHECK_INT(box.r[0].spec.size, 1400);
    /* DONT on the 1500/1280/1500 lab: sent whole with DF=0, r1 fragments. */
    CHECK_INT(box.r[0].sent.answer, PROBE_ANS_YES);
    CHECK_INT(box.r[0].df.answer, PROBE_ANS_NO);
    CHECK_INT(box.rid[1], 6);
    /* IPV6_PMTUDISC_DO above the device MTU: EMSGSIZE, not sent. */
    CHECK_INT(box.r[1].sent.answer, PROBE_ANS_NO);
    worker_free(w);
}

static void test_a_test_that_cannot_run_is_unknown_with_the_reason(void) {
    struct worker *w = start();
    REQUIRE(w);
    struct probe_spec s = spec(PROBE_UDP4, PROBE_MODE_DEFAULT, 20); /* below any IP packet */
    CHECK(worker_ask(w, 4, &s) == 0);
    REQUIRE(wait_box(1, 10000) == 0);
    CHECK_INT(box.rid[0], 4);
    CHECK_INT(box.r[0].sent.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(box.r[0].df.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(box.r[0].fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_CONTAINS(box.r[0].evidence, "not measured: ");
    printf("evidence: %s\n", box.r[0].evidence);
    worker_free(w);
}

/* Hands the room every result delivered so far (the hub's loop does this
 * with HUB_CMD_MEASURED). */
static void hand_over(struct room *r, int *taken) {
    char err[256];
    pthread_mutex_lock(&box.mu);
    for (; *taken < box.n; (*taken)++)
        CHECK(room_prober_result(r, box.rid[*taken], &box.r[*taken], err, sizeof err) == 0);
    pthread_mutex_unlock(&box.mu);
}

static void test_behind_a_room_a_prefetch_answers_the_measure_with_one_run(void) {
    char err[256], path[256];
    snprintf(path, sizeof path, "%s/worker.db", check_tmpdir());
    static struct deck d;
    memset(&d, 0, sizeof d);
    snprintf(d.title, sizeof d.title, "worker deck");
    d.ntests = 1;
    d.tests[0].spec = spec(PROBE_UDP4, PROBE_MODE_DONT, 1400);
    d.tests[0].ask[QKIND_SENT] = d.tests[0].ask[QKIND_DF] = 1;
    struct db *db = db_open(path, err, sizeof err);
    REQUIRE(db);
    struct room *r = room_create(db, &d, NULL, err, sizeof err);
    REQUIRE(r);
    struct worker *w = start();
    REQUIRE(w);
    room_set_prober(r, &(struct prober){worker_prober_ask, w});
    int taken = 0;
    CHECK_INT(room_act(r, ROOM_OPEN, err, sizeof err), 0); /* voting opens: the prefetch is asked */
    REQUIRE(wait_box(1, 10000) == 0);
    hand_over(r, &taken);
    CHECK_INT(room_act(r, ROOM_CLOSE, err, sizeof err), 0);
    CHECK_INT(room_act(r, ROOM_MEASURE, err, sizeof err), 0); /* answered at once by the held result */
    struct quiz_qinfo qi;
    quiz_get(room_quiz(r), 0, &qi);
    CHECK_INT(qi.state, QUIZ_MEASURED);
    CHECK_INT(worker_runs(w), 1);
    unsigned long measures, hits;
    room_measure_counts(r, &measures, &hits);
    CHECK_INT(hits, 1);
    CHECK_INT(room_act(r, ROOM_REVEAL, err, sizeof err), 0);
    CHECK_INT(room_act(r, ROOM_NEXT, err, sizeof err), 0);
    /* The test's second question: no prefetch (measured already), no probe. */
    CHECK_INT(room_act(r, ROOM_OPEN, err, sizeof err), 0);
    CHECK_INT(room_act(r, ROOM_CLOSE, err, sizeof err), 0);
    CHECK_INT(room_act(r, ROOM_MEASURE, err, sizeof err), 0);
    usleep(300000);
    CHECK_INT(worker_runs(w), 1);
    /* A rerun measures again. */
    CHECK_INT(room_act(r, ROOM_RERUN, err, sizeof err), QUIZ_MEASURE_PROBE);
    REQUIRE(wait_box(2, 10000) == 0);
    hand_over(r, &taken);
    CHECK_INT(worker_runs(w), 2);
    quiz_get(room_quiz(r), 1, &qi);
    CHECK_INT(qi.measuring, 0);
    worker_free(w);
    room_free(r);
    db_close(db);
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
    RUN(test_asks_run_in_order_each_with_its_rid);
    RUN(test_a_test_that_cannot_run_is_unknown_with_the_reason);
    RUN(test_behind_a_room_a_prefetch_answers_the_measure_with_one_run);
    down();
    return check_summary();
}
