/* Hostile websocket and HTTP input against the real hub (lws on a free port,
 * real SQLite file, real quiz), while one well-behaved phone keeps voting in
 * the background and we measure that its votes are still acked, and how fast.
 *
 * Each attack must be refused with an error message or cut with a clear
 * close code and reason, never crash the server, never stall the others. */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "db.h"
#include "fv_roles.h"
#include "hub.h"
#include "hubfix.h"
#include "room.h"
#include "tcp_client.h"
#include "wsclient.h"

#define T_MS 4000
#define SECRET "hostile-test-secret-9d2e"
#define ROOM "HSTL23"
#define GOOD_PERIOD_MS 50        /* the good phone votes this often */
#define GOOD_ACK_MAX_MS 1000     /* and every ack must come within this */
#define CONNS 2000               /* connections from one address */
#define LORIS 200                /* slow-loris HTTP connections */

static struct {
    char dbpath[256];
    struct deck deck;
    struct hubfix fx;
} F;

static int keepalive_s; /* 0: the hub's defaults */

static int start(void) {
    char err[512];
    memset(&F, 0, sizeof F);
    snprintf(F.dbpath, sizeof F.dbpath, "%s/hostile.db", check_tmpdir());
    unlink(F.dbpath);
    if (deck_load_builtin(&F.deck, err, sizeof err)) return fprintf(stderr, "deck: %s\n", err), -1;
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .secret = SECRET, .public_url = "http://192.0.2.10:8080/",
                             .ping_s = keepalive_s, .idle_s = 3 * keepalive_s};
    if (hubfix_start(&F.fx, F.dbpath, &F.deck, ROOM, 0, &cfg, err, sizeof err)) return fprintf(stderr, "%s\n", err), -1;
    return 0;
}

static void stop(void) {
    hubfix_stop(&F.fx);
    deck_free(&F.deck);
    memset(&F, 0, sizeof F);
}

static struct wsc *connect_as(const char *protocol) {
    char err[256];
    struct wsc *w = fvr_connect("127.0.0.1", F.fx.port, protocol, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

static struct wsc *phone(void) {
    char err[256];
    struct wsc *w = fvr_phone("127.0.0.1", F.fx.port, ROOM, 0, NULL, T_MS, NULL, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

/* Starts the quiz: a presenter authenticates and opens question 0. */
static struct wsc *open_question(void) {
    char err[256];
    struct wsc *p = fvr_presenter("127.0.0.1", F.fx.port, SECRET, T_MS, err, sizeof err);
    if (p && fvr_cmd(p, "open", T_MS, err, sizeof err)) {
        wsc_free(p);
        p = NULL;
    }
    if (!p) fprintf(stderr, "open_question: %s\n", err);
    return p;
}

/* ---- the well-behaved phone ---- */

static struct {
    pthread_t th;
    atomic_int stop;
    struct wsc *w;
    int sent, acked, errors;
    long long worst_ms, sum_ms;
} G;

static void *good_main(void *arg) {
    (void)arg;
    for (int id = 1; !atomic_load(&G.stop); id++) {
        long long t0 = check_mono_ms();
        if (wsc_send_json(G.w, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", id, "q", 0, "yes", id % 2) < 0) {
            G.errors++;
            break;
        }
        G.sent++;
        int answer = fvr_vote_answer(G.w, id, GOOD_ACK_MAX_MS * 5, NULL);
        if (answer < 0) {
            G.errors++;
            return NULL;
        }
        long long d = check_mono_ms() - t0;
        if (answer == 0) G.acked++;
        else G.errors++;
        G.sum_ms += d;
        if (d > G.worst_ms) G.worst_ms = d;
        long long spent = check_mono_ms() - t0;
        if (spent < GOOD_PERIOD_MS) usleep((useconds_t)(GOOD_PERIOD_MS - spent) * 1000);
    }
    return NULL;
}

static int good_start(void) {
    memset(&G, 0, sizeof G);
    G.w = phone();
    if (!G.w) return -1;
    pthread_create(&G.th, NULL, good_main, NULL);
    return 0;
}

/* Stops the good phone and checks it was served all along. */
#define GOOD_CHECK(what)                                                                                         \
    do {                                                                                                         \
        atomic_store(&G.stop, 1);                                                                                \
        pthread_join(G.th, NULL);                                                                                \
        printf("  %s: good phone %d votes, %d acked, %d errors, mean %.1f ms, worst %lld ms\n", what, G.sent,  \
               G.acked, G.errors, G.acked ? (double)G.sum_ms / G.acked : 0.0, G.worst_ms);                      \
        CHECK(G.sent > 0);                                                                                       \
        CHECK_INT(G.acked, G.sent);                                                                              \
        CHECK_INT(G.errors, 0);                                                                                  \
        CHECK(G.worst_ms <= GOOD_ACK_MAX_MS);                                                                    \
        wsc_close(G.w, 1000);                                                                                    \
        G.w = NULL;                                                                                              \
    } while (0)

/* Reads until the server closes w (or timeout); returns the messages seen. */
static int drain_until_closed(struct wsc *w, int timeout_ms) {
    int n = 0;
    char *m;
    long long end = check_mono_ms() + timeout_ms;
    while (check_mono_ms() < end) {
        long r = wsc_recv(w, &m, (int)(end - check_mono_ms()) + 1);
        if (r <= 0) break;
        free(m);
        n++;
    }
    return n;
}

/* w read until the hub closed it: 1 when it closed with code and (reason
 * not NULL) those words in its reason; else 0, what it did said on stderr
 * after round. w freed. */
static int closed_as(struct wsc *w, int code, const char *reason, const char *round) {
    drain_until_closed(w, T_MS);
    int ok = wsc_closed(w) && wsc_close_code(w) == code && (!reason || strstr(wsc_close_reason(w), reason));
    if (!ok)
        fprintf(stderr, "  %s: closed %d, code %d \"%s\"\n", round, wsc_closed(w), wsc_close_code(w),
                wsc_close_reason(w));
    wsc_free(w);
    return ok;
}

/* TCP_CORK on w's socket on (1) or off (0): what is sent meanwhile goes in
 * as few segments as fit. */
static void cork(struct wsc *w, int on) { setsockopt(wsc_fd(w), IPPROTO_TCP, TCP_CORK, &on, sizeof on); }

/* Sends text on a fresh joined phone and returns the first reply (error,
 * pong...) or NULL if the server closed the connection instead (*closed set). */
static json_t *one_shot(const char *text, int *code, char *reason, size_t reasonlen) {
    *code = -1; /* no connection at all */
    snprintf(reason, reasonlen, "could not join");
    struct wsc *w = phone();
    if (!w) return NULL;
    wsc_send_text(w, text);
    json_t *r = NULL;
    for (;;) {
        char *m;
        if (wsc_recv(w, &m, T_MS) <= 0) break;
        json_t *o = json_loads(m, 0, NULL);
        free(m);
        const char *t = json_string_value(json_object_get(o, "t"));
        if (t && (!strcmp(t, "error") || !strcmp(t, "pong") || !strcmp(t, "ack") || !strcmp(t, "welcome"))) {
            r = o;
            break;
        }
        json_decref(o);
    }
    *code = wsc_closed(w) ? wsc_close_code(w) : 0;
    snprintf(reason, reasonlen, "%s", wsc_closed(w) ? wsc_close_reason(w) : "");
    wsc_close(w, 1000);
    return r;
}

/* The hub started, a presenter with the first question open, the good
 * phone voting in the background: the presenter, or NULL. */
static struct wsc *begin(void) {
    if (start() != 0) return NULL;
    struct wsc *p = open_question();
    if (p && good_start() == 0) return p;
    wsc_free(p);
    return NULL;
}

/* ---------------------------------------------------------------- tests */

static void test_malformed_wrong_types_huge_numbers_unknown_types(void) {
    struct wsc *p = begin();
    REQUIRE(p);
    /* Each case: the message, then either the error code the phone must get
     * or the close code (with a reason) it must be cut with. */
    static const struct {
        const char *msg, *error_code;
        int close_code;
    } cases[] = {
        {"{\"t\":\"vote\",", NULL, 1007},
        {"[1,2,3]", NULL, 1007},
        {"\"vote\"", NULL, 1007},
        {"null", NULL, 1007},
        {"{\"t\":5}", NULL, 1007},
        {"{\"t\":null,\"q\":0}", NULL, 1007},
        {"{\"t\":\"vote\",\"t\":\"hello\"}", NULL, 1007},        /* duplicate key */
        {"{\"t\":\"vote\",\"id\":1,\"q\":\"0\",\"yes\":true}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":0,\"yes\":\"true\"}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":0.5,\"yes\":true}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":[0],\"yes\":true}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":0,\"yes\":1}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":-1,\"yes\":true}", "refused", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":2147483648,\"yes\":true}", "refused", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":9223372036854775807,\"yes\":true}", "refused", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":-9223372036854775808,\"yes\":true}", "refused", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":99999999999999999999999,\"yes\":true}", NULL, 1007}, /* beyond int64 */
        {"{\"t\":\"vote\",\"id\":1,\"q\":1e308,\"yes\":true}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":1,\"q\":1000,\"yes\":true}", "refused", 0},
        {"{\"t\":\"vote\",\"id\":9223372036854775807,\"q\":0,\"yes\":true}", "bad_vote", 0}, /* id > 2^53-1 */
        {"{\"t\":\"vote\",\"id\":\"x\",\"q\":0,\"yes\":true}", "bad_vote", 0},
        {"{\"t\":\"vote\",\"id\":9007199254740991,\"q\":0,\"yes\":true}", NULL, 0}, /* 2^53-1: acked */
        {"{\"t\":\"launch-missiles\"}", "unknown_type", 0},
        {"{\"t\":\"\"}", "unknown_type", 0},
        {"{\"t\":\"cmd\",\"cmd\":\"reveal\"}", "forbidden", 0},
        {"{\"t\":\"auth\",\"secret\":\"" SECRET "\"}", "forbidden", 0},
        {"{\"t\":\"hello\",\"room\":\"ZZZZZZ\"}", "bad_room", 0},
        {"{\"t\":\"hello\",\"room\":5,\"token\":[1]}", NULL, 0}, /* wrong types: a fresh token, welcome */
        {"{\"t\":\"ping\",\"x\":\"\\u0000\\ud800\"}", NULL, 1007},   /* lone surrogate: invalid */
        {"{\"t\":\"ping\",\"x\":\"\\u0000\"}", NULL, 1007},           /* NUL inside a string: refused */
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        int code = 0;
        char reason[128] = "";
        json_t *r = one_shot(cases[i].msg, &code, reason, sizeof reason);
        const char *t = json_string_value(json_object_get(r, "t"));
        const char *ecode = json_string_value(json_object_get(r, "code"));
        int ok;
        if (cases[i].close_code)
            ok = code == cases[i].close_code && reason[0];
        else if (cases[i].error_code)
            ok = t && !strcmp(t, "error") && ecode && !strcmp(ecode, cases[i].error_code) &&
                 json_string_value(json_object_get(r, "message")) && code == 0;
        else
            ok = code == 0; /* accepted and answered normally, connection kept */
        if (!ok)
            fprintf(stderr, "case %d %s: got %s/%s close %d \"%s\"\n", i, cases[i].msg, t ? t : "-",
                    ecode ? ecode : "-", code, reason);
        CHECK(ok);
        json_decref(r);
    }
    GOOD_CHECK("malformed input");
    wsc_close(p, 1000);
    stop();
}

/* The cap passed by a frame that ends in the middle of what one read
 * returns, more frames behind it in the same segment (corked): a 1000-byte
 * first fragment, then a small one that passes 1024 bytes, then more. The
 * hub used to return -1 from its receive callback there; lws 4.1.6 then
 * dropped the rest of the bytes it had read, its parser lost its place,
 * and the protocol error it found in what followed killed the socket
 * before the 1009 went out (1006; the 1 MB test above saw it about one run
 * in five under load). Rounds vary the small fragment and what follows. */
static void test_cap_passed_mid_read_still_closes_1009(void) {
    REQUIRE(start() == 0);
    static char big[1000];
    memset(big, 'b', sizeof big);
    memcpy(big, "{\"t\":\"ping\",\"x\":\"", 17);
    int wrong = 0, rounds = 0;
    for (int small = 25; small <= 200; small += 25) {
        for (int behind = 2; behind <= 8; behind += 3, rounds++) {
            struct wsc *w = phone();
            REQUIRE(w);
            cork(w, 1);
            wsc_send_frame(w, WSC_TEXT, 0, big, sizeof big);
            wsc_send_frame(w, WSC_CONT, 0, big, (size_t)small); /* 1000 + small > 1024 */
            for (int i = 0; i < behind; i++) wsc_send_frame(w, WSC_CONT, 0, big, sizeof big);
            cork(w, 0);
            char round[64];
            snprintf(round, sizeof round, "small %d, %d behind", small, behind);
            wrong += !closed_as(w, 1009, NULL, round);
        }
    }
    printf("  cap passed mid-read: %d of %d rounds without the 1009\n", wrong, rounds);
    CHECK_INT(wrong, 0);
    stop();
}

/* A message in 200 one-byte continuation frames (issue 36, item 8: cut
 * with 1006, no close frame, instead of the documented 1008): past
 * HUB_MSG_BURST frames the hub closes with 1008 "too many messages", the
 * close frame intact whether the frames came in one segment (corked) or
 * one by one. */
static void test_200_one_byte_continuations_close_1008(void) {
    REQUIRE(start() == 0);
    int wrong = 0, rounds = 0;
    for (int corked = 0; corked < 2; corked++)
        for (int r = 0; r < 6; r++, rounds++) {
            struct wsc *w = phone();
            REQUIRE(w);
            if (corked) cork(w, 1);
            wsc_send_frame(w, WSC_TEXT, 0, "{", 1);
            for (int i = 0; i < 200; i++) wsc_send_frame(w, WSC_CONT, 0, " ", 1);
            if (corked) cork(w, 0);
            char round[64];
            snprintf(round, sizeof round, "%s, round %d", corked ? "corked" : "one by one", r);
            wrong += !closed_as(w, 1008, "too many", round);
        }
    printf("  200 one-byte continuations: %d of %d rounds without the 1008\n", wrong, rounds);
    CHECK_INT(wrong, 0);
    stop();
}

static void test_1mb_fragmented_and_binary_frames(void) {
    struct wsc *p = begin();
    REQUIRE(p);

    /* 1 MB in one frame: cut with 1009 before it is buffered. */
    struct wsc *big = phone();
    REQUIRE(big);
    size_t mb = 1 << 20;
    char *huge = malloc(mb + 1);
    REQUIRE(huge);
    memset(huge, 'a', mb);
    memcpy(huge, "{\"t\":\"ping\",\"x\":\"", 17);
    memcpy(huge + mb - 2, "\"}", 2);
    huge[mb] = 0;
    long long t0 = check_mono_ms();
    wsc_send_frame(big, WSC_TEXT, 1, huge, mb); /* may fail half way: the server closes */
    drain_until_closed(big, T_MS);
    printf("  1 MB frame: closed %d \"%s\" after %lld ms\n", wsc_close_code(big), wsc_close_reason(big),
           check_mono_ms() - t0);
    CHECK(wsc_closed(big));
    CHECK_INT(wsc_close_code(big), 1009);
    CHECK_CONTAINS(wsc_close_reason(big), "larger");
    wsc_free(big);

    /* 1 MB in 1 KB fragments (each under the cap): cut once the sum passes it. */
    struct wsc *fr = phone();
    REQUIRE(fr);
    for (size_t off = 0; off < mb; off += 1000) {
        size_t n = mb - off < 1000 ? mb - off : 1000;
        if (wsc_send_frame(fr, off ? WSC_CONT : WSC_TEXT, off + n >= mb, huge + off, n) < 0) break;
    }
    drain_until_closed(fr, T_MS);
    CHECK(wsc_closed(fr));
    CHECK_INT(wsc_close_code(fr), 1009);
    wsc_free(fr);
    free(huge);

    /* A valid message in three fragments with a ping between them: answered. */
    struct wsc *ok = phone();
    REQUIRE(ok);
    CHECK_INT(wsc_send_frame(ok, WSC_TEXT, 0, "{\"t\":", 5), 0);
    CHECK_INT(wsc_send_frame(ok, WSC_PING, 1, "hi", 2), 0);
    CHECK_INT(wsc_send_frame(ok, WSC_CONT, 0, "\"pi", 3), 0);
    CHECK_INT(wsc_send_frame(ok, WSC_CONT, 1, "ng\"}", 4), 0);
    json_t *pong = wsc_recv_type(ok, "pong", T_MS);
    CHECK(pong != NULL);
    json_decref(pong);
    CHECK(!wsc_closed(ok));
    /* ... and a vote in fragments is acked like any other. */
    const char *v = "{\"t\":\"vote\",\"id\":77,\"q\":0,\"yes\":true}";
    CHECK_INT(wsc_send_frame(ok, WSC_TEXT, 0, v, 10), 0);
    CHECK_INT(wsc_send_frame(ok, WSC_CONT, 1, v + 10, strlen(v) - 10), 0);
    json_t *ack = wsc_recv_type(ok, "ack", T_MS);
    CHECK(ack && json_integer_value(json_object_get(ack, "id")) == 77);
    json_decref(ack);
    wsc_close(ok, 1000);

    /* Continuation without a start, and a text frame inside a fragmented
     * message: protocol errors, cut (lws answers 1002). */
    struct wsc *bad = phone();
    REQUIRE(bad);
    wsc_send_frame(bad, WSC_CONT, 1, "{}", 2);
    drain_until_closed(bad, T_MS);
    CHECK(wsc_closed(bad));
    printf("  stray continuation: closed %d \"%s\"\n", wsc_close_code(bad), wsc_close_reason(bad));
    wsc_free(bad);
    bad = phone();
    REQUIRE(bad);
    wsc_send_frame(bad, WSC_TEXT, 0, "{\"t\":", 5);
    wsc_send_frame(bad, WSC_TEXT, 1, "\"ping\"}", 7);
    drain_until_closed(bad, T_MS);
    CHECK(wsc_closed(bad));
    printf("  text inside fragments: closed %d \"%s\"\n", wsc_close_code(bad), wsc_close_reason(bad));
    wsc_free(bad);

    /* Binary, whole or as the start of a fragmented message: 1003. */
    for (int fin = 1; fin >= 0; fin--) {
        struct wsc *bin = phone();
        REQUIRE(bin);
        wsc_send_frame(bin, WSC_BINARY, fin, "\x00\xff\x10", 3);
        drain_until_closed(bin, T_MS);
        CHECK(wsc_closed(bin));
        CHECK_INT(wsc_close_code(bin), 1003);
        CHECK(wsc_close_reason(bin)[0] != 0);
        wsc_free(bin);
    }
    GOOD_CHECK("big, fragmented and binary frames");
    wsc_close(p, 1000);
    stop();
}

/* A flooder sending as fast as the socket takes it (10,000 messages in
 * about a second) is cut by the per-connection rate cap. */
static void *flood_main(void *arg) {
    struct wsc *w = arg;
    long long t0 = check_mono_ms();
    for (int i = 0; i < 10000; i++) {
        if (wsc_send_text(w, "{\"t\":\"vote\",\"id\":1,\"q\":0,\"yes\":true}") < 0) break;
        if (i % 10 == 9) {
            long long due = t0 + (i + 1) / 10; /* 10 per ms = 10,000 per second */
            long long now = check_mono_ms();
            if (now < due) usleep((useconds_t)(due - now) * 1000);
        }
    }
    return NULL;
}

static void test_10000_messages_per_second_from_one_client(void) {
    struct wsc *p = begin();
    REQUIRE(p);
    usleep(200000);
    struct wsc *fl = phone();
    REQUIRE(fl);
    pthread_t th;
    long long t0 = check_mono_ms();
    pthread_create(&th, NULL, flood_main, fl);
    int got = drain_until_closed(fl, T_MS);
    long long cut = check_mono_ms() - t0;
    pthread_join(th, NULL);
    printf("  flooder cut after %lld ms with %d replies: %d \"%s\"\n", cut, got, wsc_close_code(fl),
           wsc_close_reason(fl));
    CHECK(wsc_closed(fl));
    CHECK(cut < 1000);
    /* The hub sends 1008 "too many messages" and closes; a client still
     * blasting leaves unread data in the server's socket, so the kernel may
     * answer with a reset that destroys the close frame in flight (1006). */
    CHECK(wsc_close_code(fl) == 1008 || wsc_close_code(fl) == 1006);
    if (wsc_close_code(fl) == 1008) CHECK_CONTAINS(wsc_close_reason(fl), "too many");
    CHECK(got <= HUB_MSG_BURST + 2); /* at most the burst was served */
    wsc_free(fl);

    /* The same rate for 50 messages (past the burst), then silence: the close frame arrives
     * intact and says why. */
    fl = phone();
    REQUIRE(fl);
    for (int i = 0; i < HUB_MSG_BURST + 10; i++) {
        if (wsc_send_text(fl, "{\"t\":\"ping\"}") < 0) break;
        if (i % 10 == 9) usleep(1000);
    }
    got = drain_until_closed(fl, T_MS);
    printf("  %d messages at 10,000/s: cut with %d replies: %d \"%s\"\n", HUB_MSG_BURST + 10, got,
           wsc_close_code(fl), wsc_close_reason(fl));
    CHECK(wsc_closed(fl));
    CHECK_INT(wsc_close_code(fl), 1008);
    CHECK_CONTAINS(wsc_close_reason(fl), "too many");
    wsc_free(fl);
    usleep(300000);
    GOOD_CHECK("10,000 messages/s flood");
    wsc_close(p, 1000);
    stop();
}

static void test_2000_connections_from_one_address(void) {
    /* The test process holds both ends: 2 fds per connection. */
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < 2 * CONNS + 200) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    REQUIRE(rl.rlim_cur >= 2 * CONNS + 200);
    struct wsc *p = begin();
    REQUIRE(p);
    static struct wsc *c[CONNS];
    int opened = 0;
    long long t0 = check_mono_ms();
    /* One address, as behind venue NAT: every one is a legitimate phone
     * (the hub never limits per address); half of them join and vote. */
    for (int i = 0; i < CONNS; i++) {
        c[i] = connect_as("fragvote-audience");
        if (!c[i]) break;
        opened++;
        if (i % 2 == 0) {
            wsc_send_json(c[i], "{s:s, s:s}", "t", "hello", "room", ROOM);
        }
    }
    long long t_open = check_mono_ms() - t0;
    CHECK_INT(opened, CONNS);
    int welcomed = 0, acked = 0;
    for (int i = 0; i < opened; i += 2) {
        json_t *w = wsc_recv_type(c[i], "welcome", T_MS);
        if (w) welcomed++;
        json_decref(w);
        wsc_send_json(c[i], "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 1, "q", 0, "yes", i % 4 == 0);
    }
    for (int i = 0; i < opened; i += 2) {
        json_t *a = wsc_recv_type(c[i], "ack", T_MS);
        if (a) acked++;
        json_decref(a);
    }
    struct hub_status st;
    hub_snapshot(F.fx.hub, &st);
    printf("  %d connections from 127.0.0.1 opened in %lld ms; %d joined, %d votes acked; hub sees %d\n", opened,
           t_open, welcomed, acked, st.connections);
    CHECK_INT(welcomed, CONNS / 2);
    CHECK_INT(acked, CONNS / 2);
    CHECK(st.connections >= CONNS);
    GOOD_CHECK("2,000 connections from one address");
    for (int i = 0; i < opened; i++) wsc_free(c[i]);
    /* All gone: the hub counts them out. */
    for (int t = 0; t < 100; t++) {
        hub_snapshot(F.fx.hub, &st);
        if (st.connections <= 0) break;
        usleep(20000);
    }
    CHECK_INT(st.connections, 0);
    wsc_close(p, 1000);
    stop();
}

/* Slow loris: many connections that send an HTTP request one byte at a time
 * and never finish it. The good phone keeps voting; lws times the
 * half-requests out. */
static void test_slow_loris_http(void) {
    struct wsc *p = begin();
    REQUIRE(p);
    static int fds[LORIS];
    const char *req = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ";
    for (int i = 0; i < LORIS; i++) {
        char err[256];
        fds[i] = tcp_connect("127.0.0.1", F.fx.port, NULL, err, sizeof err);
        if (fds[i] < 0) fprintf(stderr, "slow loris %d: %s\n", i, err);
        REQUIRE(fds[i] >= 0);
        CHECK(write(fds[i], req, strlen(req)) == (ssize_t)strlen(req));
    }
    /* Dribble one byte per second per connection until the server hangs up. */
    long long t0 = check_mono_ms();
    int open_left = tcp_dribble(fds, LORIS, 45000);
    long long all_closed_ms = check_mono_ms() - t0;
    printf("  %d slow-loris connections: %s after %lld ms\n", LORIS, open_left ? "still open" : "all cut",
           all_closed_ms);
    CHECK_INT(open_left, 0);
    for (int i = 0; i < LORIS; i++)
        if (fds[i] >= 0) close(fds[i]);
    GOOD_CHECK("slow-loris HTTP");
    wsc_close(p, 1000);
    stop();
}

/* ---- the presenter secret ---- */

static char *http_get(const char *path) {
    char err[256];
    char *r = tcp_http_get("127.0.0.1", F.fx.port, path, 2000, NULL, err, sizeof err);
    if (!r) fprintf(stderr, "%s\n", err);
    return r;
}

static void test_secret_throttled_and_never_sent_to_the_audience(void) {
    REQUIRE(start() == 0);
    struct wsc *aud = phone(), *scr = connect_as("fragvote-screen");
    REQUIRE(aud && scr);
    /* Brute force from 10 presenter connections for 3 s: at most one wrong
     * guess per HUB_SECRET_DELAY_MS is even looked at, room-wide. */
    enum { NB = 10 };
    struct wsc *b[NB];
    for (int i = 0; i < NB; i++) REQUIRE((b[i] = connect_as("fragvote-presenter")) != NULL);
    int bad = 0, throttled = 0, other = 0, cut = 0;
    long long t0 = check_mono_ms();
    for (int round = 0; check_mono_ms() - t0 < 3000; round++) {
        for (int i = 0; i < NB; i++) {
            if (!b[i]) continue;
            wsc_send_json(b[i], "{s:s, s:s}", "t", "auth", "secret", round % 2 ? "guess-a" : "guess-b");
            json_t *e = wsc_recv_type(b[i], "error", T_MS);
            const char *code = json_string_value(json_object_get(e, "code"));
            if (code && !strcmp(code, "bad_secret")) bad++;
            else if (code && !strcmp(code, "throttled")) throttled++;
            else if (e) other++;
            json_decref(e);
            if (!e && wsc_closed(b[i])) {
                cut++;
                CHECK_INT(wsc_close_code(b[i]), 1008);
                wsc_free(b[i]);
                b[i] = NULL;
            }
        }
        usleep(20000);
    }
    long long took = check_mono_ms() - t0;
    printf("  brute force for %lld ms: %d guesses checked, %d throttled, %d connections cut\n", took, bad, throttled,
           cut);
    CHECK(bad <= took / HUB_SECRET_DELAY_MS + 1 + HUB_SECRET_FAILS);
    CHECK(throttled > 10 * bad);
    CHECK_INT(other, 0);
    for (int i = 0; i < NB; i++)
        if (b[i]) wsc_free(b[i]);

    /* The real presenter gets in (after the throttle delay), drives the quiz
     * through open/close; everything the audience and screen ever received is
     * searched for the secret, and so is every page. */
    usleep((HUB_SECRET_DELAY_MS + 100) * 1000);
    struct wsc *p = open_question();
    REQUIRE(p);
    wsc_send_json(aud, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 1, "q", 0, "yes", 1);
    json_decref(wsc_recv_type(aud, "ack", T_MS));
    char err[256];
    CHECK_INT(fvr_cmd(p, "close", T_MS, err, sizeof err), 0);
    json_decref(wsc_recv_type(aud, "tally", T_MS));
    json_decref(wsc_recv_type(scr, "tally", T_MS));
    wsc_send_json(aud, "{s:s}", "t", "ping");
    json_decref(wsc_recv_type(aud, "pong", T_MS));
    CHECK(strlen(wsc_transcript(aud)) > 100);
    CHECK(strstr(wsc_transcript(aud), SECRET) == NULL);
    CHECK(strstr(wsc_transcript(scr), SECRET) == NULL);
    const char *pages[] = {"/", "/?room=" ROOM, "/screen/", "/presenter/", "/qr.svg", "/phone.js", "/screen.js",
                           "/presenter.js", "/common.js", "/index.html", "/screen/screen.html"};
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
        char *r = http_get(pages[i]);
        REQUIRE(r);
        if (strstr(r, SECRET)) fprintf(stderr, "secret in %s\n", pages[i]);
        CHECK(strstr(r, SECRET) == NULL);
        CHECK(strlen(r) > 0);
        free(r);
    }
    wsc_close_all(aud, scr, p);
    stop();
}

/* A phone that only listens (tallies flowing, pings answered) while others
 * vote must not be taken for dead by the keepalive sweep. */
static void test_listening_phone_is_not_culled_while_tallies_flow(void) {
    keepalive_s = 1;
    struct wsc *p = begin();
    REQUIRE(p);
    struct wsc *l = phone();
    REQUIRE(l);
    int msgs = drain_until_closed(l, 6000 * keepalive_s);
    printf("  listener: %d messages in %d s, %s\n", msgs, 6 * keepalive_s,
           wsc_closed(l) ? wsc_close_reason(l) : "still open");
    CHECK(!wsc_closed(l));
    CHECK(msgs > 10);
    wsc_free(l);
    GOOD_CHECK("listening phone");
    wsc_close(p, 1000);
    stop();
    keepalive_s = 0;
}

int main(void) {
    if (!getenv("FRAGVOTE_SRC")) SKIP_ALL("run through ctest (FRAGVOTE_SRC unset)");
    signal(SIGPIPE, SIG_IGN);
    RUN(test_malformed_wrong_types_huge_numbers_unknown_types);
    RUN(test_1mb_fragmented_and_binary_frames);
    RUN(test_cap_passed_mid_read_still_closes_1009);
    RUN(test_200_one_byte_continuations_close_1008);
    RUN(test_10000_messages_per_second_from_one_client);
    RUN(test_2000_connections_from_one_address);
    RUN(test_secret_throttled_and_never_sent_to_the_audience);
    RUN(test_slow_loris_http);
    RUN(test_listening_phone_is_not_culled_while_tallies_flow);
    return check_summary_and_clean();
}
