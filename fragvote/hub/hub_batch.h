/* The group commit (hub_batch.c), on the loop's thread. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_BATCH_H
#define FRAGVOTE_HUB_BATCH_H

#include "room.h"

#define HUB_BATCH_MAX 4096         /* operations per group commit before it is flushed early */

struct hub;
struct hub_acklat;
struct hub_broadcast;
struct hub_conn;
struct hub_conns;
struct hub_mailbox;
struct hub_store;
struct leaderboard;

enum hub_op_kind { HUB_OP_JOIN, HUB_OP_VOTE, HUB_OP_REPLAY }; /* replay: an answer to the self-paced replay */
struct hub_op {
    enum hub_op_kind kind;
    struct hub_conn *conn;         /* NULL once it closed */
    long long id;                  /* vote: the phone's id (0..HUB_ID_MAX), -1 none */
    int pos, yes;
    enum confidence conf;          /* vote: its confidence (CONFIDENCE_NONE: none) */
    int voter;                     /* vote: the voter index, -1 while its token has none (the batch makes it) */
    char token[ROOM_TOKEN_HEX + 1];
    int result;                    /* after the batch: voter index / 0 ok / 1 refused / -1 error */
    int wi;                        /* vote: its write in hub_batch.writes, -1 none (refused before) */
    char err[160];
    long long read_us;             /* when the hub read it (fv_clock_us) */
};

struct hub_batch; /* opaque: hub_batch.c's own */


struct hub_batch *hub_batch_new(void);          /* NULL: out of memory; hub_batch_init before use */
/* The parts the batch uses (store: its store thread, started), before its
 * first op. */
void hub_batch_init(struct hub_batch *b, struct hub *hub, struct room *room, struct hub_store *store,
                    struct hub_mailbox *mb, struct hub_conns *conns, struct hub_broadcast *bcast, struct hub_acklat *acklat,
                    struct leaderboard *board);
/* A join or vote of c for the next batch (zeroed but for kind and conn;
 * arms HUB_T_BATCH), or NULL out of memory. */
struct hub_op *hub_batch_add(struct hub_batch *b, struct hub_conn *c, enum hub_op_kind kind);
void hub_batch_forget(struct hub_batch *b, const struct hub_conn *c); /* c closed: its ops answer no one */
void hub_batch_flush(struct hub_batch *b);      /* group commit: plan the batch, hand it to the store thread */
/* The store thread's commit done? Then the acks. wait_ms: how long to wait
 * for it (0 not at all, -1 as long as it takes). 0 when no batch is in
 * flight any more, -1 when one still is. */
int hub_batch_complete(struct hub_batch *b, int wait_ms);
int hub_batch_quiesce(struct hub_batch *b);     /* no batch in flight on return (before the loop writes itself) */

int hub_batch_pending(const struct hub_batch *b); /* joins or votes are collected for the next batch */
int hub_batch_busy(const struct hub_batch *b);  /* a batch is with the store thread */
void hub_batch_free(struct hub_batch *b);       /* hub_free: the arrays and b (no batch in flight any more; NULL: nothing) */

#endif
