/* The remote prober (hub_prober.c; docs/PROTOCOL.md "The remote prober"). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_PROBER_H
#define FRAGVOTE_HUB_PROBER_H

#include <stdatomic.h>
#include <stddef.h>

#define HUB_PROBER_INSTANCE_MAX 128 /* an "instance" kept whole: the decoder's HUB_PARSE_STR_MAX (hub_prober.c) */

struct hub;
struct hub_actions;
struct hub_batch;
struct hub_broadcast;
struct hub_client_msg;
struct hub_config;
struct hub_conn;
struct hub_mailbox;
struct room;

/* The remote prober's state, embedded in struct hub (h->remote) and read or
 * written only by hub_prober.c; others ask hub_prober_connected. Given the
 * parts it uses (the fields up to conn) by hub_prober_init. */
struct hub_remote {
    struct hub *hub;               /* the loop: the status */
    const struct hub_config *cfg;  /* prober_remote; on_note and its ctx: the console's line */
    const atomic_int *stop;        /* the hub is stopping: no status, no state (the context is going) */
    struct room *room;
    struct hub_mailbox *mb;        /* the prober's line and whether one is connected, for the status */
    struct hub_batch *batch;       /* no batch in flight while a deck is adopted */
    struct hub_broadcast *bcast;   /* presenters see whether a prober is connected */
    struct hub_actions *act;       /* a result goes to the room as a local one (hub_measured) */
    struct hub_conn *conn;         /* the connection that is the room's prober now (at most one), NULL: none */
    char epoch[17];                /* this process's epoch (16 hex digits): rids restart with it */
    char instance[HUB_PROBER_INSTANCE_MAX + 1]; /* the current prober's "instance", "" none */
    unsigned long sent, results;   /* measure frames sent, results accepted */
};

/* r given the parts it uses, its epoch made, and, with cfg->prober_remote,
 * made the room's prober. 0, or -1 with err (getrandom failed). */
int hub_prober_init(struct hub_remote *r, struct hub *hub, const struct hub_config *cfg, const atomic_int *stop,
                    struct room *room, struct hub_mailbox *mb, struct hub_batch *batch, struct hub_broadcast *bcast,
                    struct hub_actions *act, char *err, size_t errlen);
void hub_prober_hello(struct hub_remote *r, struct hub_conn *c, const struct hub_client_msg *m);
void hub_prober_result(struct hub_remote *r, struct hub_conn *c, const struct hub_client_msg *m, size_t len);
void hub_prober_closed(struct hub_remote *r, struct hub_conn *c); /* c is closing */
int hub_prober_connected(const struct hub_remote *r); /* a remote prober is connected now */

#endif
