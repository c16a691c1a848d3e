/* The group commit (hub_batch.c), on the loop's thread. Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_BATCH_H
#define FRAGVOTE_HUB_BATCH_H

#include "room.h"

struct hub;
struct hub_conn;

enum hub_op_kind { HUB_OP_JOIN, HUB_OP_VOTE };
struct hub_op {
    enum hub_op_kind kind;
    struct hub_conn *conn;         /* NULL once it closed */
    long long id;                  /* vote: the phone's id (0..HUB_ID_MAX), -1 none */
    int pos, yes;
    int voter;                     /* vote: the voter index, -1 while its token has none (the batch makes it) */
    char token[ROOM_TOKEN_HEX + 1];
    int result;                    /* after the batch: voter index / 0 ok / 1 refused / -1 error */
    int wi;                        /* vote: its write in hub.writes, -1 none (refused before) */
    char err[160];
};

/* A join or vote of c for the next batch (zeroed but for kind and conn;
 * arms HUB_T_BATCH), or NULL out of memory. */
struct hub_op *hub_batch_add(struct hub *h, struct hub_conn *c, enum hub_op_kind kind);
void hub_batch_forget(struct hub *h, const struct hub_conn *c); /* c closed: its ops answer no one */
void hub_batch_flush(struct hub *h);            /* group commit: plan the batch, hand it to the store thread */
/* The store thread's commit done? Then the acks. wait_ms: how long to wait
 * for it (0 not at all, -1 as long as it takes). 0 when no batch is in
 * flight any more, -1 when one still is. */
int hub_batch_complete(struct hub *h, int wait_ms);
int hub_batch_quiesce(struct hub *h);           /* no batch in flight on return (before the loop writes itself) */

#endif
