/* The live hub's engine room (see hub.h): the lws context and its loop
 * (poll or libev), the queue from other threads, deadlines on lws's
 * scheduler (lws_sul_*, on the loop's thread) (coalesced broadcasts: hub_tally.c), presenter actions, the QR endpoint. The
 * wire side (connections, client messages, group commit) is hub_conn.c. */
#include <dlfcn.h>
#include <ev.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "datadir.h"
#include "fv_err.h"
#include "hub_internal.h"
#include "leaderboard.h"

/* Monotonic milliseconds, precise (deadlines). */
long long hub_mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Monotonic milliseconds, cheap (rate caps, throttles). */
long long hub_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- status for other threads ---- */

/* hub_status.closes_in_ms for a deadline (0: none): at least 1 while it runs. */
static long long closes_in(long long due) {
    if (!due) return 0;
    long long left = due - hub_mono_ms();
    return left > 1 ? left : 1;
}

void hub_status_update(struct hub *h, const char *refused) {
    struct quiz *q = room_quiz(h->room);
    pthread_mutex_lock(&h->lock);
    struct hub_status *s = &h->status;
    s->port = h->port;
    s->cursor = quiz_cursor(q);
    s->nquestions = quiz_count(q);
    s->ended = quiz_ended(q);
    quiz_get(q, s->cursor, &s->current);
    struct quiz_truth t;
    snprintf(s->truth, sizeof s->truth, "%s", quiz_truth(q, s->cursor, &t) ? "" : probe_answer_name(t.answer));
    s->connections = h->n_role[HUB_AUDIENCE];
    s->screens = h->n_role[HUB_SCREEN];
    s->presenters = h->n_role[HUB_PRESENTER];
    s->voters = room_voter_count(h->room);
    s->newcomers = (int)h->newcomers.used;
    s->tokens_minted = h->tokens_minted;
    s->voters_refused = h->voters_refused;
    s->tally_version = h->tally_version;
    s->collective = quiz_collective(q, NULL);
    unsigned long hits;
    room_measure_counts(h->room, &s->measure_asks, &hits);
    h->status_close_due = hub_closes_in_ms(h) >= 0 ? h->close_due : 0;
    s->closes_in_ms = closes_in(h->status_close_due);
    if (refused) {
        snprintf(s->last_error, sizeof s->last_error, "%s", refused);
        s->refused_total++;
    }
    struct hub_status copy = *s;
    pthread_mutex_unlock(&h->lock);
    if (h->cfg.on_event) h->cfg.on_event(h->cfg.ctx, &copy);
}

void hub_snapshot(struct hub *h, struct hub_status *out) {
    pthread_mutex_lock(&h->lock);
    *out = h->status;
    out->closes_in_ms = closes_in(h->status_close_due);
    pthread_mutex_unlock(&h->lock);
    out->phone_tallies = atomic_load(&h->phone_tallies);
    /* counts that change with every connection: live, not as of the last tick */
    out->connections = atomic_load(&h->n_role[HUB_AUDIENCE]);
    out->screens = atomic_load(&h->n_role[HUB_SCREEN]);
    out->presenters = atomic_load(&h->n_role[HUB_PRESENTER]);
}

/* ---- deadlines ----
 * Every deadline of the hub is an lws_sorted_usec_list_t in struct hub on
 * lws's own scheduler, so its callback runs on the loop's thread like any
 * other lws callback: with lws's poll loop, lws_service() waits in poll()
 * no longer than the earliest of them. Under libev see kick_arm. */

void hub_timer_in(struct hub *h, enum hub_timer_id t, sul_cb_t cb, long long ms) {
    lws_sul_schedule(h->ctx, 0, &h->timer[t], cb, (lws_usec_t)(ms > 0 ? ms : 0) * LWS_US_PER_MS);
}

/* lws runs the deadlines that are due before it waits in poll() (its poll
 * loop), so one that leaves work for hub_run's next turn (a fan-out begun,
 * the flush over) cuts that wait short, the way another thread would. */
void hub_loop_wake(struct hub *h) { lws_cancel_service(h->ctx); }

int hub_timer_armed(const struct hub *h, enum hub_timer_id t) { return h->timer[t].list.owner != NULL; }

void hub_timer_cancel(struct hub *h, enum hub_timer_id t) { lws_sul_cancel(&h->timer[t]); }

/* ---- presenter actions (console, probe worker, presenter page) ---- */

long long hub_closes_in_ms(const struct hub *h) {
    struct quiz *q = room_quiz(h->room);
    struct quiz_qinfo ci;
    if (!h->close_due || quiz_get(q, quiz_cursor(q), &ci) || ci.state != QUIZ_VOTING || ci.position != h->close_pos)
        return -1;
    long long left = h->close_due - hub_mono_ms();
    return left > 0 ? left : 0;
}

/* Waits for the batch in flight, as long as the room's own writes would
 * wait for a database another process holds (ROOM_BUSY_LIVE_MS): the loop
 * never stalls longer than before the store had its thread. 0 idle, -1
 * with err (the action is refused; the presenter tries again). */
static int store_idle(struct hub *h, enum room_action a, char *err, size_t errlen) {
    if (!hub_batch_complete(h, ROOM_BUSY_LIVE_MS)) return 0;
    fv_fail(err, errlen, "the database is busy (votes are waiting for it); try %s again", room_action_name(a));
    hub_status_update(h, err);
    return -1;
}

/* The voting timer ran out: the question closes (once the batch in
 * flight is answered), unless it was closed or left meanwhile. */
static void close_tick(lws_sorted_usec_list_t *sul) {
    struct hub *h = hub_of_timer(sul, HUB_T_CLOSE);
    if (!h->close_due) return;
    if (h->store_busy) { /* the timer closes once the batch in flight is answered */
        h->close_due = hub_mono_ms() + HUB_BATCH_MS;
        hub_timer_in(h, HUB_T_CLOSE, close_tick, HUB_BATCH_MS);
        return;
    }
    char err[256];
    int still_open = hub_closes_in_ms(h) >= 0;
    h->close_due = 0;
    if (still_open) hub_act(h, ROOM_CLOSE, 0, err, sizeof err);
}

/* seconds: with ROOM_OPEN, close voting by itself after that long (0: never). */
int hub_act(struct hub *h, enum room_action a, int seconds, char *err, size_t errlen) {
    if (a == ROOM_OPEN && (seconds < 0 || seconds > HUB_COUNTDOWN_MAX_S)) {
        fv_fail(err, errlen, "a voting timer runs 1..%d seconds", HUB_COUNTDOWN_MAX_S);
        hub_status_update(h, err);
        return -1;
    }
    /* The quiz changes and the room writes: no batch may be in flight (first
     * round votes still collected are judged before a second round opens). */
    if (store_idle(h, a, err, errlen)) return -1;
    if ((a == ROOM_MEASURE || a == ROOM_RERUN) && !room_has_prober(h->room)) {
        fv_fail(err, errlen, "no probe is configured: this hub cannot measure");
        hub_status_update(h, err);
        return -1;
    }
    if (a == ROOM_REVOTE && h->nops) {
        hub_batch_flush(h);
        if (store_idle(h, a, err, errlen)) return -1;
    }
    int rc = room_act(h->room, a, err, errlen);
    if (rc >= 0) {
        h->close_due = 0; /* any move ends a running timer ... */
        hub_timer_cancel(h, HUB_T_CLOSE);
        if (a == ROOM_OPEN && seconds > 0) { /* ... and open may start one */
            h->close_due = hub_mono_ms() + 1000LL * seconds;
            h->close_pos = quiz_cursor(room_quiz(h->room));
            hub_timer_in(h, HUB_T_CLOSE, close_tick, 1000LL * seconds);
        }
    }
    hub_state_changed(h);
    if (rc < 0) hub_status_update(h, err);
    return rc < 0 ? -1 : 0;
}

static const enum room_action cmd_action[] = {
    [HUB_CMD_OPEN] = ROOM_OPEN, [HUB_CMD_CLOSE] = ROOM_CLOSE, [HUB_CMD_MEASURE] = ROOM_MEASURE,
    [HUB_CMD_REVEAL] = ROOM_REVEAL, [HUB_CMD_NEXT] = ROOM_NEXT, [HUB_CMD_BACK] = ROOM_BACK,
    [HUB_CMD_SKIP] = ROOM_SKIP, [HUB_CMD_RERUN] = ROOM_RERUN, [HUB_CMD_REVOTE] = ROOM_REVOTE,
};

static void run_posted(struct hub *h, const struct hub_cmd *c) {
    char err[256];
    switch (c->kind) {
    case HUB_CMD_QUIT: atomic_store(&h->stop, 1); break;
    case HUB_CMD_MEASURED:
        hub_batch_quiesce(h);
        if (room_prober_result(h->room, c->rid, &c->result, err, sizeof err)) {
            hub_state_changed(h);
            hub_status_update(h, err);
        } else {
            hub_state_changed(h);
        }
        break;
    default:
        if ((unsigned)c->kind <= HUB_CMD_REVOTE) hub_act(h, cmd_action[c->kind], c->seconds, err, sizeof err);
    }
}

static void drain_posted(struct hub *h) {
    struct hub_cmd *c = h->draining;
    for (;;) {
        pthread_mutex_lock(&h->lock);
        if (!h->post_len) {
            pthread_mutex_unlock(&h->lock);
            return;
        }
        *c = h->posted[h->post_head];
        h->post_head = (h->post_head + 1) % HUB_POST_MAX;
        h->post_len--;
        pthread_mutex_unlock(&h->lock);
        run_posted(h, c);
    }
}

int hub_post(struct hub *h, const struct hub_cmd *cmd) {
    pthread_mutex_lock(&h->lock);
    if (h->post_len == HUB_POST_MAX) {
        pthread_mutex_unlock(&h->lock);
        return -1;
    }
    h->posted[(h->post_head + h->post_len) % HUB_POST_MAX] = *cmd;
    h->post_len++;
    pthread_mutex_unlock(&h->lock);
    lws_cancel_service(h->ctx);
    return 0;
}

void hub_stop(struct hub *h) {
    atomic_store(&h->stop, 1);
    lws_cancel_service(h->ctx);
}

/* Another thread called lws_cancel_service (hub_post, hub_stop, the store
 * thread's commit): the hand-overs, on the loop's thread. */
static void woken(struct hub *h) {
    hub_batch_complete(h, 0); /* the store thread's batch is done? */
    drain_posted(h);
}

/* Answers an HTTP request with status, one extra header (name with its
 * colon, or NULL), "Connection: close" and a small HTML body; the caller
 * then closes the connection. */
static void http_answer_close(struct lws *wsi, unsigned status, const char *hname, const char *hvalue,
                              const char *body) {
    size_t blen = strlen(body);
    unsigned char buf[LWS_PRE + 1536], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - blen - 1;
    char clen[16];
    int n = snprintf(clen, sizeof clen, "%zu", blen);
    if (blen > 1024 || lws_add_http_header_status(wsi, status, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, (const unsigned char *)"text/html", 9, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, (const unsigned char *)clen, n, &p, end) ||
        (hname && lws_add_http_header_by_name(wsi, (const unsigned char *)hname, (const unsigned char *)hvalue,
                                              (int)strlen(hvalue), &p, end)) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5, &p, end) ||
        lws_finalize_http_header(wsi, &p, end))
        return;
    memcpy(p, body, blen);
    p += blen;
    lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP);
}

/* Refuses an HTTP request over HUB_HTTP_RATE: 429 with Retry-After, and
 * the caller closes the connection (a keep-alive flood has to reconnect).
 * The page retries by itself, for phones behind a crowded NAT. */
static void http_refuse(struct lws *wsi) {
    http_answer_close(wsi, 429, "retry-after:", "1",
                      "<!doctype html><meta http-equiv=\"refresh\" content=\"2\"><title>busy</title>"
                      "<p>Too many requests from your network; this page retries in 2 seconds.</p>\n");
}

#define HUB_HTTP_ALLOW "GET, HEAD"
static const char http_405_body[] = "<!doctype html><title>405</title><p>Only GET and HEAD are served here.</p>\n";

/* The pages are read, never written: only GET and HEAD are served, and no
 * request carries a body (so there is no body to wait for). Returns 0 when
 * the request may go on, else 1 after answering 405 or 413 (the caller
 * closes the connection). */
static int http_method_check(struct lws *wsi) {
    if (!lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) && !lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI)) {
        http_answer_close(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "allow:", HUB_HTTP_ALLOW, http_405_body);
        return 1;
    }
    char cl[24] = "";
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) ||
        (lws_hdr_copy(wsi, cl, sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 && strcmp(cl, "0"))) {
        http_answer_close(wsi, HTTP_STATUS_REQ_ENTITY_TOO_LARGE, NULL, NULL,
                          "<!doctype html><title>413</title><p>Requests here carry no body.</p>\n");
        return 1;
    }
    return 0;
}

/* A CONNECT request: lws turns the connection into a raw socket after its
 * headers (a proxy tunnel) and would hold it open for ever. It is answered
 * 405 on a raw write and closed. */
static int http_connect_refuse(struct lws *wsi) {
    static const char head[] = "HTTP/1.1 405 Method Not Allowed\r\nallow: " HUB_HTTP_ALLOW
                               "\r\ncontent-type: text/html\r\nconnection: close\r\ncontent-length: ";
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s%zu\r\n\r\n%s", head, sizeof http_405_body - 1, http_405_body);
    unsigned char buf[LWS_PRE + sizeof msg];
    memcpy(buf + LWS_PRE, msg, (size_t)n);
    lws_write(wsi, buf + LWS_PRE, (size_t)n, LWS_WRITE_RAW);
    return -1;
}

/* The projector's and the presenter's pages, each a directory of its own
 * ("/screen/") so the phone page's URL stays "/". They are callback mounts,
 * not file mounts: for a file mount asked without its slash ("/screen") lws
 * answers 301 to "http://" + the request's Host header + "/screen/", so
 * anyone could make the server send a browser to a host of their choosing. */
static const struct {
    const char *mount, *file;
} hub_pages[] = {{"/screen", "screen.html"}, {"/presenter", "presenter.html"}};

/* Answers a request under a page's mount: the bare mount redirects to the
 * path with its slash and no host (the browser keeps the one it asked; the
 * pages load "/style.css" and the scripts from the root anyway), the mount
 * with its slash is the page, anything else below it 404. Returns what
 * LWS_CALLBACK_HTTP returns. */
static int http_page(struct hub *h, struct lws *wsi, const char *uri) {
    for (size_t i = 0; i < sizeof hub_pages / sizeof hub_pages[0]; i++) {
        size_t n = strlen(hub_pages[i].mount);
        if (strncmp(uri, hub_pages[i].mount, n)) continue;
        if (!uri[n]) {
            char loc[32];
            int len = snprintf(loc, sizeof loc, "%s/", hub_pages[i].mount);
            unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
            if (lws_add_http_header_status(wsi, HTTP_STATUS_MOVED_PERMANENTLY, &p, end) ||
                lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_LOCATION, (const unsigned char *)loc, len, &p, end) ||
                lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, (const unsigned char *)"0", 1, &p, end) ||
                lws_finalize_write_http_header(wsi, start, &p, end))
                return 1;
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        if (!strcmp(uri + n, "/")) {
            char path[sizeof h->web_root + 32];
            snprintf(path, sizeof path, "%s/%s", h->web_root, hub_pages[i].file);
            int rc = lws_serve_http_file(wsi, path, "text/html", NULL, 0);
            if (rc < 0 || (rc > 0 && lws_http_transaction_completed(wsi))) return -1;
            return 0;
        }
        break;
    }
    if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL)) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    struct hub *h = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        /* Every accepted TCP connection, before lws adopts it (wsi is the
         * listening socket's): beyond the descriptor ceiling it is closed. */
        return h ? hub_fd_filter(h, (int)(intptr_t)in) : 0;
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION: {
        /* Every HTTP request (each one on a keep-alive connection too), before
         * lws looks for its mount; websocket upgrades do not come here. */
        struct hub_peer peer;
        if (!h) break;
        hub_proxy_peer(&h->proxy, wsi, &peer);
        if (hub_guard_http_take(h->guard, &peer, hub_now_ms())) {
            http_refuse(wsi);
            return 1;
        }
        return http_method_check(wsi);
    }
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        /* A websocket upgrade that names no subprotocol of ours lands on
         * this one (lws's default): it would be outside HUB_CONN_MAX and the
         * keepalive sweep. Every client of ours names its role. */
        return 1;
    case LWS_CALLBACK_RAW_ADOPT: /* the raw socket lws made of a CONNECT */
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, HUB_HTTP_IDLE_S);
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_RAW_WRITEABLE: return http_connect_refuse(wsi);
    case LWS_CALLBACK_RAW_RX:
    case LWS_CALLBACK_RAW_CLOSE: return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (h) woken(h);
        return 0;
    case LWS_CALLBACK_HTTP: {
        /* The callback mounts arrive here: the pages', and /qr.svg. */
        if (!h) return 1;
        if (!in || strcmp((const char *)in, "/qr.svg")) return http_page(h, wsi, in ? (const char *)in : "");
        unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "image/svg+xml", h->qr_len, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-store", 8, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return 1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (!h || !h->qr_http) break;
        if (lws_write(wsi, h->qr_http + LWS_PRE, h->qr_len, LWS_WRITE_HTTP_FINAL) != (int)h->qr_len) return 1;
        if (lws_http_transaction_completed(wsi)) return -1;
        return 0;
    default: break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- lifecycle ---- */

static int make_secret(char *out, size_t outlen) {
    static const char alphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";
    unsigned char b[12];
    if (outlen < sizeof b + 1 || getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return -1;
    for (size_t i = 0; i < sizeof b; i++) out[i] = alphabet[b[i] % (sizeof alphabet - 1)];
    out[sizeof b] = 0;
    return 0;
}

/* libev through its stable C ABI, loaded at run time so the build needs no
 * libev headers or link flags (lws itself loads it as a plugin). We own the
 * loop ("foreign" to lws) so hub_run() can run it one iteration at a time and
 * notice hub_stop(). */
#define HUB_EVFLAG_AUTO 0u
#define HUB_EVRUN_ONCE 2
#define HUB_EVRUN_NOWAIT 1
static int ev_open(struct hub *h) {
    h->ev_lib = dlopen("libev.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (!h->ev_lib) return -1;
    void *(*loop_new)(unsigned) = (void *(*)(unsigned))dlsym(h->ev_lib, "ev_loop_new");
    h->ev_run = (int (*)(void *, int))dlsym(h->ev_lib, "ev_run");
    if (!loop_new || !h->ev_run || !dlsym(h->ev_lib, "ev_loop_destroy") ||
        !(h->ev_loop = loop_new(HUB_EVFLAG_AUTO))) {
        dlclose(h->ev_lib);
        h->ev_lib = NULL;
        return -1;
    }
    return 0;
}

static void ev_close(struct hub *h) {
    if (h->ev_loop) ((void (*)(void *))dlsym(h->ev_lib, "ev_loop_destroy"))(h->ev_loop);
    /* libev stays loaded: lws's plugin may still reference it */
    h->ev_loop = NULL;
}

/* libev: lws 4.1.6 runs its scheduler from an ev_timer of its own that it
 * re-arms after each event with ev_timer_set + ev_timer_start; on a timer
 * that is already running that is a no-op in libev, so a deadline armed
 * earlier than the one it waits for would run only after the next event on
 * some socket, or when the old one ran out (lib/event-libs/libev/libev.c,
 * lws_ev_idle_cb). So before each turn the hub arms one ev_timer of its own
 * on the loop it owns for its earliest deadline; when it fires it runs
 * those of the hub's deadlines that are due, earliest first, as lws's pass
 * would (whichever comes first runs them). lws's own deadlines (HTTP and
 * close timeouts) get a pass at least every HUB_LWS_TIMERS_MS: the timer
 * then wakes lws (lws_cancel_service, from the loop's thread), and lws
 * runs what is due after that event. */
#define HUB_LWS_TIMERS_MS 500
static void kick_fired(struct ev_loop *loop, ev_timer *w, int revents) {
    (void)loop, (void)revents;
    struct hub *h = w->data;
    lws_usec_t now = lws_now_usecs();
    int ran = 0;
    for (;;) {
        int first = -1;
        for (int t = 0; t < HUB_TIMERS; t++)
            if (hub_timer_armed(h, (enum hub_timer_id)t) && h->timer[t].us <= now &&
                (first < 0 || h->timer[t].us < h->timer[first].us))
                first = t;
        if (first < 0) break;
        lws_sorted_usec_list_t *sul = &h->timer[first];
        lws_sul_cancel(sul); /* re-armed in its callback: due after now, so not again in this pass */
        sul->cb(sul);
        ran = 1;
    }
    if (!ran) lws_cancel_service(h->ctx);
}

static int kick_new(struct hub *h) {
    h->ev_timer_start = (void (*)(void *, void *))dlsym(h->ev_lib, "ev_timer_start");
    h->ev_timer_stop = (void (*)(void *, void *))dlsym(h->ev_lib, "ev_timer_stop");
    h->ev_now_update = (void (*)(void *))dlsym(h->ev_lib, "ev_now_update");
    ev_timer *k = h->kick = calloc(1, sizeof *k);
    if (!k || !h->ev_timer_start || !h->ev_timer_stop || !h->ev_now_update) return -1;
    ev_timer_init(k, kick_fired, 0., 0.);
    k->data = h;
    return 0;
}

static void kick_arm(struct hub *h) {
    ev_timer *k = h->kick;
    lws_usec_t now = lws_now_usecs(), at = now + HUB_LWS_TIMERS_MS * LWS_US_PER_MS;
    for (int t = 0; t < HUB_TIMERS; t++)
        if (hub_timer_armed(h, (enum hub_timer_id)t) && h->timer[t].us < at) at = h->timer[t].us;
    if (ev_is_active(k) && h->kick_at <= at) return; /* one early is harmless: it is re-armed after */
    h->ev_timer_stop(h->ev_loop, k);
    h->ev_now_update(h->ev_loop); /* the timer counts from the loop's time, else stale by this turn's work */
    ev_timer_set(k, at > now ? (double)(at - now) / 1e6 : 0., 0.);
    h->ev_timer_start(h->ev_loop, k);
    h->kick_at = at;
}

static void kick_free(struct hub *h) {
    if (h->kick && h->ev_loop && ev_is_active((ev_timer *)h->kick)) h->ev_timer_stop(h->ev_loop, h->kick);
    free(h->kick);
    h->kick = NULL;
}

static const struct lws_protocol_vhost_options csp_header = {
    NULL, NULL, "content-security-policy:",
    "default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; style-src 'self'; script-src 'self'"};
static const struct lws_protocol_vhost_options nosniff_header = {&csp_header, NULL, "x-content-type-options:",
                                                                  "nosniff"};

struct hub *hub_new(const struct hub_config *cfg, struct room *room, char *err, size_t errlen) {
    struct hub *h = calloc(1, sizeof *h);
    if (!h || !(h->posted = calloc(HUB_POST_MAX, sizeof *h->posted)) || !(h->draining = calloc(1, sizeof *h->draining)) ||
        !(h->txbuf = malloc(LWS_PRE + HUB_TX_CHUNK)) || !(h->guard = malloc(sizeof *h->guard)) ||
        (cfg->leaderboard && !(h->board = leaderboard_new()))) {
        if (h) {
            free(h->posted);
            free(h->draining);
            free(h->txbuf);
            free(h->guard);
        }
        free(h);
        fv_fail(err, errlen, "out of memory starting the hub");
        return NULL;
    }
    h->cfg = *cfg;
    h->room = room;
    h->listen_fd = h->reserve_fd = -1;
    pthread_mutex_init(&h->lock, NULL);
    hub_fd_init(h, cfg->conn_max);
    if (hub_guard_init(h->guard)) {
        fv_fail(err, errlen, "getrandom failed seeding the hub's address tables");
        goto fail;
    }
    if (cfg->voter_rate) h->guard->voter_rate = cfg->voter_rate > 0 ? cfg->voter_rate : 0;
    if (cfg->trust_proxy) h->proxy = *cfg->trust_proxy;
    if (cfg->http_rate) {
        h->guard->http_rate = cfg->http_rate > 0 ? cfg->http_rate : 0;
        h->guard->http_burst = 5.0 * h->guard->http_rate;
    }
    lws_set_log_level(LLL_ERR | LLL_WARN, hub_fd_lws_log);
    if (cfg->secret && cfg->secret[0]) {
        if (strlen(cfg->secret) >= HUB_SECRET_MAX) {
            fv_fail(err, errlen, "presenter secret longer than %d characters", HUB_SECRET_MAX - 1);
            goto fail;
        }
        snprintf(h->secret, sizeof h->secret, "%s", cfg->secret);
    } else if (make_secret(h->secret, sizeof h->secret)) {
        fv_fail(err, errlen, "getrandom failed making the presenter secret");
        goto fail;
    }
    if (cfg->web_root && cfg->web_root[0])
        snprintf(h->web_root, sizeof h->web_root, "%s", cfg->web_root);
    else {
        char derr[256];
        if (datadir_path("web", h->web_root, sizeof h->web_root, derr, sizeof derr)) {
            fv_fail(err, errlen, "%s: cannot locate the web pages; pass a web root", derr);
            goto fail;
        }
    }
    {
        char probe_path[4200];
        snprintf(probe_path, sizeof probe_path, "%s/index.html", h->web_root);
        if (access(probe_path, R_OK)) {
            fv_fail(err, errlen, "web pages not found: %s is missing (install fragvote or pass a web root)", probe_path);
            goto fail;
        }
    }

    static const char *names[] = {"fragvote-audience", "fragvote-screen", "fragvote-presenter"};
    h->protocols[0] = (struct lws_protocols){"http", http_callback, 0, 0, 0, h, 0};
    for (int i = 0; i < HUB_NROLES; i++)
        h->protocols[i + 1] = (struct lws_protocols){names[i], hub_ws_callback, sizeof(struct hub_conn), HUB_RX_BUFFER,
                                                     (unsigned)i, h, HUB_TX_CHUNK};
    /* tx_packet_size 0 would cap every send() at rx_buffer_size (512 bytes
     * in lws 4.1.6): a 2 KB state message then took five passes over every
     * connection (found by tests/load with strace). */
    /* protocols[4] stays zero: the terminator */

    struct lws_http_mount *m = h->mounts;
    m[0] = (struct lws_http_mount){.mountpoint = "/qr.svg", .origin = "http", .origin_protocol = LWSMPRO_CALLBACK,
                                   .mountpoint_len = 7};
    for (int i = 0; i < 2; i++) /* see hub_pages */
        m[1 + i] = (struct lws_http_mount){.mountpoint = hub_pages[i].mount, .origin = "http",
                                           .origin_protocol = LWSMPRO_CALLBACK,
                                           .mountpoint_len = (unsigned char)strlen(hub_pages[i].mount)};
    m[3] = (struct lws_http_mount){.mountpoint = "/", .origin = h->web_root, .def = "index.html",
                                   .origin_protocol = LWSMPRO_FILE, .mountpoint_len = 1, .cache_revalidate = 1,
                                   .cache_max_age = HUB_STATIC_MAX_AGE_S, .cache_reusable = 1};
    /* lws answers with "cache-control: must-revalidate, private, max-age=N" and
     * an ETag (size and mtime of the file), and If-None-Match with 304: a
     * reload costs the page's one conditional request, its scripts and style
     * come from the phone's cache (docs/SERVE.md, "Caching"). */
    m[0].mount_next = &m[1];
    m[1].mount_next = &m[2];
    m[2].mount_next = &m[3];

    h->ping_ms = 1000 * (cfg->ping_s > 0 ? cfg->ping_s : HUB_PING_S);
    h->idle_ms = 1000 * (cfg->idle_s > 0 ? cfg->idle_s : HUB_IDLE_S);

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = cfg->port;
    info.iface = cfg->bind_addr && cfg->bind_addr[0] ? cfg->bind_addr : NULL;
    info.protocols = h->protocols;
    info.mounts = h->mounts;
    info.headers = &nosniff_header;
    /* Without an explicit policy lws uses a default one whose timer is
     * re-sorted into a per-thread list on every message (O(connections)). */
    info.retry_and_idle_policy = &h->no_validity;
    info.user = h;
    info.options = LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE * 0;
    info.fd_limit_per_thread = 0; /* lws sizes its tables from the open-files limit (a smaller value here
                                   * would make it look descriptors up by a linear search) */
    info.timeout_secs_ah_idle = HUB_HTTP_HEADERS_S;
    info.keepalive_timeout = HUB_HTTP_IDLE_S;
    int tls = cfg->tls_cert && cfg->tls_cert[0] && cfg->tls_key && cfg->tls_key[0];
    if (tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cfg->tls_cert;
        info.ssl_private_key_filepath = cfg->tls_key;
        /* HTTP/1.1 only: lws 4.1.6 stalls the first HTTP/2 response of our
         * callback mount (/qr.svg) for 10-35 s; the pages gain nothing from h2. */
        info.alpn = "http/1.1";
    }
    if (!cfg->use_poll && ev_open(h) == 0) {
        info.options |= LWS_SERVER_OPTION_LIBEV;
        h->foreign_loops[0] = h->ev_loop;
        info.foreign_loops = h->foreign_loops;
        h->ctx = lws_create_context(&info);
        if (!h->ctx) { /* no plugin: fall back to poll */
            ev_close(h);
            info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBEV;
            info.foreign_loops = NULL;
        }
    }
    if (!h->ctx) h->ctx = lws_create_context(&info);
    if (!h->ctx) {
        fv_fail(err, errlen, "cannot listen on %s port %d%s (in use? privileged port? bad certificate?)",
             info.iface ? info.iface : "all addresses", cfg->port, tls ? " with TLS" : "");
        goto fail;
    }
    h->vhost = lws_get_vhost_by_name(h->ctx, "default");
    h->port = h->vhost ? lws_get_vhost_listen_port(h->vhost) : cfg->port;
    hub_fd_listening(h);

    char warn[256];
    hub_join_url_make(cfg->public_url, tls, h->port, room_code(room), h->join_url, sizeof h->join_url, warn,
                      sizeof warn);
    char *svg = hub_qr_svg(h->join_url, err, errlen);
    if (!svg) goto fail;
    h->qr_len = strlen(svg);
    h->qr_http = malloc(LWS_PRE + h->qr_len);
    if (!h->qr_http) {
        free(svg);
        fv_fail(err, errlen, "out of memory");
        goto fail;
    }
    memcpy(h->qr_http + LWS_PRE, svg, h->qr_len);
    free(svg);
    if (hub_build_views(h, hub_msg_state, h->state)) {
        fv_fail(err, errlen, "out of memory");
        goto fail;
    }
    if (h->ev_loop && kick_new(h)) {
        fv_fail(err, errlen, "libev lacks ev_timer_start/ev_timer_stop/ev_now_update");
        goto fail;
    }
    hub_keepalive_start(h);
    if (hub_store_start(h, err, errlen) || hub_prober_init(h, err, errlen)) goto fail;
    hub_status_update(h, warn[0] ? warn : NULL);
    return h;
fail:
    hub_free(h);
    return NULL;
}

/* One turn of the event loop, after making the next chunk of a state
 * fan-out writeable. wait: block until something happens (else return at
 * once). Returns -1 when lws's own loop fails. */
static int loop_turn(struct hub *h, int wait) {
    hub_fanout_pump(h);
    int rc = 0;
    if (h->ev_loop) {
        kick_arm(h);
        h->ev_run(h->ev_loop, wait ? HUB_EVRUN_ONCE : HUB_EVRUN_NOWAIT);
    } else
        rc = lws_service(h->ctx, wait ? 0 : -1) < 0 ? -1 : 0;
    hub_fd_shed(h); /* an accept that failed for want of a descriptor: drain the queue */
    return rc;
}

/* The quit flush's time is up, unless a state is still being fanned out
 * to a big room (250 phones a turn): that extends it, up to
 * HUB_QUIT_FLUSH_MAX_MS, looked at every HUB_ROTATION_MS. */
static void flush_tick(lws_sorted_usec_list_t *sul) {
    struct hub *h = hub_of_timer(sul, HUB_T_FLUSH);
    if (h->fo_head && hub_mono_ms() < h->flush_hard)
        hub_timer_in(h, HUB_T_FLUSH, flush_tick, HUB_ROTATION_MS);
    else {
        h->flushed = 1;
        hub_loop_wake(h);
    }
}

int hub_run(struct hub *h) {
    int rc = 0;
    while (rc == 0 && !atomic_load(&h->stop)) rc = loop_turn(h, 1);
    /* Votes still in the batch are committed (and acked) before we go, and
     * for a short while the loop keeps running so what was queued -- those
     * acks, the final "ended" state after a quit -- reaches the phones. */
    if (h->nops) hub_batch_flush(h);
    h->flush_hard = hub_mono_ms() + HUB_QUIT_FLUSH_MAX_MS;
    hub_timer_in(h, HUB_T_FLUSH, flush_tick, HUB_QUIT_FLUSH_MS);

    while (rc == 0 && !h->flushed) rc = loop_turn(h, 1);
    /* whatever is still collected or in flight is committed before we return */
    hub_batch_quiesce(h);
    if (h->nops) hub_batch_flush(h);
    hub_batch_quiesce(h);
    return rc;
}

void hub_free(struct hub *h) {
    if (!h) return;
    if (h->store && h->store_busy) hub_batch_quiesce(h);
    hub_store_stop(h); /* it calls lws_cancel_service: before the context goes */
    if (h->ctx) {
        for (int t = 0; t < HUB_TIMERS; t++) hub_timer_cancel(h, (enum hub_timer_id)t);
        lws_context_destroy(h->ctx);
    }
    kick_free(h);
    ev_close(h);
    hub_fd_close(h);
    hub_drop_views(h->tally);
    hub_drop_views(h->state);
    free(h->qr_http);
    free(h->ops);
    free(h->job);
    free(h->writes);
    hub_voters_free(&h->voters);
    hub_online_free(&h->newcomers);
    free(h->posted);
    free(h->draining);
    free(h->txbuf);
    free(h->guard);
    leaderboard_free(h->board);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

int hub_port(const struct hub *h) { return h->port; }
int hub_conn_cap(const struct hub *h) { return h->conn_cap; }
long hub_open_files(const struct hub *h) { return h->nofile; }
int hub_event_loop_is_libev(const struct hub *h) { return h->ev_loop != NULL; }
const char *hub_join_url(const struct hub *h) { return h->join_url; }
const char *hub_secret(const struct hub *h) { return h->secret; }
