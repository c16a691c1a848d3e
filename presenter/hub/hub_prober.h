/* The remote prober (hub_prober.c; docs/PROTOCOL.md "The remote prober"). Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_PROBER_H
#define FRAGVOTE_HUB_PROBER_H

#include <stddef.h>

struct hub;
struct hub_conn;
struct hub_client_msg;

int hub_prober_init(struct hub *h, char *err, size_t errlen); /* the epoch; the room's prober when remote */
void hub_prober_hello(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m);
void hub_prober_result(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m, size_t len);
void hub_prober_closed(struct hub *h, struct hub_conn *c); /* c is closing */

#endif
