/* Each per-fact judge alone on canned inputs (probe/judge.h): it sets its own
 * fact and no other. No sockets, no lab. */
#include <string.h>

#include "check.h"
#include "judge.h"

static void setup(struct probe_result *r, struct probe_sendinfo *si, struct probe_observation *obs,
                  struct probe_judge_in *in) {
    memset(r, 0, sizeof *r);
    r->sent.answer = r->df.answer = r->fragmented.answer = PROBE_ANS_UNKNOWN; /* untouched unless judged */
    r->spec.proto = PROBE_UDP4;
    r->spec.mode = PROBE_MODE_DEFAULT;
    r->spec.size = 1400;
    r->egress.dev_mtu = r->egress.path_mtu_before = 1500;
    memset(si, 0, sizeof *si);
    si->spec = &r->spec;
    si->sent = 1;
    si->ttl = 2;
    probe_observation_init(obs);
    *in = (struct probe_judge_in){si, obs, NULL, NULL, "", -1};
}

static void test_sent_seen_leaving_sets_only_sent(void) {
    struct probe_result r; struct probe_sendinfo si; struct probe_observation obs; struct probe_judge_in in;
    setup(&r, &si, &obs, &in);
    obs.egress_packets = 1;
    probe_judge_sent(&in, &r);
    CHECK_INT(r.sent.answer, PROBE_ANS_YES);
    CHECK_INT(r.sent.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(r.df.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
}

static void test_df_seen_on_the_wire_wins_over_the_mode(void) {
    struct probe_result r; struct probe_sendinfo si; struct probe_observation obs; struct probe_judge_in in;
    setup(&r, &si, &obs, &in);
    r.spec.mode = PROBE_MODE_DONT;
    obs.egress_df = 1;
    probe_judge_df(&in, &r);
    CHECK_INT(r.df.answer, PROBE_ANS_YES);
    CHECK_INT(r.df.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(r.sent.answer, PROBE_ANS_UNKNOWN);
}

static void test_frag_host_fragments_seen_name_the_host(void) {
    struct probe_result r; struct probe_sendinfo si; struct probe_observation obs; struct probe_judge_in in;
    setup(&r, &si, &obs, &in);
    obs.egress_packets = 2;
    obs.egress_fragments = 2;
    probe_judge_frag(&in, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_OBSERVED);
    CHECK_INT(r.fragmenter, PROBE_FRAG_HOST);
}

static void test_frag_nothing_sent_is_no(void) {
    struct probe_result r; struct probe_sendinfo si; struct probe_observation obs; struct probe_judge_in in;
    setup(&r, &si, &obs, &in);
    si.sent = 0;
    probe_judge_frag(&in, &r);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(r.fragmented.basis, PROBE_BASIS_OBSERVED);
}

int main(void) {
    RUN(test_sent_seen_leaving_sets_only_sent);
    RUN(test_df_seen_on_the_wire_wins_over_the_mode);
    RUN(test_frag_host_fragments_seen_name_the_host);
    RUN(test_frag_nothing_sent_is_no);
    return check_summary();
}
