/* The remote prober, hub side (issue 17; docs/PROTOCOL.md "The remote
 * prober"): the real hub on a loopback port with --prober remote, real
 * websocket clients, a scripted laptop that speaks the protocol with a
 * canned observation.
 *   - a whole question: the prefetch asked when voting opens, the result
 *     delivered while the room votes (no frame to the phone or the screen
 *     for it), measure uses it, the reveal shows it, the database holds it --
 *     and before the reveal no frame to the phone, the screen, the presenter
 *     page or the laptop itself carries any of it;
 *   - hostile: a phone's or screen's result, an unauthed or wrong-secret
 *     prober, unknown / answered / other-epoch rids, another test's result,
 *     oversize results, a second prober without take_over, a local hub;
 *   - take over: the old prober is told and its results are refused;
 *   - link loss: a measure asked while no prober is connected waits and is
 *     sent to the next one;
 *   - the deck: adopted while nothing has happened, then only the same. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "check_probe.h"
#include "fv_roles.h"
#include "hubfix.h"
#include "probe_json.h"

#define SECRET "remote-secret"
#define ROOM "PRBR23"
#define T_MS 3000

static struct deck deck;
static char dbpath[512];
static struct hubfix fx;

static int start(int remote) {
    char err[512];
    static int n;
    snprintf(dbpath, sizeof dbpath, "%s/prober%d.db", check_tmpdir(), ++n);
    remove(dbpath);
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .port = 0, .secret = SECRET, .prober_remote = remote,
                             .use_poll = 1};
    if (hubfix_start(&fx, dbpath, &deck, ROOM, 0, &cfg, err, sizeof err)) {
        fprintf(stderr, "hubfix_start: %s\n", err);
        return -1;
    }
    return 0;
}

/* The laptop's prober hello with deck d (NULL: the test's deck) as laptop
 * process `instance`; returns the answer (prober_ok or error). */
static json_t *say_prober_as(struct wsc *w, const struct deck *d, int take_over, const char *instance) {
    json_t *dj = json_loads((d ? d : &deck)->json, 0, NULL);
    json_t *lab = json_pack("{s:i, s:[i,i,i]}", "routers", 2, "mtu", 1500, 1280, 1500);
    if (wsc_send_json(w, "{s:s, s:i, s:o, s:b, s:s, s:s, s:s, s:s, s:o, s:s}", "t", "prober", "v", 1, "deck", dj,
                      "take_over", take_over, "host", "laptop", "kernel", "Linux 6.1.0-laptop", "observer", "raw",
                      "target", "lab", "lab", lab, "instance", instance) < 0)
        return NULL;
    return wsc_recv_types(w, "prober_ok", "error", T_MS);
}

static json_t *say_prober(struct wsc *w, const struct deck *d, int take_over) {
    static int n;
    char instance[32];
    snprintf(instance, sizeof instance, "laptop-%d", ++n); /* another laptop each time */
    return say_prober_as(w, d, take_over, instance);
}

static struct wsc *laptop(json_t **ok) {
    char err[256];
    struct wsc *w = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    if (!w) {
        fprintf(stderr, "laptop: %s\n", err);
        return NULL;
    }
    *ok = say_prober(w, NULL, 0);
    return w;
}

static const char *code_of(json_t *o) {
    const char *t = json_string_value(json_object_get(o, "t"));
    if (t && !strcmp(t, "error")) return json_string_value(json_object_get(o, "code"));
    return t ? t : "(nothing)";
}

/* The canned observation answering a measure: sent yes, DF yes, fragmented
 * no; every text carries tag, so a leak is a plain substring. */
static json_t *observation(json_t *measure, const char *tag) {
    json_t *sp = json_object_get(measure, "spec");
    char evidence[64];
    snprintf(evidence, sizeof evidence, "%s-evidence", tag);
    struct probe_result r = check_probe_result(PROBE_ANS_YES, PROBE_ANS_YES, PROBE_ANS_NO, evidence);
    probe_proto_parse(json_string_value(json_object_get(sp, "proto")), &r.spec.proto);
    probe_mode_parse(json_string_value(json_object_get(sp, "mode")), &r.spec.mode);
    r.spec.size = (int)json_integer_value(json_object_get(sp, "size"));
    r.spec.ttl = 2;
    snprintf(r.sent.why, sizeof r.sent.why, "%s-why-sent", tag);
    snprintf(r.df.why, sizeof r.df.why, "%s-why-df", tag);
    snprintf(r.fragmented.why, sizeof r.fragmented.why, "%s-why-frag", tag);
    return probe_result_to_json(&r);
}

/* Sends a result for measure (rid and epoch as given unless overridden)
 * and returns the hub's answer to it. */
static json_t *send_result(struct wsc *w, json_t *measure, long long rid, const char *epoch, json_t *obs) {
    if (rid < 0) rid = json_integer_value(json_object_get(measure, "rid"));
    if (!epoch) epoch = json_string_value(json_object_get(measure, "epoch"));
    if (wsc_send_json(w, "{s:s, s:s, s:I, s:o}", "t", "result", "epoch", epoch, "rid", (json_int_t)rid,
                      "observation", obs) < 0)
        return NULL;
    return wsc_recv_types(w, "result_ok", "error", T_MS);
}

static int no_leak(struct wsc *w, const char *tag) {
    const char *tr = wsc_transcript(w);
    if (tr && strstr(tr, tag)) {
        fprintf(stderr, "leak of %s in: %s\n", tag, tr);
        return 0;
    }
    return 1;
}

/* Everything sent to w before now has arrived (a ping's pong came after
 * it): the transcript's length. */
static size_t flushed(struct wsc *w) {
    wsc_send_json(w, "{s:s}", "t", "ping");
    json_decref(wsc_recv_type(w, "pong", T_MS));
    return strlen(wsc_transcript(w));
}

static void test_a_whole_question_with_a_remote_prober(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    json_t *ok = NULL;
    struct wsc *lap = laptop(&ok);
    REQUIRE(lap);
    CHECK_STR(code_of(ok), "prober_ok");
    CHECK_STR(json_string_value(json_object_get(ok, "deck")), "adopted");
    CHECK_STR(json_string_value(json_object_get(ok, "room")), ROOM);
    CHECK_INT(json_integer_value(json_object_get(ok, "pending")), 0);
    const char *epoch = json_string_value(json_object_get(ok, "epoch"));
    CHECK_INT(epoch ? strlen(epoch) : 0, 16);
    json_decref(ok);
    struct wsc *phone = fvr_phone("127.0.0.1", fx.port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *screen = fvr_connect("127.0.0.1", fx.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *page = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(phone && screen && page);
    REQUIRE(fvr_cmd(page, "open", T_MS, err, sizeof err) == 0);
    json_t *m = wsc_recv_type(lap, "measure", T_MS); /* the prefetch: voting opened */
    REQUIRE(m);
    CHECK_INT(json_integer_value(json_object_get(m, "q")), -1);
    CHECK_INT(json_integer_value(json_object_get(m, "test")), 0);
    CHECK(json_is_false(json_object_get(m, "rerun")));
    /* the result arrives while the room still votes: held, shown to nobody,
     * and nothing at all is sent for it (issue 36: a frame, or when it came,
     * would tell the outcome) */
    usleep(300000); /* the open's tallies are out */
    struct wsc *viewers[2] = {phone, screen};
    size_t before[2];
    for (int i = 0; i < 2; i++) before[i] = flushed(viewers[i]);
    json_t *a = send_result(lap, m, -1, NULL, observation(m, "REMOTE7"));
    CHECK_STR(code_of(a), "result_ok");
    CHECK_INT(json_integer_value(json_object_get(a, "rid")), json_integer_value(json_object_get(m, "rid")));
    json_decref(a);
    usleep(300000); /* past a tally tick and a phone rotation */
    for (int i = 0; i < 2; i++) {
        flushed(viewers[i]);
        CHECK_STR(wsc_transcript(viewers[i]) + before[i], "{\"t\":\"pong\"}\n");
    }
    CHECK_INT(fvr_vote(phone, 1, 0, 1, T_MS, NULL), 0);
    REQUIRE(fvr_cmd(page, "close", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "measure", T_MS, err, sizeof err) == 0);
    CHECK_INT(hubfix_wait_state(&fx, QUIZ_MEASURED), 0);
    json_t *ping = NULL;
    wsc_send_json(phone, "{s:s}", "t", "ping"); /* everything sent before the pong has arrived */
    ping = wsc_recv_type(phone, "pong", T_MS);
    json_decref(ping);
    wsc_send_json(screen, "{s:s}", "t", "ping");
    json_decref(wsc_recv_type(screen, "pong", T_MS));
    wsc_send_json(lap, "{s:s}", "t", "ping");
    json_decref(wsc_recv_type(lap, "pong", T_MS));
    wsc_send_json(page, "{s:s}", "t", "ping");
    json_decref(wsc_recv_type(page, "pong", T_MS));
    CHECK(no_leak(phone, "REMOTE7"));
    CHECK(no_leak(screen, "REMOTE7"));
    CHECK(no_leak(page, "REMOTE7"));
    CHECK(no_leak(lap, "REMOTE7"));
    CHECK(!strstr(wsc_transcript(phone), "\"truth\""));
    /* measure used the held result: no second ask went out */
    char *extra = NULL;
    long n = wsc_recv(lap, &extra, 300);
    CHECK(n < 0 || !strstr(extra, "\"measure\""));
    free(extra);
    REQUIRE(fvr_cmd(page, "reveal", T_MS, err, sizeof err) == 0);
    json_t *st = NULL;
    for (int i = 0; i < 20 && !st; i++) {
        json_t *o = wsc_recv_type(phone, "state", T_MS);
        if (!o) break;
        if (json_object_get(o, "reveal")) st = o;
        else json_decref(o);
    }
    REQUIRE(st);
    json_t *rv = json_object_get(st, "reveal");
    CHECK_STR(json_string_value(json_object_get(rv, "truth")), "yes");
    CHECK_STR(json_string_value(json_object_get(rv, "why")), "REMOTE7-why-sent");
    CHECK(!json_object_get(rv, "evidence")); /* the test's other questions are still to reveal */
    json_decref(st);
    CHECK(hubfix_sql_int(dbpath, "SELECT count(*) FROM measurements m JOIN questions q ON q.id = m.question_id "
                                 "WHERE q.position = 0 AND m.evidence = 'REMOTE7-evidence' AND m.answer = 'yes'") == 1);
    CHECK(hubfix_sql_int(dbpath, "SELECT count(*) FROM votes") == 1);
    /* the laptop measured: its facts are the session's and the live set's, never the hub machine's */
    CHECK(hubfix_sql_int(dbpath, "SELECT count(*) FROM sessions WHERE host = 'laptop' AND kernel = "
                                 "'Linux 6.1.0-laptop' AND observer = 'raw'") == 1);
    CHECK(hubfix_sql_int(dbpath, "SELECT count(*) FROM measurement_sets WHERE kind = 'live' AND host = 'laptop' "
                                 "AND kernel = 'Linux 6.1.0-laptop' AND target = 'lab' AND "
                                 "json_extract(lab, '$.routers') = 2") == 1);
    json_decref(m);
    wsc_close_all(phone, screen, page, lap);
    hubfix_stop(&fx);
}

static void test_hostile_probers_and_results_are_refused(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    /* a phone and a screen: neither may be the prober nor send results */
    struct wsc *phone = fvr_phone("127.0.0.1", fx.port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *screen = fvr_connect("127.0.0.1", fx.port, "fragvote-screen", T_MS, err, sizeof err);
    REQUIRE(phone && screen);
    json_t *fake = json_pack("{s:{s:s}}", "spec", "proto", "udp4");
    json_t *a = send_result(phone, fake, 1, "0000000000000000", json_object());
    CHECK_STR(code_of(a), "forbidden");
    json_decref(a);
    struct deck tiny = deck;
    tiny.json = "{\"title\":\"t\",\"tests\":[{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400}]}";
    json_t *o = say_prober(screen, &tiny, 1);
    CHECK_STR(code_of(o), "forbidden");
    json_decref(o);
    /* a presenter connection that never authed: forbidden; its messages stay capped at 1 KiB */
    struct wsc *wrong = fvr_connect("127.0.0.1", fx.port, "fragvote-presenter", T_MS, err, sizeof err);
    REQUIRE(wrong);
    o = say_prober(wrong, &tiny, 1);
    CHECK_STR(code_of(o), "forbidden");
    json_decref(o);
    o = say_prober(wrong, NULL, 1); /* the built-in deck: 3 KB */
    CHECK(o == NULL);
    CHECK_INT(wsc_close_code(wrong), 1009);
    wsc_free(wrong);
    /* a wrong secret gets no further than bad_secret */
    wrong = fvr_connect("127.0.0.1", fx.port, "fragvote-presenter", T_MS, err, sizeof err);
    REQUIRE(wrong);
    wsc_send_json(wrong, "{s:s, s:s}", "t", "auth", "secret", "not-the-secret");
    o = wsc_recv_type(wrong, "error", T_MS);
    CHECK_STR(code_of(o), "bad_secret");
    json_decref(o);
    o = say_prober(wrong, &tiny, 1);
    CHECK_STR(code_of(o), "forbidden");
    json_decref(o);
    usleep(1100 * 1000); /* one wrong secret a second per address: the laptop's right one is compared */

    json_t *ok = NULL;
    struct wsc *lap = laptop(&ok);
    REQUIRE(lap);
    CHECK_STR(code_of(ok), "prober_ok");
    json_decref(ok);
    /* a second laptop cannot take over silently */
    struct wsc *second = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(second);
    o = say_prober(second, NULL, 0);
    CHECK_STR(code_of(o), "prober_busy");
    CHECK_CONTAINS(json_string_value(json_object_get(o, "message")), "127.0.0.1");
    json_decref(o);
    struct hub_status hs;
    hub_snapshot(fx.hub, &hs);
    CHECK_CONTAINS(hs.prober_line, "refused");
    CHECK_INT(hs.prober, 1);

    struct wsc *page = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(page && fvr_cmd(page, "open", T_MS, err, sizeof err) == 0);
    json_t *m = wsc_recv_type(lap, "measure", T_MS);
    REQUIRE(m);
    long long rid = json_integer_value(json_object_get(m, "rid"));
    /* the refused second laptop got no measure */
    char *s = NULL;
    CHECK(wsc_recv(second, &s, 300) < 0 || !strstr(s, "\"measure\""));
    free(s);
    a = send_result(second, m, -1, NULL, observation(m, "SECOND"));
    CHECK_STR(code_of(a), "forbidden");
    json_decref(a);
    a = send_result(lap, m, rid + 1000, NULL, observation(m, "UNASKED"));
    CHECK_STR(code_of(a), "unknown_rid");
    json_decref(a);
    a = send_result(lap, m, -1, "0123456789abcdef", observation(m, "OLDEPOCH"));
    CHECK_STR(code_of(a), "unknown_rid");
    CHECK_CONTAINS(json_string_value(json_object_get(a, "message")), "earlier hub process");
    json_decref(a);
    /* another test's result */
    json_t *other = observation(m, "OTHERTEST");
    json_object_set_new(json_object_get(other, "spec"), "size", json_integer(1234));
    a = send_result(lap, m, -1, NULL, other);
    CHECK_STR(code_of(a), "bad_result");
    CHECK_CONTAINS(json_string_value(json_object_get(a, "message")), "another test");
    json_decref(a);
    /* a malformed observation */
    json_t *bad = observation(m, "MALFORMED");
    json_object_set_new(bad, "fragmenter", json_string("kernel"));
    a = send_result(lap, m, -1, NULL, bad);
    CHECK_STR(code_of(a), "bad_result");
    CHECK_CONTAINS(json_string_value(json_object_get(a, "message")), "fragmenter");
    json_decref(a);
    /* oversize: over HUB_PROBER_RESULT_MAX is refused, over HUB_PROBER_MSG_MAX closes */
    json_t *big = observation(m, "OVERSIZE");
    char *pad = malloc(HUB_PROBER_RESULT_MAX + 1);
    memset(pad, 'x', HUB_PROBER_RESULT_MAX);
    pad[HUB_PROBER_RESULT_MAX] = 0;
    json_object_set_new(big, "padding", json_string(pad));
    a = send_result(lap, m, -1, NULL, big);
    CHECK_STR(code_of(a), "bad_result");
    CHECK_CONTAINS(json_string_value(json_object_get(a, "message")), "larger than 16384");
    json_decref(a);
    /* none of those was stored; the right one still is accepted, once */
    CHECK(hubfix_sql_int(dbpath, "SELECT count(*) FROM measurements") == 0);
    a = send_result(lap, m, -1, NULL, observation(m, "RIGHT"));
    CHECK_STR(code_of(a), "result_ok");
    json_decref(a);
    a = send_result(lap, m, -1, NULL, observation(m, "AGAIN"));
    CHECK_STR(code_of(a), "unknown_rid");
    json_decref(a);
    /* nothing of any of them reached anyone */
    static const char *const tags[] = {"SECOND", "UNASKED", "OLDEPOCH", "OTHERTEST", "MALFORMED", "OVERSIZE",
                                       "RIGHT", "AGAIN"};
    struct wsc *all[] = {phone, screen, wrong, lap, second, page};
    wsc_send_json(phone, "{s:s}", "t", "ping");
    json_decref(wsc_recv_type(phone, "pong", T_MS));
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        for (size_t k = 0; k < sizeof all / sizeof *all; k++) CHECK(no_leak(all[k], tags[i]));
    /* a message over HUB_PROBER_MSG_MAX closes the connection */
    char *huge = malloc(HUB_PROBER_MSG_MAX + 64);
    memset(huge, ' ', HUB_PROBER_MSG_MAX + 63);
    memcpy(huge, "{\"t\":\"ping\"", 11);
    huge[HUB_PROBER_MSG_MAX + 62] = '}';
    huge[HUB_PROBER_MSG_MAX + 63] = 0;
    wsc_send_text(second, huge);
    s = NULL;
    while (wsc_recv(second, &s, T_MS) > 0) {
        free(s);
        s = NULL;
    }
    CHECK_INT(wsc_close_code(second), 1009);
    free(huge);
    free(pad);
    json_decref(fake);
    json_decref(m);
    struct wsc *rest[] = {phone, screen, wrong, lap, page};
    for (size_t k = 0; k < sizeof rest / sizeof *rest; k++) wsc_close(rest[k], 1000);
    wsc_free(second);
    hubfix_stop(&fx);

    /* a hub that measures locally has no remote prober */
    REQUIRE(start(0) == 0);
    lap = laptop(&ok);
    REQUIRE(lap);
    CHECK_STR(code_of(ok), "not_remote");
    json_decref(ok);
    wsc_close(lap, 1000);
    hubfix_stop(&fx);
}

static void test_take_over_tells_the_old_prober(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    json_t *ok = NULL;
    struct wsc *old = laptop(&ok);
    REQUIRE(old);
    json_decref(ok);
    struct wsc *page = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(page && fvr_cmd(page, "open", T_MS, err, sizeof err) == 0);
    json_t *m = wsc_recv_type(old, "measure", T_MS);
    REQUIRE(m);
    struct wsc *neu = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(neu);
    json_t *o = say_prober(neu, NULL, 1);
    CHECK_STR(code_of(o), "prober_ok");
    CHECK_STR(json_string_value(json_object_get(o, "deck")), "kept"); /* voting opened: the session started */
    CHECK_INT(json_integer_value(json_object_get(o, "pending")), 1);
    json_decref(o);
    json_t *m2 = wsc_recv_type(neu, "measure", T_MS); /* the pending ask, sent again */
    REQUIRE(m2);
    CHECK_INT(json_integer_value(json_object_get(m2, "rid")), json_integer_value(json_object_get(m, "rid")));
    json_t *gone = wsc_recv_type(old, "prober_gone", T_MS);
    CHECK(gone != NULL);
    CHECK_STR(json_string_value(json_object_get(gone, "reason")), "taken_over");
    json_decref(gone);
    struct hub_status hs;
    hub_snapshot(fx.hub, &hs);
    CHECK_CONTAINS(hs.prober_line, "prober took over from 127.0.0.1 (laptop, Linux 6.1.0-laptop, observer raw, target lab); the prober at 127.0.0.1 is taken over and told");
    json_t *a = send_result(old, m, -1, NULL, observation(m, "OLDPROBER"));
    CHECK_STR(code_of(a), "forbidden");
    json_decref(a);
    a = send_result(neu, m2, -1, NULL, observation(m2, "NEWPROBER"));
    CHECK_STR(code_of(a), "result_ok");
    json_decref(a);
    /* the old connection is still a presenter: it may drive the quiz */
    CHECK_INT(fvr_cmd(old, "close", T_MS, err, sizeof err), 0);
    json_decref(m);
    json_decref(m2);
    wsc_close_all(old, neu, page);
    hubfix_stop(&fx);
}

/* After a cut link the hub may still hold the laptop's old connection (TCP
 * has not noticed): the same laptop process (its instance) replaces it,
 * without prober_busy; the old one is closed. */
static void test_the_same_laptop_reconnecting_replaces_its_old_connection(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    struct wsc *old = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    struct wsc *neu = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(old && neu);
    json_t *o = say_prober_as(old, NULL, 0, "0123456789abcdef0123456789abcdef");
    CHECK_STR(code_of(o), "prober_ok");
    json_decref(o);
    o = say_prober_as(neu, NULL, 0, "0123456789abcdef0123456789abcdef");
    CHECK_STR(code_of(o), "prober_ok");
    json_decref(o);
    char *s = NULL;
    while (wsc_recv(old, &s, T_MS) > 0) {
        CHECK(!strstr(s, "prober_gone"));
        free(s);
        s = NULL;
    }
    CHECK_INT(wsc_close_code(old), 1001);
    struct hub_status hs;
    hub_snapshot(fx.hub, &hs);
    CHECK_CONTAINS(hs.prober_line, "prober reconnected from 127.0.0.1 (laptop, Linux 6.1.0-laptop, observer raw, target lab); the same laptop: its old connection");
    CHECK_INT(hs.prober, 1);
    /* another instance is still refused */
    struct wsc *other = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(other);
    o = say_prober_as(other, NULL, 0, "ffffffffffffffffffffffffffffffff");
    CHECK_STR(code_of(o), "prober_busy");
    json_decref(o);
    wsc_free(old);
    wsc_close_all(neu, other);
    hubfix_stop(&fx);
}

static void test_a_measure_asked_while_no_prober_is_there_waits_for_the_next(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    struct wsc *page = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    struct wsc *phone = fvr_phone("127.0.0.1", fx.port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    REQUIRE(page && phone);
    json_t *ok = NULL;
    struct wsc *lap = laptop(&ok);
    REQUIRE(lap);
    json_decref(ok);
    wsc_free(lap); /* the link drops: no close frame */
    struct hub_status hs;
    for (int i = 0; i < 100; i++) {
        hub_snapshot(fx.hub, &hs);
        if (hs.prober == 0) break;
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    CHECK_INT(hs.prober, 0);
    CHECK_CONTAINS(hs.prober_line, "disconnected");
    /* the room keeps voting; measure waits */
    REQUIRE(fvr_cmd(page, "open", T_MS, err, sizeof err) == 0);
    CHECK_INT(fvr_vote(phone, 1, 0, 0, T_MS, NULL), 0);
    REQUIRE(fvr_cmd(page, "close", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "measure", T_MS, err, sizeof err) == 0);
    hub_snapshot(fx.hub, &hs);
    CHECK(hs.current.measuring);
    CHECK_INT(hs.current.state, QUIZ_CLOSED);
    lap = laptop(&ok);
    REQUIRE(lap);
    CHECK_STR(code_of(ok), "prober_ok");
    CHECK_INT(json_integer_value(json_object_get(ok, "pending")), 1); /* the prefetch of voting; measure waits for it */
    json_decref(ok);
    json_t *m = wsc_recv_type(lap, "measure", T_MS);
    REQUIRE(m);
    json_t *a = send_result(lap, m, -1, NULL, observation(m, "AFTERLOSS"));
    CHECK_STR(code_of(a), "result_ok");
    json_decref(a);
    CHECK_INT(hubfix_wait_state(&fx, QUIZ_MEASURED), 0);
    json_decref(m);
    wsc_close_all(page, phone, lap);
    hubfix_stop(&fx);
}

static void test_the_deck_is_the_laptops_until_the_talk_starts(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    struct deck small;
    REQUIRE(deck_load_string("{\"title\":\"laptop deck\",\"target\":\"lab\",\"tests\":[{\"proto\":\"udp4\","
                             "\"mode\":\"dont\",\"size\":1400,\"ask\":[\"sent\",\"fragmented\"]}]}",
                             "test", &small, err, sizeof err) == 0);
    struct wsc *screen = fvr_connect("127.0.0.1", fx.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *lap = fvr_presenter("127.0.0.1", fx.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(screen && lap);
    json_t *o = say_prober(lap, &small, 0);
    CHECK_STR(code_of(o), "prober_ok");
    CHECK_STR(json_string_value(json_object_get(o, "deck")), "adopted");
    json_decref(o);
    json_t *st = NULL;
    for (int i = 0; i < 10; i++) { /* the screen is sent the new deck's state */
        json_t *s = wsc_recv_type(screen, "state", T_MS);
        if (!s) break;
        if (json_integer_value(json_object_get(s, "n")) == 2) {
            st = s;
            break;
        }
        json_decref(s);
    }
    CHECK(st != NULL);
    if (st) CHECK_STR(json_string_value(json_object_get(st, "title")), "laptop deck");
    json_decref(st);
    CHECK(hubfix_sql_int(dbpath, "SELECT count(*) FROM questions") == 2);
    /* a deck the hub's validation refuses */
    struct deck broken = small;
    broken.json = "{\"title\":\"x\",\"tests\":[{\"proto\":\"udp9\",\"mode\":\"do\",\"size\":1400}]}";
    o = say_prober(lap, &broken, 0);
    CHECK_STR(code_of(o), "bad_deck");
    CHECK_CONTAINS(json_string_value(json_object_get(o, "message")), "udp9");
    json_decref(o);
    REQUIRE(fvr_cmd(lap, "open", T_MS, err, sizeof err) == 0);
    /* started: the built-in deck is refused, the same deck kept */
    o = say_prober(lap, NULL, 0);
    CHECK_STR(code_of(o), "deck_mismatch");
    CHECK_CONTAINS(json_string_value(json_object_get(o, "message")), "'laptop deck' (2 questions)");
    json_decref(o);
    o = say_prober(lap, &small, 0);
    CHECK_STR(code_of(o), "prober_ok");
    CHECK_STR(json_string_value(json_object_get(o, "deck")), "kept");
    json_decref(o);
    deck_free(&small);
    wsc_close_all(screen, lap);
    hubfix_stop(&fx);
}

int main(void) {
    char err[256];
    if (deck_load_builtin(&deck, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    RUN(test_a_whole_question_with_a_remote_prober);
    RUN(test_hostile_probers_and_results_are_refused);
    RUN(test_take_over_tells_the_old_prober);
    RUN(test_the_same_laptop_reconnecting_replaces_its_old_connection);
    RUN(test_a_measure_asked_while_no_prober_is_there_waits_for_the_next);
    RUN(test_the_deck_is_the_laptops_until_the_talk_starts);
    deck_free(&deck);
    return check_summary();
}
