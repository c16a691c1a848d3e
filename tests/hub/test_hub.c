/* The live hub against real websocket clients: a real lws server on a free
 * port, a real SQLite file, the real quiz. Measurements come in through the
 * public hub_post() API from this (test) thread, as serve's probe worker does. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "db_ckpt.h"
#include "fv_roles.h"
#include "hub.h"
#include "hub_fd.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "room.h"
#include "tcp_client.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "correct-horse-42"
#define MARKER "EVIDENCE-7f3a9c-kernel-fragmented-locally"
/* Each fact's own explanation (probe_fact.why), told apart from the test's evidence. */
#define WHY_SENT "WHY-SENT-41c2-left-the-host"
#define WHY_DF "WHY-DF-9e07-df-bit-on-the-wire"
#define WHY_FRAG "WHY-FRAG-5ab8-fragments-seen"

struct fx {
    char dbpath[256];
    struct deck deck;
    struct hubfix fx;              /* db, room, hub, its thread, port */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t measure_asked;   /* rid asked for, 0 none */
    struct probe_spec asked_spec;
};

static struct fx F;
static int db_counter;
static int keepalive_s; /* 0: defaults; else ping after it, close after 2x */
static int conn_max;    /* 0: default cap */
static int big_deck;    /* 1: the largest deck allowed (DECK_TESTS_MAX tests x 3 questions) */
static const char *tls_cert, *tls_key; /* set: serve HTTPS/WSS */
static const char *web_root;           /* NULL: the source's audience-web */

static int measure_hook(void *ctx, const struct prober_ask *a) {
    struct fx *f = ctx;
    pthread_mutex_lock(&f->mu);
    f->measure_asked = a->rid;
    f->asked_spec = *a->spec;
    pthread_cond_signal(&f->cv);
    pthread_mutex_unlock(&f->mu);
    return 0;
}

static void make_deck(struct deck *d) {
    deck_fixture(d, "hub test deck");
    deck_fixture_test(d, PROBE_UDP4, PROBE_MODE_DO, 1400, DECK_FIXTURE_ALL);
    deck_fixture_test(d, PROBE_UDP6, PROBE_MODE_WANT, 3000, DECK_FIXTURE_SENT);
}

static int start(int live_split, int64_t resume_session) {
    char err[512];
    memset(&F, 0, sizeof F);
    pthread_mutex_init(&F.mu, NULL);
    pthread_cond_init(&F.cv, NULL);
    snprintf(F.dbpath, sizeof F.dbpath, "%s/hub%d.db", check_tmpdir(), resume_session ? db_counter : ++db_counter);
    make_deck(&F.deck);
    if (big_deck) {
        F.deck.ntests = DECK_TESTS_MAX;
        for (int t = 0; t < DECK_TESTS_MAX; t++) {
            F.deck.tests[t].spec = (struct probe_spec){.proto = PROBE_UDP6, .mode = PROBE_MODE_DO, .size = 1280 + t, .ttl = 3};
            F.deck.tests[t].ask[0] = F.deck.tests[t].ask[1] = F.deck.tests[t].ask[2] = 1;
        }
    }
    int libev = getenv("HUB_TEST_LIBEV") && *getenv("HUB_TEST_LIBEV");
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .port = 0, .secret = SECRET,
                             .live_split = live_split,
                             .public_url = "http://192.0.2.10:8080/", .use_poll = !libev,
                             .ping_s = keepalive_s, .idle_s = 2 * keepalive_s, .conn_max = conn_max,
                             .tls_cert = tls_cert, .tls_key = tls_key, .web_root = web_root};
    if (hubfix_start_probed(&F.fx, F.dbpath, &F.deck, "TEST42", resume_session, &cfg,
                            &(struct prober){measure_hook, &F}, err, sizeof err))
        return fprintf(stderr, "%s\n", err), -1;
    if (hub_event_loop_is_libev(F.fx.hub) != libev) return fprintf(stderr, "the hub runs the wrong event loop\n"), -1;
    return 0;
}

static void stop(void) { hubfix_stop(&F.fx); }

static struct wsc *connect_as(const char *protocol) {
    char err[256];
    struct wsc *w = fvr_connect("127.0.0.1", F.fx.port, protocol, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

/* An audience connection that said hello; token_out gets its token. */
static struct wsc *phone(const char *token_in, char token_out[ROOM_TOKEN_HEX + 1], json_t **welcome) {
    char err[256];
    json_t *m = NULL;
    struct wsc *w = fvr_phone("127.0.0.1", F.fx.port, "TEST42", 1, token_in, T_MS, &m, err, sizeof err);
    if (!w) return fprintf(stderr, "%s\n", err), NULL;
    if (token_out) snprintf(token_out, ROOM_TOKEN_HEX + 1, "%s", json_string_value(json_object_get(m, "token")));
    if (welcome)
        *welcome = m;
    else
        json_decref(m);
    return w;
}

static struct wsc *presenter(void) {
    char err[256];
    struct wsc *w = fvr_presenter("127.0.0.1", F.fx.port, SECRET, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

/* Sends a presenter command; returns 0 on cmd_ok, -1 on error (message in err). */
static int cmd(struct wsc *p, const char *name, char *err, size_t errlen) {
    return fvr_cmd(p, name, T_MS, err, errlen);
}

static struct probe_result fake_result(int sent, int df, int frag) {
    struct probe_result r = check_probe_result(sent, df, frag, MARKER);
    snprintf(r.sent.why, sizeof r.sent.why, "%s", WHY_SENT);
    snprintf(r.df.why, sizeof r.df.why, "%s", WHY_DF);
    snprintf(r.fragmented.why, sizeof r.fragmented.why, "%s", WHY_FRAG);
    check_path_fragmented_by_r1(&r); /* issue 20: a path picture with every kind of field */
    return r;
}

/* Waits for the hub to ask for a measurement, then answers it via hub_post. */
static int answer_measurement(struct probe_result r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 3;
    pthread_mutex_lock(&F.mu);
    while (!F.measure_asked)
        if (pthread_cond_timedwait(&F.cv, &F.mu, &ts) == ETIMEDOUT) break;
    uint64_t rid = F.measure_asked;
    F.measure_asked = 0;
    r.spec = F.asked_spec;
    pthread_mutex_unlock(&F.mu);
    if (!rid) return -1;
    struct hub_cmd c = {.kind = HUB_CMD_MEASURED, .rid = rid, .result = r};
    return hub_post(F.fx.hub, &c);
}

/* Waits until the current question is in state s (via hub_snapshot). */
static int wait_state(enum quiz_state s) {
    for (int i = 0; i < 300; i++) {
        struct hub_status st;
        hub_snapshot(F.fx.hub, &st);
        if (st.current.state == s) return 0;
        usleep(10000);
    }
    return -1;
}

/* Polls hub_snapshot until cond (an expression of st) holds, up to 5 s. */
#define WAIT_STATUS(st, cond)                                        \
    do {                                                             \
        for (int i_ = 0; i_ < 500; i_++) {                           \
            hub_snapshot(F.fx.hub, &(st));                              \
            if (cond) break;                                         \
            usleep(10000);                                           \
        }                                                            \
    } while (0)

static int vote(struct wsc *w, int id, int q, int yes, json_t **reply) {
    return fvr_vote(w, id, q, yes, T_MS, reply);
}

/* The vote stored in the database file, read through a second connection. */
static int stored_vote(int pos, const char *token) {
    char err[256];
    struct db *d = db_open(F.dbpath, err, sizeof err);
    if (!d) return -2;
    int64_t voter = db_voter_join(d, room_session_id(F.fx.room), token, err, sizeof err);
    /* question ids are assigned in position order in a fresh file */
    int64_t qid = pos + 1;
    int v = db_vote_get(d, qid, voter);
    db_close(d);
    return v;
}

/* ---------------------------------------------------------------- tests */

static void test_join_issues_a_128_bit_token_and_sends_the_state(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *w = connect_as("fragvote-audience");
    REQUIRE(w);
    json_t *st = wsc_recv_type(w, "state", T_MS);
    REQUIRE(st);
    CHECK_STR(json_string_value(json_object_get(st, "room")), "TEST42");
    CHECK_INT(json_integer_value(json_object_get(st, "n")), 4);
    CHECK_STR(json_string_value(json_object_get(json_object_get(st, "q"), "state")), "pending");
    CHECK_CONTAINS(json_string_value(json_object_get(st, "join_url")), "http://192.0.2.10:8080/?room=TEST42");
    json_decref(st);
    wsc_send_json(w, "{s:s, s:i, s:s}", "t", "hello", "v", 1, "room", "TEST42");
    json_t *wel = wsc_recv_type(w, "welcome", T_MS);
    REQUIRE(wel);
    const char *tok = json_string_value(json_object_get(wel, "token"));
    CHECK(room_token_valid(tok));
    CHECK_INT(json_array_size(json_object_get(wel, "votes")), 4);
    json_decref(wel);
    /* a wrong room code is an error, not silence */
    wsc_send_json(w, "{s:s, s:i, s:s}", "t", "hello", "v", 1, "room", "NOPE99");
    json_t *e = wsc_recv_type(w, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "bad_room");
    json_decref(e);
    /* a joined connection cannot take a second identity */
    wsc_send_json(w, "{s:s, s:i, s:s}", "t", "hello", "v", 1, "room", "TEST42");
    e = wsc_recv_type(w, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "already_joined");
    json_decref(e);
    wsc_close(w, 1000);
    stop();
}

/* A fresh hub with one joined phone (*w, token tok) and a presenter (*p)
 * that opened question 0; 0 or -1. */
static int voting_on_first(char tok[ROOM_TOKEN_HEX + 1], struct wsc **w, struct wsc **p) {
    char err[256];
    if (start(0, 0)) return -1;
    *w = phone(NULL, tok, NULL);
    *p = presenter();
    if (!*w || !*p) return -1;
    if (cmd(*p, "open", err, sizeof err)) return fprintf(stderr, "open: %s\n", err), -1;
    return 0;
}

static void test_vote_is_acked_only_after_commit_and_can_change(void) {
    char tok[ROOM_TOKEN_HEX + 1];
    struct wsc *w, *p;
    REQUIRE(voting_on_first(tok, &w, &p) == 0);
    json_t *ack = NULL;
    REQUIRE(vote(w, 1, 0, 1, &ack) == 0);
    CHECK_INT(json_integer_value(json_object_get(ack, "q")), 0);
    CHECK(json_is_true(json_object_get(ack, "yes")));
    CHECK_INT(json_integer_value(json_object_get(ack, "votes")), 1); /* the question's count with it */
    json_decref(ack);
    CHECK_INT(stored_vote(0, tok), 1); /* durable when acked */
    REQUIRE(vote(w, 2, 0, 0, &ack) == 0);
    CHECK_INT(json_integer_value(json_object_get(ack, "votes")), 1); /* a changed vote is not a new one */
    json_decref(ack);
    CHECK_INT(stored_vote(0, tok), 0);
    char tok2[ROOM_TOKEN_HEX + 1];
    struct wsc *w2 = phone(NULL, tok2, NULL);
    REQUIRE(w2);
    REQUIRE(vote(w2, 1, 0, 1, &ack) == 0);
    CHECK_INT(json_integer_value(json_object_get(ack, "votes")), 2);
    json_decref(ack);
    wsc_close(w2, 1000);
    struct hub_status st;
    WAIT_STATUS(st, st.current.no == 1 && st.current.yes == 1);
    CHECK_INT(st.current.yes, 1);
    CHECK_INT(st.current.no, 1);
    /* the hub's store keeps the WAL's checkpoints off its commits (db/ckpt.c) */
    CHECK_INT(db_ckpt_status(F.fx.db, NULL, NULL, 0), 1);
    /* both acks timed, from reading the vote to writing its ack: at least
     * the batch's collection window and the COMMIT */
    WAIT_STATUS(st, st.acks == 3);
    CHECK_INT(st.acks, 3);
    CHECK(st.ack_p50_ms >= 1.0);
    CHECK(st.ack_p50_ms <= st.ack_p99_ms && st.ack_p99_ms <= st.ack_max_ms);
    CHECK(st.ack_max_ms < 5000);
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

static void test_reconnect_with_token_resumes_the_voter_and_shows_the_vote(void) {
    REQUIRE(start(0, 0) == 0);
    char tok[ROOM_TOKEN_HEX + 1], tok2[ROOM_TOKEN_HEX + 1];
    struct wsc *w = phone(NULL, tok, NULL);
    struct wsc *p = presenter();
    REQUIRE(w && p);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 1, 0, 1, NULL) == 0);
    wsc_free(w); /* dropped, as a phone going to sleep */
    json_t *wel = NULL;
    w = phone(tok, tok2, &wel);
    REQUIRE(w);
    CHECK_STR(tok2, tok);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(wel, "votes"), 0)), 1);
    json_decref(wel);
    struct hub_status st;
    usleep(200000);
    WAIT_STATUS(st, st.voters >= 1);
    CHECK_INT(st.voters, 1); /* the same voter, not a second one */
    /* and a new phone is a new voter: joined at once, a voter from its first vote */
    struct wsc *w2 = phone(NULL, tok2, NULL);
    REQUIRE(w2);
    CHECK(strcmp(tok2, tok) != 0);
    WAIT_STATUS(st, st.voters + st.newcomers == 2);
    CHECK_INT(st.voters, 1);
    CHECK_INT(st.newcomers, 1);
    REQUIRE(vote(w2, 1, 0, 0, NULL) == 0);
    WAIT_STATUS(st, st.voters == 2);
    CHECK_INT(st.voters, 2);
    CHECK_INT(st.newcomers, 0);
    wsc_close(w, 1000);
    wsc_close(w2, 1000);
    wsc_close(p, 1000);
    stop();
}

/* `online` of the screen's next tally; -2 when none came within timeout_ms. */
static int next_online(struct wsc *screen, int timeout_ms) {
    json_t *t = wsc_recv_type(screen, "tally", timeout_ms);
    if (!t) return -2;
    int online = (int)json_integer_value(json_object_get(t, "online"));
    json_decref(t);
    return online;
}

/* Reads the screen's tallies until one says `online` == n; returns n, or the
 * last value seen (-1: no tally) when none did within the timeout. */
static int wait_online(struct wsc *screen, int n) {
    int last = -1, v;
    while ((v = next_online(screen, T_MS)) != -2) {
        last = v;
        if (v == n) break;
    }
    return last;
}

/* After things settle (every tally of the last changes sent), the `online`
 * of the newest tally on the screen; -1 when none came. */
static int last_online(struct wsc *screen) {
    usleep(300000);
    int last = -1, v;
    while ((v = next_online(screen, 300)) != -2) last = v;
    return last;
}

static void test_online_counts_voters_not_connections(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *screen = connect_as("fragvote-screen");
    REQUIRE(screen);
    char tok[ROOM_TOKEN_HEX + 1], tok2[ROOM_TOKEN_HEX + 1], tokb[ROOM_TOKEN_HEX + 1];
    struct wsc *a = phone(NULL, tok, NULL);
    REQUIRE(a);
    CHECK_INT(wait_online(screen, 1), 1);
    /* the same phone back with its token while the old connection lingers
     * (a wifi blip the hub has not noticed yet, or a second tab) */
    struct wsc *a2 = phone(tok, tok2, NULL);
    REQUIRE(a2);
    CHECK_STR(tok2, tok);
    CHECK_INT(last_online(screen), 1);
    struct wsc *b = phone(NULL, tokb, NULL);
    REQUIRE(b);
    CHECK_INT(wait_online(screen, 2), 2); /* a (twice) and b: two voters */
    struct hub_status st;
    hub_snapshot(F.fx.hub, &st);
    CHECK_INT(st.connections, 3); /* live, not as of the last tally */
    wsc_close(a, 1000); /* a's other connection is still open: still online */
    CHECK_INT(last_online(screen), 2);
    wsc_close(a2, 1000);
    CHECK_INT(wait_online(screen, 1), 1);
    wsc_close(b, 1000);
    CHECK_INT(wait_online(screen, 0), 0);
    wsc_close(screen, 1000);
    stop();
}

static void test_vote_after_close_or_on_unknown_question_is_refused(void) {
    REQUIRE(start(0, 0) == 0);
    char tok[ROOM_TOKEN_HEX + 1];
    struct wsc *w = phone(NULL, tok, NULL);
    struct wsc *p = presenter();
    REQUIRE(w && p);
    char err[256];
    json_t *e = NULL;
    CHECK_INT(vote(w, 1, 0, 1, &e), 1); /* pending */
    CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), "pending");
    json_decref(e);
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 2, 0, 1, NULL) == 0);
    REQUIRE(cmd(p, "close", err, sizeof err) == 0);
    CHECK_INT(vote(w, 3, 0, 0, &e), 1);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "refused");
    CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), "closed");
    json_decref(e);
    CHECK_INT(vote(w, 4, 99, 0, &e), 1);
    CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), "no question 100");
    json_decref(e);
    CHECK_INT(vote(w, 5, -3, 0, &e), 1);
    json_decref(e);
    CHECK_INT(stored_vote(0, tok), 1); /* the refused change did not land */
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

static void test_truth_is_in_no_frame_before_reveal(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *w = phone(NULL, NULL, NULL);
    struct wsc *s = connect_as("fragvote-screen");
    struct wsc *p = presenter();
    REQUIRE(w && s && p);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 1, 0, 1, NULL) == 0);
    REQUIRE(cmd(p, "close", err, sizeof err) == 0);
    REQUIRE(cmd(p, "measure", err, sizeof err) == 0);
    REQUIRE(answer_measurement(fake_result(1, 0, 1)) == 0);
    REQUIRE(wait_state(QUIZ_MEASURED) == 0);
    /* everything each client has been sent until now */
    usleep(300000);
    json_t *x;
    while ((x = wsc_recv_type(w, "never", 200))) json_decref(x);
    while ((x = wsc_recv_type(s, "never", 200))) json_decref(x);
    while ((x = wsc_recv_type(p, "never", 200))) json_decref(x);
    CHECK(strstr(wsc_transcript(w), "\"measured\"") != NULL); /* it did reach the measured state */
    CHECK(!strstr(wsc_transcript(w), MARKER));
    CHECK(!strstr(wsc_transcript(s), MARKER));
    CHECK(!strstr(wsc_transcript(p), MARKER));
    CHECK(!strstr(wsc_transcript(w), "\"truth\""));
    CHECK(!strstr(wsc_transcript(s), "\"truth\""));
    CHECK(!strstr(wsc_transcript(p), "\"truth\""));
    /* after the reveal everyone gets it */
    REQUIRE(cmd(p, "reveal", err, sizeof err) == 0);
    json_t *st = NULL;
    for (int i = 0; i < 10 && !st; i++) {
        st = wsc_recv_type(w, "state", T_MS);
        if (st && !json_object_get(st, "reveal")) {
            json_decref(st);
            st = NULL;
        }
    }
    REQUIRE(st);
    json_t *rv = json_object_get(st, "reveal");
    CHECK_STR(json_string_value(json_object_get(rv, "truth")), "yes");
    CHECK_STR(json_string_value(json_object_get(rv, "why")), WHY_SENT);
    CHECK_INT(json_integer_value(json_object_get(rv, "yes")), 1);
    json_decref(st);
    wsc_close(w, 1000);
    wsc_close(s, 1000);
    wsc_close(p, 1000);
    stop();
}

/* Reads w's messages until a state whose current question pos is revealed. */
static json_t *revealed_state(struct wsc *w, int pos) {
    for (int i = 0; i < 20; i++) {
        json_t *st = wsc_recv_type(w, "state", T_MS);
        if (!st) return NULL;
        json_t *q = json_object_get(st, "q");
        if (json_object_get(st, "reveal") && json_integer_value(json_object_get(q, "pos")) == pos) return st;
        json_decref(st);
    }
    return NULL;
}

/* Opens, closes, measures (answering the probe when the hub asks) and
 * reveals the current question; 0 or -1 with the step in err. */
static int play_to_reveal(struct wsc *p, int answer_probe, char *err, size_t errlen) {
    if (cmd(p, "open", err, errlen) || cmd(p, "close", err, errlen) || cmd(p, "measure", err, errlen)) return -1;
    if (answer_probe && answer_measurement(fake_result(1, 0, 1))) return snprintf(err, errlen, "no probe asked"), -1;
    if (wait_state(QUIZ_MEASURED)) return snprintf(err, errlen, "never measured"), -1;
    return cmd(p, "reveal", err, errlen);
}

/* Issue 15: the three questions of one test share one probe result, but the
 * reveal of one question explains only its own fact: no frame to anyone
 * carries a sibling's explanation or the test's evidence (which speaks of
 * every fact) before the test's last question is revealed. */
static void test_each_reveal_shows_only_its_own_fact(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *w = phone(NULL, NULL, NULL);
    struct wsc *s = connect_as("fragvote-screen");
    struct wsc *p = presenter();
    struct wsc *pv = presenter(); /* a second presenter page that only watches (p's answers are read by cmd) */
    REQUIRE(w && s && p && pv);
    struct wsc *all[3] = {w, s, pv};
    char err[256];
    static const char *const why[3] = {WHY_SENT, WHY_DF, WHY_FRAG};
    for (int pos = 0; pos < 3; pos++) {
        if (pos) REQUIRE(cmd(p, "next", err, sizeof err) == 0);
        /* the probe runs once, for the test's first question */
        REQUIRE(play_to_reveal(p, pos == 0, err, sizeof err) == 0);
        for (int k = 0; k < 3; k++) {
            json_t *st = revealed_state(all[k], pos);
            REQUIRE(st);
            json_t *rv = json_object_get(st, "reveal");
            CHECK_STR(json_string_value(json_object_get(rv, "why")), why[pos]);
            if (pos < 2) CHECK(json_object_get(rv, "evidence") == NULL);
            else CHECK_STR(json_string_value(json_object_get(rv, "evidence")), MARKER);
            /* issue 20: the path picture draws only the facts that may be shown */
            json_t *path = json_object_get(rv, "path");
            CHECK(path != NULL);
            unsigned open = 0;
            for (int later = pos + 1; later < 3; later++) open |= 1u << later;
            const char *leak = check_path_leak(path, open);
            if (leak) fprintf(stderr, "question %d's reveal.path shows %s\n", pos, leak);
            CHECK(leak == NULL);
            if (pos == 2) CHECK_STR(json_string_value(json_object_get(path, "view")), "full");
            json_decref(st);
            const char *tr = wsc_transcript(all[k]);
            for (int later = pos + 1; later < 3; later++) CHECK(!strstr(tr, why[later]));
            if (pos < 2) CHECK(!strstr(tr, MARKER));
            if (pos < 2) CHECK(!strstr(tr, "\"pieces\"") && !strstr(tr, "time_exceeded") && !strstr(tr, "\"quote\""));
            if (pos == 2) CHECK(strstr(tr, "time_exceeded") != NULL);
        }
    }
    wsc_close(w, 1000);
    wsc_close(s, 1000);
    wsc_close(p, 1000);
    wsc_close(pv, 1000);
    stop();
}

static void test_presenter_actions_need_the_secret(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *a = phone(NULL, NULL, NULL);
    struct wsc *p = connect_as("fragvote-presenter");
    REQUIRE(a && p);
    char err[256];
    /* audience can never do it, secret or not */
    wsc_send_json(a, "{s:s, s:s}", "t", "auth", "secret", SECRET);
    json_t *e = wsc_recv_type(a, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "forbidden");
    json_decref(e);
    CHECK_INT(cmd(a, "open", err, sizeof err), -1);
    /* presenter connection without auth */
    CHECK_INT(cmd(p, "open", err, sizeof err), -1);
    CHECK_CONTAINS(err, "secret");
    /* wrong secret, then throttled */
    wsc_send_json(p, "{s:s, s:s}", "t", "auth", "secret", "correct-horse-43");
    e = wsc_recv_type(p, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "bad_secret");
    json_decref(e);
    wsc_send_json(p, "{s:s, s:s}", "t", "auth", "secret", SECRET);
    e = wsc_recv_type(p, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "throttled");
    json_decref(e);
    CHECK_INT(cmd(p, "open", err, sizeof err), -1);
    struct hub_status st;
    hub_snapshot(F.fx.hub, &st);
    CHECK_INT(st.current.state, QUIZ_PENDING); /* nothing happened */
    /* after the throttle delay the right secret works */
    usleep((HUB_SECRET_DELAY_MS + 100) * 1000);
    wsc_send_json(p, "{s:s, s:s}", "t", "auth", "secret", SECRET);
    e = wsc_recv_type(p, "auth_ok", T_MS);
    CHECK(e != NULL);
    json_decref(e);
    CHECK_INT(cmd(p, "open", err, sizeof err), 0);
    /* repeated wrong secrets close that connection */
    struct wsc *bad = connect_as("fragvote-presenter");
    REQUIRE(bad);
    for (int i = 0; i < 3 * HUB_SECRET_FAILS && !wsc_closed(bad); i++) {
        usleep((HUB_SECRET_DELAY_MS + 50) * 1000);
        wsc_send_json(bad, "{s:s, s:s}", "t", "auth", "secret", "guess");
        json_decref(wsc_recv_type(bad, "error", T_MS));
    }
    CHECK(wsc_closed(bad));
    CHECK_INT(wsc_close_code(bad), 1008);
    wsc_free(bad);
    wsc_close(a, 1000);
    wsc_close(p, 1000);
    stop();
}

/* Whether a transcript holds a message of type t that carries key (or, for
 * key "questions", a questions[] list) while the question is voting. */
static int voting_message_with(const char *tr, const char *type, const char *key) {
    char want[32];
    snprintf(want, sizeof want, "\"t\":\"%s\"", type);
    for (const char *line = tr; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        json_t *m = json_loadb(line, n, 0, NULL);
        int hit = 0;
        if (m && memmem(line, n, want, strlen(want))) {
            const char *st = json_string_value(json_object_get(json_object_get(m, "q"), "state"));
            if (!st) st = json_string_value(json_object_get(m, "state")); /* a tally's */
            hit = st && !strcmp(st, "voting") && json_object_get(m, key) != NULL;
        }
        json_decref(m);
        if (hit) return 1;
        line = eol ? eol + 1 : NULL;
    }
    return 0;
}

/* Issue 15: a connection that asks for the presenter's subprotocol and never
 * sends the secret gets what a screen gets: no live split while voting, no
 * questions[] list -- until auth_ok. */
static void test_presenter_without_auth_sees_what_a_screen_sees(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *lurker = connect_as("fragvote-presenter");
    REQUIRE(lurker);
    json_t *st = wsc_recv_type(lurker, "state", T_MS);
    REQUIRE(st);
    CHECK(json_object_get(st, "questions") == NULL);
    CHECK(json_object_get(st, "split") == NULL);
    json_decref(st);
    wsc_send_json(lurker, "{s:s}", "t", "hello"); /* a hello answers with the state too */
    struct wsc *p = presenter();
    struct wsc *w = phone(NULL, NULL, NULL);
    REQUIRE(p && w);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 1, 0, 1, NULL) == 0);
    usleep(400000); /* a few tallies */
    json_t *x;
    while ((x = wsc_recv_type(lurker, "never", 300))) json_decref(x);
    const char *tr = wsc_transcript(lurker);
    CHECK_CONTAINS(tr, "\"voting\"");
    CHECK(!voting_message_with(tr, "tally", "yes"));
    CHECK(!voting_message_with(tr, "state", "split"));
    CHECK(!strstr(tr, "\"questions\""));
    /* the secret turns it into the presenter's view */
    REQUIRE(fvr_auth(lurker, SECRET, T_MS, err, sizeof err) == 0);
    st = wsc_recv_type(lurker, "state", T_MS);
    REQUIRE(st);
    CHECK(json_object_get(st, "questions") != NULL);
    CHECK(json_object_get(st, "split") != NULL);
    json_decref(st);
    json_t *t = wsc_recv_type(lurker, "tally", T_MS); /* the newest tally again, with the split */
    REQUIRE(t);
    CHECK_INT(json_integer_value(json_object_get(t, "yes")), 1);
    json_decref(t);
    wsc_close(lurker, 1000);
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

/* Waits for a tally on w that counts screens and presenters as given. */
static int tally_counts(struct wsc *w, int screens, int presenters) {
    json_t *t;
    while ((t = wsc_recv_type(w, "tally", T_MS))) {
        int ok = json_integer_value(json_object_get(t, "screens")) == screens &&
                 json_integer_value(json_object_get(t, "presenters")) == presenters;
        json_decref(t);
        if (ok) return 1;
    }
    fprintf(stderr, "no tally counted %d screens and %d presenters\n", screens, presenters);
    return 0;
}

/* The presenter's tally carries the screens and presenters connected (the
 * console line of a laptop that runs `fragvote present` is made from it);
 * no phone, screen or unauthed presenter is told. */
static void test_the_presenters_tally_counts_screens_and_presenters(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *p = presenter();
    REQUIRE(p);
    struct wsc *s1 = connect_as("fragvote-screen"), *s2 = connect_as("fragvote-screen");
    struct wsc *lurker = connect_as("fragvote-presenter");
    struct wsc *w = phone(NULL, NULL, NULL);
    REQUIRE(s1 && s2 && lurker && w);
    CHECK(tally_counts(p, 2, 2)); /* the lurker is a presenter connection too, as on serve's console */
    wsc_close(s2, 1000);
    CHECK(tally_counts(p, 1, 2));
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 1, 0, 1, NULL) == 0);
    usleep(300000);
    json_t *x;
    for (struct wsc **c = (struct wsc *[]){s1, lurker, w, NULL}; *c; c++) {
        while ((x = wsc_recv_type(*c, "never", 300))) json_decref(x);
        CHECK_CONTAINS(wsc_transcript(*c), "\"tally\"");
        CHECK(!strstr(wsc_transcript(*c), "\"screens\""));
        CHECK(!strstr(wsc_transcript(*c), "\"presenters\""));
    }
    wsc_close(s1, 1000);
    wsc_close(lurker, 1000);
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

/* Sends one raw message on w; returns the first ack or error that comes back
 * (caller json_decref's), NULL if none. */
static json_t *answer_to(struct wsc *w, const char *raw) {
    if (wsc_send_text(w, raw) < 0) return NULL;
    for (;;) {
        char *m;
        if (wsc_recv(w, &m, T_MS) <= 0) return NULL;
        json_t *o = json_loads(m, 0, NULL);
        free(m);
        const char *t = json_string_value(json_object_get(o, "t"));
        if (t && (!strcmp(t, "ack") || !strcmp(t, "error"))) return o;
        json_decref(o);
    }
}

/* Issue 15: the vote id a phone chooses is echoed exactly for every integer
 * in 0..2^53-1 (what its JavaScript Number holds); anything else -- a string,
 * a fraction, a negative number, 2^53 and beyond -- is refused with bad_vote
 * and no id, not cut to 32 bits (2^40 came back as 0, "x" as -1). */
static void test_vote_ids_in_the_safe_range_are_echoed_others_refused(void) {
    char tok[ROOM_TOKEN_HEX + 1];
    struct wsc *w, *p;
    REQUIRE(voting_on_first(tok, &w, &p) == 0);
    /* echo: the id the ack must carry; -1: refused with bad_vote and no id */
    static const struct { const char *id; long long echo; } cases[] = {
        {"1099511627776", 1099511627776LL /* 2^40 */}, {"9007199254740991", 9007199254740991LL /* 2^53-1 */},
        {"0", 0}, {"2147483648", 2147483648LL}, {"\"x\"", -1}, {"9007199254740992", -1}, {"-1", -1},
        {"-9007199254740991", -1}, {"1.5", -1}, {"[7]", -1}, {"null", -1}, {"9223372036854775807", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int ok = cases[i].echo >= 0;
        char raw[128];
        snprintf(raw, sizeof raw, "{\"t\":\"vote\",\"id\":%s,\"q\":0,\"yes\":%s}", cases[i].id, ok ? "true" : "false");
        json_t *a = answer_to(w, raw);
        REQUIRE(a);
        CHECK_STR(json_string_value(json_object_get(a, "t")), ok ? "ack" : "error");
        if (ok) {
            CHECK(json_integer_value(json_object_get(a, "id")) == cases[i].echo);
        } else {
            CHECK_STR(json_string_value(json_object_get(a, "code")), "bad_vote");
            CHECK(json_object_get(a, "id") == NULL);
        }
        json_decref(a);
    }
    CHECK_INT(stored_vote(0, tok), 1); /* the refused "no" votes did not land */
    /* a vote without an id is counted; its answer carries no id */
    json_t *a = answer_to(w, "{\"t\":\"vote\",\"q\":0,\"yes\":true}");
    REQUIRE(a);
    CHECK_STR(json_string_value(json_object_get(a, "t")), "ack");
    CHECK(json_object_get(a, "id") == NULL);
    json_decref(a);
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

/* Issue 15: "seconds" of cmd open is 1..3600 (docs/PROTOCOL.md); 0 was
 * accepted and opened voting without a timer. */
static void test_open_with_zero_seconds_is_refused(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *p = presenter();
    REQUIRE(p);
    static const char *const bad[] = {"0", "-5", "3601", "\"30\"", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char raw[128];
        snprintf(raw, sizeof raw, "{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":%s}", bad[i]);
        wsc_send_text(p, raw);
        json_t *e = wsc_recv_type(p, "error", T_MS);
        REQUIRE(e);
        CHECK_STR(json_string_value(json_object_get(e, "code")), "bad_cmd");
        CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), "1..3600");
        json_decref(e);
    }
    struct hub_status st;
    hub_snapshot(F.fx.hub, &st);
    CHECK_INT(st.current.state, QUIZ_PENDING); /* none of them opened voting */
    wsc_send_text(p, "{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":1}");
    json_t *ok = wsc_recv_type(p, "cmd_ok", T_MS);
    CHECK(ok != NULL);
    json_decref(ok);
    wsc_close(p, 1000);
    stop();
}

/* The victim still works: a vote round trip on another connection. */
static int still_served(struct wsc *other, int id) {
    json_t *r = NULL;
    int rc = vote(other, id, 0, 1, &r);
    json_decref(r);
    return rc == 0 ? 1 : 0;
}

static void test_oversized_malformed_binary_and_flooding_clients_are_cut_alone(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *good = phone(NULL, NULL, NULL);
    struct wsc *p = presenter();
    REQUIRE(good && p);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);

    struct wsc *big = phone(NULL, NULL, NULL);
    REQUIRE(big);
    char msg[HUB_MSG_MAX + 64];
    memset(msg, ' ', sizeof msg - 1);
    msg[sizeof msg - 1] = 0;
    memcpy(msg, "{\"t\":\"ping\",\"pad\":\"", 19);
    msg[sizeof msg - 3] = '"';
    msg[sizeof msg - 2] = '}';
    wsc_send_text(big, msg);
    char *m;
    while (wsc_recv(big, &m, T_MS) > 0) free(m);
    CHECK(wsc_closed(big));
    CHECK_INT(wsc_close_code(big), 1009);
    CHECK_CONTAINS(wsc_close_reason(big), "larger");
    wsc_free(big);
    CHECK(still_served(good, 1));

    /* oversized in fragments: each piece small, the whole too big */
    struct wsc *frag = phone(NULL, NULL, NULL);
    REQUIRE(frag);
    char piece[400];
    memset(piece, 'x', sizeof piece);
    wsc_send_frame(frag, WSC_TEXT, 0, piece, sizeof piece);
    wsc_send_frame(frag, WSC_CONT, 0, piece, sizeof piece);
    wsc_send_frame(frag, WSC_CONT, 1, piece, sizeof piece);
    while (wsc_recv(frag, &m, T_MS) > 0) free(m);
    CHECK(wsc_closed(frag));
    CHECK_INT(wsc_close_code(frag), 1009);
    wsc_free(frag);

    struct wsc *bad = phone(NULL, NULL, NULL);
    REQUIRE(bad);
    wsc_send_text(bad, "{\"t\": \"vote\", ");
    while (wsc_recv(bad, &m, T_MS) > 0) free(m);
    CHECK(wsc_closed(bad));
    CHECK_INT(wsc_close_code(bad), 1007);
    CHECK_CONTAINS(wsc_close_reason(bad), "malformed");
    wsc_free(bad);

    struct wsc *bin = phone(NULL, NULL, NULL);
    REQUIRE(bin);
    wsc_send_frame(bin, WSC_BINARY, 1, "\x01\x02", 2);
    while (wsc_recv(bin, &m, T_MS) > 0) free(m);
    CHECK(wsc_closed(bin));
    CHECK_INT(wsc_close_code(bin), 1003);
    wsc_free(bin);

    struct wsc *flood = phone(NULL, NULL, NULL);
    REQUIRE(flood);
    for (int i = 0; i < HUB_MSG_BURST * 3; i++)
        if (wsc_send_text(flood, "{\"t\":\"ping\"}")) break;
    while (wsc_recv(flood, &m, T_MS) > 0) free(m);
    CHECK(wsc_closed(flood));
    CHECK_INT(wsc_close_code(flood), 1008);
    CHECK_CONTAINS(wsc_close_reason(flood), "too many");
    wsc_free(flood);

    CHECK(still_served(good, 2));
    wsc_close(good, 1000);
    wsc_close(p, 1000);
    stop();
}

static void test_tally_versions_increase_and_split_is_hidden_until_close(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *s = connect_as("fragvote-screen");
    struct wsc *p = presenter();
    REQUIRE(s && p);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    struct wsc *phones[5];
    for (int i = 0; i < 5; i++) {
        phones[i] = phone(NULL, NULL, NULL);
        REQUIRE(phones[i]);
        REQUIRE(vote(phones[i], 1, 0, i < 3, NULL) == 0);
    }
    usleep(300000);
    REQUIRE(cmd(p, "close", err, sizeof err) == 0);
    usleep(300000);
    /* Read everything the screen got, in order. */
    long long last = -1;
    int tallies = 0, split_before_close = 0, saw_final = 0, monotonic = 1;
    json_t *t;
    while ((t = wsc_recv_type(s, "tally", 1500))) {
        long long ver = json_integer_value(json_object_get(t, "ver"));
        if (ver <= last) monotonic = 0;
        last = ver;
        tallies++;
        const char *state = json_string_value(json_object_get(t, "state"));
        int has_split = json_object_get(t, "yes") != NULL;
        if (state && !strcmp(state, "voting") && has_split) split_before_close = 1;
        if (state && !strcmp(state, "closed") && has_split &&
            json_integer_value(json_object_get(t, "yes")) == 3 && json_integer_value(json_object_get(t, "no")) == 2 &&
            json_integer_value(json_object_get(t, "votes")) == 5)
            saw_final = 1;
        json_decref(t);
    }
    CHECK(tallies >= 2);
    CHECK(monotonic);
    CHECK(!split_before_close);
    CHECK(saw_final);
    /* no state message carried the split while voting either */
    const char *tr = wsc_transcript(s);
    const char *pos = tr;
    int leak = 0;
    while ((pos = strstr(pos, "\"t\":\"state\""))) {
        const char *eol = strchr(pos, '\n');
        char line[8192];
        size_t n = eol ? (size_t)(eol - pos) : strlen(pos);
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, pos, n);
        line[n] = 0;
        if (strstr(line, "\"state\":\"voting\"") && strstr(line, "\"split\"")) leak = 1;
        pos += n;
    }
    CHECK(!leak);
    /* phones get tallies too (the public one: no split while voting) */
    json_t *pt = wsc_recv_type(phones[4], "tally", 1000);
    CHECK(pt != NULL);
    json_decref(pt);
    pt = wsc_recv_type(phones[0], "tally", 1000);
    CHECK(pt != NULL);
    json_decref(pt);
    for (int i = 0; i < 5; i++) wsc_close(phones[i], 1000);
    wsc_close(s, 1000);
    wsc_close(p, 1000);
    stop();
}

/* The projector does not wait for a tick: every commit that changes the
 * count is followed by a tally to the screens and the authed presenter.
 * Votes one after another (each waits for its ack, so each is its own
 * commit): the screen must see every intermediate count 1..N, in order.
 * On a fixed 100 ms tick most of them were skipped (no timing bound here:
 * the count of distinct tallies is what is checked). */
#define COMMITS_SEEN_N 6
static int tallies_count_every_vote(struct wsc *w, const char *who) {
    int seen[COMMITS_SEEN_N + 1] = {0}, last = -1, in_order = 1;
    json_t *t;
    while ((t = wsc_recv_type(w, "tally", 500))) {
        const char *state = json_string_value(json_object_get(t, "state"));
        int v = (int)json_integer_value(json_object_get(t, "votes"));
        if (state && !strcmp(state, "voting") && v >= 0 && v <= COMMITS_SEEN_N) {
            if (v < last) in_order = 0;
            last = v;
            seen[v] = 1;
        }
        json_decref(t);
    }
    int all = in_order;
    for (int v = 1; v <= COMMITS_SEEN_N; v++)
        if (!seen[v]) {
            fprintf(stderr, "%s: no tally counted %d votes\n", who, v);
            all = 0;
        }
    return all;
}

static void test_screen_gets_a_tally_after_every_commit(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *s = connect_as("fragvote-screen");
    struct wsc *p = presenter();
    REQUIRE(s && p);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    struct wsc *phones[COMMITS_SEEN_N];
    for (int i = 0; i < COMMITS_SEEN_N; i++) REQUIRE((phones[i] = phone(NULL, NULL, NULL)));
    for (int i = 0; i < COMMITS_SEEN_N; i++) REQUIRE(vote(phones[i], 1, 0, i % 2, NULL) == 0);
    CHECK(tallies_count_every_vote(s, "screen"));
    CHECK(tallies_count_every_vote(p, "presenter"));
    for (int i = 0; i < COMMITS_SEEN_N; i++) wsc_close(phones[i], 1000);
    wsc_close(s, 1000);
    wsc_close(p, 1000);
    stop();
}

/* A small room's phone is not flooded: while the count changes with every
 * commit (a phone re-voting every ~25 ms), another phone gets the newest
 * tally at most HUB_PHONE_TALLY_HZ times a second, yet keeps getting it. */
static void drain(struct wsc *w, int quiet_ms) {
    char *m = NULL;
    while (wsc_recv(w, &m, quiet_ms) > 0) {
        free(m);
        m = NULL;
    }
    free(m);
}

static void test_a_phone_gets_at_most_10_tallies_a_second(void) {
    REQUIRE(start(1, 0) == 0); /* live split: every re-vote changes the public tally */
    struct wsc *p = presenter(), *voter = phone(NULL, NULL, NULL), *watcher = phone(NULL, NULL, NULL);
    REQUIRE(p && voter && watcher);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    drain(watcher, 200); /* what came before */
    const char *tr0 = wsc_transcript(watcher);
    size_t skip = strlen(tr0);
    double a = check_mono_s();
    for (int i = 0; i < 30; i++) { /* under HUB_MSG_BURST */
        REQUIRE(vote(voter, i + 1, 0, i % 2, NULL) == 0);
        usleep(20000);
    }
    drain(watcher, 300);
    double secs = check_mono_s() - a;
    int got = 0;
    for (const char *q = wsc_transcript(watcher) + skip; (q = strstr(q, "\"t\":\"tally\"")); q++) got++;
    printf("watcher got %d tallies in %.2f s (cap %d/s)\n", got, secs, HUB_PHONE_TALLY_HZ);
    CHECK(got >= 2);
    CHECK(got <= (int)(secs * HUB_PHONE_TALLY_HZ) + 1);
    wsc_close(voter, 1000);
    wsc_close(watcher, 1000);
    wsc_close(p, 1000);
    stop();
}

static void test_live_split_shows_the_split_while_voting(void) {
    REQUIRE(start(1, 0) == 0);
    struct wsc *s = connect_as("fragvote-screen");
    struct wsc *p = presenter();
    struct wsc *w = phone(NULL, NULL, NULL);
    REQUIRE(s && p && w);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 1, 0, 0, NULL) == 0);
    int seen = 0;
    json_t *t;
    while (!seen && (t = wsc_recv_type(s, "tally", 1000))) {
        if (json_integer_value(json_object_get(t, "no")) == 1 &&
            !strcmp(json_string_value(json_object_get(t, "state")), "voting"))
            seen = 1;
        json_decref(t);
    }
    CHECK(seen);
    wsc_close(s, 1000);
    wsc_close(p, 1000);
    wsc_close(w, 1000);
    stop();
}

static void test_console_commands_through_hub_post(void) {
    REQUIRE(start(0, 0) == 0);
    struct hub_cmd c = {.kind = HUB_CMD_OPEN};
    REQUIRE(hub_post(F.fx.hub, &c) == 0);
    CHECK(wait_state(QUIZ_VOTING) == 0);
    c.kind = HUB_CMD_REVEAL; /* refused: must close and measure first */
    hub_post(F.fx.hub, &c);
    struct hub_status st;
    WAIT_STATUS(st, st.refused_total >= 1);
    CHECK_INT(st.current.state, QUIZ_VOTING);
    CHECK(st.refused_total >= 1);
    CHECK_CONTAINS(st.last_error, "reveal");
    c.kind = HUB_CMD_CLOSE;
    hub_post(F.fx.hub, &c);
    c.kind = HUB_CMD_MEASURE;
    hub_post(F.fx.hub, &c);
    REQUIRE(answer_measurement(fake_result(0, -1, -1)) == 0); /* not sent */
    CHECK(wait_state(QUIZ_MEASURED) == 0);
    c.kind = HUB_CMD_REVEAL;
    hub_post(F.fx.hub, &c);
    CHECK(wait_state(QUIZ_REVEALED) == 0);
    c.kind = HUB_CMD_NEXT;
    hub_post(F.fx.hub, &c);
    WAIT_STATUS(st, st.cursor == 3);
    CHECK_INT(st.cursor, 3); /* df and fragmented of that test were skipped */
    c.kind = HUB_CMD_QUIT;
    hub_post(F.fx.hub, &c);
    hubfix_join(&F.fx); /* QUIT ends hub_run */
    hub_free(F.fx.hub);
    F.fx.hub = NULL;
    stop();
}

static void test_resume_restores_states_voters_and_votes(void) {
    REQUIRE(start(0, 0) == 0);
    int64_t session = room_session_id(F.fx.room);
    char tok[ROOM_TOKEN_HEX + 1];
    struct wsc *w = phone(NULL, tok, NULL);
    struct wsc *p = presenter();
    REQUIRE(w && p);
    char err[256];
    REQUIRE(cmd(p, "open", err, sizeof err) == 0);
    REQUIRE(vote(w, 1, 0, 0, NULL) == 0);
    REQUIRE(cmd(p, "close", err, sizeof err) == 0);
    REQUIRE(cmd(p, "measure", err, sizeof err) == 0);
    REQUIRE(answer_measurement(fake_result(1, 1, 0)) == 0);
    REQUIRE(wait_state(QUIZ_MEASURED) == 0);
    REQUIRE(cmd(p, "reveal", err, sizeof err) == 0);
    REQUIRE(cmd(p, "next", err, sizeof err) == 0);
    wsc_free(w);
    wsc_free(p);
    stop();
    /* a restart of fragvote */
    REQUIRE(start(0, session) == 0);
    struct hub_status st;
    hub_snapshot(F.fx.hub, &st);
    CHECK_INT(st.cursor, 1);
    CHECK_INT(st.voters, 1);
    struct quiz_truth t;
    REQUIRE(quiz_truth(room_quiz(F.fx.room), 0, &t) == 0);
    CHECK_INT(t.answer, PROBE_ANS_YES);
    CHECK_STR(t.why, WHY_SENT); /* the question's own fact, from the stored observation */
    CHECK_STR(t.evidence, "");  /* df? and fragmented? of that test are still to come */
    struct quiz_qinfo qi;
    quiz_get(room_quiz(F.fx.room), 0, &qi);
    CHECK_INT(qi.no, 1);
    CHECK_INT(qi.state, QUIZ_REVEALED);
    json_t *wel = NULL;
    char tok2[ROOM_TOKEN_HEX + 1];
    w = phone(tok, tok2, &wel);
    REQUIRE(w);
    CHECK_STR(tok2, tok);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(wel, "votes"), 0)), 0);
    /* the personal score counts the revealed question: voted no, truth yes */
    json_t *sc = json_object_get(wel, "score");
    CHECK_INT(json_integer_value(json_object_get(sc, "scored")), 1);
    CHECK_INT(json_integer_value(json_object_get(sc, "correct")), 0);
    json_decref(wel);
    /* the test's evidence survived too: it shows once the rest of the test is done */
    p = presenter();
    REQUIRE(p);
    REQUIRE(cmd(p, "skip", err, sizeof err) == 0);
    REQUIRE(cmd(p, "skip", err, sizeof err) == 0);
    REQUIRE(quiz_truth(room_quiz(F.fx.room), 0, &t) == 0);
    CHECK_STR(t.evidence, MARKER);
    wsc_close(p, 1000);
    wsc_close(w, 1000);
    stop();
}

static void test_dead_connections_are_culled_and_live_ones_kept(void) {
    keepalive_s = 1;
    int rc = start(0, 0);
    keepalive_s = 0;
    REQUIRE(rc == 0);
    struct wsc *dead = phone(NULL, NULL, NULL);  /* stops reading: never answers a ping */
    struct wsc *alive = phone(NULL, NULL, NULL); /* keeps reading: answers pings */
    REQUIRE(dead && alive);
    long long t0 = check_mono_ms();
    char *m;
    do {
        if (wsc_recv(alive, &m, 200) > 0) free(m);
    } while (check_mono_ms() - t0 < 5000 && !wsc_closed(alive));
    if (wsc_closed(alive)) fprintf(stderr, "alive closed: %d %s\n", wsc_close_code(alive), wsc_close_reason(alive));
    CHECK(!wsc_closed(alive));
    /* the dead one has been hung up on by now */
    while (wsc_recv(dead, &m, 1000) > 0) free(m);
    CHECK(wsc_closed(dead));
    struct hub_status st;
    WAIT_STATUS(st, st.connections == 1);
    CHECK_INT(st.connections, 1);
    wsc_close(dead, 1000);
    wsc_close(alive, 1000);
    stop();
}

static void test_connections_beyond_the_cap_are_refused_others_unaffected(void) {
    conn_max = 3;
    int rc = start(0, 0);
    conn_max = 0;
    REQUIRE(rc == 0);
    struct wsc *a = phone(NULL, NULL, NULL), *b = connect_as("fragvote-screen"), *c = phone(NULL, NULL, NULL);
    REQUIRE(a && b && c);
    char err[256];
    struct wsc *d = wsc_connect("127.0.0.1", F.fx.port, "/", "fragvote-audience", NULL, T_MS, err, sizeof err);
    CHECK(d == NULL);
    wsc_free(d);
    wsc_send_text(a, "{\"t\":\"ping\"}");
    json_t *m = wsc_recv_type(a, "pong", T_MS);
    CHECK(m != NULL); /* the ones inside the cap carry on */
    json_decref(m);
    wsc_close(c, 1000); /* a place frees up */
    usleep(300000);
    d = wsc_connect("127.0.0.1", F.fx.port, "/", "fragvote-audience", NULL, T_MS, err, sizeof err);
    CHECK(d != NULL);
    wsc_free(d);
    wsc_close(a, 1000);
    wsc_close(b, 1000);
    stop();
}

static void test_voting_timer_closes_the_question_by_itself(void) {
    REQUIRE(start(0, 0) == 0);
    struct wsc *w = phone(NULL, NULL, NULL);
    struct wsc *p = presenter();
    REQUIRE(w && p);
    wsc_send_json(p, "{s:s, s:s, s:i}", "t", "cmd", "cmd", "open", "seconds", 4000);
    json_t *e = wsc_recv_type(p, "error", T_MS);
    REQUIRE(e); /* longer than HUB_COUNTDOWN_MAX_S */
    json_decref(e);
    wsc_send_json(p, "{s:s, s:s, s:i}", "t", "cmd", "cmd", "open", "seconds", 1);
    json_t *ok = wsc_recv_type(p, "cmd_ok", T_MS);
    REQUIRE(ok);
    json_decref(ok);
    /* the phones learn the time left */
    json_t *st = NULL;
    for (int i = 0; i < 10 && !st; i++) {
        st = wsc_recv_type(w, "state", T_MS);
        if (st && !json_object_get(st, "closes_in_ms")) {
            json_decref(st);
            st = NULL;
        }
    }
    REQUIRE(st);
    long long left = json_integer_value(json_object_get(st, "closes_in_ms"));
    CHECK(left > 0 && left <= 1000);
    json_decref(st);
    REQUIRE(vote(w, 1, 0, 1, NULL) == 0);
    CHECK(wait_state(QUIZ_CLOSED) == 0); /* nobody pressed close */
    json_t *r = NULL;
    CHECK_INT(vote(w, 2, 0, 0, &r), 1);
    json_decref(r);
    /* a timer does not outlive its question: open the next one by hand, no timer */
    struct hub_cmd c = {.kind = HUB_CMD_OPEN, .seconds = 1};
    char err[256];
    REQUIRE(cmd(p, "measure", err, sizeof err) == 0);
    REQUIRE(answer_measurement(fake_result(1, 1, 0)) == 0);
    REQUIRE(wait_state(QUIZ_MEASURED) == 0);
    REQUIRE(cmd(p, "reveal", err, sizeof err) == 0);
    REQUIRE(cmd(p, "next", err, sizeof err) == 0);
    REQUIRE(hub_post(F.fx.hub, &c) == 0); /* the console's way, with a timer */
    CHECK(wait_state(QUIZ_VOTING) == 0);
    CHECK(wait_state(QUIZ_CLOSED) == 0);
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

static void test_the_largest_deck_fits_in_the_messages(void) {
    big_deck = 1;
    int rc = start(0, 0);
    big_deck = 0;
    REQUIRE(rc == 0);
    struct wsc *w = connect_as("fragvote-screen");
    REQUIRE(w);
    json_t *st = wsc_recv_type(w, "state", T_MS);
    REQUIRE(st);
    CHECK_INT(json_integer_value(json_object_get(st, "n")), QUIZ_QUESTIONS_MAX);
    /* phones and screens get the list of questions only once the quiz has
     * ended: the state goes to every phone on every change */
    CHECK(json_object_get(st, "questions") == NULL);
    json_decref(st);
    struct wsc *pr = presenter();
    REQUIRE(pr);
    st = wsc_recv_type(pr, "state", T_MS);
    REQUIRE(st);
    CHECK_INT(json_array_size(json_object_get(st, "questions")), QUIZ_QUESTIONS_MAX);
    json_decref(st);
    wsc_close(pr, 1000);
    json_t *wel = NULL;
    struct wsc *p = phone(NULL, NULL, &wel);
    REQUIRE(p);
    CHECK_INT(json_array_size(json_object_get(wel, "votes")), QUIZ_QUESTIONS_MAX);
    json_decref(wel);
    wsc_close(w, 1000);
    wsc_close(p, 1000);
    stop();
}

/* ---- HTTP: pages and the QR code ---- */

static char *http_get(const char *path, size_t *len) {
    char err[256];
    char *r = tcp_http_get("127.0.0.1", F.fx.port, path, 3000, len, err, sizeof err);
    if (!r) fprintf(stderr, "%s\n", err);
    return r;
}

static void test_pages_are_served_and_carry_no_truth(void) {
    REQUIRE(start(0, 0) == 0);
    const char *paths[] = {"/", "/screen", "/presenter", "/phone.js", "/style.css", "/?room=TEST42"};
    const char *marks[] = {"phone.js", "screen.js", "presenter.js", "hello", "--bg", "phone.js"};
    for (int i = 0; i < 6; i++) {
        size_t n;
        char *r = http_get(paths[i], &n);
        REQUIRE(r);
        if (!strncmp(r, "HTTP/1.0 301", 12) || !strncmp(r, "HTTP/1.1 301", 12)) {
            /* /screen -> /screen/ : follow it as a browser does */
            char want[64];
            snprintf(want, sizeof want, "%s/", paths[i]);
            char *loc = strcasestr(r, "location:");
            CHECK(loc && strstr(loc, want));
            free(r);
            r = http_get(want, &n);
            REQUIRE(r);
        }
        if (strncmp(r, "HTTP/1.1 200", 12)) fprintf(stderr, "GET %s: %.200s\n", paths[i], r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK_CONTAINS(r, marks[i]);
        CHECK(strcasestr(r, "content-security-policy") != NULL);
        CHECK(!strstr(r, MARKER));
        free(r);
    }
    stop();
}

/* One request on a new connection; it asks the server to close after the
 * answer, read whole (NUL-terminated, caller frees) or NULL. */
static char *http_raw(const char *req, size_t *len) {
    char err[256];
    int fd = tcp_connect("127.0.0.1", F.fx.port, NULL, err, sizeof err);
    if (fd < 0) return fprintf(stderr, "%s\n", err), NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf || write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
        free(buf);
        close(fd);
        return NULL;
    }
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 3000) <= 0) break;
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (n == cap) break;
    }
    close(fd);
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

/* The value of header `name` ("etag") in response r, into out; 0 or -1. */
static int header_value(const char *r, const char *name, char *out, size_t outlen) {
    char key[64];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *h = strcasestr(r, key), *end = strstr(r, "\r\n\r\n");
    if (!h || (end && h > end)) return -1;
    h += strlen(key);
    while (*h == ' ') h++;
    size_t n = strcspn(h, "\r\n");
    if (n >= outlen) return -1;
    memcpy(out, h, n);
    out[n] = 0;
    return 0;
}

/* A reload costs one small request: the phone page and what it loads carry
 * a validator (ETag) and may be kept HUB_STATIC_MAX_AGE_S; asked again with
 * that validator (If-None-Match), the answer is 304 without a body; with a
 * validator of another version of the file, the file itself. */
static void test_static_files_carry_validators_and_a_reload_is_304(void) {
    REQUIRE(start(0, 0) == 0);
    const char *paths[] = {"/?room=TEST42", "/style.css", "/common.js", "/phone.js"};
    char want_cc[64];
    snprintf(want_cc, sizeof want_cc, "max-age=%d", HUB_STATIC_MAX_AGE_S);
    for (int i = 0; i < 4; i++) {
        char req[512], etag[128] = "", cc[128] = "";
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", paths[i]);
        size_t full = 0, small = 0;
        char *r = http_raw(req, &full);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "etag", etag, sizeof etag) == 0 && etag[0]);
        CHECK(header_value(r, "cache-control", cc, sizeof cc) == 0 && strstr(cc, want_cc) && !strstr(cc, "no-store"));
        free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\nConnection: close\r\n\r\n",
                 paths[i], etag);
        r = http_raw(req, &small);
        REQUIRE(r);
        if (strncmp(r, "HTTP/1.1 304", 12)) fprintf(stderr, "GET %s with If-None-Match %s: %.120s\n", paths[i], etag, r);
        CHECK(!strncmp(r, "HTTP/1.1 304", 12));
        const char *body = strstr(r, "\r\n\r\n");
        CHECK(body && body[4] == 0); /* headers only */
        printf("%s: %zu bytes, again with its ETag %zu bytes\n", paths[i], full, small);
        CHECK(small < full);
        free(r);
        snprintf(req, sizeof req,
                 "GET %s HTTP/1.1\r\nHost: x\r\nIf-None-Match: 0000000000000000\r\nConnection: close\r\n\r\n",
                 paths[i]);
        r = http_raw(req, NULL);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        free(r);
    }
    stop();
}

/* The web root's files are answered from memory (hub_static.c): HEAD gets
 * the headers a GET would (its length, no body); only names of files in
 * the root itself are served (a path with a directory, a dot file, a name
 * that climbs out: 404); the projector's and presenter's pages are
 * no-store without a validator. */
static void test_static_files_from_memory_head_names_and_no_store_pages(void) {
    REQUIRE(start(0, 0) == 0);
    char req[512], v[128];
    size_t n = 0, head_n = 0;
    snprintf(req, sizeof req, "GET /phone.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    char *r = http_raw(req, &n);
    REQUIRE(r);
    char clen[32] = "";
    CHECK(header_value(r, "content-length", clen, sizeof clen) == 0);
    const char *body = strstr(r, "\r\n\r\n");
    CHECK(body && (size_t)atol(clen) == n - (size_t)(body + 4 - r));
    free(r);
    snprintf(req, sizeof req, "HEAD /phone.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    r = http_raw(req, &head_n);
    REQUIRE(r);
    CHECK(!strncmp(r, "HTTP/1.1 200", 12));
    CHECK(header_value(r, "content-length", v, sizeof v) == 0 && !strcmp(v, clen));
    body = strstr(r, "\r\n\r\n");
    CHECK(body && body[4] == 0);
    free(r);
    const char *bad[] = {"/../hub/test_hub.c", "/%2e%2e/etc/passwd", "/.hidden", "/sub/phone.js", "/nope.js"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", bad[i]);
        r = http_raw(req, NULL);
        REQUIRE(r);
        if (strncmp(r, "HTTP/1.1 404", 12)) fprintf(stderr, "GET %s: %.60s\n", bad[i], r);
        CHECK(!strncmp(r, "HTTP/1.1 404", 12));
        free(r);
    }
    const char *pages[] = {"/screen/", "/presenter/"};
    for (int i = 0; i < 2; i++) {
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", pages[i]);
        r = http_raw(req, NULL);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "cache-control", v, sizeof v) == 0 && !strcmp(v, "no-store"));
        CHECK(header_value(r, "etag", v, sizeof v) != 0);
        CHECK(strstr(r, "<!doctype html>") != NULL);
        free(r);
    }
    stop();
}

/* The body after the headers of r (n bytes in all), gunzipped by gzip(1)
 * into a malloc'd buffer (*outlen bytes); NULL if it is not gzip. */
static char *gunzip_body(const char *r, size_t n, size_t *outlen) {
    const char *body = strstr(r, "\r\n\r\n");
    if (!body) return NULL;
    body += 4;
    char path[512], cmd[600];
    snprintf(path, sizeof path, "%s/body.gz", check_tmpdir());
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    fwrite(body, 1, n - (size_t)(body - r), f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "gzip -dc '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 1 << 20, got = 0;
    char *out = malloc(cap);
    size_t k;
    while (out && got < cap && (k = fread(out + got, 1, cap - got, p)) > 0) got += k;
    int st = pclose(p);
    if (st != 0) return free(out), NULL;
    *outlen = got;
    return out;
}

/* The bytes of the web root's files parts[0..n-1] joined as hub_static.c
 * joins a script ("\n;\n" after each); malloc'd, *len bytes; NULL if one
 * is missing. */
static char *joined_parts(const char *root, const char *const *parts, int n, size_t *len) {
    size_t cap = 1 << 20, at = 0;
    char *out = malloc(cap), file[2048];
    for (int i = 0; out && i < n; i++) {
        size_t flen = 0;
        snprintf(file, sizeof file, "%s/%s", root, parts[i]);
        char *b = check_read_file(file, &flen);
        if (!b || at + flen + 3 > cap) return free(b), free(out), NULL;
        memcpy(out + at, b, flen);
        memcpy(out + at + flen, "\n;\n", 3);
        at += flen + 3;
        free(b);
    }
    *len = at;
    return out;
}

/* The first <script src="..."> in the text from: its src copied to src; the
 * text after it, or NULL when there is none. */
static const char *next_script(const char *from, char *src, size_t srclen) {
    const char *p = strstr(from, "<script src=\"");
    if (!p) return NULL;
    p += strlen("<script src=\"");
    size_t n = strcspn(p, "\"");
    snprintf(src, srclen, "%.*s", (int)n, p);
    return p + n;
}

/* Each page loads its scripts in one request (issue 22's join storm: the
 * phone page is three requests, not five): its one <script> names a join
 * ("/common,i18n,path,replay,phone.js") whose body is the parts' bytes one after the
 * other, each followed by a line ";", in plain and in gzip, with an ETag
 * and a 304 for it. Only the pages' joins are served: another order,
 * another choice of parts, a part that is not a script or a name that
 * climbs out are 404. A part that changes on disk changes the join. */
static void test_each_page_loads_its_scripts_in_one_join(void) {
    char root[1024], cmd[2400];
    snprintf(root, sizeof root, "%s/web", check_tmpdir());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", root, hubfix_web_root(), root);
    REQUIRE(system(cmd) == 0);
    web_root = root;
    REQUIRE(start(0, 0) == 0);
    const char *pages[] = {"/", "/screen/", "/presenter/"};
    const char *own[] = {"replay,phone.js", "screen.js", "presenter.js"}; /* the phone's: the replay's too */
    for (int i = 0; i < 3; i++) {
        char req[512], src[256], want_src[64], etag[128] = "", type[64] = "";
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", pages[i]);
        char *page = http_raw(req, NULL);
        REQUIRE(page);
        const char *at = next_script(page, src, sizeof src);
        snprintf(want_src, sizeof want_src, "/common,i18n,path,%s", own[i]);
        CHECK(at && !strcmp(src, want_src));
        CHECK(at && !next_script(at, src, sizeof src)); /* the only one */
        free(page);
        const char *parts[] = {"common.js", "i18n.js", "path.js", i ? own[i] : "replay.js", "phone.js"};
        size_t want_len = 0, n = 0;
        char *want = joined_parts(root, parts, i ? 4 : 5, &want_len);
        REQUIRE(want);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", want_src);
        char *r = http_raw(req, &n);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "content-type", type, sizeof type) == 0 && !strcmp(type, "text/javascript"));
        CHECK(header_value(r, "etag", etag, sizeof etag) == 0 && etag[0]);
        const char *body = strstr(r, "\r\n\r\n");
        CHECK(body && n - (size_t)(body + 4 - r) == want_len && !memcmp(body + 4, want, want_len));
        free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
                 want_src);
        r = http_raw(req, &n);
        REQUIRE(r);
        size_t glen = 0;
        char *g = gunzip_body(r, n, &glen);
        CHECK(g && glen == want_len && !memcmp(g, want, want_len));
        free(g), free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\nConnection: close\r\n\r\n",
                 want_src, etag);
        r = http_raw(req, NULL);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 304", 12));
        free(r);
        free(want);
    }
    const char *bad[] = {"/path,common,phone.js", "/common,phone.js",       "/common,path,nope.js", "/common,path,phone.js",
                         "/common,,path,phone.js", "/,common,path,phone.js", "/common,path,phone.css",
                         "/common,path,..%2fphone.js", "/common,path,.phone.js"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[512];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", bad[i]);
        char *r = http_raw(req, NULL);
        REQUIRE(r);
        if (strncmp(r, "HTTP/1.1 404", 12)) fprintf(stderr, "GET %s: %.60s\n", bad[i], r);
        CHECK(!strncmp(r, "HTTP/1.1 404", 12));
        free(r);
    }
    /* a part grows: the join is read again (new bytes, new ETag) once the
     * hub looks at the disk again (at most every HUB_STATIC_RECHECK_MS) */
    char file[1100], etag_before[128] = "", etag_after[128] = "";
    const char *req = "GET /common,i18n,path,replay,phone.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    char *r = http_raw(req, NULL);
    REQUIRE(r);
    CHECK(header_value(r, "etag", etag_before, sizeof etag_before) == 0);
    free(r);
    snprintf(file, sizeof file, "%s/path.js", root);
    FILE *f = fopen(file, "a");
    REQUIRE(f);
    fputs("/* changed on disk */\n", f);
    fclose(f);
    usleep((HUB_STATIC_RECHECK_MS + 100) * 1000);
    r = http_raw(req, NULL);
    REQUIRE(r);
    CHECK(header_value(r, "etag", etag_after, sizeof etag_after) == 0 && strcmp(etag_before, etag_after));
    CHECK(strstr(r, "/* changed on disk */\n\n;\n") != NULL);
    free(r);
    stop();
    web_root = NULL;
}

/* The text files go in gzip to a client that says it takes it (a phone
 * page of ~62 KB is ~20 KB then), unchanged when inflated; the gzip answer
 * has a validator of its own (a 304 for it, never the plain file's), and
 * every answer says it varies by Accept-Encoding. */
static void test_text_files_go_gzip_to_clients_that_take_it(void) {
    REQUIRE(start(0, 0) == 0);
    const char *paths[] = {"/", "/style.css", "/common.js", "/phone.js", "/path.js"};
    const char *files[] = {"index.html", "style.css", "common.js", "phone.js", "path.js"};
    size_t plain_all = 0, gz_all = 0;
    for (int i = 0; i < 5; i++) {
        char req[512], etag_plain[128] = "", etag_gz[128] = "", enc[64] = "", vary[64] = "", file[1024];
        snprintf(file, sizeof file, "%s/%s", hubfix_web_root(), files[i]);
        size_t flen = 0;
        char *disk = check_read_file(file, &flen);
        REQUIRE(disk);
        size_t n = 0;
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", paths[i]);
        char *r = http_raw(req, &n);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "content-encoding", enc, sizeof enc) != 0); /* none asked: plain */
        CHECK(header_value(r, "etag", etag_plain, sizeof etag_plain) == 0);
        const char *body = strstr(r, "\r\n\r\n");
        CHECK(body && n - (size_t)(body + 4 - r) == flen && !memcmp(body + 4, disk, flen));
        plain_all += n;
        free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n",
                 paths[i]);
        r = http_raw(req, &n);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "content-encoding", enc, sizeof enc) == 0 && !strcmp(enc, "gzip"));
        CHECK(header_value(r, "vary", vary, sizeof vary) == 0 && strcasestr(vary, "accept-encoding"));
        CHECK(header_value(r, "etag", etag_gz, sizeof etag_gz) == 0 && strcmp(etag_gz, etag_plain));
        size_t ulen = 0;
        char *u = gunzip_body(r, n, &ulen);
        CHECK(u && ulen == flen && !memcmp(u, disk, flen));
        printf("%s: %zu bytes plain, %zu in gzip\n", paths[i], flen, n - (size_t)(strstr(r, "\r\n\r\n") + 4 - r));
        gz_all += n;
        free(u);
        free(r);
        /* a reload with the gzip validator: 304; the plain one asked with gzip: the gzip file */
        const char *tags[] = {etag_gz, etag_plain}, *want[] = {"HTTP/1.1 304", "HTTP/1.1 200"};
        for (int k = 0; k < 2; k++) {
            snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nIf-None-Match: %s\r\nConnection: close\r\n\r\n",
                     paths[i], tags[k]);
            r = http_raw(req, NULL);
            REQUIRE(r);
            CHECK(!strncmp(r, want[k], 12));
            if (k) CHECK(header_value(r, "content-encoding", enc, sizeof enc) == 0);
            free(r);
        }
        free(disk);
    }
    printf("the phone page and its files: %zu bytes plain, %zu in gzip (headers included)\n", plain_all, gz_all);
    CHECK(gz_all * 2 < plain_all);
    stop();
}

static void test_qr_endpoint_returns_an_svg_encoding_the_join_url(void) {
    REQUIRE(start(0, 0) == 0);
    if (system("command -v zbarimg >/dev/null 2>&1") != 0) {
        CHECK(!"zbarimg missing: install zbar-tools (scripts/apt-packages.txt)");
        stop();
        return;
    }
    size_t n;
    char *r = http_get("/qr.svg", &n);
    REQUIRE(r);
    CHECK(!strncmp(r, "HTTP/1.1 200", 12));
    CHECK(strcasestr(r, "content-type: image/svg+xml") != NULL);
    char *body = strstr(r, "\r\n\r\n");
    REQUIRE(body);
    body += 4;
    CHECK_CONTAINS(body, "<svg");
    /* Rasterize the path ("Mx yh1v1h-1z" per dark module) into a PGM, 8 px
     * per module, and let an independent decoder read it. */
    int size = 0;
    REQUIRE(sscanf(strstr(body, "viewBox=\"") + 9, "0 0 %d", &size) == 1);
    REQUIRE(size > 20 && size < 200);
    const int px = 8, W = size * px;
    unsigned char *img = malloc((size_t)W * W);
    memset(img, 255, (size_t)W * W);
    const char *d = strstr(body, " d=\"");
    REQUIRE(d);
    d += 4;
    int x, y, k;
    while (sscanf(d, "M%d %dh1v1h-1z%n", &x, &y, &k) == 2) {
        for (int yy = 0; yy < px; yy++) memset(img + (size_t)(y * px + yy) * W + x * px, 0, px);
        d += k;
    }
    char pgm[512], cmdline[1024];
    snprintf(pgm, sizeof pgm, "%s/qr.pgm", check_tmpdir());
    FILE *f = fopen(pgm, "wb");
    REQUIRE(f);
    fprintf(f, "P5\n%d %d\n255\n", W, W);
    fwrite(img, 1, (size_t)W * W, f);
    fclose(f);
    free(img);
    snprintf(cmdline, sizeof cmdline, "zbarimg --quiet --raw %s 2>/dev/null", pgm);
    FILE *z = popen(cmdline, "r");
    REQUIRE(z);
    char decoded[512] = "";
    if (!fgets(decoded, sizeof decoded, z)) decoded[0] = 0;
    pclose(z);
    decoded[strcspn(decoded, "\r\n")] = 0;
    CHECK_STR(decoded, hub_join_url(F.fx.hub));
    CHECK_STR(decoded, "http://192.0.2.10:8080/?room=TEST42");
    free(r);
    stop();
}

static void test_tls_serves_pages_and_qr_over_https(void) {
    char cert[512], key[512], cmdline[2048];
    snprintf(cert, sizeof cert, "%s/cert.pem", check_tmpdir());
    snprintf(key, sizeof key, "%s/key.pem", check_tmpdir());
    snprintf(cmdline, sizeof cmdline,
             "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -keyout %s -out %s "
             ">/dev/null 2>&1", key, cert);
    REQUIRE(system(cmdline) == 0);
    tls_cert = cert;
    tls_key = key;
    int rc = start(0, 0);
    tls_cert = tls_key = NULL;
    REQUIRE(rc == 0);
    CHECK(!strncmp(hub_join_url(F.fx.hub), "http://192.0.2.10:8080/", 23)); /* the public URL wins */
    char out[4096] = "";
    snprintf(cmdline, sizeof cmdline, "curl -sk -m 5 -o /dev/null -w '%%{http_code} %%{content_type}' https://127.0.0.1:%d/qr.svg",
             F.fx.port);
    FILE *f = popen(cmdline, "r");
    REQUIRE(f);
    if (!fgets(out, sizeof out, f)) out[0] = 0;
    pclose(f);
    CHECK_CONTAINS(out, "200 image/svg+xml");
    snprintf(cmdline, sizeof cmdline, "curl -sk -m 5 https://127.0.0.1:%d/ | grep -c phone.js", F.fx.port);
    f = popen(cmdline, "r");
    REQUIRE(f);
    if (!fgets(out, sizeof out, f)) out[0] = 0;
    pclose(f);
    CHECK_STR(out, "1\n");
    /* plain HTTP is not served on a TLS port */
    snprintf(cmdline, sizeof cmdline, "curl -s -m 2 -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/", F.fx.port);
    f = popen(cmdline, "r");
    REQUIRE(f);
    if (!fgets(out, sizeof out, f)) out[0] = 0;
    pclose(f);
    CHECK(strcmp(out, "200") != 0);
    stop();
}

/* The soft limit goes to the hard one, but never past HUB_NOFILE_MAX:
 * lws 4.1.6 sizes its descriptor table from it and reads the whole table
 * at every close, and Debian's usual hard limit is 524,288. The rule with
 * canned limits, then the hub under this machine's (where the hard limit
 * is above HUB_NOFILE_MAX, the hub lowers its soft limit to it). */
static void test_open_files_limit_is_raised_to_the_hard_limit_up_to_a_cap(void) {
    CHECK(hub_fd_nofile_target(20000) == 20000);
    CHECK(hub_fd_nofile_target(HUB_NOFILE_MAX) == HUB_NOFILE_MAX);
    CHECK(hub_fd_nofile_target(524288) == HUB_NOFILE_MAX);  /* Debian 12's systemd default */
    CHECK(hub_fd_nofile_target(1048576) == HUB_NOFILE_MAX); /* docker's */
    CHECK(hub_fd_nofile_target((unsigned long long)RLIM_INFINITY) == HUB_NOFILE_MAX);
    struct rlimit rl;
    REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024; /* the usual default soft limit */
    REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    REQUIRE(start(0, 0) == 0);
    struct rlimit now;
    getrlimit(RLIMIT_NOFILE, &now);
    CHECK(now.rlim_cur == (rl.rlim_max < HUB_NOFILE_MAX ? rl.rlim_max : HUB_NOFILE_MAX));
    printf("    hard limit %llu: soft limit set to %llu%s\n", (unsigned long long)rl.rlim_max,
           (unsigned long long)now.rlim_cur, rl.rlim_max > HUB_NOFILE_MAX ? " (capped)" : " (the cap is not reached here)");
    stop();
}

static void test_join_url_uses_the_default_route_interface(void) {
    char url[256], err[256];
    REQUIRE(hub_join_url_make(NULL, NULL, 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK(!strncmp(url, "http://", 7));
    CHECK_CONTAINS(url, ":8080/?room=ABC123");
    /* with a default route, never loopback */
    FILE *f = popen("ip -4 route show default 2>/dev/null | head -1", "r");
    char line[256] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        pclose(f);
    }
    if (line[0]) {
        CHECK(!strstr(url, "127.0.0.1"));
        CHECK_STR(err, "");
    } else {
        CHECK_CONTAINS(err, "no IPv4 default route");
    }
    REQUIRE(hub_join_url_make("https://quiz.example.org", "127.0.0.1", 1, 443, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "https://quiz.example.org/?room=ABC123");
    CHECK_STR(err, ""); /* behind a public URL the bind address is the proxy's business */
}

/* serve --bind ADDR listens there only: the join URL (and its QR code) names
 * that address, never another interface's where nothing listens. */
static void test_join_url_honours_the_bind_address(void) {
    char url[256], err[256];
    REQUIRE(hub_join_url_make(NULL, "192.0.2.7", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "http://192.0.2.7:8080/?room=ABC123");
    CHECK_STR(err, "");
    REQUIRE(hub_join_url_make(NULL, "2001:db8::7", 1, 443, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "https://[2001:db8::7]/?room=ABC123");
    REQUIRE(hub_join_url_make(NULL, "127.0.0.1", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "http://127.0.0.1:8080/?room=ABC123");
    CHECK_CONTAINS(err, "serve listens on 127.0.0.1 only (--bind): phones cannot reach the join URL");
    REQUIRE(hub_join_url_make(NULL, "::1", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "http://[::1]:8080/?room=ABC123");
    CHECK_CONTAINS(err, "phones cannot reach");
    REQUIRE(hub_join_url_make(NULL, "0.0.0.0", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK(!strstr(url, "0.0.0.0")); /* every address: the default route's */
}

int main(void) {
    RUN(test_join_url_honours_the_bind_address);
    RUN(test_join_issues_a_128_bit_token_and_sends_the_state);
    RUN(test_vote_is_acked_only_after_commit_and_can_change);
    RUN(test_reconnect_with_token_resumes_the_voter_and_shows_the_vote);
    RUN(test_online_counts_voters_not_connections);
    RUN(test_vote_after_close_or_on_unknown_question_is_refused);
    RUN(test_truth_is_in_no_frame_before_reveal);
    RUN(test_each_reveal_shows_only_its_own_fact);
    RUN(test_presenter_actions_need_the_secret);
    RUN(test_presenter_without_auth_sees_what_a_screen_sees);
    RUN(test_the_presenters_tally_counts_screens_and_presenters);
    RUN(test_vote_ids_in_the_safe_range_are_echoed_others_refused);
    RUN(test_open_with_zero_seconds_is_refused);
    RUN(test_oversized_malformed_binary_and_flooding_clients_are_cut_alone);
    RUN(test_tally_versions_increase_and_split_is_hidden_until_close);
    RUN(test_screen_gets_a_tally_after_every_commit);
    RUN(test_a_phone_gets_at_most_10_tallies_a_second);
    RUN(test_live_split_shows_the_split_while_voting);
    RUN(test_console_commands_through_hub_post);
    RUN(test_dead_connections_are_culled_and_live_ones_kept);
    RUN(test_connections_beyond_the_cap_are_refused_others_unaffected);
    RUN(test_voting_timer_closes_the_question_by_itself);
    RUN(test_the_largest_deck_fits_in_the_messages);
    RUN(test_resume_restores_states_voters_and_votes);
    RUN(test_pages_are_served_and_carry_no_truth);
    RUN(test_static_files_carry_validators_and_a_reload_is_304);
    RUN(test_static_files_from_memory_head_names_and_no_store_pages);
    RUN(test_text_files_go_gzip_to_clients_that_take_it);
    RUN(test_each_page_loads_its_scripts_in_one_join);
    RUN(test_qr_endpoint_returns_an_svg_encoding_the_join_url);
    RUN(test_join_url_uses_the_default_route_interface);
    RUN(test_tls_serves_pages_and_qr_over_https);
    RUN(test_open_files_limit_is_raised_to_the_hard_limit_up_to_a_cap);
    return check_summary();
}
