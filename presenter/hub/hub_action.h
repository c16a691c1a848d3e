/* Presenter actions and the voting timer (hub_action.c), on the loop's
 * thread. Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_ACTION_H
#define FRAGVOTE_HUB_ACTION_H

#include <stddef.h>
#include <stdint.h>

#include "hub_control.h"
#include "room.h"

struct hub;

/* The voting timer (HUB_T_CLOSE): question close_pos closes at close_due. */
struct hub_actions {
    long long close_due;           /* monotonic ms when question close_pos closes, 0: none */
    int close_pos;
};

/* A presenter action (seconds: voting timer for ROOM_OPEN, 0 none); 0 or -1 with err. */
int hub_act(struct hub *h, enum room_action a, int seconds, char *err, size_t errlen);
/* A command another thread posted (hub_post), but quit: an action, or a measurement's result. */
void hub_action_posted(struct hub *h, const struct hub_cmd *c);
/* The prober's result for ask rid, to the room (room_prober_result): a
 * state to everyone only when a question measuring took it; a prefetch's
 * answer sends nothing (docs/SECURITY.md). 0, or -1 with err (also on the
 * console's status). */
int hub_measured(struct hub *h, uint64_t rid, const struct probe_result *res, char *err, size_t errlen);
/* Milliseconds until the voting timer closes the current question, or -1. */
long long hub_closes_in_ms(const struct hub *h);

#endif
