/* The unprivileged observer on a probe worker thread that entered the lab's
 * src namespace (what `serve` and `probe` do): local fragmentation must be
 * read from that namespace's counters (/proc/thread-self/net/snmp), not from
 * the namespace of the process's main thread. Ground truth: the raw observer
 * on the same lab, which sees the packets leave. */
#include "check.h"
#include "check_lab.h"
#include "check_probe.h"
#include "fragprobe.h"

static char prefix[24];
static struct probe_lab lab;

static void cleanup(void) {
    char err[256];
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
}

static int run(enum probe_observer_kind obs, enum probe_proto p, int port, struct probe_result *r) {
    struct probe_run_opts opts = {.observer = obs, .lab = &lab};
    struct probe_spec s = check_probe_spec(p, PROBE_MODE_WANT, 1400, port);
    char err[512];
    int rc = probe_run(&opts, &s, r, err, sizeof err);
    if (rc < 0) fprintf(stderr, "probe_run: %s\n", err);
    else printf("  %s %s: fragmented %s (%s) by %s; %s\n", probe_observer_name(obs), probe_proto_name(p),
                probe_answer_name(r->fragmented.answer), probe_basis_name(r->fragmented.basis),
                probe_fragmenter_name(r->fragmenter), r->evidence);
    return rc;
}

/* First send teaches the cache the bottleneck MTU; the second is then
 * fragmented by this host. Both observers must say so. */
static void check_family(enum probe_proto p, int port) {
    char err[512];
    struct probe_result first, raw, rerr;
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    REQUIRE(run(PROBE_OBS_RECVERR, p, port, &first) == 0);
    REQUIRE(run(PROBE_OBS_RECVERR, p, port + 1, &rerr) == 0);
    REQUIRE(run(PROBE_OBS_RAW, p, port + 2, &raw) == 0);
    CHECK_INT(raw.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(raw.fragmenter, PROBE_FRAG_HOST);
    CHECK_INT(rerr.fragmented.answer, raw.fragmented.answer);
    CHECK_INT(rerr.fragmenter, PROBE_FRAG_HOST);
    CHECK(first.fragmenter != PROBE_FRAG_HOST);
}

static void test_recverr_on_worker_thread_sees_host_fragmentation_v4(void) { check_family(PROBE_UDP4, 31001); }
static void test_recverr_on_worker_thread_sees_host_fragmentation_v6(void) { check_family(PROBE_UDP6, 31011); }

int main(void) {
    check_root_begin("needs root: network namespaces and raw sockets", "ip", cleanup);
    if (check_lab_up("fvr", &lab, prefix, sizeof prefix)) return 1;
    RUN(test_recverr_on_worker_thread_sees_host_fragmentation_v4);
    RUN(test_recverr_on_worker_thread_sees_host_fragmentation_v6);
    return check_summary();
}
