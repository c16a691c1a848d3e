/* Each per-fact judge alone on canned inputs (probe/judge_facts.h): it sets its own
 * fact and no other. No sockets, no lab. */
#include <string.h>

#include "check.h"
#include "judge_facts.h"

/* Each test's inputs and the result its judge fills in, set afresh by
 * setup(): UDP/IPv4, mode default, 1400 bytes, sent with TTL 2, nothing
 * observed yet, every fact unknown. */
static struct probe_result r;
static struct probe_sendinfo si;
static struct probe_observation obs;
static struct probe_judge_in in;

static void setup(void) {
    memset(&r, 0, sizeof r);
    r.sent.answer = r.df.answer = r.fragmented.answer = PROBE_ANS_UNKNOWN; /* untouched unless judged */
    r.spec.proto = PROBE_UDP4;
    r.spec.mode = PROBE_MODE_DEFAULT;
    r.spec.size = 1400;
    r.egress.dev_mtu = r.egress.path_mtu_before = 1500;
    memset(&si, 0, sizeof si);
    si.spec = &r.spec;
    si.sent = 1;
    si.ttl = 2;
    probe_observation_init(&obs);
    in = (struct probe_judge_in){&si, &obs, NULL, NULL, "", -1};
}

/* A fact as a judge left it: its answer and basis. */
static void fact_is(const struct probe_fact *f, int answer, int basis) {
    CHECK_INT(f->answer, answer);
    CHECK_INT(f->basis, basis);
}

static void test_sent_seen_leaving_sets_only_sent(void) {
    setup();
    obs.egress_packets = 1;
    probe_judge_sent(&in, &r);
    fact_is(&r.sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED);
    CHECK_INT(r.df.answer, PROBE_ANS_UNKNOWN);
    CHECK_INT(r.fragmented.answer, PROBE_ANS_UNKNOWN);
}

static void test_df_seen_on_the_wire_wins_over_the_mode(void) {
    setup();
    r.spec.mode = PROBE_MODE_DONT;
    obs.egress_df = 1;
    probe_judge_df(&in, &r);
    fact_is(&r.df, PROBE_ANS_YES, PROBE_BASIS_OBSERVED);
    CHECK_INT(r.sent.answer, PROBE_ANS_UNKNOWN);
}

static void test_frag_host_fragments_seen_name_the_host(void) {
    setup();
    obs.egress_packets = 2;
    obs.egress_fragments = 2;
    probe_judge_frag(&in, &r);
    fact_is(&r.fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED);
    CHECK_INT(r.fragmenter, PROBE_FRAG_HOST);
}

static void test_frag_nothing_sent_is_no(void) {
    setup();
    si.sent = 0;
    probe_judge_frag(&in, &r);
    fact_is(&r.fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED);
}

int main(void) {
    RUN(test_sent_seen_leaving_sets_only_sent);
    RUN(test_df_seen_on_the_wire_wins_over_the_mode);
    RUN(test_frag_host_fragments_seen_name_the_host);
    RUN(test_frag_nothing_sent_is_no);
    return check_summary();
}
