/* The live hub's engine room (see hub.h): creating and destroying the hub
 * (the lws context), the loop (lws's poll, or libev: hub_ev.c), deadlines on
 * lws's scheduler (lws_sul_*, on the loop's thread), what other threads
 * post (hub_post) and the status they read (hub_snapshot), both through
 * the mailbox (hub_mailbox.c). Elsewhere: the
 * pages (hub_http.c), presenter actions and the voting timer (hub_action.c),
 * broadcasts (hub_tally.c), the wire side (hub_conn.c, hub_send.c), the
 * group commit (hub_batch.c, hub_store.c). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "fv_err.h"
#include "hub_internal.h"
#include "fv_clock.h"
#include "hub_batch.h"
#include "hub_conns.h"
#include "hub_guard.h"
#include "hub_mailbox.h"
#include "hub_msg.h"
#include "hub_prober.h"
#include "hub_send.h"
#include "hub_store.h"
#include "hub_tally.h"
#include "hub_ws.h"
#include "leaderboard.h"

/* ---- status for other threads ---- */

void hub_status_update(struct hub *h, const char *refused) {
    struct quiz *q = room_quiz(h->room);
    struct hub_status *s = hub_mailbox_lock(h->mb);
    s->port = h->port;
    s->cursor = quiz_cursor(q);
    s->nquestions = quiz_count(q);
    s->ended = quiz_ended(q);
    quiz_get(q, s->cursor, &s->current);
    struct quiz_truth t;
    int hidden = quiz_truth(q, s->cursor, &t);
    snprintf(s->truth, sizeof s->truth, "%s", hidden ? "" : probe_answer_name(t.answer));
    snprintf(s->basis, sizeof s->basis, "%s", hidden ? "" : probe_basis_name(t.basis));
    snprintf(s->why, sizeof s->why, "%s", hidden ? "" : t.why);
    snprintf(s->explain, sizeof s->explain, "%s", hidden ? "" : t.explain);
    snprintf(s->surprise, sizeof s->surprise, "%s", hidden ? "" : t.surprise);
    s->why_view = hub_why_shown(&h->act, s->cursor);
    hub_conns_status(h->conns, s);
    s->voters = room_voter_count(h->room);
    s->origin_refused = h->http.origin_refused;
    s->tally_version = hub_tally_version(h->bcast);
    s->collective = quiz_collective(q, NULL);
    unsigned long hits;
    room_measure_counts(h->room, &s->measure_asks, &hits);
    s->closes_in_ms = hub_mailbox_close_due(h->mb, hub_closes_in_ms(&h->act) >= 0 ? h->act.close_due : 0);
    s->acks = h->acklat.n;
    s->ack_p50_ms = hub_acklat_ms(&h->acklat, 0.5);
    s->ack_p99_ms = hub_acklat_ms(&h->acklat, 0.99);
    s->ack_max_ms = hub_acklat_ms(&h->acklat, 1);
    if (refused) {
        snprintf(s->last_error, sizeof s->last_error, "%s", refused);
        s->refused_total++;
    }
    struct hub_status copy = *s;
    hub_mailbox_unlock(h->mb);
    if (h->cfg.on_event) h->cfg.on_event(h->cfg.ctx, &copy);
}

/* Trouble of the hub's own that refused no command: its own slot (the
 * console shows it as a warning, and a scripted command is not taken as
 * refused by it). */
void hub_status_warn(struct hub *h, const char *why) {
    struct hub_status *s = hub_mailbox_lock(h->mb);
    snprintf(s->last_warning, sizeof s->last_warning, "%s", why);
    s->warnings_total++;
    hub_mailbox_unlock(h->mb);
    hub_status_update(h, NULL);
}

void hub_snapshot(struct hub *h, struct hub_status *out) {
    hub_mailbox_read(h->mb, out);
    out->phone_tallies = hub_tally_phone_count(h->bcast);
    /* counts that change with every connection: live, not as of the last tick */
    hub_conns_status_live(h->conns, out);
}

/* ---- deadlines ----
 * Every deadline of the hub is an lws_sorted_usec_list_t in struct hub on
 * lws's own scheduler, so its callback runs on the loop's thread like any
 * other lws callback: with lws's poll loop, lws_service() waits in poll()
 * no longer than the earliest of them. Under libev see hub_ev.c. */

#define hub_of_timer(sul, t) lws_container_of(sul, struct hub, timer[t])

void hub_timer_in(struct hub *h, enum hub_timer_id t, sul_cb_t cb, void *owner, long long ms) {
    h->timer_owner[t] = owner;
    lws_sul_schedule(h->ctx, 0, &h->timer[t], cb, (lws_usec_t)(ms > 0 ? ms : 0) * LWS_US_PER_MS);
}

/* lws runs the deadlines that are due before it waits in poll() (its poll
 * loop), so one that leaves work for hub_run's next turn (a fan-out begun,
 * the flush over) cuts that wait short, the way another thread would. */
void hub_loop_wake(struct hub *h) { lws_cancel_service(h->ctx); }

void *hub_timer_owner(lws_sorted_usec_list_t *sul, enum hub_timer_id t) { return hub_of_timer(sul, t)->timer_owner[t]; }

int hub_timer_armed(const struct hub *h, enum hub_timer_id t) { return h->timer[t].list.owner != NULL; }

void hub_timer_cancel(struct hub *h, enum hub_timer_id t) { lws_sul_cancel(&h->timer[t]); }

/* A command another thread posted: quit, or the presenter's (hub_action.c). */
static void run_posted(struct hub *h, const struct hub_cmd *c) {
    if (c->kind == HUB_CMD_QUIT) atomic_store(&h->stop, 1);
    else hub_action_posted(&h->act, c);
}

static void drain_posted(struct hub *h) {
    const struct hub_cmd *c;
    while ((c = hub_mailbox_take(h->mb))) run_posted(h, c);
}

int hub_post(struct hub *h, const struct hub_cmd *cmd) {
    if (hub_mailbox_post(h->mb, cmd)) return -1;
    lws_cancel_service(h->ctx);
    return 0;
}

void hub_stop(struct hub *h) {
    atomic_store(&h->stop, 1);
    lws_cancel_service(h->ctx);
}

/* A batch the store finished is answered and what collected meanwhile is
 * handed over at once: by the batch's zero-delay deadline it would wait
 * for the rest of the turn (a fan-out chunk, the reads) and the next one. */
static void next_batch(struct hub *h) {
    struct hub_batch *b = h->batch;
    if (hub_batch_busy(b) && hub_batch_complete(b, 0) == 0 && hub_batch_pending(b)) hub_batch_flush(b);
}

/* The hand-overs of other threads (hub_loop.h). */
void hub_loop_woken(struct hub *h) {
    next_batch(h); /* the store thread's batch is done? */
    drain_posted(h);
}

/* ---- lifecycle ---- */

/* 20 characters of 31 (99 bits): above the CLI_SECRET_MIN that serve asks
 * of a given secret. */
static int make_secret(char *out, size_t outlen) {
    static const char alphabet[] = "abcdefghjkmnpqrstuvwxyz23456789";
    unsigned char b[20];
    if (outlen < sizeof b + 1 || getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return -1;
    for (size_t i = 0; i < sizeof b; i++) out[i] = alphabet[b[i] % (sizeof alphabet - 1)];
    out[sizeof b] = 0;
    return 0;
}

/* The caps: descriptors, per-address tables and rates, the trusted
 * proxies, the presenter secret (given, or made). 0, or -1 with err. */
static int limits_init(struct hub *h, const struct hub_config *cfg, char *err, size_t errlen) {
    hub_fd_init(&h->fd, cfg->conn_max);
    if (!(h->conns = hub_conns_new(h->fd.conn_cap,
                                   cfg->ws_per_addr > 0 ? cfg->ws_per_addr : cfg->ws_per_addr < 0 ? 0 : HUB_WS_PER_ADDR,
                                   1000 * (cfg->ping_s > 0 ? cfg->ping_s : HUB_PING_S),
                                   1000 * (cfg->idle_s > 0 ? cfg->idle_s : HUB_IDLE_S)))) {
        fv_fail(err, errlen, "getrandom or memory failed making the hub's address tables");
        return -1;
    }
    /* hub_config: 0 the default, -1 no cap; the guard: negative the default, 0 no cap. */
    hub_guard_rates(h->guard, cfg->http_rate > 0 ? cfg->http_rate : cfg->http_rate < 0 ? 0 : -1,
                    cfg->voter_rate > 0 ? cfg->voter_rate : cfg->voter_rate < 0 ? 0 : -1);
    if (cfg->trust_proxy) h->proxy = *cfg->trust_proxy;
    if (cfg->secret && cfg->secret[0]) {
        if (strlen(cfg->secret) >= HUB_SECRET_MAX) {
            fv_fail(err, errlen, "presenter secret longer than %d characters", HUB_SECRET_MAX - 1);
            return -1;
        }
        snprintf(h->secret, sizeof h->secret, "%s", cfg->secret);
    } else if (make_secret(h->secret, sizeof h->secret)) {
        fv_fail(err, errlen, "getrandom failed making the presenter secret");
        return -1;
    }
    return 0;
}

/* lws's protocols: "http" (hub_http.c), then one websocket subprotocol per role (hub_conn.c). */
static void protocols_init(struct hub *h) {
    static const char *names[] = {"fragvote-audience", "fragvote-screen", "fragvote-presenter"};
    h->protocols[0] = (struct lws_protocols){"http", hub_http_callback, 0, 0, 0, h, 0};
    for (int i = 0; i < HUB_NROLES; i++)
        h->protocols[i + 1] = (struct lws_protocols){names[i], hub_ws_callback, hub_conn_size, HUB_RX_BUFFER,
                                                     (unsigned)i, h, HUB_TX_CHUNK};
    /* tx_packet_size 0 would cap every send() at rx_buffer_size (512 bytes
     * in lws 4.1.6): a 2 KB state message then took five passes over every
     * connection (found by tests/load with strace). */
    /* protocols[4] stays zero: the terminator */
}

static int tls_on(const struct hub_config *cfg) { return cfg->tls_cert && cfg->tls_cert_len && cfg->tls_key && cfg->tls_key_len; }

/* The lws context listening on cfg's address and port (libev's loop
 * when it loads, else lws's poll), and the port it got. 0, or -1 with err. */
static int context_create(struct hub *h, const struct hub_config *cfg, char *err, size_t errlen) {
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = cfg->port;
    info.iface = cfg->bind_addr && cfg->bind_addr[0] ? cfg->bind_addr : NULL;
    info.protocols = h->protocols;
    info.mounts = h->http.mounts;
    info.headers = &hub_http_headers;
    /* Without an explicit policy lws uses a default one whose timer is
     * re-sorted into a per-thread list on every message (O(connections)). */
    info.retry_and_idle_policy = &h->no_validity;
    info.user = &h->http;
    info.options = LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE * 0;
    /* lws 4.1.6 built with IPv6 listens on the IPv6 any-address (every
     * address, v4-mapped included) when iface is an IPv4 address: --bind
     * 127.0.0.1 answered on the host's public address too. An IPv4 socket
     * binds it as asked. */
    struct in_addr v4;
    if (info.iface && inet_pton(AF_INET, info.iface, &v4) == 1) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.fd_limit_per_thread = 0; /* lws sizes its tables from the open-files limit (a smaller value here
                                   * would make it look descriptors up by a linear search) */
    /* lws sends an HTTP write in pieces of its service buffer: at the 4 KB
     * default hub_static.c's one write of a 4.5 KB script went out as two
     * sends, of path.js as six (strace); at 32 KB every file of the web root
     * goes in one (issue 22's join storm). */
    info.pt_serv_buf_size = HUB_SERV_BUF;
    info.timeout_secs_ah_idle = HUB_HTTP_HEADERS_S;
    info.keepalive_timeout = HUB_HTTP_IDLE_S;
    int tls = tls_on(cfg);
    if (tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.server_ssl_cert_mem = cfg->tls_cert;
        info.server_ssl_cert_mem_len = (unsigned)cfg->tls_cert_len;
        info.server_ssl_private_key_mem = cfg->tls_key;
        info.server_ssl_private_key_mem_len = (unsigned)cfg->tls_key_len;
        /* HTTP/1.1 only: lws 4.1.6 stalls the first HTTP/2 response of our
         * callback mount (/qr.svg) for 10-35 s; the pages gain nothing from h2. */
        info.alpn = "http/1.1";
    }
    if (!cfg->use_poll && hub_ev_open(&h->ev) == 0) {
        info.options |= LWS_SERVER_OPTION_LIBEV;
        info.foreign_loops = h->ev.foreign_loops;
        h->ctx = lws_create_context(&info);
        if (!h->ctx) { /* no plugin: fall back to poll */
            hub_ev_close(&h->ev);
            info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBEV;
            info.foreign_loops = NULL;
        }
    }
    if (!h->ctx) h->ctx = lws_create_context(&info);
    if (!h->ctx) {
        fv_fail(err, errlen, "cannot listen on %s port %d%s (in use? privileged port? bad certificate?)",
             info.iface ? info.iface : "all addresses", cfg->port, tls ? " with TLS" : "");
        return -1;
    }
    h->vhost = lws_get_vhost_by_name(h->ctx, "default");
    h->port = h->vhost ? lws_get_vhost_listen_port(h->vhost) : cfg->port;
    hub_fd_listening(&h->fd, h->port);
    return 0;
}

/* The parts that need lws's context, each given the others it uses: the
 * broadcasts, the fan-out, the actions and the replay; the HTTP side gets
 * the broadcasts. Then the first state messages. 0, or -1 out of memory. */
static int parts_wire(struct hub *h, struct room *room) {
    if (!(h->fanout = hub_fanout_new(h->ctx)) ||
        !(h->bcast = hub_tally_new(h, room, h->conns, h->fanout, h->ctx, &h->protocols[1 + HUB_SCREEN],
                                   &h->protocols[1 + HUB_PRESENTER], h->cfg.audience_tallies_per_s)))
        return -1;
    hub_fanout_set_bcast(h->fanout, h->bcast);
    hub_http_set_bcast(&h->http, h->bcast);
    hub_actions_init(&h->act, h, room, h->batch, h->bcast);
    hub_replay_init(&h->replay, h, room, h->guard, h->bcast, h->batch);
    return hub_tally_start(h->bcast);
}

struct hub *hub_new(const struct hub_config *cfg, struct room *room, char *err, size_t errlen) {
    struct hub *h = calloc(1, sizeof *h);
    if (!h || !(h->mb = hub_mailbox_new()) || !(h->batch = hub_batch_new()) || !(h->txbuf = malloc(LWS_PRE + HUB_TX_CHUNK)) ||
        !(h->guard = hub_guard_new()) || (cfg->leaderboard && !(h->board = leaderboard_new()))) {
        if (h) {
            hub_mailbox_free(h->mb);
            hub_batch_free(h->batch);
            free(h->txbuf);
            hub_guard_free(h->guard);
        }
        free(h);
        if (cfg->web_dir > 0) close(cfg->web_dir);
        fv_fail(err, errlen, "out of memory starting the hub");
        return NULL;
    }
    h->cfg = *cfg;
    h->room = room;
    if (limits_init(h, cfg, err, errlen)) {
        if (cfg->web_dir > 0) close(cfg->web_dir);
        goto fail;
    }
    lws_set_log_level(LLL_ERR | LLL_WARN, hub_fd_lws_log);
    protocols_init(h);
    /* The HTTP side (lws's context user) is given what a request or an
     * upgrade is checked against before the context exists; the
     * broadcasts follow in parts_wire. */
    if (hub_http_init(&h->http, h, &h->fd, &h->proxy, h->guard, h->conns, room, &h->cfg,
                      h->protocols[1 + HUB_AUDIENCE].name, err, errlen))
        goto fail;
    if (context_create(h, cfg, err, errlen)) goto fail;
    char warn[256];
    hub_join_url_make(cfg->public_url, cfg->bind_addr, tls_on(cfg), h->port, room_code(room), h->join_url, sizeof h->join_url, warn,
                      sizeof warn);
    if (hub_http_qr(&h->http, h->join_url, err, errlen)) goto fail;
    if (parts_wire(h, room)) {
        fv_fail(err, errlen, "out of memory");
        goto fail;
    }
    if (h->ev.loop && hub_ev_kick_new(&h->ev, h->ctx, h->timer, HUB_TIMERS)) {
        fv_fail(err, errlen, "libev lacks ev_timer_start/ev_timer_stop/ev_now_update");
        goto fail;
    }
    hub_keepalive_start(h);
    char swarn[256];
    if (!(h->store = hub_store_start(room, h->ctx, swarn, sizeof swarn, err, errlen))) goto fail;
    hub_batch_init(h->batch, h, room, h->store, h->mb, h->conns, h->bcast, &h->acklat, h->board);
    if (swarn[0]) hub_status_warn(h, swarn);
    if (hub_prober_init(&h->remote, h, &h->cfg, &h->stop, room, h->mb, h->batch, h->bcast, &h->act, err, errlen))
        goto fail;
    if (warn[0]) hub_status_warn(h, warn);
    else hub_status_update(h, NULL);
    return h;
fail:
    hub_free(h);
    return NULL;
}

/* One turn of the event loop, after making the next chunk of a state
 * fan-out writeable. wait: block until something happens (else return at
 * once). Returns -1 when lws's own loop fails. */
static int loop_turn(struct hub *h, int wait) {
    /* A batch the store finished meanwhile is answered, and the next one
     * handed over, before this turn's chunk of a fan-out (250 writes). */
    next_batch(h);
    hub_fanout_pump(h->fanout);
    int rc = 0;
    if (h->ev.loop)
        hub_ev_turn(&h->ev, wait);
    else
        rc = lws_service(h->ctx, wait ? 0 : -1) < 0 ? -1 : 0;
    hub_fd_shed(&h->fd); /* an accept that failed for want of a descriptor: drain the queue */
    return rc;
}

/* The quit flush's time is up, unless a state is still being fanned out
 * to a big room (250 phones a turn): that extends it, up to
 * HUB_QUIT_FLUSH_MAX_MS, looked at every HUB_ROTATION_MS. */
static void flush_tick(lws_sorted_usec_list_t *sul) {
    struct hub *h = hub_timer_owner(sul, HUB_T_FLUSH);
    if (hub_fanout_busy(h->fanout) && fv_clock_ms() < h->flush_hard)
        hub_timer_in(h, HUB_T_FLUSH, flush_tick, h, HUB_ROTATION_MS);
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
    if (hub_batch_pending(h->batch)) hub_batch_flush(h->batch);
    h->flush_hard = fv_clock_ms() + HUB_QUIT_FLUSH_MAX_MS;
    hub_timer_in(h, HUB_T_FLUSH, flush_tick, h, HUB_QUIT_FLUSH_MS);

    while (rc == 0 && !h->flushed) rc = loop_turn(h, 1);
    /* whatever is still collected or in flight is committed before we return */
    hub_batch_quiesce(h->batch);
    if (hub_batch_pending(h->batch)) hub_batch_flush(h->batch);
    hub_batch_quiesce(h->batch);
    hub_status_update(h, NULL); /* hub_snapshot: as the loop ended, every ack counted */
    return rc;
}

void hub_free(struct hub *h) {
    if (!h) return;
    if (h->store && hub_batch_busy(h->batch)) hub_batch_quiesce(h->batch);
    hub_store_stop(h->store); /* it calls lws_cancel_service: before the context goes */
    h->store = NULL;
    if (h->ctx) {
        for (int t = 0; t < HUB_TIMERS; t++) hub_timer_cancel(h, (enum hub_timer_id)t);
        lws_context_destroy(h->ctx);
    }
    hub_ev_close(&h->ev);
    hub_fd_close(&h->fd);
    hub_tally_free(h->bcast);
    hub_fanout_free(h->fanout);
    hub_replay_free(&h->replay);
    hub_http_free(&h->http);
    hub_batch_free(h->batch);
    hub_conns_free(h->conns);
    hub_mailbox_free(h->mb);
    free(h->txbuf);
    hub_guard_free(h->guard);
    leaderboard_free(h->board);
    free(h);
}

int hub_port(const struct hub *h) { return h->port; }
int hub_conn_cap(const struct hub *h) { return h->fd.conn_cap; }
long hub_open_files(const struct hub *h) { return h->fd.nofile; }
int hub_event_loop_is_libev(const struct hub *h) { return h->ev.loop != NULL; }
const char *hub_join_url(const struct hub *h) { return h->join_url; }
const char *hub_secret(const struct hub *h) { return h->secret; }
