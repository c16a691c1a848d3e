/* The websocket protocols' entry points (hub_conn.c), for hub.c, which
 * gives them to lws and starts the keepalive; struct hub_conn itself is in
 * hub_conn.h. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_WS_H
#define FRAGVOTE_HUB_WS_H

#include <libwebsockets.h>
#include <stddef.h>

#define HUB_RX_BUFFER 512          /* lws receive buffer per connection; longer messages arrive in pieces */

struct hub;

extern const size_t hub_conn_size;             /* lws's per-connection memory: one struct hub_conn */
void hub_keepalive_start(struct hub *h);        /* the keepalive sweep every second (HUB_T_SWEEP) */
int hub_ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif
