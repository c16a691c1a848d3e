/* The article's reader challenge in the lab: udp4 default, then tcp4 default,
 * then udp4 default to the same destination. The third answer differs from
 * the first and the engine's explanation names the PMTU cache. The wire
 * (tcpdump on src-r1) must agree, and with the cache flushed before the third
 * run the first answer comes back: the cache is the cause. */
#include <netinet/in.h>

#include "check.h"
#include "check_lab.h"
#include "check_probe.h"
#include "fragprobe.h"
#include "pcap_truth.h"

static char prefix[24];
static struct truth_dump dump;

static void cleanup(void) {
    char err[256];
    truth_dump_stop(&dump);
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
}

static struct probe_lab lab;
static struct probe_run_opts opts;

static int run(enum probe_proto p, int port, struct probe_result *r) {
    struct probe_spec s = check_probe_spec(p, PROBE_MODE_DEFAULT, 1400, port);
    char err[512];
    int rc = probe_run(&opts, &s, r, err, sizeof err);
    if (rc < 0) fprintf(stderr, "probe_run: %s\n", err);
    else printf("  %s: fragmented %s by %s; %s\n", probe_proto_name(p), probe_answer_name(r->fragmented.answer),
                probe_fragmenter_name(r->fragmenter), r->evidence);
    return rc;
}

/* Packets of UDP port `port` on the src-r1 link and how many were fragments. */
static void wire(const struct truth_cap *c, int port, int *pkts, int *frags) {
    long long id = -1;
    *pkts = *frags = 0;
    for (int i = 0; i < c->n; i++) {
        const struct truth_pkt *k = &c->p[i];
        int mine = (k->l4 == IPPROTO_UDP && k->dport == port) || (k->l4 < 0 && id >= 0 && k->id == id);
        if (!mine) continue;
        if (k->l4 == IPPROTO_UDP) id = k->id;
        (*pkts)++;
        *frags += k->frag;
    }
}

static void test_third_udp_run_differs_because_of_the_pmtu_cache(void) {
    char err[512], path[512];
    snprintf(path, sizeof path, "%s/%s-src-r1.pcap", check_tmpdir(), prefix);
    REQUIRE(truth_dump_start(&dump, lab.ns[PROBE_LAB_SRC], lab.link[0].a_if, path) == 0);
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    struct probe_result r1, r2, r3, r4;
    REQUIRE(run(PROBE_UDP4, 30001, &r1) == 0);
    REQUIRE(run(PROBE_TCP4, 0, &r2) == 0);
    REQUIRE(run(PROBE_UDP4, 30003, &r3) == 0);
    /* Control: flush, and the first answer is back. */
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    REQUIRE(run(PROBE_UDP4, 30004, &r4) == 0);
    truth_dump_stop(&dump);

    CHECK(r1.fragmented.answer != r3.fragmented.answer);
    CHECK_INT(r1.fragmented.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(r3.fragmented.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(r3.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(r3.evidence, "PMTU cache");
    CHECK_INT(r1.egress.cached_pmtu_before, 0);
    /* What the first run taught the cache: the bottleneck link's MTU. */
    CHECK_INT(r3.egress.cached_pmtu_before, lab.link[1].mtu);
    CHECK_INT(r4.fragmented.answer, r1.fragmented.answer);
    CHECK_INT(r4.egress.cached_pmtu_before, 0);

    static struct truth_cap cap;
    REQUIRE(truth_read(path, &cap) > 0);
    int p1, f1, p3, f3, p4, f4;
    wire(&cap, 30001, &p1, &f1);
    wire(&cap, 30003, &p3, &f3);
    wire(&cap, 30004, &p4, &f4);
    printf("  wire: run 1 %d packets %d fragments; run 3 %d/%d; control %d/%d\n", p1, f1, p3, f3, p4, f4);
    CHECK(p1 == 1 && f1 == 0);
    CHECK(p3 >= 2 && f3 == p3);
    CHECK(p4 == 1 && f4 == 0);
}

/* The same lesson in IPv6: a Packet Too Big fills the cache, the next
 * datagram is fragmented by the host, and a flush undoes it. */
static void test_ipv6_cache_from_packet_too_big_and_flush(void) {
    char err[512];
    struct probe_result a, b, c;
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    REQUIRE(run(PROBE_UDP6, 30011, &a) == 0);
    REQUIRE(run(PROBE_UDP6, 30012, &b) == 0);
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    REQUIRE(run(PROBE_UDP6, 30013, &c) == 0);
    CHECK_INT(a.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(a.icmp.type, 2);
    CHECK_INT(b.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(b.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(b.evidence, "PMTU cache");
    CHECK_INT(b.egress.cached_pmtu_before, lab.link[1].mtu);
    CHECK_INT(c.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(c.egress.cached_pmtu_before, 0);
}

int main(void) {
    check_root_begin("needs root: network namespaces, raw sockets, tcpdump", "tcpdump ip", cleanup);
    if (check_lab_up("fvc", &lab, prefix, sizeof prefix)) return 1;
    opts.observer = PROBE_OBS_RAW;
    opts.lab = &lab;
    RUN(test_third_udp_run_differs_because_of_the_pmtu_cache);
    RUN(test_ipv6_cache_from_packet_too_big_and_flush);
    return check_summary();
}
