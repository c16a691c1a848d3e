/* One websocket connection (struct hub_conn), seen only by the files that
 * read or write a connection's fields: hub_conn.c (receiving: caps, client
 * messages, the lws callback), hub_conns.c, hub_send.c, hub_tally.c and
 * hub_batch.c; others ask hub_conns.h's hub_conn_* functions. lws's entry
 * points are in hub_ws.h. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_CONN_H
#define FRAGVOTE_HUB_CONN_H

#include <libwebsockets.h>

#include "hub_conns.h"
#include "hub_guard.h"
#include "leaderboard.h"
#include "room.h"
#include "room_view.h"

#define HUB_CONN_QUEUE 32          /* messages waiting per connection; a client that lags more is closed */
#define HUB_CLOSE_TRY_AGAIN_LATER 1013 /* RFC 6455 7.4.1 (IANA): lws 4.1.6 names no such status */

struct hub_fanout;
struct hub_msg;

struct hub_conn {
    struct lws *wsi;
    struct hub_fanout *fanout;     /* the fan-out list it may join (hub_send.c) */
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
    int bad_secrets;
    int asks[HUB_ASKS];            /* phone: replay messages sent to it (HUB_REPLAY_ASKS), round-trip
                                    * reports relayed to the presenters (one per connection) */
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
    int addr_counted;              /* audience: counted in hub_conns.addrs (hub_addrs_take), put back at close */
    int in_rx;                     /* its message is being handled (hub_send.c writes to it only at a writeable then) */
    int closing;                   /* our close frame handed to lws, or the peer's close came: nothing more is written */
    char close_reason[64];
    struct hub_conn *prev, *next;  /* all open connections (hub_conns.head) */
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

#endif
