/* See room_view.h. */
#include "room_view.h"

#include <string.h>

void room_view(const struct room *r, enum room_viewer who, const struct room_view_opts *o, struct room_view *out) {
    struct quiz *q = room_quiz((struct room *)r);
    struct quiz_qinfo ci;
    memset(out, 0, sizeof *out);
    int presenter = who == ROOM_VIEWER_PRESENTER; /* a guest sees what a screen sees */
    int ended = quiz_ended(q);
    int counted = 0; /* the current question's votes are in: its split is no longer a hint */
    if (!quiz_get(q, quiz_cursor(q), &ci))
        counted = ci.state == QUIZ_CLOSED || ci.state == QUIZ_MEASURED || ci.state == QUIZ_REVEALED;
    out->split = presenter || counted || o->live_split;
    out->notes = presenter;
    out->hub_counts = presenter; /* the console's line, for a laptop that runs it remotely */
    /* Every question: for the presenter always; for the others once the quiz
     * has ended (the final scoreboard, the phone's share grid): before that
     * the state stays small, it goes to every phone on every change. */
    out->questions = presenter || ended;
    out->league = out->questions;
    out->nicknames = o->leaderboard;
    out->leaderboard = o->leaderboard && ended;
}
