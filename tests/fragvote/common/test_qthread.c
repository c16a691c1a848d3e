/* The queue between threads (fv_queue) and the worker thread over it
 * (fv_qthread): push order is run order, pushes from several threads all run
 * and keep each pusher's order, a stop discards or drains what is queued as
 * asked, a full or closed queue refuses, an idle wait sees a job's end, and
 * items that own memory are released when discarded (ASan's leak check, in
 * the -DFRAGVOTE_SANITIZE=ON build, finds any that are not). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"
#include "fv_qthread.h"
#include "fv_queue.h"

#define LOG_MAX 20000

struct log {
    pthread_mutex_t mu;
    int v[LOG_MAX];
    int n;
    atomic_int gate;               /* item 0 waits while it is 0 */
    atomic_int started;            /* item 0 is running */
    atomic_int afters;
};

static void log_run(void *ctx, void *item) {
    struct log *lg = ctx;
    int v = *(int *)item;
    if (v == 0) {
        atomic_store(&lg->started, 1);
        while (!atomic_load(&lg->gate)) sched_yield();
    }
    pthread_mutex_lock(&lg->mu);
    if (lg->n < LOG_MAX) lg->v[lg->n++] = v;
    pthread_mutex_unlock(&lg->mu);
}

static void log_after(void *ctx) { atomic_fetch_add(&((struct log *)ctx)->afters, 1); }

static struct fv_qthread *start(struct log *lg, int max) {
    memset(lg, 0, sizeof *lg);
    pthread_mutex_init(&lg->mu, NULL);
    atomic_store(&lg->gate, 1);
    struct fv_qthread_config c = {.name = "the test thread", .item_size = sizeof(int), .max = max,
                                  .run = log_run, .after = log_after, .ctx = lg};
    char err[128] = "";
    struct fv_qthread *t = fv_qthread_start(&c, err, sizeof err);
    if (!t) fprintf(stderr, "start: %s\n", err);
    return t;
}

static void test_items_run_in_push_order(void) {
    struct log lg;
    struct fv_qthread *t = start(&lg, 64);
    REQUIRE(t);
    for (int i = 1; i <= 64; i++) CHECK_INT(fv_qthread_push(t, &i), 0);
    CHECK_INT(fv_qthread_wait(t, -1), 1);
    CHECK_INT(lg.n, 64);
    for (int i = 0; i < lg.n; i++) CHECK_INT(lg.v[i], i + 1);
    CHECK_INT(fv_qthread_runs(t), 64);
    fv_qthread_stop(t, FV_QTHREAD_DISCARD);
    CHECK_INT(atomic_load(&lg.afters), 64); /* each after its item counted done: all by the join */
}

struct pusher {
    struct fv_qthread *t;
    int id, n, refused;
};

static void *pusher_main(void *arg) {
    struct pusher *p = arg;
    for (int i = 0; i < p->n; i++) {
        int v = p->id * 100000 + i;
        while (fv_qthread_push(p->t, &v)) { /* full: the thread catches up */
            p->refused++;
            sched_yield();
        }
    }
    return NULL;
}

static void test_pushes_from_several_threads_all_run_in_each_pushers_order(void) {
    struct log lg;
    struct fv_qthread *t = start(&lg, 16); /* small: pushers meet a full queue */
    REQUIRE(t);
    enum { NP = 4, PER = 3000 };
    struct pusher p[NP];
    pthread_t th[NP];
    for (int i = 0; i < NP; i++) {
        p[i] = (struct pusher){.t = t, .id = i + 1, .n = PER};
        REQUIRE(pthread_create(&th[i], NULL, pusher_main, &p[i]) == 0);
    }
    for (int i = 0; i < NP; i++) pthread_join(th[i], NULL);
    CHECK_INT(fv_qthread_wait(t, -1), 1);
    CHECK_INT(lg.n, NP * PER);
    int next[NP + 1] = {0};
    for (int i = 0; i < lg.n; i++) {
        int id = lg.v[i] / 100000, seq = lg.v[i] % 100000;
        REQUIRE(id >= 1 && id <= NP);
        CHECK_INT(seq, next[id]);
        next[id] = seq + 1;
    }
    CHECK_INT(fv_qthread_runs(t), NP * PER);
    fv_qthread_stop(t, FV_QTHREAD_DISCARD);
}

/* Item 0 holds the thread until the stop has closed the queue (a push is
 * refused, the queue being far from full): then it is released. */
struct stopper {
    struct fv_qthread *t;
    enum fv_qthread_end end;
};

static void *stopper_main(void *arg) {
    struct stopper *s = arg;
    fv_qthread_stop(s->t, s->end);
    return NULL;
}

static int stop_while_queued(enum fv_qthread_end end, struct log *lg) {
    struct fv_qthread *t = start(lg, 4096);
    if (!t) return -1;
    atomic_store(&lg->gate, 0);
    int v = 0;
    fv_qthread_push(t, &v);
    while (!atomic_load(&lg->started)) sched_yield();
    for (v = 1; v <= 5; v++) fv_qthread_push(t, &v);
    CHECK_INT(fv_qthread_wait(t, 0), 0); /* busy: only looked */
    long long t0 = check_mono_ms();
    CHECK_INT(fv_qthread_wait(t, 30), 0); /* busy after the wait */
    CHECK(check_mono_ms() - t0 >= 25);
    struct stopper s = {t, end};
    pthread_t th;
    if (pthread_create(&th, NULL, stopper_main, &s)) return -1;
    int extra = 99, pushed = 0;
    while (fv_qthread_push(t, &extra) == 0 && pushed < 4000) { /* until the stop closed the queue */
        pushed++;
        usleep(200);
    }
    atomic_store(&lg->gate, 1);
    pthread_join(th, NULL);
    return pushed;
}

static void test_stop_discards_queued_items(void) {
    struct log lg;
    int pushed = stop_while_queued(FV_QTHREAD_DISCARD, &lg);
    REQUIRE(pushed >= 0 && pushed < 4000);
    CHECK_INT(lg.n, 1); /* the running item ends; the queued ones never run */
    CHECK_INT(lg.v[0], 0);
}

static void test_stop_drains_queued_items(void) {
    struct log lg;
    int pushed = stop_while_queued(FV_QTHREAD_DRAIN, &lg);
    REQUIRE(pushed >= 0 && pushed < 4000);
    CHECK_INT(lg.n, 6 + pushed); /* every item queued before the stop ran, in order */
    for (int i = 0; i < 6 && i < lg.n; i++) CHECK_INT(lg.v[i], i);
    for (int i = 6; i < lg.n; i++) CHECK_INT(lg.v[i], 99);
}

static void test_a_full_queue_refuses_and_keeps_what_it_has(void) {
    struct log lg;
    struct fv_qthread *t = start(&lg, 3);
    REQUIRE(t);
    atomic_store(&lg.gate, 0);
    int v = 0;
    CHECK_INT(fv_qthread_push(t, &v), 0);
    while (!atomic_load(&lg.started)) sched_yield();
    for (v = 1; v <= 3; v++) CHECK_INT(fv_qthread_push(t, &v), 0);
    CHECK_INT(fv_qthread_push(t, &v), -1); /* 3 queued: full */
    atomic_store(&lg.gate, 1);
    CHECK_INT(fv_qthread_wait(t, -1), 1);
    CHECK_INT(lg.n, 4);
    for (int i = 0; i < lg.n; i++) CHECK_INT(lg.v[i], i);
    fv_qthread_stop(t, FV_QTHREAD_DISCARD);
}

/* ---- fv_queue alone, as a loop polls it (present_link.c's send queue) ---- */

static void str_drop(void *item) { free(*(char **)item); }

static void test_queue_closed_refuses_and_discards_owned_items(void) {
    char err[128] = "";
    struct fv_queue *q = fv_queue_new(sizeof(char *), 4, str_drop, err, sizeof err);
    REQUIRE(q);
    CHECK_INT(fv_queue_is_open(q), 1);
    for (int i = 0; i < 4; i++) {
        char *s = strdup("frame");
        CHECK_INT(fv_queue_push(q, &s), 0);
    }
    char *extra = strdup("refused");
    CHECK_INT(fv_queue_push(q, &extra), -1); /* full: still the caller's */
    free(extra);
    char *got = NULL;
    CHECK_INT(fv_queue_pop(q, &got), 1);
    CHECK_STR(got, "frame");
    free(got);
    CHECK_INT(fv_queue_count(q), 3);
    fv_queue_close(q, 1); /* the three left are dropped (freed) */
    CHECK_INT(fv_queue_count(q), 0);
    CHECK_INT(fv_queue_is_open(q), 0);
    char *late = strdup("late");
    CHECK_INT(fv_queue_push(q, &late), -1);
    free(late);
    CHECK_INT(fv_queue_pop(q, &got), 0);
    fv_queue_open(q);
    char *again = strdup("again");
    CHECK_INT(fv_queue_push(q, &again), 0);
    fv_queue_free(q); /* frees "again" */
}

static void test_queue_rejects_a_zero_size(void) {
    char err[128] = "";
    CHECK(fv_queue_new(0, 4, NULL, err, sizeof err) == NULL);
    CHECK(err[0] != 0);
    err[0] = 0;
    CHECK(fv_queue_new(8, 0, NULL, err, sizeof err) == NULL);
    CHECK(err[0] != 0);
}

int main(void) {
    RUN(test_items_run_in_push_order);
    RUN(test_pushes_from_several_threads_all_run_in_each_pushers_order);
    RUN(test_stop_discards_queued_items);
    RUN(test_stop_drains_queued_items);
    RUN(test_a_full_queue_refuses_and_keeps_what_it_has);
    RUN(test_queue_closed_refuses_and_discards_owned_items);
    RUN(test_queue_rejects_a_zero_size);
    return check_summary();
}
