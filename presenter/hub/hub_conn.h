/* The wire side, receiving (hub_conn.c): connections, caps, client messages, keepalive. Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_CONN_H
#define FRAGVOTE_HUB_CONN_H

#include <libwebsockets.h>

struct hub;

int hub_conn_total(const struct hub *h);        /* open websockets of every role */
void hub_keepalive_start(struct hub *h);        /* the keepalive sweep every second (HUB_T_SWEEP) */
int hub_ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

#endif
