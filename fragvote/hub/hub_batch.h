/* The group commit (hub_batch.c), on the loop's thread. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_BATCH_H
#define FRAGVOTE_HUB_BATCH_H

#include <stddef.h>

#include "confidence.h"

#define HUB_BATCH_MAX 4096         /* operations per group commit before it is flushed early */

struct hub;
struct hub_acklat;
struct hub_broadcast;
struct hub_conn;
struct hub_conns;
struct hub_mailbox;
struct hub_store;
struct leaderboard;
struct room;

struct hub_batch; /* opaque: hub_batch.c's own */


struct hub_batch *hub_batch_new(void);          /* NULL: out of memory; hub_batch_init before use */
/* The parts the batch uses (store: its store thread, started), before its
 * first op. */
void hub_batch_init(struct hub_batch *b, struct hub *hub, struct room *room, struct hub_store *store,
                    struct hub_mailbox *mb, struct hub_conns *conns, struct hub_broadcast *bcast, struct hub_acklat *acklat,
                    struct leaderboard *board);
/* Joins, votes and replay answers of c for the next batch (each arms
 * HUB_T_BATCH). A join with token, one the room issued, or a fresh one when
 * token is NULL: 0, or -1 with why in err (out of memory; no fresh token:
 * the join is then in the batch for no one). A vote (its voter and token
 * are c's; conf CONFIDENCE_NONE: none) and a replay answer (its token is
 * c's): 0, or -1 out of memory. id: the phone's (0..HUB_ID_MAX), -1 none. */
int hub_batch_join(struct hub_batch *b, struct hub_conn *c, const char *token, char *err, size_t errlen);
int hub_batch_vote(struct hub_batch *b, struct hub_conn *c, long long id, int pos, int yes, enum confidence conf);
int hub_batch_replay(struct hub_batch *b, struct hub_conn *c, long long id, int pos, int yes);
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
