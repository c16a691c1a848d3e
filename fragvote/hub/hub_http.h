/* The hub's HTTP side (hub_http.c): the pages (static files, the screen's
 * and the presenter's page, /qr.svg), the headers every answer carries, the
 * per-address request throttle and what is refused (methods, bodies,
 * CONNECT). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_HTTP_H
#define FRAGVOTE_HUB_HTTP_H

#include <libwebsockets.h>
#include <stddef.h>

#include "hub_origin.h"

struct hub;
struct hub_broadcast;
struct hub_config;
struct hub_conns;
struct hub_fd;
struct hub_guard;
struct hub_proxy;
struct room;

/* The pages and what an HTTP request or an upgrade is checked against:
 * lws's context user. Given the parts (hub ... audience_protocol) by
 * hub_http_init, the broadcasts by hub_http_set_bcast. */
struct hub_http {
    struct hub *hub;               /* the loop: woken by other threads (hub_loop_woken), the status's warnings */
    struct hub_fd *fd;             /* every accepted TCP connection: the descriptors' ceiling */
    struct hub_proxy *proxy;       /* trusted reverse proxies: the client's address */
    struct hub_guard *guard;       /* the per-address HTTP request throttle */
    struct hub_conns *conns;       /* an upgrade's admission (hub_conns_admit) */
    struct hub_broadcast *bcast;   /* a refusal counted: the status at the next tick (hub_status_soon) */
    struct room *room;             /* its code, for the replay's short link */
    const char *public_url;        /* hub_config.public_url: whose Origin may open a websocket */
    const char *audience_protocol; /* the phones' websocket subprotocol's name */
    unsigned long origin_refused;  /* upgrades refused for another site's Origin (hub_origin.h) */
    long long origin_warned_ms;    /* when the console was last told of them (at most once a second) */
    char web_root[4096];           /* the pages' directory */
    struct lws_http_mount mounts[4]; /* /qr.svg, /screen, /presenter, / (all callbacks) */
    unsigned char *qr_http;        /* LWS_PRE + qr_len bytes: the join URL's QR code as SVG, ready for lws_write */
    size_t qr_len;
    struct hub_static *files;      /* the web root's files, answered from memory (hub_static.c) */
    char frame[HUB_FRAME_SOURCES_MAX + 1]; /* who may frame the projector's page (CSP frame-ancestors); "": nobody */
};

/* The headers of every answer (content-security-policy, nosniff): lws's info.headers. */
extern const struct lws_protocol_vhost_options hub_http_headers;

/* x given the parts a request or an upgrade is checked against: the hub
 * (the loop, the status), the open-files budget, the trusted proxies, the
 * throttles, the connections (admission), the room, cfg's public_url and
 * the phones' subprotocol's name; and the pages mounted: cfg's web_dir
 * (> 0) the directory hub_web_dir_open opened (taken over, also on
 * failure; web_root then only names it), else it opens web_root (NULL or
 * "": next to the binary) itself; frame_ancestors (NULL or "": none): the
 * sites that may frame the projector's page (hub_origin.h). 0, or -1 with
 * err. */
int hub_http_init(struct hub_http *x, struct hub *hub, struct hub_fd *fd, struct hub_proxy *proxy,
                  struct hub_guard *guard, struct hub_conns *conns, struct room *room, const struct hub_config *cfg,
                  const char *audience_protocol, char *err, size_t errlen);
/* ... and the broadcasts (a refusal counted: hub_status_soon), made after
 * lws's context, which x already serves. */
void hub_http_set_bcast(struct hub_http *x, struct hub_broadcast *bcast);
/* /qr.svg's body: the QR code of join_url. 0, or -1 with err. */
int hub_http_qr(struct hub_http *x, const char *join_url, char *err, size_t errlen);
void hub_http_free(struct hub_http *x);
/* The "http" protocol's callback (lws's context user is the struct hub_http). */
int hub_http_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif
