/* The judge on canned observations: which answer, which basis, and never
 * "observed" for something no packet showed. No sockets and no lab: the judge
 * is pure, the path (node names, addresses, link MTUs) is canned data too. */
#include <arpa/inet.h>
#include <errno.h>

#include "check.h"
#include "check_probe.h"
#include "fragprobe.h"
#include "judge.h"
#include "rules.h"
#include "send_errno.h"

/* The default lab: 1500, 1280, 1500, no reassembling router. */
static struct probe_path_topology lab;

/* One judged case: what the host sent, what was seen, what the judge said. */
struct jcase {
    struct probe_result r;
    struct probe_sendinfo si;
    struct probe_observation obs;
};

static void setup(struct jcase *c, enum probe_proto p, enum probe_mode m, int size) {
    struct probe_result *r = &c->r;
    struct probe_sendinfo *si = &c->si;
    memset(r, 0, sizeof *r);
    r->spec.proto = p;
    r->spec.mode = m;
    r->spec.size = size;
    r->spec.ttl = 2;
    r->icmp.quoted_len = r->icmp.quoted_df = r->icmp.quoted_mf = r->icmp.quoted_offset = r->icmp.quoted_frag_hdr = -1;
    r->icmp.type = r->icmp.code = -1;
    r->egress.dev_mtu = 1500;
    r->egress.path_mtu_before = 1500;
    memset(si, 0, sizeof *si);
    si->spec = &r->spec;
    si->family = probe_proto_is_v6(p) ? AF_INET6 : AF_INET;
    si->l4 = probe_proto_is_tcp(p) ? 6 : 17;
    si->sent = 1;
    si->ttl = 2;
    si->sport = 40000;
    si->dport = 33434;
    probe_observation_init(&c->obs);
}

/* Judge the case on a path (the default lab unless given). */
static void judge(struct jcase *c, const struct probe_path_topology *path) {
    probe_judge(&c->si, &c->obs, path ? path : &lab, &c->r);
}

/* An answer from hop `from` quoting our packet with the given header. */
static void answer(struct probe_observation *obs, enum probe_icmp_kind kind, const char *from, int len, int df,
                   int mf, int off, int mtu) {
    struct probe_icmp *a = &obs->answers[obs->nanswers++];
    memset(a, 0, sizeof *a);
    a->family = AF_INET;
    a->kind = kind;
    a->type = kind == PROBE_ICMP_TIME_EXCEEDED ? 11 : 3;
    a->code = kind == PROBE_ICMP_FRAG_NEEDED ? 4 : 0;
    a->mtu = mtu;
    inet_pton(AF_INET, from, a->from);
    a->q.family = AF_INET;
    a->q.total_len = len;
    a->q.df = df;
    a->q.mf = mf;
    a->q.frag_offset = off;
    a->q.frag_hdr = len < 0 ? -1 : 0;
    a->q.l4 = 17;          /* the test's flow (setup's si): its ports, no checksum quoted */
    a->q.sport = 40000;
    a->q.dport = 33434;
    a->q.id = a->q.tcp_seq = -1;
    a->q.udp_check = a->q.tcp_hdr_len = -1;
}

/* The egress tap saw one whole packet of len bytes leave with this DF. */
static void left_whole(struct probe_observation *obs, int len, int df) {
    obs->egress_packets = 1;
    obs->egress_fragments = 0;
    obs->egress_first_len = obs->egress_max_len = len;
    obs->egress_df = df;
}

static void test_emsgsize_is_observed_and_names_the_cache(void) {
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DO, 1400);
    c.si.sent = 0;
    c.si.send_errno = EMSGSIZE;
    c.r.egress.kernel_mtu = 1280;
    c.obs.egress_packets = 0;
    judge(&c, NULL);
    CHECK_INT(c.r.sent.answer, PROBE_ANS_NO);
    CHECK_INT(c.r.sent.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(c.r.df.basis, PROBE_BASIS_INFERRED);   /* nothing on the wire to show DF */
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(c.r.evidence, "EMSGSIZE");
    CHECK_CONTAINS(c.r.evidence, "PMTU cache");
}

/* send()'s error in the why is a catalog key that says what it means (its
 * English strerror's, so the English why is the same); an errno the table
 * lacks is strerror's English as it is. */
static void test_a_send_error_is_its_catalog_key(void) {
    for (int e = 1; e < 200; e++) {
        const char *k = probe_errno_key(e);
        if (!k) continue;
        CHECK(!strncmp(k, "errno.", 6) && fv_msg_en(k) != NULL);
        if (fv_msg_en(k)) CHECK_STR(fv_msg_en(k), strerror(e));
    }
    CHECK(probe_errno_key(EMSGSIZE) != NULL && probe_errno_key(ENETUNREACH) != NULL && probe_errno_key(EPERM) != NULL);
    static const int errs[2] = {EMSGSIZE, ELOOP}; /* in the table; not */
    for (int i = 0; i < 2; i++)
        for (int mtu = 0; mtu <= 1280; mtu += 1280) {
            struct jcase c;
            setup(&c, PROBE_UDP4, PROBE_MODE_DO, 1400);
            c.si.sent = 0;
            c.si.send_errno = errs[i];
            c.r.egress.kernel_mtu = mtu;
            c.obs.egress_packets = 0;
            judge(&c, NULL);
            char want[160];
            snprintf(want, sizeof want, mtu ? "send() failed: %s (kernel MTU 1280)" : "send() failed: %s", strerror(errs[i]));
            CHECK_STR(c.r.sent.why, want);
            const struct fv_msg_arg *a = fv_msg_arg(&c.r.sent.msg[0], "error");
            CHECK(a != NULL);
            if (a) CHECK_INT(a->type, i == 0 ? FV_MSG_KEY : FV_MSG_STR);
            if (a && i == 0) CHECK_STR(a->s, "errno.emsgsize");
        }
}

/* udp4 "want" 1400 bytes with PMTU 1280 cached: the host sent 2 fragments of 1276 bytes, DF=0. */
static void host_fragmented(struct jcase *c) {
    setup(c, PROBE_UDP4, PROBE_MODE_WANT, 1400);
    c->r.egress.path_mtu_before = 1280;
    c->obs.egress_packets = c->obs.egress_fragments = 2;
    c->obs.egress_first_len = c->obs.egress_max_len = 1276;
    c->obs.egress_df = 0;
}

static void test_fragments_leaving_the_host_mean_host(void) {
    struct jcase c;
    host_fragmented(&c);
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1276, 0, 1, 0, 0);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_HOST);
    CHECK_INT(c.r.df.answer, PROBE_ANS_NO);
    CHECK_INT(c.r.df.basis, PROBE_BASIS_OBSERVED);
    CHECK_STR(c.r.icmp.hop_name, "r2");
    CHECK_CONTAINS(c.r.evidence, "PMTU cache says 1280 < 1400");
}

/* The quiz reveals "sent?" while "DF?" and "fragmented?" are still open (issue
 * 15): the earlier facts' why must not tell a later fact -- no packet count,
 * fragment size or answering hop. */
static void test_a_facts_why_tells_nothing_of_the_later_facts(void) {
    struct jcase c;
    host_fragmented(&c);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    const char *early[2] = {c.r.sent.why, c.r.df.why};
    for (int i = 0; i < 2; i++) {
        CHECK(!strstr(early[i], "fragment"));
        CHECK(!strstr(early[i], "1276"));
        CHECK(!strstr(early[i], "2 packets"));
    }
    /* no egress tap: only a router's quote shows it was sent and its DF */
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    c.obs.egress_packets = -1;
    c.obs.egress_df = -1;
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1276, 0, 1, 0, 0);
    judge(&c, NULL);
    CHECK_INT(c.r.sent.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.df.answer, PROBE_ANS_NO);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    for (int i = 0; i < 2; i++) {
        const char *w = i ? c.r.df.why : c.r.sent.why;
        CHECK(w[0] != 0);
        CHECK(!strstr(w, "198.51.100.2"));
        CHECK(!strstr(w, "r2"));
        CHECK(!strstr(w, "1276"));
    }
}

static void test_fragment_quoted_past_a_whole_departure_means_router(void) {
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, 0);
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1276, 0, 1, 0, 0);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.fragmented.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(c.r.evidence, "router r1 fragmented it");
    CHECK_INT(c.r.icmp.quoted_len, 1276);
    CHECK_INT(c.r.icmp.quoted_mf, 1);
}

static void test_frag_needed_means_whole_and_dropped(void) {
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DEFAULT, 1400);
    left_whole(&c.obs, 1400, 1);
    answer(&c.obs, PROBE_ICMP_FRAG_NEEDED, "192.0.2.2", 1400, 1, 0, 0, 1280);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_NONE);
    CHECK_INT(c.r.icmp.mtu, 1280);
    CHECK_STR(c.r.icmp.hop_name, "r1");
    CHECK_CONTAINS(c.r.evidence, "Frag Needed, MTU 1280");
}

static void test_reassembling_hop_quote_is_not_read_as_whole(void) {
    struct probe_path_topology rlab = check_probe_lab_path(0, 1500, 1280, 1500, 2);
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, 0);
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1400, 0, 0, 0, 0);
    judge(&c, &rlab);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(c.r.fragmented.basis, PROBE_BASIS_UNKNOWN);
    CHECK_CONTAINS(c.r.fragmented.why, "reassembles");
}

static void test_observer_without_quoted_header(void) {
    /* What the unprivileged observer sees: no egress, a counter, quotes without IP header. */
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    c.obs.frag_creates = 0;
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", -1, -1, -1, -1, 0);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(c.r.df.basis, PROBE_BASIS_INFERRED);
    CHECK_INT(c.r.df.answer, PROBE_ANS_NO);
    setup(&c, PROBE_UDP4, PROBE_MODE_DO, 1400);
    c.obs.frag_creates = 0;
    answer(&c.obs, PROBE_ICMP_FRAG_NEEDED, "192.0.2.2", -1, -1, -1, -1, 1280);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_NO);
    setup(&c, PROBE_UDP4, PROBE_MODE_WANT, 3000);
    c.obs.frag_creates = 3;
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_HOST);
    CHECK_INT(c.r.sent.basis, PROBE_BASIS_INFERRED);
}

static void test_probe_expiring_at_a_bottleneck_router_is_unknown(void) {
    /* Lab 1500/1500/1280: r2 is the bottleneck; a DF=0 packet that expires
     * at r2 says nothing about r2 fragmenting it. */
    struct probe_path_topology blab = check_probe_lab_path(0, 1500, 1500, 1280, 0);
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, 0);
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1400, 0, 0, 0, 0);
    judge(&c, &blab);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_CONTAINS(c.r.fragmented.why, "TTL");
    /* In the default lab the same quote means: went whole past r1. */
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, 0);
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1200, 0, 0, 0, 0);
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_NO);
}

static void test_silence_is_unknown(void) {
    struct jcase c;
    setup(&c, PROBE_UDP4, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, 0);
    judge(&c, NULL);
    CHECK_INT(c.r.sent.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_UNKNOWN);
    CHECK_CONTAINS(c.r.fragmented.why, "no ICMP answer");
}

static void test_ipv6_df_is_inferred_yes(void) {
    struct jcase c;
    setup(&c, PROBE_UDP6, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, -1);
    judge(&c, NULL);
    CHECK_INT(c.r.df.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.df.basis, PROBE_BASIS_INFERRED);
}

/* An icmp test that reached its target: the Echo Reply shows it was sent;
 * it quotes nothing, so "fragmented?" follows from DF / IPv6 or is unknown. */
static void test_echo_reply_means_sent_and_only_df_or_ipv6_rules_out_routers(void) {
    struct jcase c;
    setup(&c, PROBE_ICMP4, PROBE_MODE_DO, 1200);
    c.obs.echo_replies = 1; /* the recverr observer: no tap, only the reply */
    c.obs.frag_creates = 0;
    judge(&c, NULL);
    CHECK_INT(c.r.sent.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.sent.basis, PROBE_BASIS_OBSERVED);
    CHECK_CONTAINS(c.r.sent.why, "Echo Reply");
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(c.r.fragmented.basis, PROBE_BASIS_INFERRED);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_NONE);

    setup(&c, PROBE_ICMP4, PROBE_MODE_DONT, 1400);
    left_whole(&c.obs, 1400, 0);
    c.obs.echo_replies = 1;
    judge(&c, NULL);
    CHECK_INT(c.r.sent.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN); /* DF=0: r1 may have fragmented it, dst reassembled */
    CHECK_CONTAINS(c.r.fragmented.why, "reassembles");

    setup(&c, PROBE_ICMP6, PROBE_MODE_DEFAULT, 1200);
    left_whole(&c.obs, 1200, -1);
    c.obs.echo_replies = 1;
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(c.r.fragmented.why, "never fragment IPv6");

    /* No reply, no answer: as before, sent is only inferred. */
    setup(&c, PROBE_ICMP4, PROBE_MODE_DO, 1200);
    c.obs.echo_replies = 0;
    judge(&c, NULL);
    CHECK_INT(c.r.sent.basis, PROBE_BASIS_INFERRED);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN);
}

/* The canned path is what probe_run hands the judges in the lab. */
/* Issue 34's case: tcp4 probe 3000 leaves as 1500 + 1500 + 104; the first
 * segment (DF=0) was fragmented past r1 and the fragments dropped; the only
 * Time Exceeded quotes the last, 104-byte segment. It is shown, never the
 * answer. A quote of the first segment's first fragment is the answer. */
static void test_a_quote_of_another_tcp_segment_is_not_the_answer(void) {
    struct jcase c;
    setup(&c, PROBE_TCP4, PROBE_MODE_PROBE, 3000);
    left_whole(&c.obs, 1500, 0);
    c.obs.pkt.tcp_seq = 1000;
    c.obs.pkt.len = 1500;
    probe_packet_seen_add_id(&c.obs.pkt, 7);
    answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 104, 0, 0, 0, 0);
    c.obs.answers[0].q.l4 = 6;
    c.obs.answers[0].q.id = 9;
    c.obs.answers[0].q.tcp_seq = 1000 + 2896;
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_UNKNOWN);
    CHECK_INT(c.r.icmp.quoted_len, -1);              /* the quote is not this packet's */
    CHECK_INT(c.r.icmp.other.answers, 1);
    CHECK_STR(c.r.icmp.other.hop, "198.51.100.2");
    CHECK_CONTAINS(c.r.fragmented.why, "no ICMP answer quoted this packet");
    CHECK_CONTAINS(c.r.evidence, "r2 (198.51.100.2) answered with a quote of another segment (seq +2896, 104 bytes)");
    CHECK(!strstr(c.r.evidence, "went whole"));
    /* the rules settle it on the lab's known links (DF=0, left whole): their
     * line keeps the judge's TCP prefix and the other answer, as messages too */
    struct probe_result ru = c.r;
    probe_rules_apply(&lab, &ru);
    CHECK_INT(ru.fragmented.basis, PROBE_BASIS_RULE);
    CHECK_CONTAINS(ru.evidence, "TCP: first segment 1500 bytes, DF=0; ");
    CHECK_CONTAINS(ru.evidence, " (rule); r2 (198.51.100.2) answered with a quote of another segment");
    char said[sizeof ru.evidence];
    fv_msg_row_text(ru.ev, ru.nev, said, sizeof said);
    CHECK(ru.nev > 0);
    CHECK_STR(said, ru.evidence);

    /* The same test where r2 quoted the first segment's first fragment. */
    c.obs.answers[0].q.total_len = 1276;
    c.obs.answers[0].q.mf = 1;
    c.obs.answers[0].q.id = 7;
    c.obs.answers[0].q.tcp_seq = 1000;
    judge(&c, NULL);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_INT(c.r.icmp.other.answers, 0);
}

static void test_canned_path_is_the_labs_topology(void) {
    struct probe_lab_config cfg;
    struct probe_lab planned;
    char err[256];
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "judge");
    REQUIRE(probe_lab_parse_mtus("1500,1400,1280", &cfg, err, sizeof err) == 0);
    cfg.reassemble = 2;
    REQUIRE(probe_lab_plan(&cfg, &planned, err, sizeof err) == 0);
    for (int v6 = 0; v6 <= 1; v6++) {
        struct probe_path_topology t, want = check_probe_lab_path(v6, 1500, 1400, 1280, 2);
        probe_path_topology_lab(&planned, v6, &t);
        CHECK_INT(t.nnodes, want.nnodes);
        for (int n = 0; n < want.nnodes; n++) {
            CHECK_STR(t.node[n].name, want.node[n].name);
            CHECK_STR(t.node[n].addr, want.node[n].addr);
            CHECK_INT(t.node[n].role, want.node[n].role);
            CHECK_INT(t.node[n].reassembles, want.node[n].reassembles);
            if (n < want.nnodes - 1) CHECK_INT(t.link[n].mtu, want.link[n].mtu);
        }
    }
    struct probe_path_topology t;
    probe_path_topology_lab(&planned, 0, &t);
    CHECK_INT(probe_path_topology_node_of(&t, "198.51.100.2"), 2);
    CHECK_INT(probe_path_topology_node_of(&t, "203.0.113.2"), 3);
    CHECK_INT(probe_path_topology_node_of(&t, "8.8.8.8"), -1);
    CHECK_INT(probe_path_topology_node_of(&t, ""), -1);
}

/* Every why the judge writes is a message (a "why." key of the catalogs,
 * docs/LANGUAGES.md "Texts worded in C") whose English is the why: over
 * sent or not, what the egress tap saw, the ICMP answers of each kind and
 * quote, echo replies and silence, on the lab's path and without one. */
static void check_whys_are_messages(const struct probe_result *r) {
    const struct probe_fact *f[3] = {&r->sent, &r->df, &r->fragmented};
    for (int i = 0; i < 3; i++) {
        char en[sizeof f[i]->why];
        fv_msg_row_text(f[i]->msg, f[i]->nmsg, en, sizeof en);
        if (strncmp(f[i]->msg[0].key, "why.", 4) || strcmp(en, f[i]->why) || !fv_msg_en(f[i]->msg[0].key))
            fprintf(stderr, "fact %d: key \"%s\" says \"%s\", why \"%s\"\n", i, f[i]->msg[0].key, en, f[i]->why);
        CHECK(!strncmp(f[i]->msg[0].key, "why.", 4) && fv_msg_en(f[i]->msg[0].key) != NULL);
        CHECK_STR(en, f[i]->why);
    }
    /* and the evidence line: messages whose English is the evidence */
    char ev[sizeof r->evidence];
    fv_msg_row_text(r->ev, r->nev, ev, sizeof ev);
    if (r->nev <= 0 || strcmp(ev, r->evidence)) fprintf(stderr, "evidence (%d parts) says \"%s\", not \"%s\"\n", r->nev, ev, r->evidence);
    CHECK(r->nev > 0);
    CHECK_STR(ev, r->evidence);
    for (int i = 0; i < r->nev; i++) CHECK(fv_msg_en(r->ev[i].key) != NULL);
}

static void test_every_why_is_a_message_whose_english_is_the_why(void) {
    static const enum probe_icmp_kind kinds[3] = {PROBE_ICMP_TIME_EXCEEDED, PROBE_ICMP_FRAG_NEEDED, PROBE_ICMP_UNREACH};
    static const enum probe_proto protos[2] = {PROBE_UDP4, PROBE_UDP6};
    struct probe_path_topology clears = lab; /* r1 clears DF (lab --cleardf) */
    clears.node[1].clears_df = 1;
    const struct probe_path_topology *paths[3] = {NULL, &lab, &clears};
    for (int pi = 0; pi < 2; pi++)
        for (int m = PROBE_MODE_DEFAULT; m <= PROBE_MODE_OMIT; m++)
            for (int sent = 0; sent < 2; sent++)
                for (int tap = 0; tap < 4; tap++)       /* none, unseen, whole, host fragments */
                    for (int ans = 0; ans < 21; ans++) { /* none, 3 kinds whole, a fragment, no quote, echo; 3 paths */
                        struct jcase c;
                        setup(&c, protos[pi], (enum probe_mode)m, 1400);
                        c.si.sent = sent;
                        c.si.send_errno = sent ? 0 : EMSGSIZE;
                        c.r.egress.kernel_mtu = sent ? 0 : 1280;
                        c.obs.egress_packets = tap == 0 ? -1 : tap == 1 ? 0 : tap == 2 ? 1 : 2;
                        c.obs.egress_fragments = tap == 3 ? 2 : 0;
                        c.obs.egress_first_len = tap == 3 ? 1276 : -1;
                        c.obs.egress_df = tap == 2 ? (m == PROBE_MODE_DONT ? 0 : 1) : -1;
                        int a = ans % 7;
                        if (a >= 1 && a <= 3) answer(&c.obs, kinds[a - 1], "198.51.100.2", 1428, 0, 0, 0, 1280);
                        if (a == 4) answer(&c.obs, PROBE_ICMP_TIME_EXCEEDED, "198.51.100.2", 1276, 0, 1, 0, 0);
                        if (a == 5) answer(&c.obs, PROBE_ICMP_FRAG_NEEDED, "192.0.2.2", -1, -1, -1, -1, 1280);
                        if (a == 6) c.obs.echo_replies = 1;
                        probe_judge(&c.si, &c.obs, paths[ans / 7], &c.r); /* paths[0]: no path (judge() takes the lab) */
                        check_whys_are_messages(&c.r);
                        probe_rules_apply(paths[ans / 7], &c.r); /* and where the rules decide */
                        check_whys_are_messages(&c.r);
                    }
}

int main(void) {
    lab = check_probe_lab_path(0, 1500, 1280, 1500, 0);
    RUN(test_canned_path_is_the_labs_topology);
    RUN(test_emsgsize_is_observed_and_names_the_cache);
    RUN(test_a_send_error_is_its_catalog_key);
    RUN(test_fragments_leaving_the_host_mean_host);
    RUN(test_a_facts_why_tells_nothing_of_the_later_facts);
    RUN(test_every_why_is_a_message_whose_english_is_the_why);
    RUN(test_fragment_quoted_past_a_whole_departure_means_router);
    RUN(test_frag_needed_means_whole_and_dropped);
    RUN(test_reassembling_hop_quote_is_not_read_as_whole);
    RUN(test_observer_without_quoted_header);
    RUN(test_probe_expiring_at_a_bottleneck_router_is_unknown);
    RUN(test_silence_is_unknown);
    RUN(test_ipv6_df_is_inferred_yes);
    RUN(test_echo_reply_means_sent_and_only_df_or_ipv6_rules_out_routers);
    RUN(test_a_quote_of_another_tcp_segment_is_not_the_answer);
    return check_summary();
}
