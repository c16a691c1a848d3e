/* The path builder on canned probe results (issue 20): for each case the
 * nodes, link MTUs, what left the host and the events at each node, with
 * what shows each one. Pure: no sockets, no lab (the lab's plan only). */
#include <errno.h>

#include "check.h"
#include "check_path.h"
#include "fragprobe.h"
#include "path_json.h"

static struct probe_lab lab;

static void plan(const char *mtus, int reassemble) {
    struct probe_lab_config cfg;
    char err[256];
    probe_lab_config_default(&cfg);
    if (mtus && probe_lab_parse_mtus(mtus, &cfg, err, sizeof err)) fprintf(stderr, "%s\n", err);
    cfg.reassemble = reassemble;
    if (probe_lab_plan(&cfg, &lab, err, sizeof err)) fprintf(stderr, "%s\n", err);
}

/* A result as probe_run leaves it after judging: a udp4 test in the lab. */
static void result(struct probe_result *r, enum probe_mode m, int size, int ttl) {
    memset(r, 0, sizeof *r);
    r->spec.proto = PROBE_UDP4;
    r->spec.mode = m;
    r->spec.size = size;
    r->spec.ttl = ttl;
    snprintf(r->spec.host, sizeof r->spec.host, "203.0.113.2");
    struct probe_fact unk = {.answer = PROBE_ANS_UNKNOWN, .basis = PROBE_BASIS_UNKNOWN, .why = ""};
    r->sent = r->df = r->fragmented = unk;
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    r->icmp.quoted_len = r->icmp.quoted_df = r->icmp.quoted_mf = r->icmp.quoted_offset = r->icmp.quoted_frag_hdr = -1;
    r->icmp.type = r->icmp.code = -1;
    r->egress.dev_mtu = r->egress.path_mtu_before = 1500;
    r->egress.packets = r->egress.fragments = r->egress.first_len = -1;
    r->icmp.echo_replies = -1;
    r->witness.raw = r->witness.ttl = r->witness.df = r->witness.bytes = r->witness.fragments = -1;
    r->witness.frag_max = r->witness.frag_min = r->witness.segments = r->witness.seg_max = -1;
    snprintf(r->egress.observer, sizeof r->egress.observer, "raw");
}
static void left(struct probe_result *r, int packets, int fragments, int first_len, int df) {
    r->sent.answer = PROBE_ANS_YES;
    r->sent.basis = PROBE_BASIS_OBSERVED;
    r->df.answer = df ? PROBE_ANS_YES : PROBE_ANS_NO;
    r->egress.packets = packets;
    r->egress.fragments = fragments;
    r->egress.first_len = first_len;
    r->fragmenter = fragments > 0 ? PROBE_FRAG_HOST : PROBE_FRAG_NONE;
}
/* result() and left() at once: the usual start of a case. */
static void sent_case(struct probe_result *r, enum probe_mode m, int size, int ttl, int packets, int fragments,
                      int first_len, int df) {
    result(r, m, size, ttl);
    left(r, packets, fragments, first_len, df);
}

static void build(const struct probe_result *r, struct probe_path *p) {
    struct probe_path_topology t;
    probe_path_topology_lab(&lab, probe_proto_is_v6(r->spec.proto), &t);
    probe_path_build(r, &t, p);
}

static void check_pieces(const struct probe_path_pieces *p, int n, const int *want) {
    CHECK_INT(p->n, n);
    for (int i = 0; i < n && i < p->n; i++) CHECK_INT(p->len[i], want[i]);
}
#define PIECES(p, ...) do { const int w_[] = {__VA_ARGS__}; check_pieces(p, (int)(sizeof w_ / sizeof *w_), w_); } while (0)

/* Event e is `what` at node `node`, shown by `seen` (-1: not checked). */
#define EV(e, node_, what_, seen_) do { const struct probe_path_event *e_ = (e); CHECK_INT(e_->node, node_); \
    CHECK_INT(e_->what, what_); if ((int)(seen_) >= 0) CHECK_INT(e_->seen_by, seen_); } while (0)

static void check_lab_nodes(const struct probe_path *p) {
    CHECK_INT(p->v, PROBE_PATH_VERSION);
    CHECK_STR(p->view, "full");
    CHECK_INT(p->nnodes, 4);
    CHECK_STR(p->node[0].name, "src");
    CHECK_STR(p->node[0].addr, "192.0.2.1");
    CHECK_INT(p->node[0].role, PROBE_PATH_HOST);
    CHECK_STR(p->node[1].name, "r1");
    CHECK_STR(p->node[1].addr, "192.0.2.2");
    CHECK_STR(p->node[2].addr, "198.51.100.2");
    CHECK_STR(p->node[3].name, "dst");
    CHECK_INT(p->node[3].role, PROBE_PATH_TARGET);
    for (int i = 0; i < 3; i++) CHECK_INT(p->link[i].from, PROBE_PATH_MTU_LAB);
}

/* 1. DF=0, 1400 bytes: r1 cuts it for its 1280 link; r2's Time Exceeded
 * quotes the first fragment. */
static void test_fragmented_by_r1(void) {
    plan(NULL, 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 1400, 2, 1, 0, 1400, 0);
    check_path_answer(&r, "198.51.100.2", "r2", 11, 0, 0, 1276, 0, 1);
    r.fragmenter = PROBE_FRAG_ROUTER;
    struct probe_path p;
    build(&r, &p);
    check_lab_nodes(&p);
    CHECK_INT(p.link[1].mtu, 1280);
    CHECK_INT(p.left, 1);
    CHECK_INT(p.df, 0);
    CHECK_INT(p.bytes, 1400);
    PIECES(&p.sent, 1400);
    CHECK_INT(p.sent.from, PROBE_PATH_PIECES_CAPTURE);
    REQUIRE(p.nevents == 2);
    EV(&p.ev[0], 1, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_ICMP);
    PIECES(&p.ev[0].pieces, 1276, 144);
    CHECK_INT(p.ev[0].pieces.from, PROBE_PATH_PIECES_QUOTE);
    CHECK_CONTAINS(p.ev[0].text, "1276 + 144");
    EV(&p.ev[1], 2, PROBE_PATH_EXPIRED, -1);
    CHECK_INT(p.ev[1].icmp, PROBE_PATH_ICMP_TIME_EXCEEDED);
    CHECK_INT(p.ev[1].has_quote, 1);
    CHECK_INT(p.ev[1].q_len, 1276);
    CHECK_INT(p.ev[1].q_mf, 1);
    CHECK_CONTAINS(p.ev[1].text, "fragment of 1276 bytes");
    CHECK_INT(p.reached, 2);
}

/* 2. DF=1, 1400 bytes: r1 drops it with Frag Needed, MTU 1280. */
static void test_dropped_frag_needed_at_r1(void) {
    plan(NULL, 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DO, 1400, 2, 1, 0, 1400, 1);
    check_path_answer(&r, "192.0.2.2", "r1", 3, 4, 1280, 1400, 1, 0);
    struct probe_path p;
    build(&r, &p);
    check_lab_nodes(&p);
    CHECK_INT(p.df, 1);
    PIECES(&p.sent, 1400);
    REQUIRE(p.nevents == 1);
    EV(&p.ev[0], 1, PROBE_PATH_DROPPED, -1);
    CHECK_INT(p.ev[0].icmp, PROBE_PATH_ICMP_FRAG_NEEDED);
    CHECK_INT(p.ev[0].mtu, 1280);
    CHECK_INT(p.ev[0].q_len, 1400);
    CHECK_INT(p.ev[0].q_df, 1);
    CHECK_INT(p.ev[0].seen_by, PROBE_PATH_SEEN_ICMP);
    CHECK_CONTAINS(p.ev[0].text, "Frag Needed, MTU 1280");
    CHECK_INT(p.reached, 1);
}

/* 3. The PMTU cache says 1280: send() refuses 1400 with EMSGSIZE. */
static void test_emsgsize_at_host(void) {
    plan(NULL, 0);
    struct probe_result r;
    result(&r, PROBE_MODE_DO, 1400, 2);
    r.egress.send_errno = EMSGSIZE;
    r.egress.kernel_mtu = 1280;
    r.egress.path_mtu_before = r.egress.cached_pmtu_before = 1280;
    r.sent.answer = PROBE_ANS_NO;
    r.df.answer = PROBE_ANS_YES;
    r.fragmenter = PROBE_FRAG_NONE;
    struct probe_path p;
    build(&r, &p);
    check_lab_nodes(&p);
    CHECK_INT(p.left, 0);
    CHECK_INT(p.send_errno, EMSGSIZE);
    CHECK_INT(p.kernel_mtu, 1280);
    CHECK_INT(p.pmtu_cache, 1280);
    CHECK_INT(p.sent.n, 0);
    REQUIRE(p.nevents == 1);
    EV(&p.ev[0], 0, PROBE_PATH_REFUSED, PROBE_PATH_SEEN_KERNEL);
    CHECK_INT(p.ev[0].mtu, 1280);
    CHECK_CONTAINS(p.ev[0].text, "EMSGSIZE");
    CHECK_INT(p.reached, 0);
}

/* 4. DF=0, 3000 bytes over a 1500 device: the host cuts 1500 + 1500 + 40,
 * r1 cuts each 1500 again for 1280. */
static void test_fragmented_by_host(void) {
    plan(NULL, 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 3000, 2, 3, 3, 1500, 0);
    check_path_answer(&r, "198.51.100.2", "r2", 11, 0, 0, 1276, 0, 1);
    struct probe_path p;
    build(&r, &p);
    PIECES(&p.sent, 1500, 1500, 40);
    CHECK_INT(p.sent.from, PROBE_PATH_PIECES_CAPTURE);
    REQUIRE(p.nevents == 3);
    EV(&p.ev[0], 0, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_CAPTURE);
    PIECES(&p.ev[0].pieces, 1500, 1500, 40);
    EV(&p.ev[1], 1, PROBE_PATH_FRAGMENTED, -1);
    PIECES(&p.ev[1].pieces, 1276, 244, 1276, 244, 40);
    CHECK_INT(p.ev[2].what, PROBE_PATH_EXPIRED);
    CHECK_INT(p.ev[2].q_len, 1276);
}

/* 5. r1 reassembles (conntrack) before routing, then cuts for 1280. */
static void test_reassembling_router(void) {
    plan(NULL, 1);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 3000, 2, 3, 3, 1500, 0);
    check_path_answer(&r, "198.51.100.2", "r2", 11, 0, 0, 1276, 0, 1);
    snprintf(r.route.reassembling, sizeof r.route.reassembling, "r1");
    struct probe_path p;
    build(&r, &p);
    CHECK_INT(p.node[1].reassembles, 1);
    CHECK_INT(p.node[2].reassembles, 0);
    REQUIRE(p.nevents == 4);
    CHECK_INT(p.ev[0].what, PROBE_PATH_FRAGMENTED);
    EV(&p.ev[1], 1, PROBE_PATH_REASSEMBLED, PROBE_PATH_SEEN_TOPOLOGY);
    PIECES(&p.ev[1].pieces, 3000);
    EV(&p.ev[2], 1, PROBE_PATH_FRAGMENTED, -1);
    PIECES(&p.ev[2].pieces, 1276, 1276, 488);
    CHECK_INT(p.ev[2].pieces.from, PROBE_PATH_PIECES_QUOTE);
    CHECK_INT(p.ev[3].what, PROBE_PATH_EXPIRED);
}

/* 6. DF=1, 1400 bytes, r1 sends no Frag Needed: nothing comes back. The
 * silent node is r1 (its next link is too small for a DF packet). */
static void test_icmp_silent_hop(void) {
    plan(NULL, 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DO, 1400, 2, 1, 0, 1400, 1);
    struct probe_path p;
    build(&r, &p);
    PIECES(&p.sent, 1400);
    REQUIRE(p.nevents == 1);
    EV(&p.ev[0], 1, PROBE_PATH_SILENT, PROBE_PATH_SEEN_INFERENCE);
    CHECK_INT(p.reached, 0);
    /* DF=0 and silent routers: the node due to answer is the one at the TTL. */
    sent_case(&r, PROBE_MODE_DONT, 1000, 2, 1, 0, 1000, 0);
    build(&r, &p);
    REQUIRE(p.nevents == 2);
    CHECK_INT(p.ev[0].what, PROBE_PATH_PASSED);
    CHECK_INT(p.ev[0].seen_by, PROBE_PATH_SEEN_INFERENCE);
    EV(&p.ev[1], 2, PROBE_PATH_SILENT, -1);
}

/* 7. --mtu 1500,1500,1280: TTL 2 expires at r2, the bottleneck, before it
 * would have to fragment; r2 quotes the whole packet. */
static void test_ttl_expired_before_bottleneck(void) {
    plan("1500,1500,1280", 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 1400, 2, 1, 0, 1400, 0);
    check_path_answer(&r, "198.51.100.2", "r2", 11, 0, 0, 1400, 0, 0);
    struct probe_path p;
    build(&r, &p);
    CHECK_INT(p.link[2].mtu, 1280);
    REQUIRE(p.nevents == 2);
    EV(&p.ev[0], 1, PROBE_PATH_PASSED, PROBE_PATH_SEEN_ICMP);
    PIECES(&p.ev[0].pieces, 1400);
    EV(&p.ev[1], 2, PROBE_PATH_EXPIRED, -1);
    CHECK_INT(p.ev[1].q_len, 1400);
    CHECK_INT(p.ev[1].q_mf, 0);
    CHECK_CONTAINS(p.ev[1].text, "before the smaller link (MTU 1280)");
    CHECK_INT(p.reached, 2);
}

/* The lab's witness in dst reported: with its packet tap (raw), the count
 * of pieces, the largest and the smallest. */
static void witness_saw(struct probe_result *r, int raw, int fragments, int frag_max, int frag_min) {
    snprintf(r->witness.target, sizeof r->witness.target, "203.0.113.2:33435");
    r->witness.heard = 1;
    r->witness.raw = raw;
    r->witness.fragments = fragments;
    r->witness.frag_max = frag_max;
    r->witness.frag_min = frag_min;
}

/* 8. With the far-end witness (TTL 64): r1 fragmented, dst got 2 pieces. */
static void test_witness_arrival(void) {
    plan(NULL, 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 1400, 64, 1, 0, 1400, 0);
    witness_saw(&r, 1, 2, 1276, 144);
    r.witness.ttl = 62;
    r.witness.df = 0;
    struct probe_path p;
    build(&r, &p);
    REQUIRE(p.nevents == 3);
    EV(&p.ev[0], 1, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_WITNESS);
    PIECES(&p.ev[0].pieces, 1276, 144);
    CHECK_INT(p.ev[0].pieces.from, PROBE_PATH_PIECES_WITNESS);
    CHECK_INT(p.ev[1].what, PROBE_PATH_PASSED);
    EV(&p.ev[2], 3, PROBE_PATH_ARRIVED, PROBE_PATH_SEEN_WITNESS);
    PIECES(&p.ev[2].pieces, 1276, 144);
    CHECK_INT(p.ev[2].ttl, 62);
    CHECK_INT(p.ev[2].df, 0);
    CHECK_INT(p.reached, 3);
    /* A witness that saw it whole: no router cut it. */
    r.witness.fragments = 0;
    r.witness.frag_max = 0;
    r.spec.size = 1200;
    r.egress.first_len = 1200;
    build(&r, &p);
    REQUIRE(p.nevents == 3);
    CHECK_INT(p.ev[0].what, PROBE_PATH_PASSED);
    CHECK_INT(p.ev[2].what, PROBE_PATH_ARRIVED);
    PIECES(&p.ev[2].pieces, 1200);
    /* A silent witness: the target's event says it was lost on the way. */
    r.witness.heard = 0;
    r.witness.silent = 1;
    build(&r, &p);
    REQUIRE(p.nevents >= 1);
    EV(&p.ev[p.nevents - 1], 3, PROBE_PATH_SILENT, PROBE_PATH_SEEN_INFERENCE);
    CHECK_STR(p.ev[p.nevents - 1].text, "the witness did not see it: dropped on the way");
}

/* 9. One model, one count (issue 34): the host cut 2000 bytes in 2 (1500 +
 * 520), r1 cut the first again: 3 pieces arrive, which the witness counts.
 * The arrival is the model's pieces, not the witness's largest one split
 * again (that gave 1276 + 744). A witness whose report disagrees with the
 * model shows its own and leaves the routers' part to inference. */
static void test_witness_arrival_is_the_models_pieces(void) {
    plan(NULL, 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DEFAULT, 2000, 64, 2, 2, 1500, 0);
    witness_saw(&r, 1, 3, 1276, 244);
    struct probe_path p;
    build(&r, &p);
    REQUIRE(p.nevents == 4);
    PIECES(&p.sent, 1500, 520);
    EV(&p.ev[1], 1, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_WITNESS);
    PIECES(&p.ev[1].pieces, 1276, 244, 520);
    EV(&p.ev[2], 2, PROBE_PATH_PASSED, PROBE_PATH_SEEN_WITNESS);
    PIECES(&p.ev[2].pieces, 1276, 244, 520);
    EV(&p.ev[3], 3, PROBE_PATH_ARRIVED, PROBE_PATH_SEEN_WITNESS);
    PIECES(&p.ev[3].pieces, 1276, 244, 520);
    CHECK_INT(p.ev[3].pieces.from, PROBE_PATH_PIECES_WITNESS);
    CHECK_STR(p.ev[3].text, "arrived in 3 fragments: 1276 + 244 + 520");
    /* The unprivileged witness (largest piece only) agrees too. */
    witness_saw(&r, 0, -1, 1276, -1);
    build(&r, &p);
    PIECES(&p.ev[3].pieces, 1276, 244, 520);
    /* A report the model cannot give (4 pieces): its own count, no sizes
     * guessed, and what r1 and r2 did is the model's inference. */
    witness_saw(&r, 1, 4, 1276, 100);
    build(&r, &p);
    REQUIRE(p.nevents == 4);
    CHECK_INT(p.ev[3].pieces.n, -1);
    CHECK_STR(p.ev[3].text, "arrived in 4 fragments, largest 1276 bytes");
    CHECK_INT(p.ev[1].seen_by, PROBE_PATH_SEEN_INFERENCE);
    CHECK_INT(p.ev[2].seen_by, PROBE_PATH_SEEN_INFERENCE);
    /* The capture's count and IP's split disagree: the sizes are not known. */
    r.egress.fragments = 3;
    build(&r, &p);
    CHECK_INT(p.sent.n, -1);
}

/* IPv6: the lab's v6 addresses, PTB from r1, each host piece carries an
 * 8-byte Fragment header. */
static void test_ipv6(void) {
    plan(NULL, 0);
    struct probe_result r;
    result(&r, PROBE_MODE_DO, 1400, 2);
    r.spec.proto = PROBE_UDP6;
    left(&r, 1, 0, 1400, 1);
    check_path_answer(&r, "2001:db8:1::2", "r1", 2, 0, 1280, 1400, -1, 0);
    struct probe_path p;
    build(&r, &p);
    CHECK_STR(p.node[1].addr, "2001:db8:1::2");
    CHECK_INT(p.df, -1);
    REQUIRE(p.nevents == 1);
    CHECK_INT(p.ev[0].icmp, PROBE_PATH_ICMP_PACKET_TOO_BIG);
    struct probe_path_pieces pc;
    CHECK_INT(probe_path_split(3000, 1500, 1, &pc), 3);
    PIECES(&pc, 1496, 1496, 112);
}

/* A real path: TTL discovery heard hop 1 (reassembles) and hop 2; the test
 * at TTL 2 got a Time Exceeded quoting a fragment from hop 2. */
static void test_real_path_discovery(void) {
    struct probe_result r;
    result(&r, PROBE_MODE_DONT, 1400, 2);
    snprintf(r.spec.host, sizeof r.spec.host, "198.18.0.9");
    left(&r, 1, 0, 1400, 0);
    check_path_answer(&r, "198.18.2.1", "", 11, 0, 0, 1276, 0, 1);
    struct probe_ttl_discovery d;
    memset(&d, 0, sizeof d);
    d.ttl = 2;
    d.tried = 2;
    d.nreassembled = 1;
    snprintf(d.reassembled[0], sizeof d.reassembled[0], "198.18.1.1");
    snprintf(d.hop[0], sizeof d.hop[0], "198.18.1.1");
    snprintf(d.hop[1], sizeof d.hop[1], "198.18.2.1");
    struct probe_path_topology t;
    probe_path_topology_real(&d, &r, &t);
    REQUIRE(t.nnodes == 5);
    CHECK_STR(t.node[0].name, "host");
    CHECK_STR(t.node[1].name, "hop 1");
    CHECK_INT(t.node[1].reassembles, 1);
    CHECK_STR(t.node[2].addr, "198.18.2.1");
    CHECK_INT(t.node[3].role, PROBE_PATH_GAP);
    CHECK_INT(t.node[4].role, PROBE_PATH_TARGET);
    CHECK_INT(t.link[0].mtu, 1500);
    CHECK_INT(t.link[0].from, PROBE_PATH_MTU_DEVICE);
    CHECK_INT(t.link[1].mtu, 0);
    struct probe_path p;
    probe_path_build(&r, &t, &p);
    REQUIRE(p.nevents == 2);
    EV(&p.ev[0], 1, PROBE_PATH_FRAGMENTED, -1);
    PIECES(&p.ev[0].pieces, 1276, 144);
    EV(&p.ev[1], 2, PROBE_PATH_EXPIRED, -1);
    /* No discovery, a Frag Needed from somewhere: that hop after a gap, its
     * next link's MTU from the ICMP. */
    result(&r, PROBE_MODE_DO, 1400, 64);
    snprintf(r.spec.host, sizeof r.spec.host, "198.18.0.9");
    left(&r, 1, 0, 1400, 1);
    check_path_answer(&r, "198.18.5.1", "", 3, 4, 1400 - 100, 1400, 1, 0);
    probe_path_topology_real(NULL, &r, &t);
    REQUIRE(t.nnodes == 5);
    CHECK_INT(t.node[1].role, PROBE_PATH_GAP);
    CHECK_STR(t.node[2].addr, "198.18.5.1");
    CHECK_INT(t.link[2].mtu, 1300);
    CHECK_INT(t.link[2].from, PROBE_PATH_MTU_ICMP);
    probe_path_build(&r, &t, &p);
    REQUIRE(p.nevents == 1);
    EV(&p.ev[0], 2, PROBE_PATH_DROPPED, -1);
}

static void test_names_round_trip(void) {
    CHECK_NAMES_ROUND_TRIP(enum probe_path_what, PROBE_PATH_REFUSED, PROBE_PATH_OTHER, probe_path_what_name,
                           probe_path_what_parse);
    enum probe_path_icmp k;
    CHECK_INT(probe_path_icmp_parse("frag_needed", &k), 0);
    CHECK_INT(k, PROBE_PATH_ICMP_FRAG_NEEDED);
    CHECK_INT(probe_path_icmp_parse("nonsense", &k), -1);
    CHECK(probe_path_mtu_from_name(PROBE_PATH_MTU_NONE) == NULL);
}

/* 10. A lab firewall (lab --dropfrag r2): the host's 3 pieces, cut again
 * by r1, end at r2 when the witness saw nothing; the router's box says what
 * it does. When the witness saw them arrive, the observation wins and the
 * rule says nothing. A whole packet passes the firewall. */
static void test_firewall_drops_fragments(void) {
    struct probe_lab_config cfg;
    char err[256];
    probe_lab_config_default(&cfg);
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_DROPFRAG, "r2", err, sizeof err) == 0);
    REQUIRE(probe_lab_plan(&cfg, &lab, err, sizeof err) == 0);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 3000, 64, 3, 3, 1500, 0);
    snprintf(r.witness.target, sizeof r.witness.target, "203.0.113.2:33435");
    r.witness.silent = 1;
    struct probe_path p;
    build(&r, &p);
    CHECK_INT(p.node[2].drops_fragments, 1);
    CHECK_STR(p.node[2].does, "drops fragments");
    CHECK_INT(p.node[1].drops_fragments, 0);
    CHECK_STR(p.node[1].does, "");
    REQUIRE(p.nevents == 3);
    EV(&p.ev[0], 0, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_CAPTURE);
    EV(&p.ev[1], 1, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_INFERENCE);
    EV(&p.ev[2], 2, PROBE_PATH_DROPPED, PROBE_PATH_SEEN_TOPOLOGY);
    CHECK_STR(p.ev[2].text, "drops every fragment that reaches it: the 5 pieces end here");
    CHECK_INT(p.reached, 0); /* nothing observed it past the host */
    json_t *o = path_json_from(&p);
    struct probe_path back;
    CHECK(path_json_read(o, &back, err, sizeof err) == 1 && back.node[2].drops_fragments == 1);
    CHECK_STR(back.node[2].does, "drops fragments");
    /* the behaviours by name, which the pages word from their catalog (labbrief.NAME) */
    json_t *names = json_object_get(json_array_get(json_object_get(o, "nodes"), 2), "behaviours");
    CHECK(json_array_size(names) == 1 && !strcmp(json_string_value(json_array_get(names, 0)), "dropfrag"));
    CHECK_INT(back.node[2].behave, PROBE_LAB_DROPFRAG);
    CHECK_INT(back.node[1].behave, 0);
    json_array_append_new(names, json_string("teleports")); /* no lab behaviour: refused by name */
    CHECK_INT(path_json_read(o, &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "behaviour");
    json_decref(o);
    witness_saw(&r, 1, 5, 1276, 40); /* it arrived after all: no rule against the observation */
    build(&r, &p);
    for (int i = 0; i < p.nevents; i++) CHECK(p.ev[i].what != PROBE_PATH_DROPPED);
    sent_case(&r, PROBE_MODE_DO, 1200, 64, 1, 0, 1200, 1); /* whole: passes */
    build(&r, &p);
    for (int i = 0; i < p.nevents; i++) CHECK(p.ev[i].what != PROBE_PATH_DROPPED);
}

/* The JSON form reads back to the same path; an old row (no path) is 0; a
 * malformed or foreign-version one is refused with a reason. */
static void test_json_round_trip(void) {
    plan(NULL, 1);
    struct probe_result r;
    sent_case(&r, PROBE_MODE_DONT, 3000, 2, 3, 3, 1500, 0);
    check_path_answer(&r, "198.51.100.2", "r2", 11, 0, 0, 1276, 0, 1);
    struct probe_path p, back;
    build(&r, &p);
    json_t *o = path_json_from(&p);
    char err[256] = "";
    REQUIRE(path_json_read(o, &back, err, sizeof err) == 1);
    json_t *again = path_json_from(&back);
    CHECK(json_equal(o, again));
    CHECK_INT(back.nevents, p.nevents);
    CHECK_INT(back.node[1].reassembles, 1);
    PIECES(&back.ev[2].pieces, 1276, 1276, 488);
    CHECK_INT(back.ev[3].q_len, 1276);
    json_decref(again);
    CHECK_INT(path_json_read(NULL, &back, err, sizeof err), 0);
    CHECK_INT(back.v, 0);
    json_object_set_new(o, "v", json_integer(2));
    CHECK_INT(path_json_read(o, &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "version 2");
    json_object_set_new(o, "v", json_integer(1));
    json_object_set_new(json_array_get(json_object_get(o, "events"), 0), "node", json_integer(9));
    CHECK_INT(path_json_read(o, &back, err, sizeof err), -1);
    json_decref(o);
    /* no path at all: json null */
    memset(&p, 0, sizeof p);
    o = path_json_from(&p);
    CHECK(json_is_null(o));
    json_decref(o);
}

int main(void) {
    RUN(test_fragmented_by_r1);
    RUN(test_dropped_frag_needed_at_r1);
    RUN(test_emsgsize_at_host);
    RUN(test_fragmented_by_host);
    RUN(test_reassembling_router);
    RUN(test_icmp_silent_hop);
    RUN(test_ttl_expired_before_bottleneck);
    RUN(test_witness_arrival);
    RUN(test_witness_arrival_is_the_models_pieces);
    RUN(test_ipv6);
    RUN(test_real_path_discovery);
    RUN(test_names_round_trip);
    RUN(test_firewall_drops_fragments);
    RUN(test_json_round_trip);
    return check_summary();
}
