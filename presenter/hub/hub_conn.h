/* The wire side, receiving (hub_conn.c): connections, caps, client messages, keepalive. Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_CONN_H
#define FRAGVOTE_HUB_CONN_H

#include <libwebsockets.h>

struct hub;

int hub_conn_total(const struct hub *h);        /* open websockets of every role */
/* Whether a websocket upgrade to protocol (its subprotocol's name) may
 * proceed (issue 36, item 4): a phone only within its address's share
 * (hub_addrs, HUB_WS_PER_ADDR) and below the HUB_CONN_RESERVE places kept
 * for screens and presenter pages; anyone while the room has a place, or
 * one a phone that never said hello gives up (it is closed with 1013).
 * 0 admitted, 1 refused (counted in conns_refused). */
int hub_conn_admit(struct hub *h, struct lws *wsi, const char *protocol);
void hub_keepalive_start(struct hub *h);        /* the keepalive sweep every second (HUB_T_SWEEP) */
int hub_ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif
