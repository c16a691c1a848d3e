/* The hub's store thread (hub_store.c): the SQL of a group commit off the loop. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_STORE_H
#define FRAGVOTE_HUB_STORE_H

#include <stddef.h>

struct hub_store;
struct lws_context;
struct room;
struct room_write;

/* The store thread writing room's batches, waking ctx's loop when one is
 * done; NULL with err. warn: "" or trouble that refused nothing (the
 * checkpoints stay in the commits). */
struct hub_store *hub_store_start(struct room *room, struct lws_context *ctx, char *warn, size_t warnlen, char *err,
                                  size_t errlen);
void hub_store_stop(struct hub_store *s);       /* NULL: nothing */
void hub_store_submit(struct hub_store *s, struct room_write *w, int n); /* w is the thread's until done */
/* 0 committed, -1 rolled back (err), 1 still running after wait_ms (0: do
 * not wait, -1: as long as it takes). */
int hub_store_result(struct hub_store *s, int wait_ms, char *err, size_t errlen);

#endif
