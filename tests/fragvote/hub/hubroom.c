/* See hubroom.h. */
#include "hubroom.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "deck_fixture.h"
#include "fv_file.h"
#include "tcp_client.h"

struct hubroom hubroom;
struct hubroom_opts hubroom_opts;
static int db_counter;
static char *tls_pem[2]; /* the certificate and key hubroom_opts names, read as serve reads them */
static size_t tls_pem_len[2];

static void tls_pem_free(void) {
    for (int i = 0; i < 2; i++) free(tls_pem[i]), tls_pem[i] = NULL, tls_pem_len[i] = 0;
}

static int measure_hook(void *ctx, const struct prober_ask *a) {
    struct hubroom *f = ctx;
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

int hubroom_start_in(const char *dir, int live_split, int64_t resume_session) {
    char err[512];
    const struct hubroom_opts *o = &hubroom_opts;
    memset(&hubroom, 0, sizeof hubroom);
    pthread_mutex_init(&hubroom.mu, NULL);
    pthread_cond_init(&hubroom.cv, NULL);
    snprintf(hubroom.dbpath, sizeof hubroom.dbpath, "%s/hub%d.db", dir,
             resume_session ? db_counter : ++db_counter);
    make_deck(&hubroom.deck);
    if (o->big_deck) {
        hubroom.deck.ntests = DECK_TESTS_MAX;
        for (int t = 0; t < DECK_TESTS_MAX; t++) {
            hubroom.deck.tests[t].spec = (struct probe_spec){.proto = PROBE_UDP6, .mode = PROBE_MODE_DO, .size = 1280 + t, .ttl = 3};
            hubroom.deck.tests[t].ask[0] = hubroom.deck.tests[t].ask[1] = hubroom.deck.tests[t].ask[2] = 1;
        }
    }
    tls_pem_free();
    if (o->tls_cert && (!(tls_pem[0] = fv_file_read(o->tls_cert, 1 << 20, &tls_pem_len[0], err, sizeof err)) ||
                        !(tls_pem[1] = fv_file_read(o->tls_key, 1 << 20, &tls_pem_len[1], err, sizeof err))))
        return fprintf(stderr, "%s\n", err), -1;
    int libev = getenv("HUB_TEST_LIBEV") && *getenv("HUB_TEST_LIBEV");
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .port = 0, .secret = SECRET,
                             .live_split = live_split,
                             .public_url = "http://192.0.2.10:8080/", .use_poll = !libev,
                             .ping_s = o->keepalive_s, .idle_s = 2 * o->keepalive_s, .conn_max = o->conn_max,
                             .tls_cert = tls_pem[0], .tls_key = tls_pem[1], .tls_cert_len = tls_pem_len[0],
                             .tls_key_len = tls_pem_len[1], .web_root = o->web_root};
    if (hubfix_start_probed(&hubroom.fx, hubroom.dbpath, &hubroom.deck, "TEST42", resume_session, &cfg,
                            &(struct prober){measure_hook, &hubroom}, err, sizeof err))
        return fprintf(stderr, "%s\n", err), -1;
    if (hub_event_loop_is_libev(hubroom.fx.hub) != libev) return fprintf(stderr, "the hub runs the wrong event loop\n"), -1;
    return 0;
}

void hubroom_stop(void) {
    hubfix_stop(&hubroom.fx);
    tls_pem_free();
}

struct wsc *hubroom_connect(const char *protocol) {
    char err[256];
    struct wsc *w = fvr_connect("127.0.0.1", hubroom.fx.port, protocol, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

struct wsc *hubroom_phone(const char *token_in, char token_out[ROOM_TOKEN_HEX + 1], json_t **welcome) {
    char err[256];
    json_t *m = NULL;
    struct wsc *w = fvr_phone("127.0.0.1", hubroom.fx.port, "TEST42", 1, token_in, T_MS, &m, err, sizeof err);
    if (!w) return fprintf(stderr, "%s\n", err), NULL;
    if (token_out) snprintf(token_out, ROOM_TOKEN_HEX + 1, "%s", json_string_value(json_object_get(m, "token")));
    if (welcome)
        *welcome = m;
    else
        json_decref(m);
    return w;
}

struct wsc *hubroom_presenter(void) {
    char err[256];
    struct wsc *w = fvr_presenter("127.0.0.1", hubroom.fx.port, SECRET, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

int hubroom_cmd(struct wsc *p, const char *name, char *err, size_t errlen) {
    return fvr_cmd(p, name, T_MS, err, errlen);
}

int hubroom_do(struct wsc *p, const char *name) {
    char err[256];
    if (hubroom_cmd(p, name, err, sizeof err) == 0) return 0;
    fprintf(stderr, "%s: %s\n", name, err);
    return -1;
}

struct probe_result hubroom_result(int sent, int df, int frag) {
    struct probe_result r = check_probe_result(sent, df, frag, MARKER);
    snprintf(r.sent.why, sizeof r.sent.why, "%s", WHY_SENT);
    snprintf(r.df.why, sizeof r.df.why, "%s", WHY_DF);
    snprintf(r.fragmented.why, sizeof r.fragmented.why, "%s", WHY_FRAG);
    check_path_fragmented_by_r1(&r); /* issue 20: a path picture with every kind of field */
    return r;
}

int hubroom_answer(struct probe_result r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 3;
    pthread_mutex_lock(&hubroom.mu);
    while (!hubroom.measure_asked)
        if (pthread_cond_timedwait(&hubroom.cv, &hubroom.mu, &ts) == ETIMEDOUT) break;
    uint64_t rid = hubroom.measure_asked;
    hubroom.measure_asked = 0;
    r.spec = hubroom.asked_spec;
    pthread_mutex_unlock(&hubroom.mu);
    if (!rid) return -1;
    struct hub_cmd c = {.kind = HUB_CMD_MEASURED, .rid = rid, .result = r};
    return hub_post(hubroom.fx.hub, &c);
}

int hubroom_wait_state(enum quiz_state s) {
    for (int i = 0; i < 300; i++) {
        struct hub_status st;
        hub_snapshot(hubroom.fx.hub, &st);
        if (st.current.state == s) return 0;
        usleep(10000);
    }
    return -1;
}

int hubroom_vote(struct wsc *w, int id, int q, int yes, json_t **reply) {
    return fvr_vote(w, id, q, yes, T_MS, reply);
}

int hubroom_stored_vote(int pos, const char *token) {
    char err[256];
    struct db *d = db_open(hubroom.dbpath, err, sizeof err);
    if (!d) return -2;
    int64_t voter = db_voter_join(d, room_session_id(hubroom.fx.room), token, err, sizeof err);
    /* question ids are assigned in position order in a fresh file */
    int64_t qid = pos + 1;
    int v = db_vote_get(d, qid, voter);
    db_close(d);
    return v;
}

char *hubroom_http_get(const char *path, size_t *len) {
    char err[256];
    char *r = tcp_http_get("127.0.0.1", hubroom.fx.port, path, 3000, len, err, sizeof err);
    if (!r) fprintf(stderr, "%s\n", err);
    return r;
}

int hubroom_start_with_in(const char *dir, int *opt, int value) {
    *opt = value;
    int rc = hubroom_start_in(dir, 0, 0);
    *opt = 0;
    return rc;
}

int hubroom_measured(struct wsc *p, struct wsc *w, int yes, struct probe_result r) {
    if (hubroom_do(p, "open") || hubroom_vote(w, 1, 0, yes, NULL) || hubroom_do(p, "close") ||
        hubroom_do(p, "measure") || hubroom_answer(r))
        return -1;
    return hubroom_wait_state(QUIZ_MEASURED);
}

int hubroom_cast(struct wsc **w, struct wsc **s, struct wsc **p) {
    if (w) *w = hubroom_phone(NULL, NULL, NULL);
    if (s) *s = hubroom_connect("fragvote-screen");
    if (p) *p = hubroom_presenter();
    if ((!w || *w) && (!s || *s) && (!p || *p)) return 0;
    struct wsc **all[] = {w, s, p};
    for (int i = 0; i < 3; i++)
        if (all[i]) {
            wsc_free(*all[i]);
            *all[i] = NULL;
        }
    return -1;
}

struct wsc *hubroom_connect_state(const char *protocol, json_t **state) {
    struct wsc *c = hubroom_connect(protocol);
    *state = c ? wsc_recv_type(c, "state", T_MS) : NULL;
    if (*state) return c;
    fprintf(stderr, "%s: no state\n", protocol);
    wsc_free(c);
    return NULL;
}
