/* probe_recverr_refine on hand-made results: what the unprivileged observer
 * may claim when it cannot see the quoted header. Pure (the lab's path is
 * canned data, check_probe_lab_path). */
#include "check.h"
#include "check_probe.h"
#include "fragprobe.h"

static struct probe_path_topology lab; /* the default lab's path (IPv4) */

/* A result as the judge leaves it for a recverr run that got a Time
 * Exceeded from hop (quote fields unseen), claiming "quoted the whole packet". */
static struct probe_result judged(enum probe_proto p, enum probe_mode m, int size, int df, const char *hop) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.spec = check_probe_spec(p, m, size, 0);
    r.spec.ttl = 2;
    snprintf(r.egress.observer, sizeof r.egress.observer, "recverr");
    snprintf(r.icmp.hop, sizeof r.icmp.hop, "%s", hop);
    r.sent = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "answered"};
    r.df = (struct probe_fact){.answer = df ? PROBE_ANS_YES : PROBE_ANS_NO, .basis = PROBE_BASIS_INFERRED, .why = "rule"};
    r.fragmented = (struct probe_fact){.answer = PROBE_ANS_NO, .basis = PROBE_BASIS_OBSERVED, .why = "quoted the whole -1-byte packet"};
    r.fragmenter = PROBE_FRAG_NONE;
    r.icmp.quoted_len = r.icmp.quoted_df = r.icmp.quoted_mf = r.icmp.quoted_offset = r.icmp.quoted_frag_hdr = -1;
    r.egress.dev_mtu = r.egress.path_mtu_before = 1500;
    return r;
}

static void test_df0_over_the_bottleneck_is_router_fragmentation_inferred(void) {
    struct probe_result r = judged(PROBE_UDP4, PROBE_MODE_DONT, 1400, 0, lab.node[2].addr); /* r2 answers */
    probe_recverr_refine(&lab, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_INFERRED);
    CHECK_INT(r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(r.fragmented.why, "1400 > 1280 on the r1-r2 link");
    CHECK_CONTAINS(r.evidence, "inferred");
}

static void test_df0_that_fits_is_whole_inferred(void) {
    struct probe_result r = judged(PROBE_UDP4, PROBE_MODE_DONT, 1200, 0, lab.node[2].addr);
    probe_recverr_refine(&lab, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_INFERRED);
}

static void test_df0_off_the_lab_is_unknown(void) {
    struct probe_result r = judged(PROBE_UDP4, PROBE_MODE_OMIT, 1400, 0, "198.51.100.7");
    probe_recverr_refine(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_UNKNOWN);
    CHECK_INT(r.fragmenter, PROBE_FRAG_UNKNOWN);
    CHECK_CONTAINS(r.fragmented.why, "CAP_NET_RAW");
}

static void test_df1_and_ipv6_are_whole_by_rule(void) {
    struct probe_result r = judged(PROBE_UDP4, PROBE_MODE_WANT, 1400, 1, "198.51.100.7");
    probe_recverr_refine(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_INFERRED);
    CHECK_CONTAINS(r.fragmented.why, "DF=1");
    r = judged(PROBE_TCP6, PROBE_MODE_DONT, 3000, 1, "");
    probe_recverr_refine(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_INFERRED);
    CHECK_CONTAINS(r.fragmented.why, "never fragment IPv6");
}

static void test_tcp_segment_is_sized_by_the_route(void) {
    /* tcp4 3000 with DF=0: the host sends <= 1500-byte segments; r1 fragments them. */
    struct probe_result r = judged(PROBE_TCP4, PROBE_MODE_PROBE, 3000, 0, "");
    probe_recverr_refine(&lab, &r);
    CHECK_INT(r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(r.fragmented.why, "1500 > 1280");
}

static void test_frag_needed_keeps_observed_and_drops_the_unseen_length(void) {
    struct probe_result r = judged(PROBE_UDP4, PROBE_MODE_DEFAULT, 1400, 1, lab.node[1].addr);
    r.icmp.mtu = 1280;
    probe_recverr_refine(&lab, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_OBSERVED);
    CHECK(strstr(r.fragmented.why, "-1") == NULL);
    CHECK_CONTAINS(r.evidence, "MTU 1280");
}

static void test_host_fragmentation_seen_and_other_observers_untouched(void) {
    struct probe_result r = judged(PROBE_UDP4, PROBE_MODE_WANT, 3000, 0, "");
    r.fragmented = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "the host's fragment counter rose by 3"};
    r.fragmenter = PROBE_FRAG_HOST;
    probe_recverr_refine(&lab, &r);
    CHECK_STR(r.fragmented.why, "the host's fragment counter rose by 3");
    struct probe_result raw = judged(PROBE_UDP4, PROBE_MODE_DONT, 1400, 0, lab.node[2].addr);
    snprintf(raw.egress.observer, sizeof raw.egress.observer, "raw");
    probe_recverr_refine(&lab, &raw);
    CHECK_STR(raw.fragmented.why, "quoted the whole -1-byte packet");
}

/* What the refinement writes is messages (docs/LANGUAGES.md): the why of
 * "fragmented?" and the evidence line, whose English they say, over each
 * protocol, DF, answering hop, a Frag Needed and the lab's path or none. */
static void test_the_refined_why_and_evidence_are_messages(void) {
    static const enum probe_proto protos[3] = {PROBE_UDP4, PROBE_UDP6, PROBE_TCP4};
    int n = 0;
    for (int pi = 0; pi < 3; pi++)
        for (int df = 0; df < 2; df++)
            for (int hop = 0; hop < 3; hop++)
                for (int fn = 0; fn < 2; fn++)
                    for (int on_lab = 0; on_lab < 2; on_lab++) {
                        struct probe_result r = judged(protos[pi], df ? PROBE_MODE_DO : PROBE_MODE_DONT, 1400, df,
                                                       hop == 2 ? "" : lab.node[hop + 1].addr);
                        if (fn) r.icmp.mtu = 1280;
                        probe_recverr_refine(on_lab ? &lab : NULL, &r);
                        char en[512];
                        fv_msg_row_text(r.fragmented.msg, r.fragmented.nmsg, en, sizeof en);
                        CHECK(r.fragmented.nmsg > 0);
                        CHECK_STR(en, r.fragmented.why);
                        fv_msg_row_text(r.ev, r.nev, en, sizeof en);
                        CHECK(r.nev > 0);
                        CHECK_STR(en, r.evidence);
                        n++;
                    }
    CHECK_INT(n, 72);
}

int main(void) {
    lab = check_probe_lab_path(0, 1500, 1280, 1500, 0);
    RUN(test_df0_over_the_bottleneck_is_router_fragmentation_inferred);
    RUN(test_df0_that_fits_is_whole_inferred);
    RUN(test_df0_off_the_lab_is_unknown);
    RUN(test_df1_and_ipv6_are_whole_by_rule);
    RUN(test_tcp_segment_is_sized_by_the_route);
    RUN(test_frag_needed_keeps_observed_and_drops_the_unseen_length);
    RUN(test_host_fragmentation_seen_and_other_observers_untouched);
    RUN(test_the_refined_why_and_evidence_are_messages);
    return check_summary();
}
