/* Presenter actions (hub_action.h): the quiz's moves from the presenter
 * page (hub_conn.c:on_cmd), the console and the probe worker (posted,
 * hub.c:hub_post), the voting timer that closes a question by itself, and
 * the projectors' "why" view of a revealed question. */
#include <stdio.h>

#include "fv_err.h"
#include "fv_clock.h"
#include "hub.h"
#include "hub_action.h"
#include "hub_loop.h"
#include "hub_batch.h"
#include "hub_tally.h"

void hub_actions_init(struct hub_actions *x, struct hub *hub, struct room *room, struct hub_batch *batch,
                      struct hub_broadcast *bcast) {
    x->hub = hub;
    x->room = room;
    x->batch = batch;
    x->bcast = bcast;
}

long long hub_closes_in_ms(const struct hub_actions *x) {
    struct quiz *q = room_quiz(x->room);
    struct quiz_qinfo ci;
    if (!x->close_due || quiz_get(q, quiz_cursor(q), &ci) || ci.state != QUIZ_VOTING || ci.position != x->close_pos)
        return -1;
    long long left = x->close_due - fv_clock_ms();
    return left > 0 ? left : 0;
}

/* Waits for the batch in flight, as long as the room's own writes would
 * wait for a database another process holds (ROOM_BUSY_LIVE_MS): the loop
 * never stalls longer than before the store had its thread. 0 idle, -1
 * with err (the action is refused; the presenter tries again). */
static int store_idle(struct hub_actions *x, enum room_action a, char *err, size_t errlen) {
    if (!hub_batch_complete(x->batch, ROOM_BUSY_LIVE_MS)) return 0;
    fv_fail(err, errlen, "the database is busy (votes are waiting for it); try %s again", room_action_name(a));
    hub_status_update(x->hub, err);
    return -1;
}

/* The voting timer ran out: the question closes (once the batch in
 * flight is answered), unless it was closed or left meanwhile. */
static void close_tick(lws_sorted_usec_list_t *sul) {
    struct hub_actions *x = hub_timer_owner(sul, HUB_T_CLOSE);
    if (!x->close_due) return;
    if (hub_batch_busy(x->batch)) { /* the timer closes once the batch in flight is answered */
        x->close_due = fv_clock_ms() + HUB_BATCH_MS;
        hub_timer_in(x->hub, HUB_T_CLOSE, close_tick, x, HUB_BATCH_MS);
        return;
    }
    char err[256];
    int still_open = hub_closes_in_ms(x) >= 0;
    x->close_due = 0;
    if (still_open) hub_act(x, ROOM_CLOSE, 0, err, sizeof err);
}

/* seconds: with ROOM_OPEN, close voting by itself after that long (0: never). */
int hub_act(struct hub_actions *x, enum room_action a, int seconds, char *err, size_t errlen) {
    if (a == ROOM_OPEN && (seconds < 0 || seconds > HUB_COUNTDOWN_MAX_S)) {
        fv_fail(err, errlen, "a voting timer runs 1..%d seconds", HUB_COUNTDOWN_MAX_S);
        hub_status_update(x->hub, err);
        return -1;
    }
    /* The quiz changes and the room writes: no batch may be in flight (first
     * round votes still collected are judged before a second round opens). */
    if (store_idle(x, a, err, errlen)) return -1;
    if ((a == ROOM_MEASURE || a == ROOM_RERUN || a == ROOM_ANSWER) && !room_has_prober(x->room)) {
        fv_fail(err, errlen, "no probe is configured: this hub cannot measure");
        hub_status_update(x->hub, err);
        return -1;
    }
    if (a == ROOM_REVOTE && hub_batch_pending(x->batch)) {
        hub_batch_flush(x->batch);
        if (store_idle(x, a, err, errlen)) return -1;
    }
    int rc = room_act(x->room, a, err, errlen);
    if (rc >= 0) {
        x->why = 0; /* a new reveal, another question: "what happened" first */
        x->close_due = 0; /* any move ends a running timer ... */
        hub_timer_cancel(x->hub, HUB_T_CLOSE);
        if (a == ROOM_OPEN && seconds > 0) { /* ... and open may start one */
            x->close_due = fv_clock_ms() + 1000LL * seconds;
            x->close_pos = quiz_cursor(room_quiz(x->room));
            hub_timer_in(x->hub, HUB_T_CLOSE, close_tick, x, 1000LL * seconds);
        }
    }
    hub_state_changed(x->bcast);
    if (rc < 0) hub_status_update(x->hub, err);
    return rc < 0 ? -1 : 0;
}

int hub_why_shown(const struct hub_actions *x, int pos) {
    struct quiz *q = room_quiz(x->room);
    struct quiz_qinfo ci;
    return x->why && x->why_pos == pos && pos == quiz_cursor(q) && !quiz_ended(q) && !quiz_get(q, pos, &ci) &&
           ci.state == QUIZ_REVEALED;
}

int hub_why(struct hub_actions *x, char *err, size_t errlen) {
    struct quiz *q = room_quiz(x->room);
    struct quiz_qinfo ci;
    int cur = quiz_cursor(q);
    if (quiz_ended(q) || quiz_get(q, cur, &ci) || ci.state != QUIZ_REVEALED) {
        fv_fail(err, errlen, "why: only a revealed question has a \"why\" view (reveal it first)");
        hub_status_update(x->hub, err);
        return -1;
    }
    int on = !hub_why_shown(x, cur);
    x->why = on;
    x->why_pos = cur;
    hub_state_changed_screens(x->bcast);
    return 0;
}

int hub_measured(struct hub_actions *x, uint64_t rid, const struct probe_result *res, char *err, size_t errlen) {
    /* A prefetch's answer (the room votes) changes nothing anyone sees: no
     * frame, no tally, no pause of the loop for the store, so nothing a
     * client receives, nor when, tells the measurement's outcome. */
    int awaited = room_prober_result_awaited(x->room, rid);
    if (awaited) hub_batch_quiesce(x->batch); /* the room stores it: no batch in flight */
    int rc = room_prober_result(x->room, rid, res, err, errlen);
    if (awaited) hub_state_changed(x->bcast);
    hub_status_update(x->hub, rc ? err : NULL);
    return rc;
}

static const enum room_action cmd_action[] = {
    [HUB_CMD_OPEN] = ROOM_OPEN, [HUB_CMD_CLOSE] = ROOM_CLOSE, [HUB_CMD_MEASURE] = ROOM_MEASURE,
    [HUB_CMD_REVEAL] = ROOM_REVEAL, [HUB_CMD_NEXT] = ROOM_NEXT, [HUB_CMD_BACK] = ROOM_BACK,
    [HUB_CMD_SKIP] = ROOM_SKIP, [HUB_CMD_RERUN] = ROOM_RERUN, [HUB_CMD_REVOTE] = ROOM_REVOTE,
    [HUB_CMD_END] = ROOM_END, [HUB_CMD_ANSWER] = ROOM_ANSWER,
};

void hub_action_posted(struct hub_actions *x, const struct hub_cmd *c) {
    char err[256];
    switch (c->kind) {
    case HUB_CMD_MEASURED:
        hub_measured(x, c->rid, &c->result, err, sizeof err);
        break;
    case HUB_CMD_WHY:
        hub_why(x, err, sizeof err);
        break;
    default:
        if ((unsigned)c->kind <= HUB_CMD_ANSWER) hub_act(x, cmd_action[c->kind], c->seconds, err, sizeof err);
    }
}
