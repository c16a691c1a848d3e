/* What the loop (hub.c) does for the hub's parts: their deadlines on lws's
 * scheduler, waking the loop, the status other threads read. A part holds
 * the hub as an opaque handle for these only; struct hub's members are
 * hub_internal.h's. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_LOOP_H
#define FRAGVOTE_HUB_LOOP_H

#include <libwebsockets.h>

struct hub;

/* The hub's deadlines: one lws_sorted_usec_list_t each in struct hub. */
enum hub_timer_id {
    HUB_T_BATCH,                   /* the group commit's batch is due (hub_batch.c) */
    HUB_T_TALLY,                   /* the next tally tick (HUB_TALLY_HZ) */
    HUB_T_ROTATION,                /* the phones' tally rotation's next step (HUB_ROTATION_MS) */
    HUB_T_CLOSE,                   /* the voting timer closes the question (close_due) */
    HUB_T_SWEEP,                   /* the keepalive sweep (hub_conns.c) */
    HUB_T_FLUSH,                   /* hub_run's quit flush ends (HUB_QUIT_FLUSH_MS) */
    HUB_T_STATE,                   /* a debounced state change goes out (hub_state_soon) */
    HUB_TIMERS
};

/* Deadlines (lws thread only): cb runs on the loop in ms milliseconds (0:
 * at its next turn); arming an armed one moves it. owner: the part it is
 * about, which cb gets back from hub_timer_owner. */
void hub_timer_in(struct hub *h, enum hub_timer_id t, sul_cb_t cb, void *owner, long long ms);
void *hub_timer_owner(lws_sorted_usec_list_t *sul, enum hub_timer_id t); /* in cb: the owner it was armed with */
int hub_timer_armed(const struct hub *h, enum hub_timer_id t);
void hub_timer_cancel(struct hub *h, enum hub_timer_id t);
void hub_loop_wake(struct hub *h);              /* end the loop's current wait (work for loop_turn) */
/* Another thread called lws_cancel_service (hub_post, hub_stop, the store
 * thread's commit): the hand-overs, on the loop's thread. */
void hub_loop_woken(struct hub *h);
void hub_status_update(struct hub *h, const char *refused); /* refresh the snapshot, tell serve */
void hub_status_warn(struct hub *h, const char *why);        /* a warning (struct hub_status last_warning), then the same */

#endif
