/* The hub's cross-thread mailbox (hub_mailbox.c): the commands other
 * threads post to the loop (hub_post) and the status they read
 * (hub_snapshot), under one lock. Knows no lws and no other part of the
 * hub: hub.c wakes the loop after a post and composes the status.
 * Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_MAILBOX_H
#define FRAGVOTE_HUB_MAILBOX_H

#include "hub_control.h"

struct hub_mailbox; /* opaque: hub_mailbox.c's own */

struct hub_mailbox *hub_mailbox_new(void);  /* NULL: out of memory */
void hub_mailbox_free(struct hub_mailbox *mb); /* NULL: nothing */
/* Any thread: cmd joins the ring. 0, or -1 when HUB_POST_MAX wait already. */
int hub_mailbox_post(struct hub_mailbox *mb, const struct hub_cmd *cmd);
/* The loop's thread: the oldest posted command, removed (valid until the
 * next take), or NULL when none waits. */
const struct hub_cmd *hub_mailbox_take(struct hub_mailbox *mb);
/* The status, the lock held until hub_mailbox_unlock. */
struct hub_status *hub_mailbox_lock(struct hub_mailbox *mb);
void hub_mailbox_unlock(struct hub_mailbox *mb);
/* With the lock held: the voting timer's deadline (monotonic ms, 0 none)
 * kept for readers; returns hub_status.closes_in_ms for it now. */
long long hub_mailbox_close_due(struct hub_mailbox *mb, long long due);
/* Any thread: a copy of the status, closes_in_ms as of now. */
void hub_mailbox_read(struct hub_mailbox *mb, struct hub_status *out);
/* The loop's thread: a group commit of ops joins and votes stored. */
void hub_mailbox_commit(struct hub_mailbox *mb, int ops);
/* The loop's thread: the remote prober's line for the console; connected
 * 1 or 0 (hub_status.prober). */
void hub_mailbox_prober(struct hub_mailbox *mb, const char *line, int connected);

#endif
