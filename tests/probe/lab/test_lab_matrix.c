/* Every protocol (udp, tcp, ICMP echo over raw sockets; IPv4 and IPv6) x
 * PMTUD mode at 1400 (above the 1280 link) and 3000 (above
 * the 1500 link), in the lab without and with a reassembling router (r1):
 * the engine's three answers must equal the ground truth read from tcpdump
 * captures on the src-r1 and r1-r2 links taken during the same tests. The
 * PMTU cache is flushed between tests. Needs root (namespaces, raw sockets). */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "check.h"
#include "check_lab.h"
#include "check_probe.h"
#include "fragprobe.h"
#include "probe/pcap_truth.h"
#include "probe/truth_lab.h"

#define MATRIX_SIZES 2
static const int sizes[MATRIX_SIZES] = {1400, 3000};
#define MATRIX_TESTS (PROBE_PROTO_COUNT * 7 * MATRIX_SIZES)
#define UDP_PORT_BASE 20000

static char prefixes[2][24];
static struct truth_dump dumps[2];

static void cleanup(void) {
    char err[256];
    for (int i = 0; i < 2; i++) truth_dump_stop(&dumps[i]);
    for (int i = 0; i < 2; i++)
        if (prefixes[i][0]) probe_lab_down(prefixes[i], err, sizeof err);
}

struct truth {
    int sent, df, host_frag, router_frag, src_pkts, link2_frags;
};

static int run_config(int reassemble) {
    char err[1024];
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "fvm%d%c", (int)getpid() % 100000, reassemble ? 'r' : 'n');
    cfg.reassemble = reassemble;
    struct probe_lab lab;
    if (check_lab_up_cfg(&cfg, &lab, prefixes[reassemble], sizeof prefixes[0]) < 0) return -1;
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/%s-src-r1.pcap", check_tmpdir(), cfg.prefix);
    snprintf(p2, sizeof p2, "%s/%s-r1-r2.pcap", check_tmpdir(), cfg.prefix);
    if (truth_dump_start(&dumps[0], lab.ns[PROBE_LAB_SRC], lab.link[0].a_if, p1) < 0 ||
        truth_dump_start(&dumps[1], lab.ns[PROBE_LAB_R1], lab.link[1].a_if, p2) < 0)
        return -1;
    /* Both captures must be recording before the first test: one packet
     * that crosses both links (it reaches dst, TTL 64) must land in both. */
    if (truth_lab_recording(&lab, dumps, 2) < 0) return -1;

    static struct probe_result res[MATRIX_TESTS];
    static int rcs[MATRIX_TESTS];
    double t_start[MATRIX_TESTS + 1];
    struct probe_run_opts opts = {.observer = PROBE_OBS_RAW, .lab = &lab};
    int n = 0;
    double t_all = truth_now();
    for (int p = 0; p < PROBE_PROTO_COUNT; p++)
        for (int m = 0; m < 7; m++)
            for (int s = 0; s < MATRIX_SIZES; s++, n++) {
                /* TCP: the lab's listener; ICMP: the raw socket picks its echo identifier. */
                int port = probe_proto_is_tcp(p) || probe_proto_is_icmp(p) ? 0 : UDP_PORT_BASE + n;
                struct probe_spec spec = check_probe_spec(p, m, sizes[s], port);
                rcs[n] = truth_lab_run(&lab, &opts, &spec, &res[n], &t_start[n], n);
            }
    t_start[n] = 1e18;
    printf("%s: %d tests in %.2f s\n", cfg.prefix, n, truth_now() - t_all);
    truth_dump_stop(&dumps[0]);
    truth_dump_stop(&dumps[1]);
    static struct truth_cap c1, c2;
    if (truth_read(p1, &c1) <= 0 || truth_read(p2, &c2) < 0) {
        fprintf(stderr, "cannot read the captures %s %s\n", p1, p2);
        return -1;
    }
    int mismatches = 0;
    for (int i = 0; i < n; i++) {
        const struct probe_result *r = &res[i];
        int v6 = probe_proto_is_v6(r->spec.proto);
        int l4 = truth_l4_of(probe_proto_is_tcp(r->spec.proto), probe_proto_is_icmp(r->spec.proto), v6);
        if (rcs[i] < 0) {
            mismatches++;
            continue;
        }
        struct truth t = {0};
        int f2, df2;
        truth_flow(&c1, t_start[i], t_start[i + 1], v6, l4, r->spec.port, &t.src_pkts, &t.host_frag, &t.df);
        truth_flow(&c2, t_start[i], t_start[i + 1], v6, l4, r->spec.port, &f2, &t.link2_frags, &df2);
        t.sent = t.src_pkts > 0;
        t.host_frag = t.host_frag > 0;
        t.router_frag = !t.host_frag && t.link2_frags > 0;
        int want_frag = t.host_frag || t.router_frag;
        enum probe_fragmenter want_by = t.host_frag ? PROBE_FRAG_HOST : t.router_frag ? PROBE_FRAG_ROUTER : PROBE_FRAG_NONE;
        int ok = 1;
        if (r->sent.answer != (t.sent ? PROBE_ANS_YES : PROBE_ANS_NO)) ok = 0;
        if (t.sent && !v6 && r->df.answer != (t.df ? PROBE_ANS_YES : PROBE_ANS_NO)) ok = 0;
        if (t.sent && !v6 && r->df.basis != PROBE_BASIS_OBSERVED) ok = 0;
        if (!t.sent && r->df.basis == PROBE_BASIS_OBSERVED) ok = 0;
        if (r->fragmented.answer != (want_frag ? PROBE_ANS_YES : PROBE_ANS_NO)) ok = 0;
        if (r->fragmenter != want_by) ok = 0;
        if (r->sent.basis == PROBE_BASIS_UNKNOWN || r->fragmented.basis == PROBE_BASIS_UNKNOWN) ok = 0;
        if (probe_proto_is_icmp(r->spec.proto) && strcmp(r->egress.sock, "raw")) ok = 0; /* root: a raw socket */
        printf("%s %-4s %-5s %-9s %5d | wire: sent %d df %d host-frag %d router-frag %d (src %d pkts, r1-r2 %d frags)"
               " | engine: sent %s df %s frag %s by %s | %s\n",
               ok ? "ok  " : "DIFF", cfg.prefix + strlen(cfg.prefix) - 1, probe_proto_name(r->spec.proto),
               probe_mode_name(r->spec.mode), r->spec.size, t.sent, t.df, t.host_frag, t.router_frag, t.src_pkts,
               t.link2_frags, probe_answer_name(r->sent.answer), probe_answer_name(r->df.answer),
               probe_answer_name(r->fragmented.answer), probe_fragmenter_name(r->fragmenter), r->evidence);
        if (!ok) mismatches++;
    }
    probe_lab_down(cfg.prefix, err, sizeof err);
    prefixes[reassemble][0] = 0;
    return mismatches;
}

static void test_matrix_matches_captures_without_reassembly(void) {
    int m = run_config(0);
    REQUIRE(m >= 0);
    CHECK_INT(m, 0);
}

static void test_matrix_matches_captures_with_reassembling_r1(void) {
    int m = run_config(1);
    REQUIRE(m >= 0);
    CHECK_INT(m, 0);
}

int main(void) {
    check_root_begin("needs root: network namespaces, raw sockets, tcpdump", "tcpdump ip nft", cleanup);
    RUN(test_matrix_matches_captures_without_reassembly);
    RUN(test_matrix_matches_captures_with_reassembling_r1);
    return check_summary();
}
