/* A phone's round-trip report (`rtt`, fragvote check --phone): the real hub
 * on a free loopback port, real phones, a presenter and a screen. A welcomed
 * phone's report reaches the authed presenter as `phone_rtt` (and no one
 * else); a second on the same connection, absurd figures, a screen's or an
 * unwelcomed phone's are refused and relay nothing; the room-wide relay rate
 * holds when many phones report at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fv_roles.h"
#include "hub.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "rtt-test-secret-0123"
#define NCROWD (HUB_RTT_RELAY_BURST + 4)

static struct hubfix F;
static struct deck D;

/* Sends text on w and returns its answer of type want or an error (NULL: none in T_MS). */
static json_t *ask(struct wsc *w, const char *text, const char *want) {
    if (wsc_send_text(w, text) < 0) return NULL;
    return wsc_recv_types(w, want, "error", T_MS);
}

static int is(json_t *m, const char *t, const char *code) {
    const char *mt = json_string_value(json_object_get(m, "t"));
    const char *mc = json_string_value(json_object_get(m, "code"));
    return mt && !strcmp(mt, t) && (!code || (mc && !strcmp(mc, code)));
}

/* An error answer named code, and nothing relayed to the presenter p. */
static void refused(struct wsc *w, struct wsc *p, const char *text, const char *code, const char *words) {
    json_t *m = ask(w, text, "rtt_ok");
    CHECK(is(m, "error", code));
    const char *said = json_string_value(json_object_get(m, "message"));
    CHECK_CONTAINS(said ? said : "", words);
    json_decref(m);
    json_t *x = wsc_recv_type(p, "phone_rtt", 300);
    CHECK(x == NULL);
    json_decref(x);
}

static void test_reports_reach_the_presenter_only(void) {
    char err[256];
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *a = fvr_phone("127.0.0.1", F.port, "RTTRM", 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *b = fvr_phone("127.0.0.1", F.port, "RTTRM", 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *bare = fvr_connect("127.0.0.1", F.port, "fragvote-audience", T_MS, err, sizeof err);
    REQUIRE(p && s && a && b && bare);
    json_t *m = ask(a, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":12.34,\"max_ms\":30.06}", "rtt_ok");
    CHECK(is(m, "rtt_ok", NULL));
    json_decref(m);
    m = wsc_recv_type(p, "phone_rtt", T_MS);
    REQUIRE(m);
    CHECK_INT(json_integer_value(json_object_get(m, "n")), 5);
    CHECK(json_real_value(json_object_get(m, "median_ms")) == 12.3); /* to 0.1 ms */
    CHECK(json_real_value(json_object_get(m, "max_ms")) == 30.1);
    CHECK(json_object_get(m, "token") == NULL);
    json_decref(m);
    refused(a, p, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":1,\"max_ms\":2}", "bad_rtt", "one round-trip report per");
    refused(b, p, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":-1,\"max_ms\":2}", "bad_rtt", "milliseconds in 0..60000");
    refused(b, p, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":1,\"max_ms\":1e12}", "bad_rtt", "milliseconds in 0..60000");
    refused(b, p, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":\"1\",\"max_ms\":2}", "bad_rtt", "numbers");
    refused(s, p, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":1,\"max_ms\":2}", "forbidden", "only phones");
    refused(bare, p, "{\"t\":\"rtt\",\"n\":5,\"median_ms\":1,\"max_ms\":2}", "hello_first", "say hello");
    /* b's figures refused: its one report is still to come */
    m = ask(b, "{\"t\":\"rtt\",\"n\":3,\"median_ms\":0,\"max_ms\":0.5}", "rtt_ok");
    CHECK(is(m, "rtt_ok", NULL));
    json_decref(m);
    m = wsc_recv_type(p, "phone_rtt", T_MS);
    CHECK(m && json_integer_value(json_object_get(m, "n")) == 3);
    json_decref(m);
    CHECK(!strstr(wsc_transcript(s), "phone_rtt"));
    CHECK(!strstr(wsc_transcript(a), "phone_rtt") && !strstr(wsc_transcript(b), "phone_rtt"));
    struct wsc *all[] = {p, s, a, b, bare};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) wsc_close(all[i], 1000);
}

/* NCROWD phones report at once: at most the burst (plus what refills
 * meanwhile) is relayed, the rest throttled, and the presenter gets exactly
 * one phone_rtt per rtt_ok. */
static void test_the_relay_rate_holds(void) {
    char err[256];
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(p);
    struct wsc *ph[NCROWD];
    for (int i = 0; i < NCROWD; i++) REQUIRE((ph[i] = fvr_phone("127.0.0.1", F.port, "RTTRM", 1, NULL, T_MS, NULL, err,
                                                                sizeof err)));
    usleep(1000 * 1000); /* the bucket full again after the reports above */
    long long t0 = check_mono_ms();
    for (int i = 0; i < NCROWD; i++) REQUIRE(wsc_send_text(ph[i], "{\"t\":\"rtt\",\"n\":5,\"median_ms\":1,\"max_ms\":2}") == 0);
    int ok = 0, throttled = 0, relayed = 0;
    for (int i = 0; i < NCROWD; i++) {
        json_t *m = wsc_recv_types(ph[i], "rtt_ok", "error", T_MS);
        ok += is(m, "rtt_ok", NULL);
        throttled += is(m, "error", "throttled");
        json_decref(m);
    }
    double s = (double)(check_mono_ms() - t0) / 1000;
    json_t *m;
    while ((m = wsc_recv_type(p, "phone_rtt", 500))) relayed++, json_decref(m);
    printf("  %d relayed, %d throttled in %.2f s\n", ok, throttled, s);
    CHECK_INT(ok + throttled, NCROWD);
    CHECK(ok >= HUB_RTT_RELAY_BURST && ok <= HUB_RTT_RELAY_BURST + 1 + (int)(s * HUB_RTT_RELAY_RATE));
    CHECK(throttled >= 1);
    CHECK_INT(relayed, ok);
    for (int i = 0; i < NCROWD; i++) wsc_close(ph[i], 1000);
    wsc_close(p, 1000);
}

int main(void) {
    char err[512], path[256];
    snprintf(D.title, sizeof D.title, "rtt test");
    D.ntests = 1;
    D.tests[0].spec = (struct probe_spec){.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = 1400, .ttl = 2};
    D.tests[0].ask[QKIND_DF] = 1;
    snprintf(path, sizeof path, "%s/rtt.db", check_tmpdir());
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .port = 0, .secret = SECRET, .use_poll = 1};
    if (hubfix_start(&F, path, &D, "RTTRM", 0, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    RUN(test_reports_reach_the_presenter_only);
    RUN(test_the_relay_rate_holds);
    hubfix_stop(&F);
    return check_summary();
}
