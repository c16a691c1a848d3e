/* Internals shared by fragvote/hub*.c; not for other components. */
#ifndef FRAGVOTE_HUB_INTERNAL_H
#define FRAGVOTE_HUB_INTERNAL_H

#include <libwebsockets.h>
#include <stdatomic.h>

#include "hub.h"
#include "hub_action.h"
#include "hub_acklat.h"
#include "hub_ev.h"
#include "hub_fd.h"
#include "hub_http.h"
#include "hub_loop.h"
#include "hub_prober.h"
#include "hub_replay.h"
#include "hub_rtt.h"

#define HUB_SECRET_MAX 128
#define HUB_SERV_BUF 32768         /* lws's service buffer: an HTTP write goes out in sends of at most this */

struct hub_batch;
struct hub_broadcast;
struct hub_conns;
struct hub_fanout;
struct hub_guard;
struct hub_mailbox;
struct hub_store;
struct leaderboard;
struct room;

struct hub {
    struct hub_config cfg;
    char secret[HUB_SECRET_MAX];
    char join_url[512];
    struct hub_http http;          /* the pages, /qr.svg, the checks of requests and upgrades (hub_http.c) */
    struct room *room;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    int port;
    struct lws_protocols protocols[5];
    lws_retry_bo_t no_validity;    /* all zero: lws keeps no per-connection validity timer */
    struct hub_actions act;        /* the voting timer (hub_action.c) */
    atomic_int stop;
    struct hub_ev ev;              /* libev's loop, or ev.loop NULL: lws's poll loop (hub_ev.c) */
    int running;

    struct hub_fd fd;              /* the open-files budget (hub_fd.c) */

    struct hub_conns *conns;       /* the connections, who is online (hub_conns.c) */

    struct hub_batch *batch;       /* the group commit (hub_batch.c) */
    struct hub_acklat acklat;      /* vote read -> ack written (hub_acklat.c) */
    struct hub_store *store;       /* its store thread (hub_store.c) */

    /* broadcast */
    struct hub_fanout *fanout;     /* a state change's fan-out to phones (hub_send.c) */
    struct hub_broadcast *bcast;   /* state and tally messages, the phones' rotation (hub_tally.c) */
    unsigned char *txbuf;          /* LWS_PRE + HUB_TX_CHUNK: one fragment being written (lws thread) */
    struct hub_guard *guard;       /* per-address throttles: secret guesses, HTTP requests */
    struct hub_proxy proxy;        /* trusted reverse proxies (cfg.trust_proxy's copy; n 0: none) */
    struct leaderboard *board;     /* nicknames, only with cfg.leaderboard (else NULL) */

    /* Deadlines, on lws's scheduler (lws_sul_*), run by the loop's thread:
     * see hub_timer_in. Armed: lws_sul's list has an owner. */
    lws_sorted_usec_list_t timer[HUB_TIMERS];
    void *timer_owner[HUB_TIMERS]; /* the part each was armed for (hub_timer_owner) */
    int flushed;                   /* hub_run's quit flush is over (HUB_T_FLUSH) */
    long long flush_hard;          /* ... and ends by this monotonic ms whatever is still going out */

    struct hub_remote remote;      /* the remote prober (hub_prober.c, cfg.prober_remote) */
    struct hub_replay replay;      /* the self-paced replay's shared message (hub_replay.c) */
    struct hub_rtt rtt;            /* phones' round-trip reports: the relay's bucket (hub_rtt.c) */

    struct hub_mailbox *mb;        /* from other threads: posted commands, the status (hub_mailbox.c) */
};

#endif
