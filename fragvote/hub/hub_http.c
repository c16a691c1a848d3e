/* The hub's HTTP side (hub_http.h): the pages and /qr.svg, every HTTP
 * request's throttle and checks, the headers of every answer, whether a
 * websocket upgrade may proceed (its Origin, hub_conns_admit). The
 * websockets themselves are hub_conn.c's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datadir.h"
#include "fv_err.h"
#include "fv_clock.h"
#include "hub.h"
#include "hub_conns.h"
#include "hub_fd.h"
#include "hub_guard.h"
#include "hub_http.h"
#include "hub_loop.h"
#include "hub_proxy.h"
#include "hub_tally.h"
#include "room.h"
#include "hub_origin.h"
#include "hub_static.h"

/* Every answer may differ by Accept-Encoding (hub_static.c): caches must key on it. */
static const struct lws_protocol_vhost_options vary_header = {NULL, NULL, "vary:", "Accept-Encoding"};
static const struct lws_protocol_vhost_options csp_header = {
    &vary_header, NULL, "content-security-policy:",
    "default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; style-src 'self'; script-src 'self'"};
const struct lws_protocol_vhost_options hub_http_headers = {&csp_header, NULL, "x-content-type-options:",
                                                                  "nosniff"};

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
#define HUB_PAGE_SCREEN 0 /* the one page other sites may frame, when --frame-ancestors names them */

/* The scripts each page loads, in one request each (hub_static.c's joins):
 * the names their <script src> give. */
static const char *const hub_joins[] = {"common,i18n,path,replay,phone.js", "common,i18n,path,screen.js",
                                        "common,i18n,path,presenter.js", NULL};

/* The page whose mount uri is ("/screen") or is below ("/screen/..."):
 * its index in hub_pages, or -1. */
static int http_page_of(const char *uri) {
    for (size_t i = 0; i < sizeof hub_pages / sizeof hub_pages[0]; i++) {
        size_t n = strlen(hub_pages[i].mount);
        if (!strncmp(uri, hub_pages[i].mount, n) && (uri[n] == '/' || !uri[n])) return (int)i;
    }
    return -1;
}

/* Answers a request under page i's mount: the bare mount redirects to the
 * path with its slash and no host (the browser keeps the one it asked; the
 * pages load "/style.css" and the scripts from the root anyway), the mount
 * with its slash is the page, anything else below it 404. Returns what
 * LWS_CALLBACK_HTTP returns. */
/* Answers status with Location: loc, a path without scheme or host (the
 * browser keeps the host it asked). Returns what LWS_CALLBACK_HTTP returns. */
static int http_redirect(struct lws *wsi, unsigned status, const char *loc) {
    unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
    if (lws_add_http_header_status(wsi, status, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_LOCATION, (const unsigned char *)loc, (int)strlen(loc), &p,
                                     end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, (const unsigned char *)"0", 1, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return 1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int http_page(const struct hub_http *x, struct lws *wsi, const char *uri, int i) {
    const char *rest = uri + strlen(hub_pages[i].mount);
    if (!rest[0]) {
        char loc[32];
        snprintf(loc, sizeof loc, "%s/", hub_pages[i].mount);
        return http_redirect(wsi, HTTP_STATUS_MOVED_PERMANENTLY, loc);
    }
    if (!strcmp(rest, "/"))
        return hub_static_answer(x->files, wsi, hub_pages[i].file, 0,
                                 i == HUB_PAGE_SCREEN && x->frame[0] ? x->frame : NULL);
    if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL)) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* An upgrade from a page of another site (hub_origin.h): answered 403 and
 * counted; the console hears of it at most once a second (lws itself logs
 * nothing for an upgrade refused here, unlike one refused later by
 * LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION). 1 refused. */
static int origin_refuse(struct hub_http *x, struct lws *wsi) {
    char origin[256] = "", host[256] = "";
    int olen = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
    if (olen <= 0) return 0; /* no Origin: not a browser page */
    int ok = olen < (int)sizeof origin && lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) > 0;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) < (int)sizeof host) lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
    if (ok && hub_origin_allowed(origin, host[0] ? host : NULL, x->public_url)) return 0;
    x->origin_refused++;
    hub_status_soon(x->bcast);
    long long now = fv_clock_coarse_ms();
    if (x->origin_refused == 1 || now - x->origin_warned_ms >= 1000) {
        char why[400];
        snprintf(why, sizeof why, "refused %lu websocket connection%s from another site's page (Origin: %.200s)",
                 x->origin_refused, x->origin_refused == 1 ? "" : "s", ok ? origin : "(too long)");
        x->origin_warned_ms = now;
        hub_status_warn(x->hub, why);
    }
    return lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, NULL) ? -1 : 1;
}

/* Whether a websocket upgrade to protocol (its subprotocol's name) may
 * proceed: hub_conns_admit's rule (issue 36, item 4). 0 admitted, 1
 * refused (counted in conns_refused). */
static int ws_admit(struct hub_http *x, struct lws *wsi, const char *protocol) {
    struct hub_peer peer = {0};
    int audience = !protocol || !strcmp(protocol, x->audience_protocol); /* [0] is "http" */
    if (audience) hub_proxy_peer(x->proxy, wsi, &peer);
    int rc = hub_conns_admit(x->conns, &peer, audience);
    if (rc) hub_status_soon(x->bcast); /* refused, or a silent phone evicted */
    return rc < 0;
}

int hub_http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    struct hub_http *x = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        /* Every accepted TCP connection, before lws adopts it (wsi is the
         * listening socket's): beyond the descriptor ceiling it is closed. */
        return x ? hub_fd_filter(x->fd, (int)(intptr_t)in) : 0;
    case LWS_CALLBACK_FILTER_HTTP_CONNECTION: {
        /* Every HTTP request (each one on a keep-alive connection too), before
         * lws looks for its mount; websocket upgrades do not come here. */
        struct hub_peer peer;
        if (!x) break;
        hub_proxy_peer(x->proxy, wsi, &peer);
        if (hub_guard_http_take(x->guard, &peer, fv_clock_coarse_ms())) {
            http_refuse(wsi);
            return 1;
        }
        return http_method_check(wsi);
    }
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: /* every websocket upgrade, before its protocol is chosen */
        if (!x) return 0;
        if (origin_refuse(x, wsi)) return 1;
        char proto[64] = "";
        if (lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL) < (int)sizeof proto)
            lws_hdr_copy(wsi, proto, sizeof proto, WSI_TOKEN_PROTOCOL);
        if (!ws_admit(x, wsi, proto[0] ? proto : NULL)) return 0;
        return lws_return_http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, NULL) ? -1 : 1; /* lws logs nothing */
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
        if (x) hub_loop_woken(x->hub);
        return 0;
    case LWS_CALLBACK_HTTP: {
        /* Every mount is a callback: /qr.svg, the pages', the web root's files. */
        if (!x) return 1;
        const char *uri = in ? (const char *)in : "";
        int page = http_page_of(uri);
        if (page >= 0) return http_page(x, wsi, uri, page);
        if (!strcmp(uri, HUB_REPLAY_LINK)) { /* the short link to this room's phone page and its replay */
            char loc[64];
            snprintf(loc, sizeof loc, "/?room=%s&replay=1", room_code(x->room));
            return http_redirect(wsi, HTTP_STATUS_FOUND, loc);
        }
        if (strcmp(uri, "/qr.svg")) return hub_static_answer(x->files, wsi, uri, 1, NULL);
        unsigned char buf[LWS_PRE + 512], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, "image/svg+xml", x->qr_len, &p, end) ||
            lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                        (const unsigned char *)"no-store", 8, &p, end) ||
            lws_finalize_write_http_header(wsi, start, &p, end))
            return 1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (!x || !x->qr_http) break;
        if (lws_write(wsi, x->qr_http + LWS_PRE, x->qr_len, LWS_WRITE_HTTP_FINAL) != (int)x->qr_len) return 1;
        if (lws_http_transaction_completed(wsi)) return -1;
        return 0;
    default: break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

int hub_web_dir_open(const char *web_root, char *path, size_t pathlen, char *err, size_t errlen) {
    if (web_root && web_root[0])
        snprintf(path, pathlen, "%s", web_root);
    else {
        char derr[256];
        if (datadir_path("web", path, pathlen, derr, sizeof derr)) {
            fv_fail(err, errlen, "%s: cannot locate the web pages; pass a web root", derr);
            return -1;
        }
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && fd < 3) { /* never 0..2, which a config's 0 and the standard streams take */
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        fd = hi;
    }
    if (fd < 0 || faccessat(fd, "index.html", R_OK, 0)) {
        fv_fail(err, errlen, "web pages not found: %s/index.html is missing or unreadable (install fragvote or pass a "
                "web root)", path);
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

int hub_http_init(struct hub_http *x, struct hub *hub, struct hub_fd *fd, struct hub_proxy *proxy,
                  struct hub_guard *guard, struct hub_conns *conns, struct room *room, const struct hub_config *cfg,
                  const char *audience_protocol, char *err, size_t errlen) {
    *x = (struct hub_http){.hub = hub, .fd = fd, .proxy = proxy, .guard = guard, .conns = conns, .room = room,
                           .public_url = cfg->public_url, .audience_protocol = audience_protocol};
    const char *web_root = cfg->web_root, *frame_ancestors = cfg->frame_ancestors;
    int web_dir = cfg->web_dir;
    char why[200];
    if (frame_ancestors && frame_ancestors[0] && hub_origin_frame_sources_check(frame_ancestors, why, sizeof why)) {
        fv_fail(err, errlen, "frame ancestors: %s", why);
        if (web_dir > 0) close(web_dir);
        return -1;
    }
    snprintf(x->frame, sizeof x->frame, "%s", frame_ancestors ? frame_ancestors : "");
    if (web_dir > 0)
        snprintf(x->web_root, sizeof x->web_root, "%s", web_root ? web_root : "");
    else if ((web_dir = hub_web_dir_open(web_root, x->web_root, sizeof x->web_root, err, errlen)) < 0)
        return -1;
    if (!(x->files = hub_static_new(web_dir, hub_joins))) {
        close(web_dir);
        fv_fail(err, errlen, "out of memory starting the hub");
        return -1;
    }
    struct lws_http_mount *m = x->mounts;
    m[0] = (struct lws_http_mount){.mountpoint = "/qr.svg", .origin = "http", .origin_protocol = LWSMPRO_CALLBACK,
                                   .mountpoint_len = 7};
    for (int i = 0; i < 2; i++) /* see hub_pages */
        m[1 + i] = (struct lws_http_mount){.mountpoint = hub_pages[i].mount, .origin = "http",
                                           .origin_protocol = LWSMPRO_CALLBACK,
                                           .mountpoint_len = (unsigned char)strlen(hub_pages[i].mount)};
    /* The web root's files: hub_static.c answers with "cache-control:
     * must-revalidate, private, max-age=N" and an ETag, and If-None-Match
     * with 304: a reload costs the page's one conditional request, its
     * scripts and style come from the phone's cache (docs/SERVE.md, "Caching"). */
    m[3] = (struct lws_http_mount){.mountpoint = "/", .origin = "http", .origin_protocol = LWSMPRO_CALLBACK,
                                   .mountpoint_len = 1};
    m[0].mount_next = &m[1];
    m[1].mount_next = &m[2];
    m[2].mount_next = &m[3];
    return 0;
}

void hub_http_set_bcast(struct hub_http *x, struct hub_broadcast *bcast) { x->bcast = bcast; }

int hub_http_qr(struct hub_http *x, const char *join_url, char *err, size_t errlen) {
    char *svg = hub_qr_svg(join_url, err, errlen);
    if (!svg) return -1;
    x->qr_len = strlen(svg);
    x->qr_http = malloc(LWS_PRE + x->qr_len);
    if (!x->qr_http) {
        free(svg);
        fv_fail(err, errlen, "out of memory");
        return -1;
    }
    memcpy(x->qr_http + LWS_PRE, svg, x->qr_len);
    free(svg);
    return 0;
}

void hub_http_free(struct hub_http *x) {
    free(x->qr_http);
    x->qr_http = NULL;
    hub_static_free(x->files);
    x->files = NULL;
}
