/* The venue check's pure judges (fragvote/check/check_judge.c) on canned
 * facts: each ✔ and ✘ a check can print, and what the summary counts. */
#include <linux/capability.h>

#include "check.h"
#include "check_venue.h"

/* A judged line: ok (1 ✔, 0 ✘) and these words in what it says. */
static void said(const struct check_line *l, int ok, const char *words) {
    CHECK_INT(l->ok, ok);
    CHECK_CONTAINS(l->says, words);
}

static void test_url_host(void) {
    char h[256];
    REQUIRE(check_url_host("http://192.0.2.1:8080/?room=K7QX2M", h, sizeof h) == 0);
    CHECK_STR(h, "192.0.2.1");
    REQUIRE(check_url_host("https://[2001:db8::1]:8443/?room=A", h, sizeof h) == 0);
    CHECK_STR(h, "2001:db8::1");
    REQUIRE(check_url_host("https://quiz.example.org/?room=A", h, sizeof h) == 0);
    CHECK_STR(h, "quiz.example.org");
    CHECK(check_url_host("quiz.example.org", h, sizeof h) < 0);
    CHECK(check_url_host("http://[2001:db8::1", h, sizeof h) < 0);
    CHECK(check_url_host("http:///x", h, sizeof h) < 0);
}

static struct check_join join(const char *addr, const char *iface, int iface_default) {
    struct check_join j;
    memset(&j, 0, sizeof j);
    snprintf(j.url, sizeof j.url, "http://%s:8080/?room=A", addr);
    snprintf(j.host, sizeof j.host, "%s", addr);
    snprintf(j.addr, sizeof j.addr, "%s", addr);
    snprintf(j.iface, sizeof j.iface, "%s", iface);
    j.is_addr = 1;
    j.iface_default = iface_default;
    return j;
}

/* j judged: ok and words as said() checks them; the line for more checks. */
static const struct check_line *judged_join(const struct check_join *j, int ok, const char *words) {
    static struct check_line l;
    check_judge_join(j, &l);
    said(&l, ok, words);
    return &l;
}

static void test_join(void) {
    struct check_line l;
    struct check_join j = join("192.0.2.1", "wlan0", 1);
    judged_join(&j, 1, "on wlan0, which holds the default route");
    j = join("127.0.0.1", "lo", 0);
    j.loopback = 1;
    CHECK_CONTAINS(judged_join(&j, 0, "this host has no IPv4 default route")->says,
                   "Do: connect this laptop to the venue network");
    j.bound = 1;
    check_judge_join(&j, &l);
    CHECK_CONTAINS(l.says, "127.0.0.1 (--bind) is loopback");
    CHECK_CONTAINS(l.says, "Do: --bind the address of the interface that faces the venue network");
    j = join("fe80::1", "wlan0", 1);
    j.linklocal = 1;
    judged_join(&j, 0, "link-local");
    j = join("198.18.0.1", "eth1", 0);
    judged_join(&j, 0, "on eth1, which holds no default route");
    j = join("192.0.2.9", "", 0);
    j.bound = 1;
    judged_join(&j, 0, "on no interface of this host");
    j = join("203.0.113.7", "", 0); /* a proxy's address, --public-url */
    j.public_url = 1;
    judged_join(&j, 1, "checked only by a phone");
    j = join("quiz.invalid", "", 0);
    j.is_addr = 0, j.public_url = 1, j.addr[0] = 0;
    judged_join(&j, 0, "quiz.invalid does not resolve here");
}

static void test_caps(void) {
    struct check_line l;
    check_judge_cap(CAP_NET_RAW, 1, &l);
    CHECK_INT(l.ok, 1);
    CHECK_STR(l.what, "privilege CAP_NET_RAW");
    check_judge_cap(CAP_NET_ADMIN, 0, &l);
    said(&l, 0, "missing, needed for the PMTU cache flush");
    CHECK_CONTAINS(l.says, "setcap");
    check_judge_cap(CAP_SYS_ADMIN, 0, &l);
    CHECK_CONTAINS(l.says, "namespace lab");
}

static struct check_target target(int tried) {
    struct check_target t;
    memset(&t, 0, sizeof t);
    snprintf(t.host, sizeof t.host, "203.0.113.2");
    t.tests = 2, t.raw = 1, t.d.tried = tried;
    for (int i = 0; i < tried; i++) t.d.hop_state[i] = PROBE_HOP_SILENT;
    return t;
}

static void hop(struct check_target *t, int ttl, const char *addr, int state) {
    snprintf(t->d.hop[ttl - 1], sizeof t->d.hop[0], "%s", addr);
    t->d.hop_state[ttl - 1] = (unsigned char)state;
}

static void test_path(void) {
    struct check_line l;
    struct check_target t = target(1);
    hop(&t, 1, "192.0.2.2", PROBE_HOP_ANSWERED);
    t.d.ttl = 1;
    snprintf(t.d.why, sizeof t.d.why, "TTL 1: 192.0.2.2 quoted a fragment");
    check_judge_path(&t, &l);
    CHECK_INT(l.ok, 1);
    CHECK_STR(l.what, "target 203.0.113.2 (IPv4, 2 tests)");
    CHECK_CONTAINS(l.says, "the routers on the way answer Time Exceeded: TTL 1");
    CHECK_INT(check_target_measures(&t, 0), 1);

    t = target(3); /* two silent routers, the destination answers at TTL 3 */
    hop(&t, 3, "203.0.113.2", PROBE_HOP_ANSWERED);
    t.d.reached_dst = 1;
    check_judge_path(&t, &l);
    said(&l, 0, "destination answers at TTL 3), but no router on the way answers Time Exceeded");
    CHECK_INT(check_target_answering_ttl(&t), 0);
    CHECK_INT(check_target_measures(&t, 0), 0);
    CHECK_INT(check_target_measures(&t, 1), 1); /* a keyed witness there */

    t = target(1); /* on this link */
    hop(&t, 1, "203.0.113.2", PROBE_HOP_ANSWERED);
    t.d.reached_dst = 1;
    check_judge_path(&t, &l);
    said(&l, 1, "on this link");

    t = target(3); /* nothing at all */
    snprintf(t.d.why, sizeof t.d.why, "no Time Exceeded for 3 TTLs in a row");
    check_judge_path(&t, &l);
    said(&l, 0, "nothing answered: no Time Exceeded for 3 TTLs");

    t = target(0);
    t.rc = PROBE_E_NOROUTE;
    check_judge_path(&t, &l);
    said(&l, 0, "no route from this laptop");
    t.rc = 0, t.raw = 0;
    check_judge_path(&t, &l);
    said(&l, 0, "not asked: TTL discovery needs CAP_NET_RAW");
    CHECK_INT(check_target_measures(&t, 0), 0);
}

static void test_rate(void) {
    struct check_line l;
    struct check_target t = target(2);
    hop(&t, 1, "192.0.2.2", PROBE_HOP_RATELIMITED);
    hop(&t, 2, "198.51.100.2", PROBE_HOP_ANSWERED);
    CHECK_INT(check_target_answering_ttl(&t), 2); /* the one that answered at once */
    t.d.hop_state[1] = PROBE_HOP_RATELIMITED;
    CHECK_INT(check_target_answering_ttl(&t), 1); /* else the first that answered */
    CHECK_INT(check_judge_rate(&t, &l), 0);       /* no burst ran: no line */
    t.burst_ttl = 1;
    t.burst = (struct probe_ttl_burst){10, 10, 61};
    REQUIRE(check_judge_rate(&t, &l) == 1);
    said(&l, 1, "192.0.2.2 (TTL 1) answered all 10 Time Exceeded of 10");
    t.burst = (struct probe_ttl_burst){10, 6, 1244};
    check_judge_rate(&t, &l);
    said(&l, 0, "answered 6 of 10 datagrams sent one after the other in 1244 ms: it rate-limits");
}

static void test_witness_and_v6(void) {
    struct check_line l;
    struct check_witness w = {"203.0.113.2:9000", 0, "", 1, "arrived whole"};
    check_judge_witness(&w, &l);
    said(&l, 1, "reachable and keyed");
    w.heard = 0;
    check_judge_witness(&w, &l);
    said(&l, 0, "no signed report came back");
    w.rc = PROBE_E_FAIL;
    snprintf(w.err, sizeof w.err, "the witness needs its key");
    check_judge_witness(&w, &l);
    said(&l, 0, "could not be asked: the witness needs its key");

    struct check_v6 v = {3, ""};
    check_judge_v6(&v, &l);
    said(&l, 0, "the deck's 3 IPv6 tests cannot leave");
    v.tests = 0;
    check_judge_v6(&v, &l);
    CHECK_INT(l.ok, 1);
    snprintf(v.iface, sizeof v.iface, "wlan0");
    v.tests = 3;
    check_judge_v6(&v, &l);
    said(&l, 1, "a default route on wlan0");
}

static void test_hub(void) {
    struct check_line l;
    struct check_hub h = {"ws://192.0.2.9:8080/", 3000, 0, 0, 0, 0, "Unable to connect", 0, 0, 0, 0};
    check_judge_hub(&h, &l);
    CHECK_INT(l.ok, 0);
    CHECK_CONTAINS(l.what, "websocket through the hub ws://192.0.2.9:8080/");
    CHECK_CONTAINS(l.says, "did not open: Unable to connect");
    h.connected = 1, h.open_ms = 7, h.held_ms = 3000, h.pings = 3, h.pongs = 3, h.rtt_min_ms = 1, h.rtt_max_ms = 4;
    check_judge_hub(&h, &l);
    said(&l, 1, "open in 7 ms and held 3.0 s; 3 of 3 pings answered, round trip 1-4 ms");
    h.pongs = 2;
    check_judge_hub(&h, &l);
    said(&l, 0, "2 of 3 pings came back");
    h.pongs = 3, h.dropped = 1, h.held_ms = 8500;
    snprintf(h.why, sizeof h.why, "no frame from the hub for 6 s");
    check_judge_hub(&h, &l);
    said(&l, 0, "then lost 8.5 s after it opened (no frame from the hub for 6 s)");
}

static void test_phone(void) {
    struct check_line l;
    struct check_phone p;
    memset(&p, 0, sizeof p);
    snprintf(p.url, sizeof p.url, "ws://192.0.2.9:8080/");
    p.wait_ms = 120000;
    snprintf(p.why, sizeof p.why, "Unable to connect");
    check_judge_phone(&p, &l);
    said(&l, 0, "did not open: Unable to connect. Do: check the URL");
    p.connected = 1;
    snprintf(p.why, sizeof p.why, "the hub refused: bad_secret");
    check_judge_phone(&p, &l);
    CHECK_CONTAINS(l.says, "not asked: the hub refused: bad_secret. Do: give the room's presenter secret");
    p.authed = 1, p.why[0] = 0;
    snprintf(p.join_url, sizeof p.join_url, "http://192.0.2.9:8080/?room=K7QX2M");
    p.joined0 = p.joined = 2;
    check_judge_phone(&p, &l);
    said(&l, 0, "no phone joined in 120 s after http://192.0.2.9:8080/?room=K7QX2M was shown");
    p.joined = 3, p.shown_ms = 1000, p.joined_ms = 13500;
    check_judge_phone(&p, &l);
    said(&l, 1, "1 phone joined the room through the hub, the first 12.5 s after");
    CHECK_CONTAINS(l.says, "no round-trip report came within 10 s");
    snprintf(p.rtt_refused, sizeof p.rtt_refused, "phone_rtt refused: \"median_ms\" and \"max_ms\" must be ...");
    check_judge_phone(&p, &l);
    said(&l, 1, "its round-trip report was refused (phone_rtt refused: ");
    p.rtt_n = 5, p.rtt_median_ms = 12.34, p.rtt_max_ms = 30;
    check_judge_phone(&p, &l);
    CHECK_CONTAINS(l.says, "the first 12.5 s after http://192.0.2.9:8080/?room=K7QX2M was shown \u00b7 round trip "
                           "median 12.3 ms, max 30.0 ms (5 samples)");
    /* a phone whose token was in the room already: the count stays, its report came through the hub */
    p.joined = p.joined0;
    check_judge_phone(&p, &l);
    CHECK_INT(l.ok, 1);
    CHECK_CONTAINS(l.says, "a phone already in the room opened http://192.0.2.9:8080/?room=K7QX2M and reported "
                           "through the hub 12.5 s after it was shown \u00b7 round trip median 12.3 ms");
    p.rtt_n = 0;
    check_judge_phone(&p, &l);
    CHECK_INT(l.ok, 0);
}

static void test_phone_url(void) {
    char u[128];
    check_phone_url("http://192.0.2.9:8080/?room=K7QX2M", u, sizeof u);
    CHECK_STR(u, "http://192.0.2.9:8080/?room=K7QX2M&check=1");
    check_phone_url("https://quiz.example/", u, sizeof u);
    CHECK_STR(u, "https://quiz.example/?check=1");
}

int main(void) {
    RUN(test_url_host);
    RUN(test_join);
    RUN(test_caps);
    RUN(test_path);
    RUN(test_rate);
    RUN(test_witness_and_v6);
    RUN(test_hub);
    RUN(test_phone);
    RUN(test_phone_url);
    return check_summary();
}
