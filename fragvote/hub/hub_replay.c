/* The self-paced replay after the talk (docs/PROTOCOL.md "The self-paced
 * replay", docs/SERVE.md "After the talk"): a phone asks for the session's
 * revealed questions in one message (built once per change of the room's
 * state and shared by every phone that asks), plays them on its own and
 * sends one answer per question; the answers go through the group commit
 * into their own table (room_write_plan_replay), never into the votes.
 * Lws thread. */
#include <stdio.h>
#include <string.h>

#include "fv_clock.h"
#include "hub.h"
#include "hub_conns.h"
#include "hub_guard.h"
#include "hub_batch.h"
#include "hub_msg.h"
#include "hub_replay.h"
#include "hub_send.h"
#include "hub_tally.h"

/* Whether c may take part: a phone that has joined, the replay open. 0, or
 * 1 answered with the error. */
static int replay_refused(struct hub_replay *r, struct hub_conn *c, long long id) {
    if (hub_conn_role(c) != HUB_AUDIENCE) {
        hub_conn_error(c, id, "forbidden", "the replay is for phones");
        return 1;
    }
    if (!hub_conn_token(c)[0]) {
        hub_conn_error(c, id, "hello_first", "join first (hello), then play the replay");
        return 1;
    }
    if (!room_replay_open(r->room)) {
        hub_conn_error(c, id, "not_ended", "the replay opens when the talk has ended");
        return 1;
    }
    return 0;
}

void hub_replay_init(struct hub_replay *r, struct hub *hub, struct room *room, struct hub_guard *guard,
                     struct hub_broadcast *bcast, struct hub_batch *batch) {
    r->hub = hub;
    r->room = room;
    r->guard = guard;
    r->bcast = bcast;
    r->batch = batch;
}

void hub_replay_ask(struct hub_replay *r, struct hub_conn *c) {
    if (replay_refused(r, c, -1)) return;
    if (hub_conn_asks(c, HUB_ASK_REPLAY) >= HUB_REPLAY_ASKS) { /* a page asks once; each answer is the whole session */
        hub_conn_error(c, -1, "busy", "the replay was sent to this connection already");
        return;
    }
    struct hub_msg *now = hub_tally_state(r->bcast, c); /* the phones' state: it changes with every change of the room */
    if (!r->msg || r->of_state != now) {
        hub_replay_free(r);
        char *json = hub_msg_replay(r->hub);
        if (!json || !(r->msg = hub_msg_new(json))) {
            hub_conn_error(c, -1, "busy", "server out of memory");
            return;
        }
        r->of_state = now;
        hub_msg_ref(now);
    }
    hub_conn_asked(c, HUB_ASK_REPLAY);
    hub_conn_send(c, r->msg); /* its own reference */
}

void hub_replay_vote(struct hub_replay *r, struct hub_conn *c, long long id, long long q, int yes) {
    if (replay_refused(r, c, id)) return;
    char err[160];
    if (room_replay_check(r->room, q, err, sizeof err)) {
        hub_conn_error(c, id, "refused", err);
        return;
    }
    if (hub_conn_new_voter(c) && room_voter_find(r->room, hub_conn_token(c)) < 0) {
        /* A phone that did not vote live: its first answer is charged to its
         * address like a new voter's, so one client cannot fill the replay's
         * table (ROOM_REPLAY_ANSWERS_MAX) with minted tokens. */
        if (hub_guard_voter_take(r->guard, hub_conn_peer(c), fv_clock_coarse_ms(), 0)) {
            hub_conn_error(c, id, "busy", "too many new players from your network just now; answer again in a few seconds");
            return;
        }
        hub_conn_new_voter_passed(c);
    }
    if (hub_batch_replay(r->batch, c, id, (int)q, yes)) hub_conn_error(c, id, "busy", "server out of memory");
}

void hub_replay_free(struct hub_replay *r) {
    if (r->msg) hub_msg_unref(r->msg);
    if (r->of_state) hub_msg_unref(r->of_state);
    r->msg = r->of_state = NULL;
}
