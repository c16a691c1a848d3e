/* The rules of IP where nothing observed "fragmented?" (issue 34), on
 * canned results as the judge leaves them behind a PMTUD black hole: seen
 * leaving whole, no ICMP answer, the witness (if asked) silent. */
#include "check.h"
#include "fragprobe.h"
#include "judge_fact.h"
#include "rules.h"

/* Sent, seen leaving whole with this DF (observed), nothing came back. */
static void black_hole(struct probe_result *r, enum probe_proto p, int df) {
    memset(r, 0, sizeof *r);
    r->spec.proto = p;
    r->spec.size = 1400;
    probe_fact_set_text(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "it was seen leaving the host");
    if (probe_proto_is_v6(p))
        probe_fact_set_text(&r->df, PROBE_ANS_YES, PROBE_BASIS_INFERRED, "IPv6 has no DF bit");
    else
        probe_fact_set(&r->df, df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.df_egress", "df=%d", df);
    probe_fact_set_text(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "no ICMP answer at TTL 2");
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    r->egress.packets = 1;
    r->egress.fragments = 0;
    r->egress.first_len = 1400;
    snprintf(r->evidence, sizeof r->evidence, "no ICMP answer at TTL 2");
}

static void silent_witness(struct probe_result *r) {
    snprintf(r->witness.target, sizeof r->witness.target, "203.0.113.2:33435");
    r->witness.silent = 1;
    snprintf(r->witness.note, sizeof r->witness.note, "the witness did not answer within 1000 ms");
}

static void test_df_set_and_whole_at_egress_means_no_router_fragments_it(void) {
    struct probe_result r;
    black_hole(&r, PROBE_UDP4, 1);
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_RULE);
    CHECK_INT(r.fragmenter, PROBE_FRAG_NONE);
    CHECK_STR(r.fragmented.why, "it left the host whole and with DF=1 no router may fragment it");
    CHECK_STR(probe_basis_name(r.fragmented.basis), "rule");
    CHECK_CONTAINS(r.evidence, "(rule)");
}

/* Rule (a) is not applied on a path known to have a router that clears DF
 * (lab --cleardf): there DF=1 does not keep routers from fragmenting it. */
static void test_df_rule_is_not_applied_past_a_router_that_clears_df(void) {
    struct probe_result r;
    black_hole(&r, PROBE_UDP4, 1);
    struct probe_path_topology topo;
    memset(&topo, 0, sizeof topo);
    topo.nnodes = 4;
    const char *names[4] = {"src", "r1", "r2", "dst"};
    for (int i = 0; i < 4; i++) snprintf(topo.node[i].name, sizeof topo.node[i].name, "%s", names[i]);
    topo.link[0].mtu = topo.link[2].mtu = 1500;
    topo.link[1].mtu = 1280;
    CHECK_INT(probe_path_topology_clears_df(&topo), 0);
    topo.node[1].clears_df = 1;
    CHECK_INT(probe_path_topology_clears_df(&topo), 1);
    CHECK_INT(probe_path_topology_clears_df(NULL), 0);
    probe_rules_apply(&topo, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(r.fragmenter, PROBE_FRAG_UNKNOWN);
    CHECK_STR(r.fragmented.why,
              "it left the host whole with DF=1, but r1 clears DF: a router on the way may have fragmented it");
}

static void test_ipv6_whole_at_egress_means_no_router_fragments_it(void) {
    struct probe_result r;
    black_hole(&r, PROBE_TCP6, 1);
    snprintf(r.evidence, sizeof r.evidence, "TCP: first segment 1400 bytes; no ICMP answer at TTL 2");
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_RULE);
    CHECK_CONTAINS(r.fragmented.why, "no router fragments IPv6");
    CHECK_CONTAINS(r.evidence, "TCP: first segment 1400 bytes; it left the host whole"); /* the judge's prefix stays */
}

static void test_whole_and_unseen_by_the_witness_is_dropped_not_host_fragmented(void) {
    struct probe_result r;
    black_hole(&r, PROBE_UDP4, 0);
    silent_witness(&r);
    probe_rules_apply(NULL, &r);
    /* DF=0: a router may have cut it before the drop, so no answer -- but the rule says what it can. */
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(r.fragmenter, PROBE_FRAG_UNKNOWN);
    CHECK_CONTAINS(r.fragmented.why, "dropped on the way, not fragmented by the host");
    CHECK_CONTAINS(r.evidence, "[the witness did not answer within 1000 ms]");
    /* With DF=1 the first rule answers, and says it was dropped. */
    black_hole(&r, PROBE_UDP4, 1);
    silent_witness(&r);
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_RULE);
    CHECK_CONTAINS(r.fragmented.why, "the witness did not see it: dropped on the way");
}

static void test_rules_never_override_an_observation_nor_guess_past_the_wire(void) {
    struct probe_result r;
    /* DF=0 and nothing else: no rule applies. */
    black_hole(&r, PROBE_UDP4, 0);
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_STR(r.fragmented.why, "no ICMP answer at TTL 2");
    /* DF=1 only inferred (nothing seen on the wire): the rule needs it observed. */
    black_hole(&r, PROBE_UDP4, 1);
    r.df.basis = PROBE_BASIS_INFERRED;
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_UNKNOWN);
    /* The departure unseen (no tap): nothing is known of the host's part. */
    black_hole(&r, PROBE_UDP6, 1);
    r.egress.packets = r.egress.fragments = -1;
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_UNKNOWN);
    /* An observed answer stays. */
    black_hole(&r, PROBE_UDP4, 1);
    probe_fact_set_text(&r.fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "quoted a fragment");
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
}

/* A topology of the lab with these link MTUs ("1500,1280,1500"). */
static void lab_topo(const char *mtus, struct probe_path_topology *t) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    char err[256];
    probe_lab_config_default(&cfg);
    if (probe_lab_parse_mtus(mtus, &cfg, err, sizeof err) < 0 || probe_lab_plan(&cfg, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    probe_path_topology_lab(&lab, 0, t);
}

/* (d) On known links a DF=0 packet seen leaving whole is cut by the router
 * before the first smaller link it crossed, and by none when it fits every
 * link it crossed: routers check the TTL before the MTU, so a TTL that
 * expires at the bottleneck router leaves it whole. Without the links, or
 * with DF=1 (rule a), or IPv6 (b), (d) says nothing. */
static void test_known_links_decide_a_df0_packet_that_left_whole(void) {
    struct probe_path_topology t;
    struct probe_result r;
    lab_topo("1500,1280,1500", &t);
    black_hole(&r, PROBE_UDP4, 0);
    r.spec.ttl = 2; /* the lab's: expires at r2, past r1 and its 1280 link */
    probe_rules_apply(&t, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_RULE);
    CHECK_INT(r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_STR(r.fragmented.why, "it left the host whole with DF=0, and 1400 > 1280 on the r1-r2 link: r1 must fragment it");

    black_hole(&r, PROBE_UDP4, 0);
    r.spec.ttl = 2;
    r.egress.first_len = 1280; /* fits */
    probe_rules_apply(&t, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmenter, PROBE_FRAG_NONE);
    CHECK_STR(r.fragmented.why, "it left the host whole and its 1280 bytes fit every link it crossed");

    lab_topo("1500,1500,1280", &t); /* the bottleneck is r2's next link: TTL 2 expires before it */
    black_hole(&r, PROBE_UDP4, 0);
    r.spec.ttl = 2;
    probe_rules_apply(&t, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    black_hole(&r, PROBE_UDP4, 0);
    r.spec.ttl = 64; /* all the way (the witness's TTL): r2 cuts it */
    silent_witness(&r);
    probe_rules_apply(&t, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_STR(r.fragmented.why, "it left the host whole with DF=0, and 1400 > 1280 on the r2-dst link: r2 must fragment it");
    CHECK_CONTAINS(r.evidence, "[the witness did not answer");

    black_hole(&r, PROBE_UDP4, 0); /* no topology: unknown as before */
    r.spec.ttl = 2;
    probe_rules_apply(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
    black_hole(&r, PROBE_UDP4, 0); /* the DF bit not observed: no rule */
    r.spec.ttl = 2;
    probe_fact_set_text(&r.df, PROBE_ANS_NO, PROBE_BASIS_INFERRED, "by mode");
    probe_rules_apply(&t, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
}

static void test_basis_names_round_trip(void) {
    CHECK_NAMES_ROUND_TRIP(enum probe_basis, PROBE_BASIS_OBSERVED, PROBE_BASIS_RULE, probe_basis_name, probe_basis_parse);
    enum probe_basis out;
    CHECK_INT(probe_basis_parse("guessed", &out), -1);
}

int main(void) {
    RUN(test_df_set_and_whole_at_egress_means_no_router_fragments_it);
    RUN(test_df_rule_is_not_applied_past_a_router_that_clears_df);
    RUN(test_ipv6_whole_at_egress_means_no_router_fragments_it);
    RUN(test_whole_and_unseen_by_the_witness_is_dropped_not_host_fragmented);
    RUN(test_rules_never_override_an_observation_nor_guess_past_the_wire);
    RUN(test_known_links_decide_a_df0_packet_that_left_whole);
    RUN(test_basis_names_round_trip);
    return check_summary();
}
