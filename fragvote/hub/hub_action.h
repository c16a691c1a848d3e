/* Presenter actions and the voting timer (hub_action.c), on the loop's
 * thread. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_ACTION_H
#define FRAGVOTE_HUB_ACTION_H

#include <stddef.h>
#include <stdint.h>

#include "hub_control.h"
#include "room.h"

struct hub;
struct hub_batch;
struct hub_broadcast;

/* The voting timer (HUB_T_CLOSE): question close_pos closes at close_due.
 * The projectors' view of a revealed question (hub_why). It is given the
 * parts an action uses (hub_actions_init). */
struct hub_actions {
    struct hub *hub;               /* the loop: the HUB_T_CLOSE deadline, the status */
    struct room *room;
    struct hub_batch *batch;       /* no batch in flight while the quiz changes */
    struct hub_broadcast *bcast;   /* the new state to everyone */
    long long close_due;           /* monotonic ms when question close_pos closes, 0: none */
    int close_pos;
    int why, why_pos;              /* why: question why_pos shows its "why" view (while it is the
                                    * revealed current question); 0: "what happened" */
};

void hub_actions_init(struct hub_actions *x, struct hub *hub, struct room *room, struct hub_batch *batch,
                      struct hub_broadcast *bcast);
/* A presenter action (seconds: voting timer for ROOM_OPEN, 0 none); 0 or -1 with err. */
int hub_act(struct hub_actions *x, enum room_action a, int seconds, char *err, size_t errlen);
/* A command another thread posted (hub_post), but quit: an action, or a measurement's result. */
void hub_action_posted(struct hub_actions *x, const struct hub_cmd *c);
/* The presenter's "why": the revealed current question's projector view
 * toggles between "what happened" (the verdict, bars, path picture) and
 * "why" (the rules' explanation and the evidence in large type); screens
 * and presenters get the new state (phones' is unchanged). Refused (-1
 * with err) unless the current question is revealed. Any other action
 * goes back to "what happened". */
int hub_why(struct hub_actions *x, char *err, size_t errlen);
/* Whether the projectors show question pos's "why" view now. */
int hub_why_shown(const struct hub_actions *x, int pos);
/* The prober's result for ask rid, to the room (room_prober_result): a
 * state to everyone only when a question measuring took it; a prefetch's
 * answer sends nothing (docs/SECURITY.md). 0, or -1 with err (also on the
 * console's status). */
int hub_measured(struct hub_actions *x, uint64_t rid, const struct probe_result *res, char *err, size_t errlen);
/* Milliseconds until the voting timer closes the current question, or -1. */
long long hub_closes_in_ms(const struct hub_actions *x);

#endif
