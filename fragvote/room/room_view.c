/* See room_view.h. */
#include "room_view.h"

#include <string.h>

void room_view(const struct room *r, enum room_viewer who, const struct room_view_opts *o, struct room_view *out) {
    room_view_at(r, who, o, quiz_cursor(room_quiz((struct room *)r)), out);
}

void room_view_at(const struct room *r, enum room_viewer who, const struct room_view_opts *o, int pos,
                  struct room_view *out) {
    struct quiz *q = room_quiz((struct room *)r);
    struct quiz_qinfo ci;
    memset(out, 0, sizeof *out);
    int presenter = who == ROOM_VIEWER_PRESENTER; /* a guest sees what a screen sees */
    int ended = quiz_ended(q);
    int counted = 0, reached = 0; /* its votes are in: its split is no longer a hint */
    if (!quiz_get(q, pos, &ci)) {
        counted = ci.state == QUIZ_CLOSED || ci.state == QUIZ_MEASURED || ci.state == QUIZ_REVEALED;
        /* the room has reached it: the cursor is on it or past it, it left
         * pending (a later question the room went back from), or the talk
         * ended; a pending question after the cursor counts as not reached */
        reached = pos <= quiz_cursor(q) || ci.state != QUIZ_PENDING || ended;
    }
    out->split = presenter || counted || o->live_split;
    out->text = presenter || reached;
    out->notes = presenter;
    out->hub_counts = presenter; /* the console's line, for a laptop that runs it remotely */
    /* Every question: for the presenter always; for the others once the quiz
     * has ended (the final scoreboard, the phone's share grid): before that
     * the state stays small, it goes to every phone on every change. */
    out->questions = presenter || ended;
    out->league = out->questions;
    out->nicknames = o->leaderboard;
    out->leaderboard = o->leaderboard && ended;
    /* Every question it holds was revealed to the room already. */
    out->replay = room_replay_open(r);
}
