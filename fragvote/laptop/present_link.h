/* The laptop's one outbound websocket to a hosted hub (`fragvote present`):
 * libwebsockets' client, ws:// or wss://, subprotocol fragvote-presenter.
 *
 * present_link_run() runs the lws loop on the calling thread. It connects,
 * and when the connection drops (or was never made) it tries again after a
 * jittered exponential backoff (PRESENT_BACKOFF_*), for as long as it runs: a
 * lost link is normal (wifi blip, lid closed). A connection that shows no
 * frame for PRESENT_DEAD_MS is taken as lost (a cut link shows nothing at
 * all), so the link sends a ping every PRESENT_PING_MS.
 *
 * Nothing listens: the context has no server vhost (CONTEXT_PORT_NO_LISTEN).
 *
 * Callbacks run on the loop's thread; present_link_send() and
 * present_link_stop() may be called from any thread. */
#ifndef FRAGVOTE_PRESENT_LINK_H
#define FRAGVOTE_PRESENT_LINK_H

#include <stddef.h>
#include <stdint.h>

#define PRESENT_BACKOFF_FIRST_MS 250  /* first retry after about this long ... */
#define PRESENT_BACKOFF_MAX_MS 8000   /* ... doubling up to this, each between half and all of it at random */
#define PRESENT_PING_MS 2000          /* a ping this often while connected ... */
#define PRESENT_DEAD_MS 6000          /* ... and no frame at all for this long: the link is lost */
#define PRESENT_CONNECT_S 5           /* a connection attempt (TCP, TLS, upgrade) gives up after this long */
#define PRESENT_SENDQ_MAX 256         /* frames waiting to be written; more: refused */

struct present_url {
    int tls;                          /* wss:// or https:// */
    char host[256];                   /* name or address (IPv6 without brackets) */
    int port;                         /* default 80 / 443 */
    char path[256];                   /* "/" unless the URL has a path (the query is dropped) */
};
/* Parses ws://, wss://, http:// or https:// HOST[:PORT][/PATH][?QUERY] (the
 * hub's join URL works as it is). Returns 0, or -1 with err. Pure. */
int present_url_parse(const char *url, struct present_url *out, char *err, size_t errlen);
/* The wait before reconnect attempt `attempt` (1, 2, ...): PRESENT_BACKOFF_FIRST_MS
 * doubled per attempt up to PRESENT_BACKOFF_MAX_MS, scaled by 0.5 + rnd/2^33
 * (between half and all of it: never above the cap --help states). Pure. */
int present_backoff_ms(int attempt, uint32_t rnd);

struct present_link_config {
    struct present_url url;
    const char *ca_file;              /* wss: trust this PEM certificate / CA (self-signed hubs); NULL: the system's */
    const char *ca_pem;               /* the same, read already (present reads --ca before it drops root); NULL: ca_file */
    size_t ca_len;
    /* Connected (the websocket is open): queue the first frames (auth). */
    void (*on_up)(void *ctx);
    /* One whole text message. */
    void (*on_frame)(void *ctx, const char *text, size_t len);
    /* The connection dropped or an attempt failed: why, and the next try in ms. */
    void (*on_down)(void *ctx, const char *why, int next_ms);
    void *ctx;
};

struct present_link;

struct present_link *present_link_new(const struct present_link_config *cfg, char *err, size_t errlen);
/* Runs until present_link_stop(); returns 0, or -1 if the loop failed. */
int present_link_run(struct present_link *l);
/* Thread-safe: queues text (copied) to be sent on the current connection.
 * Returns 0, or -1 when there is no open connection or the queue is full
 * (nothing is kept for a later connection: the caller decides what to re-send). */
int present_link_send(struct present_link *l, const char *text);
/* Thread-safe: whether a connection is open now. */
int present_link_up(struct present_link *l);
/* Thread-safe: close the current connection (a protocol error); the link reconnects. */
void present_link_drop(struct present_link *l, const char *why);
/* Thread-safe: ends present_link_run(). */
void present_link_stop(struct present_link *l);
void present_link_free(struct present_link *l);

#endif
