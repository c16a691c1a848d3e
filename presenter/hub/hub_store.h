/* The hub's store thread (hub_store.c): the SQL of a group commit off the loop. Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_STORE_H
#define FRAGVOTE_HUB_STORE_H

#include <stddef.h>

struct hub;
struct room_write;

int hub_store_start(struct hub *h, char *err, size_t errlen);
void hub_store_stop(struct hub *h);
void hub_store_submit(struct hub *h, struct room_write *w, int n); /* w is the thread's until done */
/* 0 committed, -1 rolled back (err), 1 still running after wait_ms (0: do
 * not wait, -1: as long as it takes). */
int hub_store_result(struct hub *h, int wait_ms, char *err, size_t errlen);

#endif
