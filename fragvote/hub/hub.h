/* The live hub: one libwebsockets context serving the audience pages over
 * HTTP and three websocket protocols (audience, screen, presenter) that speak
 * the JSON protocol of docs/PROTOCOL.md.
 *
 * Threads: hub_run() runs the lws service loop on the calling thread; only
 * that thread touches lws, the room and the quiz. Other threads (console,
 * probe worker, signal handling) talk to it only through hub_post() and
 * hub_stop(), which queue work and wake the loop with lws_cancel_service(),
 * and read it through hub_snapshot(). */
#ifndef FRAGVOTE_HUB_H
#define FRAGVOTE_HUB_H

#include <stddef.h>

#include "deck.h"
#include "fragprobe.h"
#include "quiz.h"
#include "room.h"
#include "hub_control.h"

/* Caps on untrusted input (named, documented in docs/PROTOCOL.md). */
#define HUB_MSG_MAX 1024               /* bytes per client message; larger: closed (1009) */
#define HUB_MSG_RATE 20                /* frames per second per connection (token bucket; every frame the hub
                                        * sees: text, continuation, pong; a message in one frame is one) ... */
#define HUB_MSG_BURST 40               /* ... with this burst; beyond it: closed (1008) */
#define HUB_MSG_BYTES_PER_S 32768      /* bytes per second per websocket, every frame counted (pings, pongs,
                                        * empty frames: lws answers pings itself, so the hub counts the
                                        * socket's bytes, TCP_INFO, at each keepalive sweep) ... */
#define HUB_MSG_BYTES_BURST 65536      /* ... with this burst; beyond it: closed at once */
#define HUB_PROBER_RESULT_MAX 16384    /* bytes of one result message; larger: error bad_result */
#define HUB_PROBER_BYTES_PER_S 65536   /* an authed presenter connection's byte budget ... */
#define HUB_PROBER_BYTES_BURST 262144  /* ... and its burst (instead of HUB_MSG_BYTES_PER_S / _BURST) */
#define HUB_CONN_MAX 19990             /* websocket connections per room (all protocols), or fewer when the
                                        * open-files limit is lower: see HUB_FD_SPARE */
#define HUB_WS_PER_ADDR 3000           /* audience websockets per source address (IPv6: per /64), beyond
                                        * which one host's upgrades are refused: a venue NATing 2,000 phones
                                        * behind one address stays under it (serve --ws-per-address) */
#define HUB_CONN_RESERVE 32            /* of the room's websockets, this many only screens and presenter
                                        * pages may take (an eighth of a smaller room) */
#define HUB_FD_SPARE 48                /* descriptors never used for connections: the database, the lab and
                                        * probe sockets, page files being sent, stdio; lws stops accepting
                                        * when its own reach the open-files limit minus this ... */
#define HUB_FD_HTTP_ROOM 16            /* ... and websockets stop this many earlier, so pages still load */
#define HUB_NOFILE_MAX 65536           /* the open-files soft limit serve sets itself: the hard limit, at most
                                        * this (lws 4.1.6 scans a table this long at every close) */
#define HUB_STATIC_FILES 32            /* files of the web root kept in memory (hub_static.c) at most ... */
#define HUB_STATIC_FILE_MAX 1048576    /* ... each of at most this many bytes; a larger or further one is 404 */
#define HUB_STATIC_RECHECK_MS 1000     /* a file kept in memory is looked at on disk again at most this often */
#define HUB_STATIC_JOIN_MAX 8          /* parts of a joined script ("common,path,phone.js") at most */
#define HUB_HTTP_HEADERS_S 10          /* a request's headers must be complete this long after it began */
#define HUB_HTTP_IDLE_S 5              /* a keep-alive HTTP connection waits this long for its next request */
#define HUB_FIRST_FRAME_S 10           /* a websocket must send a frame (a message, or the pong to the ping
                                        * it gets on connecting) this soon, or it is closed */
#define HUB_LOG_LINES 10               /* libwebsockets' log lines printed per HUB_LOG_INTERVAL_S ... */
#define HUB_LOG_INTERVAL_S 10          /* ... the rest counted and reported once per interval */
#define HUB_RESUME_RATE 2              /* hellos with one identity (token) per second ... */
#define HUB_RESUME_BURST 20            /* ... with this burst (a phone reloading, waking, changing network);
                                        * beyond it: closed 1013, the page retries later (each resume is a
                                        * read of the store and a state sent: 300 in 158 ms were all served) */
#define HUB_REPLAY_LINK "/r"           /* the short link: 302 to /?room=CODE&replay=1 (the phone page, its replay) */
#define HUB_REPLAY_ASKS 3              /* replay messages (the whole session, shared) sent per phone connection */
#define HUB_RTT_RELAY_RATE 2           /* phones' round-trip reports (rtt) relayed to the presenters per second,
                                        * room-wide (token bucket) ... */
#define HUB_RTT_RELAY_BURST 10         /* ... with this burst; beyond it: error throttled, nothing relayed (a
                                        * room of phones cannot flood the presenter's queue) */
#define HUB_SECRET_FAILS 5             /* bad presenter secrets per connection before it is closed */
#define HUB_SECRET_DELAY_MS 1000       /* per source address, at most one wrong secret compared per this many ms */
#define HUB_SECRET_ROOM_RATE 20        /* and room-wide at most this many per second (burst as many), except
                                        * from the laptop itself (a connection from its own address) ... */
#define HUB_SECRET_LONG 16             /* ... and except attempts this long (serve's shortest secret,
                                        * CLI_SECRET_MIN): compared per address and per IPv6 /64 only, so
                                        * `present` on a laptop behind a proxy gets in while others guess (a
                                        * guess this long cannot match a shorter secret, and a random one of
                                        * this length is out of reach at any rate the per-address limit allows) */
#define HUB_HTTP_RATE 200              /* HTTP requests (pages, /qr.svg; not websocket upgrades) per second per
                                        * source address (token bucket; the laptop itself is not capped) ... */
#define HUB_HTTP_BURST 1000            /* ... with this burst; beyond it: 429 and the connection closed */
#define HUB_STATIC_MAX_AGE_S 3600      /* the phone page, its scripts and style may be kept this long (ETag after) */
#define HUB_STATE_DEBOUNCE_MS 1000     /* nickname changes after the end reach the final board within this long,
                                        * as one state for all of them (10 voters x 10 changes re-sent the 2.7 KB
                                        * state to every phone 100 times: 270 MB to 1,000 phones in a second) */
#define HUB_TALLY_HZ 10                /* tally ticks per second (connections coming and going, the console's
                                        * status); screens also get one after every commit that stored something */
#define HUB_AUDIENCE_SENDS_PER_S 25000 /* tally sends per second to phones, in steps of HUB_ROTATION_MS (250
                                        * a step): 19,990 phones each get the newest count within 0.8 s */
#define HUB_AUDIENCE_IDLE_SENDS_PER_S 5000 /* ... at most this many while no question is open (the lobby: 19,900
                                        * phones see who is online within 4 s; rooms up to 5,000 within 1 s) */
#define HUB_ROTATION_MS 10             /* the phones' rotation takes a step this often while a round runs */
#define HUB_PHONE_TALLY_HZ 10          /* ... and a round over the room takes at least 1 / this many s */
#define HUB_SWEEP_STEP_MS 10           /* the keepalive sweep visits a slice of the connections this often */
#define HUB_STORE_BUSY_MS 5000        /* the store thread waits this long for a database another process
                                        * holds locked, then the batch is refused (error "storage") */
#define HUB_BATCH_MS 5                 /* group commit: collect votes this long, then one transaction */
#define HUB_IDLE_S 60                  /* a connection silent this long (no pong either) is closed */
#define HUB_PING_S 25                  /* ping period */
#define HUB_POST_MAX 256               /* queued commands from other threads */
#define HUB_QUIT_FLUSH_MS 300          /* after quit/stop, keep sending what is queued this long ... */
#define HUB_QUIT_FLUSH_MAX_MS 3000     /* ... or longer while a state is still going out to phones */

/* The trusted reverse proxies (serve --trust-proxy), a value of the
 * config (hub_config.trust_proxy points at one; hub_new copies it): the
 * networks whose X-Forwarded-For names the client for the per-address
 * throttles. Serve's option parsing fills one with hub_proxy_add; the hub
 * reads the header with it (hub_proxy.c). */
#define HUB_PROXY_MAX 16               /* trusted proxy networks (--trust-proxy entries) */
#define HUB_PROXY_SPEC_MAX 64          /* one ADDR[/BITS] entry */

struct hub_proxy_net {
    unsigned char addr[16];            /* IPv6, IPv4 as ::ffff:a.b.c.d; bits beyond the prefix zero */
    int bits;                          /* prefix length in the 128-bit form (IPv4 /24 is 120) */
};

struct hub_proxy {
    int n;                             /* 0: no proxy trusted, the header is never read */
    struct hub_proxy_net net[HUB_PROXY_MAX];
};

/* Adds the trusted proxies in spec to p: a comma-separated list of IPv4 or
 * IPv6 addresses, each with an optional /BITS (CIDR). Returns 0, or -1 with
 * a sentence in err (p keeps the entries before the bad one). */
int hub_proxy_add(struct hub_proxy *p, const char *spec, char *err, size_t errlen);

struct hub_config {
    const char *bind_addr;             /* NULL or "": all addresses */
    int port;                          /* 0: a free port the kernel picks (see hub_port) */
    const char *web_root;              /* NULL: <dir of binary>/../share/fragvote/web */
    int web_dir;                       /* > 0: web_root's directory, opened by hub_web_dir_open before a
                                        * drop of privileges (serve from a root shell: nobody may not
                                        * reach a build tree in root's home); hub_new takes it over,
                                        * also when it fails. 0: hub_new opens web_root itself */
    const char *public_url;            /* join URL override (reverse proxy, DNS name); NULL: derived */
    const char *frame_ancestors;       /* the sites whose pages may frame the projector's page (serve
                                        * --frame-ancestors, hub_origin_frame_sources_check; copied);
                                        * NULL or "": none. The phone's and presenter's never */
    const char *secret;                /* presenter secret; NULL: a random one (hub_secret) */
    int live_split;                    /* 1: show the yes/no split while voting */
    const char *lang;                  /* serve --lang: the projector's and presenter page's language
                                        * (a deck_lang_ok tag); NULL or "": the deck's, else English */
    const void *tls_cert, *tls_key;    /* both set: HTTPS/WSS, the certificate chain and its key as PEM in
                                        * memory (serve reads the files before it drops root) */
    size_t tls_cert_len, tls_key_len;
    int use_poll;                      /* 1: lws's poll() loop. 0: the libev event-lib plugin (epoll),
                                        * falling back to poll when it is missing. Measured with 8,000
                                        * phones joining and voting: poll 67 CPU-s, libev 5.9 CPU-s */
    int ping_s, idle_s;                /* keepalive: ping after ping_s idle, close after idle_s; 0: HUB_PING_S/HUB_IDLE_S */
    int conn_max;                      /* websocket cap; 0: HUB_CONN_MAX (tests use a small one) */
    int ws_per_addr;                   /* audience websockets per address; 0: HUB_WS_PER_ADDR, -1: no cap */
    int audience_tallies_per_s;        /* tally sends per second to phones; 0: HUB_AUDIENCE_SENDS_PER_S */
    int http_rate;                     /* HTTP requests/s per source address (burst 5x); 0: HUB_HTTP_RATE,
                                        * -1: no cap (a reverse proxy on another host is one address) */
    const struct hub_proxy *trust_proxy; /* NULL or none: X-Forwarded-For is never read; else the
                                        * reverse proxies whose X-Forwarded-For names the client for
                                        * the per-address throttles (struct hub_proxy above; copied) */
    int leaderboard;                   /* 1: phones may pick a nickname; the final state lists the top
                                        * LEADERBOARD_TOP (fragvote/room/leaderboard.h). 0: nicknames are
                                        * refused and appear in no frame */
    int voters_max;                    /* voters the room accepts; 0: ROOM_VOTERS_MAX (tests use a small one).
                                        * The last 1/HUB_VOTER_RESERVE_DIV of them is the reserve */
    int voter_rate;                    /* new voters/s per source address (burst HUB_VOTER_BURST);
                                        * 0: HUB_VOTER_RATE, -1: no cap */
    int prober_remote;                 /* 1: serve --prober remote: no probe runs here; the room's prober is
                                        * a laptop's connection (hub_prober.c, docs/PROTOCOL.md) */
    /* Called on the lws thread with a line for the console (the remote
     * prober connecting, leaving, taken over); must not block. NULL: none. */
    void (*on_note)(void *ctx, const char *line);
    /* Called on the lws thread for an authed presenter's `export` once the
     * talk has ended: the session's export in format ("json", "csv",
     * "markdown", "md", "svg") as a malloc'd string in *out. 0, or -1 with
     * err. NULL: exports are refused. */
    int (*export_session)(void *ctx, const char *format, char **out, char *err, size_t errlen);
    /* Called on the lws thread after every change (state, counts, errors);
     * must not block (copy what you need and signal your own thread). */
    void (*on_event)(void *ctx, const struct hub_status *st);
    void *ctx;
};

struct hub;

/* Creates the context and starts listening (the port is bound on return).
 * The hub uses room but does not own it; measurements go to the room's
 * prober (room_set_prober; without one, measure and rerun are refused).
 * Returns NULL with err filled. */
struct hub *hub_new(const struct hub_config *cfg, struct room *room, char *err, size_t errlen);
/* Runs the service loop on the calling thread until hub_stop() or a QUIT
 * command; returns 0, or -1 if the loop failed. */
int hub_run(struct hub *h);
/* Thread-safe, async-signal-unsafe: asks hub_run() to return. */
void hub_stop(struct hub *h);
/* Thread-safe: queues cmd (copied). Returns 0, or -1 if the queue is full. */
int hub_post(struct hub *h, const struct hub_cmd *cmd);
/* Thread-safe copy of the current status. */
void hub_snapshot(struct hub *h, struct hub_status *out);
void hub_free(struct hub *h);          /* after hub_run() returned */

int hub_port(const struct hub *h);             /* the bound port */
int hub_conn_cap(const struct hub *h);         /* websockets accepted at most (HUB_CONN_MAX, conn_max, or
                                                * fewer under a low open-files limit) */
long hub_open_files(const struct hub *h);      /* the open-files limit it was derived from */
int hub_event_loop_is_libev(const struct hub *h); /* 1: libev (epoll), 0: lws's poll loop */
const char *hub_join_url(const struct hub *h); /* e.g. http://192.168.1.20:8080/?room=K7QX2M */
const char *hub_secret(const struct hub *h);   /* the presenter secret */

/* The join URL for a port: public_url (with ?room= added) if set; else
 * scheme://ADDR:port/?room=CODE where ADDR is the address serve listens on
 * (bind_addr: --bind, an IPv6 one in brackets) when it is one address, else
 * that of the interface with the default route. A loopback address, or
 * 127.0.0.1 when there is no default route, comes with a warning in err
 * (phones cannot reach it). */
int hub_join_url_make(const char *public_url, const char *bind_addr, int tls, int port, const char *code, char *out,
                      size_t outlen, char *err, size_t errlen);
/* An SVG (malloc'd, caller frees) of the QR code of text; NULL with err. */
char *hub_qr_svg(const char *text, char *err, size_t errlen);
/* The pages' directory, web_root (NULL or "": next to the binary, whose
 * path goes into path), opened for struct hub_config's web_dir: a
 * descriptor >= 3 whose index.html is readable, or -1 with err. */
int hub_web_dir_open(const char *web_root, char *path, size_t pathlen, char *err, size_t errlen);

#endif
