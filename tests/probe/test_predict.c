/* The predictor (probe/predict.c) on canned inputs: one case per rule it
 * states -- the default mode is WANT; what each mode refuses, fragments and
 * sets DF on (notes: PROBE-mode TCP segments leave with DF=0; PROBE, OMIT
 * and INTERFACE ignore the cached PMTU); TCP is never fragmented by the
 * host; DF=1 is never fragmented by a router, DF=0 is by the router before
 * the first smaller link; IPv6 is never fragmented by a router; a router
 * checks the TTL before the MTU; a Frag Needed fills the cache whatever the
 * mode; unknown links leave the answer unknown. And what a chain may show
 * while a sibling question is open, the surprise headline, and the inputs a
 * finished result gives. */
#include "check.h"
#include "fragprobe.h"

static struct probe_path_topology lab; /* src -[1500]- r1 -[1280]- r2 -[1500]- dst */

static void lab_init(void) {
    static const char *const names[] = {"src", "r1", "r2", "dst"};
    static const int mtu[] = {1500, 1280, 1500};
    memset(&lab, 0, sizeof lab);
    lab.nnodes = 4;
    for (int i = 0; i < 4; i++) {
        snprintf(lab.node[i].name, sizeof lab.node[i].name, "%s", names[i]);
        lab.node[i].role = i == 0 ? PROBE_PATH_HOST : i == 3 ? PROBE_PATH_TARGET : PROBE_PATH_ROUTER;
    }
    for (int i = 0; i < 3; i++) lab.link[i] = (struct probe_path_link){mtu[i], PROBE_PATH_MTU_LAB};
}

static struct probe_prediction p;

/* Predicts proto/mode/size with TTL ttl (0: to the target), device MTU 1500,
 * the given cache, on the lab (topo 1) or an unknown path. */
static void predict(enum probe_proto proto, enum probe_mode mode, int size, int ttl, int cache, int topo) {
    struct probe_predict_in in = {.spec = {.proto = proto, .mode = mode, .size = size, .ttl = ttl},
                                  .dev_mtu = 1500, .cached_pmtu = cache, .topo = topo ? &lab : NULL};
    probe_predict(&in, &p);
}

static const char *chain(enum probe_predict_fact f) {
    static char s[PROBE_PREDICT_TEXT_MAX];
    probe_predict_text(&p, f, ~0u, s, sizeof s);
    return s;
}

static void test_default_is_want_fits_the_device(void) {
    predict(PROBE_UDP4, PROBE_MODE_DEFAULT, 1400, 0, 0, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
    CHECK_INT(p.df.answer, PROBE_ANS_YES);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(p.fragmenter, PROBE_FRAG_NONE);
    CHECK_CONTAINS(chain(PROBE_PREDICT_DF), "Linux's default applies: IP_PMTUDISC_WANT");
    CHECK_CONTAINS(chain(PROBE_PREDICT_DF), "nothing is cached for this address, so the route's MTU is the device's 1500");
    CHECK_CONTAINS(chain(PROBE_PREDICT_DF), "1400 <= 1500, so DF=1");
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "with DF=1 no router may fragment it");
    CHECK_CONTAINS(p.comes_back, "Frag Needed from r1 (MTU 1280)");
    CHECK_CONTAINS(p.comes_back, "whatever the socket's mode"); /* a PROBE packet's Frag Needed fills it too */
}

static void test_do_refuses_above_the_cached_pmtu(void) {
    predict(PROBE_UDP4, PROBE_MODE_DO, 1400, 0, 1280, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(chain(PROBE_PREDICT_SENT), "a path MTU of 1280 is cached");
    CHECK_CONTAINS(chain(PROBE_PREDICT_SENT), "1400 > 1280, so send() fails with EMSGSIZE");
    CHECK_INT(p.df.answer, PROBE_ANS_YES); /* what the socket would have set */
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(p.comes_back, "EMSGSIZE");
    predict(PROBE_UDP4, PROBE_MODE_DO, 1400, 0, 0, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
}

static void test_probe_ignores_the_cache_on_udp(void) {
    predict(PROBE_UDP4, PROBE_MODE_PROBE, 1400, 0, 1280, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
    CHECK_CONTAINS(chain(PROBE_PREDICT_SENT), "IP_PMTUDISC_PROBE ignores the cached path MTU 1280");
    CHECK_INT(p.df.answer, PROBE_ANS_YES);
    predict(PROBE_UDP4, PROBE_MODE_PROBE, 1501, 0, 0, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_NO);
}

static void test_probe_tcp_segments_leave_with_df0_and_routers_cut_them(void) {
    predict(PROBE_TCP4, PROBE_MODE_PROBE, 1500, 0, 0, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
    CHECK_INT(p.df.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(chain(PROBE_PREDICT_DF), "on TCP, IP_PMTUDISC_PROBE sends its segments with DF=0");
    CHECK_INT(p.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(p.fragmenter, PROBE_FRAG_ROUTER);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "the host never fragments TCP");
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "r1 forwards 1500 bytes onto its 1280-byte link to r2 in 2 pieces");
}

static void test_tcp_segments_follow_the_cache(void) {
    predict(PROBE_TCP4, PROBE_MODE_DONT, 3000, 0, 1280, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
    CHECK_INT(p.df.answer, PROBE_ANS_NO);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO); /* 1280-byte segments fit every link */
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "the first one is 1280 bytes");
}

static void test_tcp_segments_follow_the_targets_mss(void) {
    lab.link[1].mtu = 1500; /* src -[1500]- r1 -[1500]- r2 -[1280]- dst */
    lab.link[2].mtu = 1280;
    predict(PROBE_TCP4, PROBE_MODE_DONT, 1500, 0, 0, 1);
    lab_init();
    CHECK_INT(p.df.answer, PROBE_ANS_NO);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "the MSS the target announced from its own 1280-byte link, so the "
                                                    "first one is 1280 bytes");
}

static void test_interface_refuses_above_the_device(void) {
    predict(PROBE_UDP4, PROBE_MODE_INTERFACE, 1501, 0, 0, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(chain(PROBE_PREDICT_SENT), "refuses only what exceeds the device's MTU: 1501 > 1500");
    predict(PROBE_UDP4, PROBE_MODE_INTERFACE, 1400, 0, 1280, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
    CHECK_INT(p.df.answer, PROBE_ANS_NO);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(p.fragmenter, PROBE_FRAG_ROUTER);
}

static void test_omit_fragments_at_the_device_only(void) {
    predict(PROBE_UDP4, PROBE_MODE_OMIT, 1400, 0, 1280, 1);
    CHECK_INT(p.sent.answer, PROBE_ANS_YES);
    CHECK_INT(p.df.answer, PROBE_ANS_NO);
    CHECK_INT(p.fragmenter, PROBE_FRAG_ROUTER); /* whole from the host (cache ignored), cut by r1 */
    predict(PROBE_UDP4, PROBE_MODE_OMIT, 1600, 0, 0, 1);
    CHECK_INT(p.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "exceeds the device's MTU: 1600 > 1500");
}

static void test_dont_and_want_fragment_to_the_route(void) {
    predict(PROBE_UDP4, PROBE_MODE_DONT, 1400, 0, 1280, 1);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(p.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "1400 > 1280, so the host sends 2 fragments");
    predict(PROBE_UDP4, PROBE_MODE_WANT, 3000, 0, 0, 1);
    CHECK_INT(p.df.answer, PROBE_ANS_NO); /* on the fragments */
    CHECK_INT(p.fragmenter, PROBE_FRAG_HOST);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "3 fragments");
}

static void test_a_router_checks_the_ttl_before_the_mtu(void) {
    predict(PROBE_UDP4, PROBE_MODE_DONT, 1400, 1, 0, 1);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "its TTL of 1 runs out at r1, which checks the TTL before the MTU");
    CHECK_CONTAINS(p.comes_back, "Time Exceeded from r1");
    predict(PROBE_UDP4, PROBE_MODE_DO, 1400, 1, 0, 1);
    CHECK_CONTAINS(p.comes_back, "Time Exceeded from r1"); /* not Frag Needed */
    predict(PROBE_UDP4, PROBE_MODE_DONT, 1400, 2, 0, 1);
    CHECK_INT(p.fragmenter, PROBE_FRAG_ROUTER); /* r1 cut it before r2 saw it expire */
}

static void test_no_router_fragments_ipv6(void) {
    predict(PROBE_UDP6, PROBE_MODE_DONT, 1400, 0, 0, 1);
    CHECK_INT(p.df.answer, PROBE_ANS_YES);
    CHECK_CONTAINS(chain(PROBE_PREDICT_DF), "IPv6 has no DF bit");
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "no router fragments IPv6");
    CHECK_CONTAINS(p.comes_back, "Packet Too Big from r1 (MTU 1280)");
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "IPV6_PMTUDISC_DONT");
}

static void test_unknown_links_leave_it_unknown(void) {
    predict(PROBE_UDP4, PROBE_MODE_DONT, 1400, 0, 0, 0);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "this path's links are not known before the send");
    predict(PROBE_UDP4, PROBE_MODE_DO, 1400, 0, 0, 0);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_NO); /* DF=1 needs no map */
    lab.link[1].mtu = 0;
    predict(PROBE_UDP4, PROBE_MODE_DONT, 1400, 0, 0, 1);
    CHECK_INT(p.fragmented.answer, PROBE_ANS_UNKNOWN);
    CHECK_CONTAINS(chain(PROBE_PREDICT_FRAGMENTED), "the MTU of the link after r1 is not known");
    lab_init();
    struct probe_predict_in in = {.spec = {.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = 1400}, .dev_mtu = -1};
    probe_predict(&in, &p);
    CHECK_INT(p.sent.answer, PROBE_ANS_UNKNOWN);
}

/* No step a chain shows while a sibling is open may tell that sibling. */
static void test_chains_tell_no_open_sibling(void) {
    static const enum probe_proto protos[] = {PROBE_UDP4, PROBE_TCP4, PROBE_UDP6, PROBE_ICMP4};
    for (size_t a = 0; a < sizeof protos / sizeof protos[0]; a++)
        for (int m = PROBE_MODE_DEFAULT; m <= PROBE_MODE_OMIT; m++)
            for (int size = 1200; size <= 3000; size += 150) {
                predict(protos[a], (enum probe_mode)m, size, 0, m % 2 ? 1280 : 0, 1);
                const struct probe_predicted *sent = probe_predict_fact(&p, PROBE_PREDICT_SENT);
                for (int i = 0; i < sent->nsteps; i++) CHECK_INT(sent->step[i].tells & ~PROBE_TELLS_SENT, 0u);
                char s[PROBE_PREDICT_TEXT_MAX];
                probe_predict_text(&p, PROBE_PREDICT_FRAGMENTED, 0, s, sizeof s);
                CHECK(!strstr(s, "DF=1") && !strstr(s, "DF=0"));
                /* the DF chain is whole once "sent?" is known (a refused packet's says so) */
                size_t part = probe_predict_text(&p, PROBE_PREDICT_DF, PROBE_TELLS_SENT, s, sizeof s);
                CHECK_INT((int)part, (int)probe_predict_text(&p, PROBE_PREDICT_DF, ~0u, s, sizeof s));
            }
    /* shown: the sibling once revealed */
    predict(PROBE_UDP4, PROBE_MODE_WANT, 1400, 0, 0, 1);
    char s[PROBE_PREDICT_TEXT_MAX];
    probe_predict_text(&p, PROBE_PREDICT_FRAGMENTED, 0, s, sizeof s);
    CHECK(!strstr(s, "with DF=1"));
    probe_predict_text(&p, PROBE_PREDICT_FRAGMENTED, PROBE_TELLS_SENT | PROBE_TELLS_DF, s, sizeof s);
    CHECK_CONTAINS(s, "with DF=1 no router may fragment it");
}

static void test_surprise_when_the_measurement_differs(void) {
    predict(PROBE_UDP4, PROBE_MODE_WANT, 1400, 0, 0, 1);
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.fragmented.answer = PROBE_ANS_YES;
    snprintf(r.fragmented.why, sizeof r.fragmented.why, "r2 quoted a fragment");
    char h[300];
    CHECK_INT(probe_predict_surprise(&p, PROBE_PREDICT_FRAGMENTED, &r.fragmented, h, sizeof h), 1);
    CHECK_STR(h, "Surprise: the rules said no \xe2\x80\x94 r2 quoted a fragment");
    r.fragmented.why[0] = 0; /* a why kept back while an earlier sibling is open */
    CHECK_INT(probe_predict_surprise(&p, PROBE_PREDICT_FRAGMENTED, &r.fragmented, h, sizeof h), 1);
    CHECK_STR(h, "Surprise: the rules said no");
    r.fragmented.answer = PROBE_ANS_NO;
    CHECK_INT(probe_predict_surprise(&p, PROBE_PREDICT_FRAGMENTED, &r.fragmented, h, sizeof h), 0);
    CHECK_STR(h, "");
    r.fragmented.answer = PROBE_ANS_UNKNOWN;
    CHECK_INT(probe_predict_surprise(&p, PROBE_PREDICT_FRAGMENTED, &r.fragmented, h, sizeof h), 0);
}

/* Every step of every chain, over each protocol, mode, size, TTL, cache and
 * path, is a message (a catalog key and its arguments) whose English is the
 * step's text; the messages a chain shows are its text's steps, in order,
 * and its conclusion is the last one; the surprise's message renders to the
 * surprise. */
static void test_every_step_is_a_message(void) {
    static const int sizes[] = {600, 1280, 1400, 1500, 2000};
    int steps = 0;
    for (int proto = 0; proto < PROBE_PROTO_COUNT; proto++)
        for (int mode = PROBE_MODE_DEFAULT; mode <= PROBE_MODE_OMIT; mode++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                for (int variant = 0; variant < 8; variant++) {
                    predict((enum probe_proto)proto, (enum probe_mode)mode, sizes[z], variant & 1 ? 2 : 0,
                            variant & 2 ? 1280 : 0, variant & 4);
                    for (int f = 0; f < 3; f++) {
                        const struct probe_predicted *x = probe_predict_fact(&p, (enum probe_predict_fact)f);
                        for (int i = 0; i < x->nsteps; i++, steps++) {
                            char s[PROBE_PREDICT_STEP_MAX];
                            CHECK(x->step[i].msg.key[0] != 0);
                            fv_msg_text(&x->step[i].msg, s, sizeof s);
                            CHECK_STR(s, x->step[i].text);
                            CHECK(strchr(s, '{') == NULL); /* every placeholder filled */
                        }
                        for (unsigned shown = 0; shown < 8; shown++) {
                            struct fv_msg m[PROBE_PREDICT_STEPS_MAX];
                            char text[PROBE_PREDICT_TEXT_MAX], joined[PROBE_PREDICT_TEXT_MAX] = "", key[PROBE_PREDICT_STEP_MAX];
                            int n = probe_predict_msgs(&p, (enum probe_predict_fact)f, shown, m);
                            probe_predict_text(&p, (enum probe_predict_fact)f, shown, text, sizeof text);
                            probe_predict_key(&p, (enum probe_predict_fact)f, shown, key, sizeof key);
                            for (int i = 0; i < n; i++) {
                                if (i) strcat(joined, "; ");
                                fv_msg_append(&m[i], joined, sizeof joined);
                            }
                            CHECK_STR(joined, text);
                            char last[PROBE_PREDICT_STEP_MAX] = "";
                            if (n) fv_msg_text(&m[n - 1], last, sizeof last);
                            CHECK_STR(last, key);
                        }
                    }
                }
    CHECK(steps > 1000);
    predict(PROBE_UDP4, PROBE_MODE_WANT, 1400, 0, 0, 1);
    struct probe_fact measured = {.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "r2 quoted a fragment"};
    struct fv_msg sm;
    char h[300], hm[300];
    CHECK_INT(probe_predict_surprise_msg(&p, PROBE_PREDICT_FRAGMENTED, &measured, &sm), 1);
    CHECK_STR(sm.key, "surprise.said_why");
    CHECK_STR(fv_msg_arg(&sm, "answer")->s, "answer.no");
    CHECK_STR(fv_msg_arg(&sm, "why")->s, "r2 quoted a fragment");
    probe_predict_surprise(&p, PROBE_PREDICT_FRAGMENTED, &measured, h, sizeof h);
    fv_msg_text(&sm, hm, sizeof hm);
    CHECK_STR(hm, h);
    measured.answer = PROBE_ANS_NO;
    CHECK_INT(probe_predict_surprise_msg(&p, PROBE_PREDICT_FRAGMENTED, &measured, &sm), 0);
    CHECK_STR(sm.key, "");
}

static void test_inputs_of_a_result(void) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.spec = (struct probe_spec){.proto = PROBE_UDP4, .mode = PROBE_MODE_DONT, .size = 1400, .ttl = 2};
    r.egress.dev_mtu = 1500;
    r.egress.cached_pmtu_before = 1280;
    r.path.v = PROBE_PATH_VERSION;
    r.path.nnodes = lab.nnodes;
    memcpy(r.path.node, lab.node, sizeof lab.node);
    memcpy(r.path.link, lab.link, sizeof lab.link);
    struct probe_path_topology t;
    struct probe_predict_in in;
    probe_predict_in_of(&r, &t, &in);
    CHECK(in.topo == &t);
    CHECK_INT(in.cached_pmtu, 1280);
    CHECK_INT(in.spec.ttl, 2);
    CHECK_INT(t.link[1].mtu, 1280);
    r.path.link[2].from = PROBE_PATH_MTU_ICMP; /* learned from the answer: not known before the send */
    probe_predict_in_of(&r, &t, &in);
    CHECK(in.topo == NULL);
    r.path.v = 0;
    probe_predict_in_of(&r, &t, &in);
    CHECK(in.topo == NULL);
}

int main(void) {
    lab_init();
    RUN(test_default_is_want_fits_the_device);
    RUN(test_do_refuses_above_the_cached_pmtu);
    RUN(test_probe_ignores_the_cache_on_udp);
    RUN(test_probe_tcp_segments_leave_with_df0_and_routers_cut_them);
    RUN(test_tcp_segments_follow_the_cache);
    RUN(test_tcp_segments_follow_the_targets_mss);
    RUN(test_interface_refuses_above_the_device);
    RUN(test_omit_fragments_at_the_device_only);
    RUN(test_dont_and_want_fragment_to_the_route);
    RUN(test_a_router_checks_the_ttl_before_the_mtu);
    RUN(test_no_router_fragments_ipv6);
    RUN(test_unknown_links_leave_it_unknown);
    RUN(test_chains_tell_no_open_sibling);
    RUN(test_surprise_when_the_measurement_differs);
    RUN(test_every_step_is_a_message);
    RUN(test_inputs_of_a_result);
    return check_summary();
}
