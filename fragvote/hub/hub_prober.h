/* The remote prober (hub_prober.c; docs/PROTOCOL.md "The remote prober"). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_PROBER_H
#define FRAGVOTE_HUB_PROBER_H

#include <stddef.h>

#include "hub_parse.h"

struct hub;
struct hub_conn;
struct hub_client_msg;

/* The remote prober's state, embedded in struct hub (h->remote) and read or
 * written only by hub_prober.c; others ask hub_prober_connected. */
struct hub_remote {
    struct hub_conn *conn;         /* the connection that is the room's prober now (at most one), NULL: none */
    char epoch[17];                /* this process's epoch (16 hex digits): rids restart with it */
    char instance[HUB_PARSE_STR_MAX + 1]; /* the current prober's "instance", "" none */
    unsigned long sent, results;   /* measure frames sent, results accepted */
};

int hub_prober_init(struct hub *h, char *err, size_t errlen); /* the epoch; the room's prober when remote */
void hub_prober_hello(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m);
void hub_prober_result(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m, size_t len);
void hub_prober_closed(struct hub *h, struct hub_conn *c); /* c is closing */
int hub_prober_connected(const struct hub *h); /* a remote prober is connected now */

#endif
