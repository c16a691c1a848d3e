/* Internals shared by presenter/hub*.c; not for other components. */
#ifndef FRAGVOTE_HUB_INTERNAL_H
#define FRAGVOTE_HUB_INTERNAL_H

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>

#include "hub.h"
#include "hub_action.h"
#include "hub_acklat.h"
#include "hub_addrs.h"
#include "hub_batch.h"
#include "fv_clock.h"
#include "hub_ev.h"
#include "hub_fd.h"
#include "hub_guard.h"
#include "hub_http.h"
#include "hub_online.h"
#include "leaderboard.h"
#include "hub_parse.h"
#include "hub_prober.h"
#include "hub_proxy.h"
#include "hub_send.h"
#include "hub_tally.h"
#include "room_view.h"

#define HUB_PROTOCOL_VERSION 1
#define HUB_CONN_QUEUE 32          /* messages waiting per connection; a client that lags more is closed */
#define HUB_RX_BUFFER 512          /* lws receive buffer per connection; longer messages arrive in pieces */
#define HUB_BATCH_MAX 4096         /* operations per group commit before it is flushed early */
#define HUB_SECRET_MAX 128
#define HUB_TX_CHUNK 4096          /* larger messages go out as fragments of this size, one per writeable */
#define HUB_SERV_BUF 32768         /* lws's service buffer: an HTTP write goes out in sends of at most this */
#define HUB_FANOUT_CHUNK 250       /* a state change reaches this many phones per loop iteration, so votes
                                    * arriving meanwhile are read and acked between chunks */

/* The hub's deadlines: one lws_sorted_usec_list_t each in struct hub. */
enum hub_timer_id {
    HUB_T_BATCH,                   /* the group commit's batch is due (hub_batch.c) */
    HUB_T_TALLY,                   /* the next tally tick (HUB_TALLY_HZ) */
    HUB_T_ROTATION,                /* the phones' tally rotation's next step (HUB_ROTATION_MS) */
    HUB_T_CLOSE,                   /* the voting timer closes the question (close_due) */
    HUB_T_SWEEP,                   /* the keepalive sweep (hub_conn.c) */
    HUB_T_FLUSH,                   /* hub_run's quit flush ends (HUB_QUIT_FLUSH_MS) */
    HUB_T_STATE,                   /* a debounced state change goes out (hub_state_soon) */
    HUB_TIMERS
};

enum hub_role { HUB_AUDIENCE, HUB_SCREEN, HUB_PRESENTER, HUB_NROLES };

/* A serialized message shared by every connection that sends it. */
struct hub_msg {
    int refs;
    int is_state;                  /* a state: a newer one queued for a connection replaces it there */
    size_t len;
    unsigned char buf[];           /* LWS_PRE bytes of headroom, then len bytes */
};

struct hub_conn {
    struct lws *wsi;
    struct hub *hub;
    enum hub_role role;
    int voter;                     /* room voter index; -1 until its token has voted once */
    char token[ROOM_TOKEN_HEX + 1]; /* after the welcome: its token ("" before) */
    struct hub_peer peer;          /* the client's address for the throttles (hub_proxy_peer at ESTABLISHED) */
    int joining;                   /* a join is in the current batch */
    int new_voter_ok;              /* the per-address new-voter cap let its first vote through */
    char nick[LEADERBOARD_NICK_MAX + 1]; /* a nickname picked before its first vote (no voter to keep it
                                    * yet): given to the voter the first vote makes, "" none */
    int nick_sets;                 /* nicknames picked on this connection before that */
    int authed;                    /* presenter: secret accepted */
    int follow;                    /* screen: the question its hello named ("q"): its states are about it;
                                    * -1 the current question */
    int prober;                    /* the room's remote prober (hub_prober.c; at most one: hub.remote.conn) */
    int bad_secrets;
    struct hub_msg *q[HUB_CONN_QUEUE];
    unsigned char qhead, qlen;
    unsigned q_off;                /* bytes of the head message already sent (fragmented sends) */
    unsigned long tally_sent;      /* version of the last tally sent */
    int tally_turn;                /* phone: the rotation reached it; send the newest tally */
    double tokens;                 /* rate-cap bucket */
    long long last_ms;             /* rate cap bucket's last refill */
    long long last_rx_ms;          /* anything heard from the peer (message or pong) */
    long long opened_ms;           /* when the websocket was established */
    int heard;                     /* a frame came (message or pong): HUB_FIRST_FRAME_S no longer applies */
    unsigned long long rx_bytes;   /* the socket's bytes received at the last sweep (TCP_INFO) */
    double byte_tokens;            /* HUB_MSG_BYTES_PER_S bucket, refilled at each sweep */
    long long bytes_ms;
    int want_ping;
    unsigned char *rx;             /* message being reassembled (only when fragmented) */
    size_t rxlen;
    int close_code;                /* != 0: close at the next writeable */
    int addr_counted;              /* audience: counted in hub.addrs (hub_addrs_take), put back at close */
    int in_rx;                     /* its message is being handled (hub_send.c writes to it only at a writeable then) */
    int closing;                   /* our close frame handed to lws, or the peer's close came: nothing more is written */
    char close_reason[64];
    struct hub_conn *prev, *next;  /* all open connections */
    int deferred;                  /* in the fan-out list: has queued messages, writeable not yet asked */
    struct hub_conn *fo_prev, *fo_next;
};

/* Which of the room's viewers c is (what it may see is the room's rule,
 * room_view.h): a presenter connection is the presenter only once its
 * secret was accepted. */
static inline enum room_viewer hub_conn_viewer(const struct hub_conn *c) {
    return c->role == HUB_AUDIENCE ? ROOM_VIEWER_PHONE
         : c->role == HUB_SCREEN   ? ROOM_VIEWER_SCREEN
         : c->authed               ? ROOM_VIEWER_PRESENTER
                                   : ROOM_VIEWER_GUEST;
}

struct hub {
    struct hub_config cfg;
    char secret[HUB_SECRET_MAX];
    char join_url[512];
    struct hub_http http;          /* the pages, /qr.svg (hub_http.c) */
    struct room *room;
    struct lws_context *ctx;
    struct lws_vhost *vhost;
    int port;
    struct lws_protocols protocols[5];
    lws_retry_bo_t no_validity;    /* all zero: lws keeps no per-connection validity timer */
    int ping_ms, idle_ms;          /* keepalive, see HUB_PING_S / HUB_IDLE_S */
    struct hub_actions act;        /* the voting timer (hub_action.c) */
    atomic_int stop;
    struct hub_ev ev;              /* libev's loop, or ev.loop NULL: lws's poll loop (hub_ev.c) */
    int running;

    struct hub_fd fd;              /* the open-files budget (hub_fd.c) */

    /* connections */
    struct hub_conn *conns;
    struct hub_conn *sweep_next;   /* the keepalive sweep's cursor (NULL: the next step starts a round) */
    atomic_int n_role[HUB_NROLES]; /* open websockets per role; hub_snapshot reads them live */
    struct hub_online newcomers;   /* tokens welcomed on an open connection that have not voted */
    unsigned long tokens_minted;   /* fresh tokens issued by hello */
    unsigned long voters_refused;  /* first votes refused by the per-address new-voter cap */
    unsigned long origin_refused;  /* upgrades refused for another site's Origin (hub_origin.h) */
    long long origin_warned_ms;    /* when the console was last told of them (at most once a second) */
    struct hub_addrs addrs;        /* open audience websockets per address (hub_addrs.c) */
    unsigned long conns_refused;   /* upgrades refused: the address's share, or the room full */
    unsigned long resumes_refused; /* hellos refused: one identity reconnecting too often (HUB_RESUME_RATE) */
    unsigned long conns_evicted;   /* phones that never said hello closed to make room */
    struct hub_voters voters;      /* per voter index its open connections (a phone back after a
                                    * wifi blip, or a second tab, while the old one lingers; hub_online.h) */

    struct hub_batch batch;        /* the group commit (hub_batch.c) */
    struct hub_acklat acklat;      /* vote read -> ack written (hub_acklat.c) */
    struct hub_store *store;       /* its store thread (hub_store.c) */

    /* broadcast */
    struct hub_fanout fanout;      /* a state change's fan-out to phones (hub_send.c) */
    struct hub_broadcast bcast;    /* state and tally messages, the phones' rotation (hub_tally.c) */
    unsigned char *txbuf;          /* LWS_PRE + HUB_TX_CHUNK: one fragment being written (lws thread) */
    struct hub_guard *guard;       /* per-address throttles: secret guesses, HTTP requests */
    struct hub_proxy proxy;        /* trusted reverse proxies (cfg.trust_proxy's copy; n 0: none) */
    struct leaderboard *board;     /* nicknames, only with cfg.leaderboard (else NULL) */

    /* Deadlines, on lws's scheduler (lws_sul_*), run by the loop's thread:
     * see hub_timer_in. Armed: lws_sul's list has an owner. */
    lws_sorted_usec_list_t timer[HUB_TIMERS];
    int flushed;                   /* hub_run's quit flush is over (HUB_T_FLUSH) */
    long long flush_hard;          /* ... and ends by this monotonic ms whatever is still going out */

    struct hub_remote remote;      /* the remote prober (hub_prober.c, cfg.prober_remote) */

    /* from other threads */
    pthread_mutex_t lock;
    struct hub_cmd *posted;        /* ring of HUB_POST_MAX */
    struct hub_cmd *draining;      /* lws thread: the command being run */
    int post_head, post_len;
    struct hub_status status;      /* copy for hub_snapshot, under lock */
    long long status_close_due;    /* under lock: close_due while it applies to the current question, else 0 */
};

/* hub.c: the engine room (lws thread unless said otherwise) */
/* Deadlines (lws thread only): cb runs on the loop in ms milliseconds (0:
 * at its next turn); arming an armed one moves it. */
void hub_timer_in(struct hub *h, enum hub_timer_id t, sul_cb_t cb, long long ms);
int hub_timer_armed(const struct hub *h, enum hub_timer_id t);
void hub_loop_wake(struct hub *h);              /* end the loop's current wait (work for loop_turn) */
/* Another thread called lws_cancel_service (hub_post, hub_stop, the store
 * thread's commit): the hand-overs, on the loop's thread. */
void hub_loop_woken(struct hub *h);
void hub_timer_cancel(struct hub *h, enum hub_timer_id t);
#define hub_of_timer(sul, t) lws_container_of(sul, struct hub, timer[t])
void hub_status_update(struct hub *h, const char *refused); /* refresh the snapshot, tell serve */
void hub_status_warn(struct hub *h, const char *why);        /* a warning (struct hub_status last_warning), then the same */

#endif
