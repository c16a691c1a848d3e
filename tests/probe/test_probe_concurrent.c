/* probe_run is thread-safe: tests run at the same time on several threads,
 * in one lab namespace, each get their own answers (every observer sees all
 * ICMP of the namespace and must pick its own by addresses, ports and IP ID).
 * The expectation comes from running the same tests one at a time first. The
 * tests chosen change the PMTU cache at most once (a warm-up pass does it),
 * so the order cannot change the truth. Needs root. */
#include <pthread.h>
#include <time.h>

#include "check.h"
#include "check_lab.h"
#include "fragprobe.h"

#define N_TESTS 16

static char prefix[PROBE_LAB_PREFIX_MAX + 1];
static struct probe_lab lab;
static struct probe_spec specs[N_TESTS];
static struct probe_result seq[N_TESTS], par[N_TESTS];
static int par_rc[N_TESTS];

static void cleanup(void) {
    char err[256];
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
}

static void *worker(void *arg) {
    int i = (int)(long)arg;
    struct probe_run_opts o = {.observer = PROBE_OBS_RAW, .lab = &lab};
    char err[512];
    par_rc[i] = probe_run(&o, &specs[i], &par[i], err, sizeof err);
    if (par_rc[i] < 0) fprintf(stderr, "test %d: %s\n", i, err);
    return NULL;
}

static void test_concurrent_tests_get_their_own_answers(void) {
    static const struct { enum probe_proto p; enum probe_mode m; int size; } kinds[4] = {
        {PROBE_UDP4, PROBE_MODE_DONT, 1400},     /* whole, DF=0: r1 fragments */
        {PROBE_UDP6, PROBE_MODE_DONT, 3000},     /* fragmented by the host */
        {PROBE_UDP4, PROBE_MODE_INTERFACE, 3000},/* EMSGSIZE */
        {PROBE_TCP4, PROBE_MODE_PROBE, 1400},    /* DF=0 segment: r1 fragments */
    };
    char err[512];
    for (int i = 0; i < N_TESTS; i++) {
        memset(&specs[i], 0, sizeof specs[i]);
        specs[i].proto = kinds[i % 4].p;
        specs[i].mode = kinds[i % 4].m;
        specs[i].size = kinds[i % 4].size;
        specs[i].port = probe_proto_is_tcp(specs[i].proto) ? 0 : 21000 + i;
    }
    struct probe_run_opts o = {.observer = PROBE_OBS_RAW, .lab = &lab};
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    /* A first pass settles the cache (the IPv6 host fragments teach it 1280
     * once); the second, one at a time, is the expectation. */
    for (int i = 0; i < 4; i++) REQUIRE(probe_run(&o, &specs[i], &seq[i], err, sizeof err) == 0);
    double t0 = check_mono_s();
    for (int i = 0; i < N_TESTS; i++) REQUIRE(probe_run(&o, &specs[i], &seq[i], err, sizeof err) == 0);
    double t_seq = check_mono_s() - t0;
    pthread_t th[N_TESTS];
    t0 = check_mono_s();
    for (int i = 0; i < N_TESTS; i++) REQUIRE(pthread_create(&th[i], NULL, worker, (void *)(long)i) == 0);
    for (int i = 0; i < N_TESTS; i++) pthread_join(th[i], NULL);
    double t_par = check_mono_s() - t0;
    printf("  %d tests: one at a time %.0f ms, all at once %.0f ms\n", N_TESTS, t_seq * 1e3, t_par * 1e3);
    for (int i = 0; i < N_TESTS; i++) {
        CHECK_INT(par_rc[i], 0);
        CHECK_INT(par[i].sent.answer, seq[i].sent.answer);
        CHECK_INT(par[i].df.answer, seq[i].df.answer);
        CHECK_INT(par[i].fragmented.answer, seq[i].fragmented.answer);
        CHECK_INT(par[i].fragmenter, seq[i].fragmenter);
        CHECK_INT(par[i].icmp.quoted_len, seq[i].icmp.quoted_len);
        CHECK_STR(par[i].icmp.hop, seq[i].icmp.hop);
        CHECK(par[i].fragmented.basis != PROBE_BASIS_UNKNOWN);
        /* Each saw exactly its own packets leave. */
        CHECK_INT(par[i].egress.packets, seq[i].egress.packets);
    }
}

int main(void) {
    check_root_begin("needs root: network namespaces, raw sockets", "ip ethtool", cleanup);
    if (check_lab_up("fvp", &lab, prefix, sizeof prefix)) return 1;
    RUN(test_concurrent_tests_get_their_own_answers);
    return check_summary();
}
