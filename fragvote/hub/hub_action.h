/* Presenter actions and the voting timer (hub_action.c), on the loop's
 * thread. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_ACTION_H
#define FRAGVOTE_HUB_ACTION_H

#include <stddef.h>
#include <stdint.h>

#include "hub_control.h"
#include "room.h"

struct hub;

/* The voting timer (HUB_T_CLOSE): question close_pos closes at close_due.
 * The projectors' view of a revealed question (hub_why). */
struct hub_actions {
    long long close_due;           /* monotonic ms when question close_pos closes, 0: none */
    int close_pos;
    int why, why_pos;              /* why: question why_pos shows its "why" view (while it is the
                                    * revealed current question); 0: "what happened" */
};

/* A presenter action (seconds: voting timer for ROOM_OPEN, 0 none); 0 or -1 with err. */
int hub_act(struct hub *h, enum room_action a, int seconds, char *err, size_t errlen);
/* A command another thread posted (hub_post), but quit: an action, or a measurement's result. */
void hub_action_posted(struct hub *h, const struct hub_cmd *c);
/* The presenter's "why": the revealed current question's projector view
 * toggles between "what happened" (the verdict, bars, path picture) and
 * "why" (the rules' explanation and the evidence in large type); screens
 * and presenters get the new state (phones' is unchanged). Refused (-1
 * with err) unless the current question is revealed. Any other action
 * goes back to "what happened". */
int hub_why(struct hub *h, char *err, size_t errlen);
/* Whether the projectors show question pos's "why" view now. */
int hub_why_shown(const struct hub *h, int pos);
/* The prober's result for ask rid, to the room (room_prober_result): a
 * state to everyone only when a question measuring took it; a prefetch's
 * answer sends nothing (docs/SECURITY.md). 0, or -1 with err (also on the
 * console's status). */
int hub_measured(struct hub *h, uint64_t rid, const struct probe_result *res, char *err, size_t errlen);
/* Milliseconds until the voting timer closes the current question, or -1. */
long long hub_closes_in_ms(const struct hub *h);

#endif
