/* probe_witness_merge with canned results: what each end saw goes in, one
 * answer comes out, each fact saying where it was seen. */
#include "check.h"
#include "check_probe.h"
#include "fragprobe.h"
#include "evidence.h"
#include "judge_fact.h"

static struct probe_result near_end(enum probe_proto p, enum probe_mode m, int size) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.spec = check_probe_spec(p, m, size, 33435);
    r.spec.ttl = 64;
    snprintf(r.spec.host, sizeof r.spec.host, "%s", probe_proto_is_v6(p) ? "2001:db8:3::2" : "203.0.113.2");
    snprintf(r.witness.target, sizeof r.witness.target, "%s:33435", r.spec.host);
    struct probe_fact unk = {.answer = PROBE_ANS_UNKNOWN, .basis = PROBE_BASIS_UNKNOWN, .why = "no ICMP answer"};
    struct probe_fact inf = {.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_INFERRED, .why = "send() accepted it"};
    r.sent = inf;
    r.df = (struct probe_fact){.answer = PROBE_ANS_NO, .basis = PROBE_BASIS_INFERRED, .why = "mode dont"};
    r.fragmented = unk;
    r.fragmenter = PROBE_FRAG_UNKNOWN;
    r.egress.packets = r.egress.fragments = r.egress.first_len = -1;
    r.egress.dev_mtu = r.egress.path_mtu_before = 1500;
    snprintf(r.evidence, sizeof r.evidence, "no ICMP answer");
    r.witness.raw = r.witness.ttl = r.witness.df = r.witness.bytes = r.witness.fragments = r.witness.frag_max = r.witness.frag_min = -1;
    r.witness.segments = r.witness.seg_max = -1;
    return r;
}

static void heard(struct probe_result *r, int bytes, int frag_max, int fragments, int ttl) {
    r->witness.heard = 1;
    r->witness.raw = 0;
    r->witness.bytes = bytes;
    r->witness.frag_max = frag_max;
    r->witness.fragments = fragments;
    r->witness.ttl = ttl;
}

static void test_fragments_at_the_far_end_after_a_whole_departure_mean_a_router(void) {
    struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DONT, 1400);
    r.egress.packets = 1; /* the raw observer saw it leave whole */
    r.egress.fragments = 0;
    r.sent = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "1 packet left the host"};
    heard(&r, 1372, 1276, 2, 62);
    struct probe_path_topology lab = check_probe_lab_path(0, 1500, 1500, 1280, 0);
    probe_witness_merge(&lab, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_OBSERVED);
    CHECK_STR(probe_fact_basis_label(&r, &r.fragmented), "observed (far end)");
    CHECK_STR(probe_fact_basis_label(&r, &r.sent), "observed"); /* the near end's own */
    CHECK_INT(r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(r.evidence, "arrived at dst in 2 fragments, largest 1276 bytes");
    CHECK_CONTAINS(r.evidence, "r2 fragmented it (the r2-dst link has MTU 1280)");
    CHECK_CONTAINS(r.evidence, "TTL 62 on arrival (2 routers)");
}

/* A router that clears DF (lab --cleardf r1): the packet left whole with
 * DF=1 (the kernel's rule for mode do), arrived in pieces with DF=0. The
 * host's DF stays the kernel's 1 (no router sets DF, some clear it), and the
 * router that cut it is the first one past r1 with a smaller next link. */
static void test_df_cleared_on_the_way_keeps_the_hosts_df_and_names_the_cutter(void) {
    struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DO, 1400);
    r.df = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_INFERRED,
                               .why = "by the kernel's rules mode do gives DF=1"};
    r.egress.packets = 1;
    r.egress.fragments = 0;
    heard(&r, 1372, 1276, 2, 62);
    r.witness.df = 0;
    struct probe_path_topology lab = check_probe_lab_path(0, 1500, 1280, 1500, 0);
    lab.node[1].clears_df = 1;
    probe_witness_merge(&lab, &r);
    CHECK_INT(r.df.answer, PROBE_ANS_YES);
    CHECK_INT(r.df.basis, PROBE_BASIS_INFERRED);
    CHECK_CONTAINS(r.df.why, "DF=0 on arrival at dst: r1 cleared it");
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(r.evidence, "r1 fragmented it (the r1-r2 link has MTU 1280)");
    /* the same arrival on a path with no router known to clear DF: DF=0 arrived, the host's rule said 0 */
    struct probe_result d = near_end(PROBE_UDP4, PROBE_MODE_DONT, 1400);
    heard(&d, 1372, 1276, 2, 62);
    d.witness.df = 0;
    probe_witness_merge(NULL, &d);
    CHECK_INT(d.df.answer, PROBE_ANS_NO);
    CHECK_STR(probe_fact_basis_label(&d, &d.df), "observed (far end)");
}

static void test_ipv6_fragments_are_the_hosts_by_rule(void) {
    struct probe_result r = near_end(PROBE_UDP6, PROBE_MODE_DONT, 3000);
    heard(&r, 2952, 1496, -1, 62);
    probe_witness_merge(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_STR(probe_fact_basis_label(&r, &r.fragmented), "observed (far end)");
    CHECK_INT(r.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(r.evidence, "routers never fragment IPv6: the host did");
    CHECK_STR(probe_fact_basis_label(&r, &r.sent), "observed (far end)"); /* recverr only inferred it */
}

static void test_tcp_fragments_are_a_routers_by_rule(void) {
    struct probe_result r = near_end(PROBE_TCP4, PROBE_MODE_DONT, 1400);
    heard(&r, 1348, 1276, 2, 62);
    r.witness.raw = 1;
    r.witness.segments = 1;
    probe_witness_merge(NULL, &r);
    CHECK_INT(r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(r.evidence, "TCP is never IP-fragmented by its sender");
}

static void test_whole_at_the_far_end_means_nobody_fragmented(void) {
    struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DONT, 1200);
    heard(&r, 1172, 0, 0, 62);
    probe_witness_merge(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_STR(probe_fact_basis_label(&r, &r.fragmented), "observed (far end)");
    CHECK_INT(r.fragmenter, PROBE_FRAG_NONE);
    CHECK_CONTAINS(r.evidence, "went whole: arrived at the witness 203.0.113.2:33435 whole");
}

static void test_tcp6_unseen_fragments_are_settled_by_the_rules(void) {
    /* An unprivileged witness sees no IP fragments of a TCP stream. */
    struct probe_result r = near_end(PROBE_TCP6, PROBE_MODE_DONT, 1400);
    heard(&r, 1328, 0, -1, 62);
    r.witness.segments = 2;
    probe_witness_merge(NULL, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_INFERRED);
    CHECK_CONTAINS(r.fragmented.why, "TCP is never IP-fragmented by its sender and routers never fragment IPv6");
    CHECK_CONTAINS(r.evidence, "in 2 data segments");
}

static void test_the_near_ends_observation_is_kept(void) {
    /* The host's own fragments seen leaving: the far end adds, never replaces. */
    struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DONT, 3000);
    r.fragmented = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "the host sent 3 fragments"};
    r.fragmenter = PROBE_FRAG_HOST;
    snprintf(r.evidence, sizeof r.evidence, "kernel fragmented locally");
    heard(&r, 2972, 1276, 5, 62);
    probe_witness_merge(NULL, &r);
    CHECK_STR(probe_fact_basis_label(&r, &r.fragmented), "observed");
    CHECK_INT(r.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(r.evidence, "kernel fragmented locally; arrived at the witness");
}

static void test_a_silent_witness_leaves_the_near_end_with_a_note(void) {
    struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DONT, 1400);
    r.witness.silent = 1;
    snprintf(r.witness.note, sizeof r.witness.note, "the witness 203.0.113.2:33435 did not answer within 1000 ms");
    probe_witness_merge(NULL, &r);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_UNKNOWN);
    CHECK_INT(r.witness.far_end, 0);
    CHECK_CONTAINS(r.evidence, "no ICMP answer [the witness 203.0.113.2:33435 did not answer within 1000 ms]");
}

static void check_row(const struct fv_msg *m, int n, const char *english);

/* A silent witness's note after the line is a message too: worded from
 * the catalog where it is witness_probe's sentence (ev.witness_silent: the
 * witness and the wait as arguments), else its own words carried as they
 * are (ev.witness_note); either way the row says the English line. */
static void test_a_silent_witness_note_is_a_message(void) {
    for (int own = 0; own < 2; own++) {
        struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DONT, 1400);
        probe_ev_clear(&r);
        probe_ev_add(&r, "ev.host_frag", " ");
        r.witness.silent = 1;
        r.witness.waited_ms = 1000;
        snprintf(r.witness.note, sizeof r.witness.note, own ? "the witness went quiet"
                 : "the witness 203.0.113.2:33435 did not answer within 1000 ms: the near end's observation only");
        probe_witness_merge(NULL, &r);
        CHECK_STR(r.evidence, own ? "kernel fragmented locally [the witness went quiet]"
                  : "kernel fragmented locally [the witness 203.0.113.2:33435 did not answer within 1000 ms: the near "
                    "end's observation only]");
        CHECK_INT(r.nev, 2);
        if (r.nev == 2) CHECK_STR(r.ev[1].key, own ? "ev.witness_note" : "ev.witness_silent");
        check_row(r.ev, r.nev, r.evidence);
    }
}

/* The far end's DF, and the TCP rules it settles, are messages (why.
 * keys, docs/LANGUAGES.md) whose English is the why: at the lab's last
 * node by its name, elsewhere at the witness by its address. */
static void test_the_far_ends_df_and_tcp_whys_are_messages(void) {
    struct probe_path_topology lab = check_probe_lab_path(0, 1500, 1500, 1500, 0);
    static const char *const want[2][2] = {
        {"DF=0 on arrival at the witness 203.0.113.2:33435 (routers do not set it)",
         "DF=1 on arrival at the witness 203.0.113.2:33435 (no router sets it)"},
        {"DF=0 on arrival at dst (routers do not set it)", "DF=1 on arrival at dst (no router sets it)"}};
    for (int on_lab = 0; on_lab < 2; on_lab++)
        for (int df = 0; df < 2; df++) {
            struct probe_result r = near_end(PROBE_UDP4, PROBE_MODE_DONT, 1400);
            heard(&r, 1372, 0, 0, 62);
            r.witness.df = df;
            probe_witness_merge(on_lab ? &lab : NULL, &r);
            CHECK_STR(r.df.why, want[on_lab][df]);
            CHECK_STR(r.df.msg[0].key, on_lab ? (df ? "why.far_df1_at" : "why.far_df0_at")
                                           : (df ? "why.far_df1_witness" : "why.far_df0_witness"));
            char en[sizeof r.df.why];
            fv_msg_row_text(r.df.msg, r.df.nmsg, en, sizeof en);
            CHECK_STR(en, r.df.why);
            CHECK_STR(probe_fact_basis_label(&r, &r.df), "observed (far end)");
        }
    struct probe_result r = near_end(PROBE_TCP6, PROBE_MODE_DONT, 1400);
    heard(&r, 1328, 0, -1, 62);
    probe_witness_merge(NULL, &r);
    CHECK_STR(r.fragmented.msg[0].key, "why.tcp_v6");
    char en[sizeof r.fragmented.why];
    fv_msg_row_text(r.fragmented.msg, r.fragmented.nmsg, en, sizeof en);
    CHECK_STR(en, r.fragmented.why);
    CHECK_STR(probe_fact_basis_label(&r, &r.fragmented), "inferred");
}

/* The far end's words are messages too (docs/LANGUAGES.md): the arrival as
 * the why of the facts it settles (where and how it arrived, its segments,
 * their largest, the TTL), the DF why with "DF=0 on arrival ...: r1 cleared
 * it" after the judge's, and the evidence line: each a row of messages whose
 * English is the why or the line, over every shape of report. */
static void check_row(const struct fv_msg *m, int n, const char *english) {
    char en[512];
    fv_msg_row_text(m, n, en, sizeof en);
    if (n <= 0 || strcmp(en, english)) fprintf(stderr, "row of %d says \"%s\", not \"%s\"\n", n, en, english);
    CHECK(n > 0);
    CHECK_STR(en, english);
    for (int i = 0; i < n; i++) CHECK(fv_msg_en(m[i].key) != NULL);
}

static void test_the_far_ends_arrival_and_evidence_are_messages(void) {
    static const enum probe_proto protos[4] = {PROBE_UDP4, PROBE_UDP6, PROBE_TCP4, PROBE_TCP6};
    struct probe_path_topology clears = check_probe_lab_path(0, 1500, 1280, 1500, 0);
    clears.node[1].clears_df = 1;
    struct probe_path_topology plain = check_probe_lab_path(0, 1500, 1280, 1500, 0);
    const struct probe_path_topology *paths[3] = {NULL, &plain, &clears};
    int cases = 0, with_note = 0, arrivals = 0;
    for (int pi = 0; pi < 4; pi++)
        for (int pa = 0; pa < 3; pa++)
            for (int shape = 0; shape < 5; shape++) /* fragments counted, fragments, whole, payload only, unseen */
                for (int near = 0; near < 3; near++) /* nothing seen, left whole, host fragments */
                    for (int df = 0; df < 2; df++) {
                        struct probe_result r = near_end(protos[pi], df ? PROBE_MODE_DO : PROBE_MODE_DONT, 1400);
                        if (paths[pa]) /* the target is the lab's dst */
                            snprintf(r.spec.host, sizeof r.spec.host, "%s", paths[pa]->node[paths[pa]->nnodes - 1].addr);
                        probe_fact_set(&r.df, df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_INFERRED, "why.df_rule",
                                       "mode=%s df=%d", df ? "do" : "dont", df);
                        probe_ev_clear(&r);
                        if (near == 2) {
                            probe_fact_set(&r.fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.host_sent_frags",
                                           "n=%d len=%d", 2, 1276);
                            r.fragmenter = PROBE_FRAG_HOST;
                            r.egress.packets = r.egress.fragments = 2;
                            probe_ev_add(&r, "ev.host_frag", " ");
                        } else {
                            probe_fact_set(&r.fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.no_answer", "ttl=%d", 2);
                            if (near == 1) r.egress.packets = 1, r.egress.fragments = 0;
                            probe_ev_add_fact(&r, &r.fragmented);
                        }
                        heard(&r, 1372, shape < 2 ? 1276 : 0, shape == 0 ? 2 : shape == 1 ? -1 : shape == 2 ? 0 : -1, 62);
                        if (shape == 3) r.witness.frag_max = 0, r.witness.fragments = -1;
                        if (shape == 4) r.witness.frag_max = -1, r.witness.fragments = -1;
                        if (probe_proto_is_tcp(protos[pi])) r.witness.segments = shape % 3, r.witness.seg_max = shape ? 1348 : 0;
                        r.witness.df = probe_proto_is_v6(protos[pi]) ? -1 : 0;
                        probe_witness_merge(paths[pa], &r);
                        const struct probe_fact *f[3] = {&r.sent, &r.df, &r.fragmented};
                        for (int i = 0; i < 3; i++) check_row(f[i]->msg, f[i]->nmsg, f[i]->why);
                        check_row(r.ev, r.nev, r.evidence);
                        if (strstr(r.df.why, "cleared it")) with_note++;
                        if (strstr(r.sent.why, "arrived")) arrivals++;
                        cases++;
                    }
    CHECK(cases == 360 && with_note > 0 && arrivals > 0);
}

int main(void) {
    RUN(test_fragments_at_the_far_end_after_a_whole_departure_mean_a_router);
    RUN(test_df_cleared_on_the_way_keeps_the_hosts_df_and_names_the_cutter);
    RUN(test_ipv6_fragments_are_the_hosts_by_rule);
    RUN(test_tcp_fragments_are_a_routers_by_rule);
    RUN(test_whole_at_the_far_end_means_nobody_fragmented);
    RUN(test_tcp6_unseen_fragments_are_settled_by_the_rules);
    RUN(test_the_near_ends_observation_is_kept);
    RUN(test_a_silent_witness_leaves_the_near_end_with_a_note);
    RUN(test_the_far_ends_df_and_tcp_whys_are_messages);
    RUN(test_the_far_ends_arrival_and_evidence_are_messages);
    RUN(test_a_silent_witness_note_is_a_message);
    return check_summary();
}
