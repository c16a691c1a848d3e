/* The laptop's websocket to a hosted hub (see present_link.h). */
#include <libwebsockets.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "fv_err.h"
#include "fv_clock.h"
#include "fv_queue.h"
#include "present_frame.h"
#include "present_link.h"

#define PRESENT_RX_BUFFER 4096

enum link_state { LINK_WAITING, LINK_CONNECTING, LINK_UP };

struct present_link {
    struct present_link_config cfg;
    struct lws_context *ctx;
    struct lws_protocols protocols[2];
    lws_retry_bo_t no_validity;   /* all zero: the link keeps its own liveness (ping / PRESENT_DEAD_MS) */
    lws_sorted_usec_list_t sul_connect, sul_ping;
    char host_header[300];
    /* the loop's own */
    struct lws *wsi;              /* the current connection (NULL between attempts) */
    enum link_state state;
    int attempt;                  /* failed attempts since a connection was last open for long */
    double up_since_ms;
    double last_rx_ms;
    char *rx;
    size_t rxlen;
    /* shared with other threads: frames to send (open while a connection is
     * up: nothing waits for a later one), and under mu the rest */
    struct fv_queue *sendq;       /* struct frame */
    pthread_mutex_t mu;
    int stop, drop;
    char drop_why[128];
};

struct frame {
    unsigned char *buf;           /* LWS_PRE + text */
    size_t len;                   /* of the text */
};

int present_url_parse(const char *url, struct present_url *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    static const struct {
        const char *scheme;
        int tls;
    } schemes[] = {{"ws://", 0}, {"wss://", 1}, {"http://", 0}, {"https://", 1}};
    const char *p = NULL;
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0] && !p; i++)
        if (!strncasecmp(url, schemes[i].scheme, strlen(schemes[i].scheme))) {
            p = url + strlen(schemes[i].scheme);
            out->tls = schemes[i].tls;
        }
    if (!p) {
        snprintf(err, errlen, "the hub's URL must start with ws://, wss://, http:// or https://, not '%.64s'", url);
        return -1;
    }
    size_t hlen;
    const char *rest;
    if (*p == '[') {
        const char *e = strchr(p, ']');
        if (!e) {
            snprintf(err, errlen, "'%.64s': an IPv6 address needs its closing ']'", url);
            return -1;
        }
        hlen = (size_t)(e - p - 1);
        memcpy(out->host, p + 1, hlen < sizeof out->host ? hlen : 0);
        rest = e + 1;
    } else {
        hlen = strcspn(p, ":/?#");
        if (hlen < sizeof out->host) memcpy(out->host, p, hlen);
        rest = p + hlen;
    }
    if (hlen == 0 || hlen >= sizeof out->host) {
        snprintf(err, errlen, "'%.64s': no host, or a host longer than %zu bytes", url, sizeof out->host - 1);
        return -1;
    }
    /* a name or an address: no user@, no spaces, nothing a Host header must not carry */
    if (strspn(out->host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:") != hlen) {
        snprintf(err, errlen, "'%.64s': the host may hold letters, digits, '-', '.' (IPv6 in [ ])", url);
        return -1;
    }
    out->port = out->tls ? 443 : 80;
    if (*rest == ':') {
        char *end;
        long port = strtol(rest + 1, &end, 10);
        if (end == rest + 1 || port < 1 || port > 65535 || (*end && !strchr("/?#", *end))) {
            snprintf(err, errlen, "'%.64s': the port must be 1..65535", url);
            return -1;
        }
        out->port = (int)port;
        rest = end;
    } else if (*rest && !strchr("/?#", *rest)) {
        snprintf(err, errlen, "'%.64s': unexpected '%c' after the host", url, *rest);
        return -1;
    }
    size_t plen = *rest == '/' ? strcspn(rest, "?#") : 0;
    if (plen >= sizeof out->path) {
        snprintf(err, errlen, "'%.64s': the path is longer than %zu bytes", url, sizeof out->path - 1);
        return -1;
    }
    if (plen) memcpy(out->path, rest, plen);
    else snprintf(out->path, sizeof out->path, "/");
    return 0;
}

int present_backoff_ms(int attempt, uint32_t rnd) {
    double ms = PRESENT_BACKOFF_FIRST_MS;
    for (int i = 1; i < attempt && ms < PRESENT_BACKOFF_MAX_MS; i++) ms *= 2;
    if (ms > PRESENT_BACKOFF_MAX_MS) ms = PRESENT_BACKOFF_MAX_MS;
    return (int)(ms * (0.5 + (double)rnd / 8589934592.0));
}

/* ---- the send queue (any thread) ---- */

static void frame_drop(void *item) { free(((struct frame *)item)->buf); }

int present_link_send(struct present_link *l, const char *text) {
    struct frame f = {.len = strlen(text)};
    f.buf = malloc(LWS_PRE + f.len);
    if (!f.buf) return -1;
    memcpy(f.buf + LWS_PRE, text, f.len);
    if (fv_queue_push(l->sendq, &f)) { /* no connection, or full */
        free(f.buf);
        return -1;
    }
    lws_cancel_service(l->ctx);
    return 0;
}

int present_link_up(struct present_link *l) { return fv_queue_is_open(l->sendq); }

void present_link_drop(struct present_link *l, const char *why) {
    pthread_mutex_lock(&l->mu);
    l->drop = 1;
    snprintf(l->drop_why, sizeof l->drop_why, "%s", why);
    pthread_mutex_unlock(&l->mu);
    lws_cancel_service(l->ctx);
}

void present_link_stop(struct present_link *l) {
    pthread_mutex_lock(&l->mu);
    l->stop = 1;
    pthread_mutex_unlock(&l->mu);
    lws_cancel_service(l->ctx);
}

/* ---- the loop's side ---- */

static void connect_now(lws_sorted_usec_list_t *sul);

/* The current connection is gone (or an attempt failed): forget it, and try
 * again after the backoff. */
static void link_gone(struct present_link *l, const char *why) {
    /* A connection that lived a while starts the backoff afresh; one the hub
     * ends at once (a refusal) keeps doubling it, so nobody is hammered. */
    if (l->state == LINK_UP && fv_clock_ms_frac() - l->up_since_ms >= PRESENT_BACKOFF_MAX_MS) l->attempt = 0;
    fv_queue_close(l->sendq, 1);
    pthread_mutex_lock(&l->mu);
    l->drop = 0;
    int stop = l->stop;
    pthread_mutex_unlock(&l->mu);
    l->wsi = NULL;
    l->state = LINK_WAITING;
    free(l->rx);
    l->rx = NULL;
    l->rxlen = 0;
    lws_sul_cancel(&l->sul_ping);
    if (stop) return;
    uint32_t rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) rnd = (uint32_t)fv_clock_ms_frac();
    int next = present_backoff_ms(++l->attempt, rnd);
    lws_sul_schedule(l->ctx, 0, &l->sul_connect, connect_now, (lws_usec_t)next * 1000);
    if (l->cfg.on_down) l->cfg.on_down(l->cfg.ctx, why, next);
}

/* Ends the current connection from the loop (no more callbacks of it count). */
static void link_kill(struct present_link *l, const char *why) {
    struct lws *w = l->wsi;
    link_gone(l, why);
    if (w) lws_set_timeout(w, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
}

static void ping_tick(lws_sorted_usec_list_t *sul) {
    struct present_link *l = lws_container_of(sul, struct present_link, sul_ping);
    if (l->state != LINK_UP) return;
    if (fv_clock_ms_frac() - l->last_rx_ms > PRESENT_DEAD_MS) {
        char why[96];
        snprintf(why, sizeof why, "no frame from the hub for %d s", PRESENT_DEAD_MS / 1000);
        link_kill(l, why);
        return;
    }
    present_link_send(l, "{\"t\":\"ping\"}");
    lws_sul_schedule(l->ctx, 0, &l->sul_ping, ping_tick, (lws_usec_t)PRESENT_PING_MS * 1000);
}

static void connect_now(lws_sorted_usec_list_t *sul) {
    struct present_link *l = lws_container_of(sul, struct present_link, sul_connect);
    if (l->state != LINK_WAITING) return;
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = l->ctx;
    ci.address = l->cfg.url.host;
    ci.port = l->cfg.url.port;
    ci.path = l->cfg.url.path;
    ci.host = l->host_header;
    ci.origin = l->host_header;
    ci.protocol = "fragvote-presenter";
    ci.ssl_connection = l->cfg.url.tls ? LCCSCF_USE_SSL : 0;
    ci.retry_and_idle_policy = &l->no_validity;
    ci.pwsi = &l->wsi;
    ci.opaque_user_data = l;
    l->state = LINK_CONNECTING;
    if (!lws_client_connect_via_info(&ci) && l->state == LINK_CONNECTING) link_gone(l, "cannot start a connection");
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    (void)user;
    struct present_link *l = lws_context_user(lws_get_context(wsi));
    if (!l) return 0;
    switch (reason) {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        pthread_mutex_lock(&l->mu);
        int drop = l->drop, pending = fv_queue_count(l->sendq);
        char why[128];
        snprintf(why, sizeof why, "%s", l->drop_why);
        pthread_mutex_unlock(&l->mu);
        if (l->state == LINK_UP && drop) link_kill(l, why);
        else if (l->state == LINK_UP && pending && l->wsi) lws_callback_on_writable(l->wsi);
        break;
    }
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if (wsi != l->wsi) return -1;
        l->state = LINK_UP;
        l->last_rx_ms = l->up_since_ms = fv_clock_ms_frac();
        pthread_mutex_lock(&l->mu);
        l->drop = 0;
        pthread_mutex_unlock(&l->mu);
        fv_queue_open(l->sendq);
        lws_sul_schedule(l->ctx, 0, &l->sul_ping, ping_tick, (lws_usec_t)PRESENT_PING_MS * 1000);
        if (l->cfg.on_up) l->cfg.on_up(l->cfg.ctx);
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        if (wsi == l->wsi || l->state == LINK_CONNECTING) {
            char why[200];
            snprintf(why, sizeof why, "%s", in && len ? (const char *)in : "connection failed");
            why[len < sizeof why ? len : sizeof why - 1] = 0;
            link_gone(l, why);
        }
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (wsi == l->wsi) link_gone(l, "the hub closed the connection");
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        if (wsi != l->wsi) return -1;
        l->last_rx_ms = fv_clock_ms_frac();
        if (lws_frame_is_binary(wsi)) {
            link_kill(l, "the hub sent a binary frame");
            return -1;
        }
        int final = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
        if (l->rxlen + len > PRESENT_FRAME_MAX) {
            link_kill(l, "the hub sent a frame larger than the laptop accepts");
            return -1;
        }
        char *nb = realloc(l->rx, l->rxlen + len + 1);
        if (!nb) return -1;
        l->rx = nb;
        memcpy(l->rx + l->rxlen, in, len);
        l->rxlen += len;
        l->rx[l->rxlen] = 0;
        if (final) {
            char *msg = l->rx;
            size_t mlen = l->rxlen;
            l->rx = NULL;
            l->rxlen = 0;
            if (l->cfg.on_frame) l->cfg.on_frame(l->cfg.ctx, msg, mlen);
            free(msg);
        }
        break;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (wsi != l->wsi) return -1;
        struct frame f;
        if (fv_queue_pop(l->sendq, &f)) {
            int n = lws_write(wsi, f.buf + LWS_PRE, f.len, LWS_WRITE_TEXT);
            free(f.buf);
            if (n < (int)f.len) {
                link_kill(l, "writing to the hub failed");
                return -1;
            }
        }
        if (fv_queue_count(l->sendq)) lws_callback_on_writable(wsi);
        break;
    }
    default: break;
    }
    return 0;
}

struct present_link *present_link_new(const struct present_link_config *cfg, char *err, size_t errlen) {
    struct present_link *l = fv_zalloc(sizeof *l, err, errlen);
    if (!l) return NULL;
    l->cfg = *cfg;
    l->sendq = fv_queue_new(sizeof(struct frame), PRESENT_SENDQ_MAX, frame_drop, err, errlen);
    if (!l->sendq) {
        free(l);
        return NULL;
    }
    fv_queue_close(l->sendq, 1); /* until a connection is up */
    pthread_mutex_init(&l->mu, NULL);
    int dflt = cfg->url.port == (cfg->url.tls ? 443 : 80);
    int v6 = strchr(cfg->url.host, ':') != NULL;
    if (dflt)
        snprintf(l->host_header, sizeof l->host_header, v6 ? "[%s]" : "%s", cfg->url.host);
    else
        snprintf(l->host_header, sizeof l->host_header, v6 ? "[%s]:%d" : "%s:%d", cfg->url.host, cfg->url.port);
    l->protocols[0] = (struct lws_protocols){"fragvote-presenter", callback, 0, PRESENT_RX_BUFFER, 0, NULL, 0};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN; /* the laptop listens on nothing */
    info.protocols = l->protocols;
    info.user = l;
    info.gid = -1;
    info.uid = -1;
    info.timeout_secs = PRESENT_CONNECT_S;
    info.connect_timeout_secs = PRESENT_CONNECT_S;
    info.retry_and_idle_policy = &l->no_validity;
    if (cfg->url.tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.client_ssl_ca_filepath = cfg->ca_pem ? NULL : cfg->ca_file;
        info.client_ssl_ca_mem = cfg->ca_pem;
        info.client_ssl_ca_mem_len = (unsigned)cfg->ca_len;
    }
    lws_set_log_level(LLL_ERR, NULL);
    l->ctx = lws_create_context(&info);
    if (!l->ctx) {
        snprintf(err, errlen, "cannot create the websocket client context%s", cfg->ca_file ? " (is --ca a PEM file?)" : "");
        pthread_mutex_destroy(&l->mu);
        fv_queue_free(l->sendq);
        free(l);
        return NULL;
    }
    return l;
}

int present_link_run(struct present_link *l) {
    l->state = LINK_WAITING;
    lws_sul_schedule(l->ctx, 0, &l->sul_connect, connect_now, 1);
    for (;;) {
        pthread_mutex_lock(&l->mu);
        int stop = l->stop;
        pthread_mutex_unlock(&l->mu);
        if (stop) break;
        if (lws_service(l->ctx, 0) < 0) return -1;
    }
    return 0;
}

void present_link_free(struct present_link *l) {
    if (!l) return;
    lws_context_destroy(l->ctx);
    fv_queue_free(l->sendq);
    free(l->rx);
    pthread_mutex_destroy(&l->mu);
    free(l);
}
