/* The pacer of TTL-limited sends (probe/pace.c) on a canned clock: on a
 * path that showed a rate limit, a burst of 6, then one a second, as Linux's
 * inet_peer_xrlim_allow lets a router answer; a drained path waits a full
 * interval; the bucket refills and never holds more than the burst; a path
 * that never showed a limit is not slowed down. */
#include "check.h"
#include "fragprobe.h"

static void test_burst_then_one_a_second(void) {
    struct probe_pacer p;
    probe_pacer_init(&p, 5000);
    p.limited = 1;
    for (int i = 0; i < PROBE_PACE_BURST; i++) CHECK_INT(probe_pacer_book(&p, 5000), 0);
    CHECK_INT(probe_pacer_book(&p, 5000), 1000);
    CHECK_INT(probe_pacer_book(&p, 5000), 2000); /* booked behind the one before */
    CHECK_INT(probe_pacer_book(&p, 7000), 1000);
}

static void test_refills_up_to_the_burst(void) {
    struct probe_pacer p;
    probe_pacer_init(&p, 0);
    p.limited = 1;
    for (int i = 0; i < PROBE_PACE_BURST; i++) probe_pacer_book(&p, 0);
    CHECK_INT(probe_pacer_book(&p, 2500), 0); /* 2.5 tokens back */
    CHECK_INT(probe_pacer_book(&p, 2500), 0);
    CHECK_INT(probe_pacer_book(&p, 2500), 500);
    int free_sends = 0;
    while (probe_pacer_book(&p, 100000) == 0) free_sends++;
    CHECK_INT(free_sends, PROBE_PACE_BURST);
}

static void test_drained_waits_a_full_interval(void) {
    struct probe_pacer p;
    probe_pacer_init(&p, 0);
    probe_pacer_drained(&p, 300, 0);
    CHECK_INT(probe_pacer_book(&p, 300), 0); /* silent, maybe: no limit shown yet */
    probe_pacer_drained(&p, 1400, 1);        /* answered after a pause: it limits */
    CHECK_INT(probe_pacer_book(&p, 1400), PROBE_PACE_INTERVAL_MS);
    CHECK(PROBE_PACE_REFILL_MS > PROBE_PACE_INTERVAL_MS);
}

static void test_unlimited_path_never_waits(void) {
    struct probe_pacer p;
    probe_pacer_init(&p, 0);
    for (int i = 0; i < 50; i++) CHECK_INT(probe_pacer_book(&p, i), 0);
    p.limited = 1; /* its bucket was kept: now empty */
    CHECK(probe_pacer_book(&p, 50) > 900);
}

static void test_one_pacer_per_path(void) {
    /* The process's table: a drained path waits, another does not. */
    probe_pace_drained("pc-test|192.0.2.1", 1);
    probe_pace_drained("pc-test|192.0.2.2", 0);
    CHECK_INT(probe_pace_wait("pc-test|192.0.2.2"), 0);
    int w = probe_pace_wait("pc-test|192.0.2.1");
    CHECK(w > 900 && w <= PROBE_PACE_INTERVAL_MS);
}

static void test_a_lab_rebuilt_under_its_prefix_is_another_path(void) {
    struct probe_lab a, b;
    memset(&a, 0, sizeof a);
    snprintf(a.cfg.prefix, sizeof a.cfg.prefix, "pk");
    a.cfg.routers = 2;
    int mtu[] = {1500, 1280, 1500};
    memcpy(a.cfg.mtu, mtu, sizeof mtu);
    a.cfg.behave[1] = PROBE_LAB_RATELIMIT;
    b = a;
    char ka[96], kb[96];
    CHECK_INT(probe_pace_path(ka, sizeof ka, &a, "203.0.113.2"), 1);
    CHECK_INT(probe_pace_path(kb, sizeof kb, &b, "203.0.113.2"), 1);
    CHECK_STR(kb, ka); /* the same routers: the same budgets */
    b.cfg.routers = 3;
    b.cfg.mtu[3] = 1500;
    probe_pace_path(kb, sizeof kb, &b, "203.0.113.2");
    CHECK(strcmp(ka, kb) != 0); /* another hop count: its kept TTL discovery is not this one's */
    b = a;
    b.cfg.behave[2] = PROBE_LAB_SILENT;
    probe_pace_path(kb, sizeof kb, &b, "203.0.113.2");
    CHECK(strcmp(ka, kb) != 0);
    b = a;
    b.cfg.behave[1] = 0; /* the kind lab: never paced */
    CHECK_INT(probe_pace_path(kb, sizeof kb, &b, "203.0.113.2"), 0);
    CHECK(strcmp(ka, kb) != 0);
    CHECK_INT(probe_pace_path(kb, sizeof kb, NULL, "203.0.113.2"), 1); /* off the lab: always */
}

/* A TTL-limited raw-observer test that left the host and drew no ICMP answer. */
static void no_answer(struct probe_result *r) {
    memset(r, 0, sizeof *r);
    r->spec.proto = PROBE_UDP4;
    r->spec.ttl = 2;
    r->sent.answer = PROBE_ANS_YES;
    r->fragmented.answer = PROBE_ANS_UNKNOWN;
    snprintf(r->egress.observer, sizeof r->egress.observer, "raw");
}

static void test_a_silent_ttl_limited_test_is_run_again(void) {
    struct probe_result r;
    no_answer(&r);
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 1);
    CHECK_INT(probe_pace_retry_wanted(&r, 0), 0); /* the lab's routers do not rate-limit */
    r.icmp.answers = 1;                           /* an answer came back */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
    no_answer(&r);
    r.icmp.other.answers = 1; /* about another packet: the routers do answer */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
    no_answer(&r);
    r.fragmented.answer = PROBE_ANS_NO; /* decided (a rule, the witness) */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
    no_answer(&r);
    r.spec.ttl = 64; /* not TTL-limited: no Time Exceeded was to come */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
    no_answer(&r);
    snprintf(r.egress.observer, sizeof r.egress.observer, "recverr"); /* sees no quote anyway */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
    no_answer(&r);
    snprintf(r.witness.target, sizeof r.witness.target, "203.0.113.2:33435"); /* TTL 64 to the witness */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
    no_answer(&r);
    r.sent.answer = PROBE_ANS_NO; /* refused by the kernel */
    CHECK_INT(probe_pace_retry_wanted(&r, 1), 0);
}

int main(void) {
    RUN(test_burst_then_one_a_second);
    RUN(test_a_silent_ttl_limited_test_is_run_again);
    RUN(test_refills_up_to_the_burst);
    RUN(test_drained_waits_a_full_interval);
    RUN(test_unlimited_path_never_waits);
    RUN(test_one_pacer_per_path);
    RUN(test_a_lab_rebuilt_under_its_prefix_is_another_path);
    return check_summary();
}
