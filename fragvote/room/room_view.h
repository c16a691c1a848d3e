/* What each kind of client of a room may see: the one rule (docs/SECURITY.md,
 * "What each screen may show"). Every message builder of the hub asks it
 * (hub/hub_msg.c); the revealed facts themselves are quiz_truth()'s to give,
 * nothing before a question is revealed. No lws: the room decides, the hub
 * only delivers. */
#ifndef FRAGVOTE_ROOM_VIEW_H
#define FRAGVOTE_ROOM_VIEW_H

#include "room.h"

enum room_viewer {
    ROOM_VIEWER_PHONE,             /* a phone (audience) */
    ROOM_VIEWER_SCREEN,            /* the projector */
    ROOM_VIEWER_GUEST,             /* the presenter page before its secret was accepted: a screen's view */
    ROOM_VIEWER_PRESENTER,         /* the presenter page after auth_ok */
    ROOM_VIEWERS
};

/* The room's settings the rule depends on (serve's options). */
struct room_view_opts {
    int live_split;                /* serve --live-split: everyone sees the split while voting */
    int leaderboard;               /* serve --leaderboard: nicknames are kept */
};

struct room_view {
    int split;                     /* the question's yes/no counts (state's "split", tally's yes/no) */
    int text;                      /* the question's text and summary (not a question the room has not reached) */
    int notes;                     /* the deck's speaker notes of the current question */
    int questions;                 /* every question listed ("questions"; each one's truth only once revealed) */
    int league;                    /* the league line of the collective score (with the list) */
    int nicknames;                 /* the phone page may offer a nickname ("nicknames": true) */
    int leaderboard;               /* the final top list of nicknames */
    int hub_counts;                /* the screens and presenters connected (tally's "screens", "presenters") */
    int replay;                    /* the self-paced replay is offered (state's "replay": true; room_replay_open) */
};

/* What who may see of room r now, about its current question. */
void room_view(const struct room *r, enum room_viewer who, const struct room_view_opts *o, struct room_view *out);
/* The same about question pos (a screen that follows one question, the
 * projector's view for a slide deck: docs/SLIDES.md): its split once its
 * votes are in; its text unless it is pending after the current question
 * before the end (the room has not reached it, or went back before it). */
void room_view_at(const struct room *r, enum room_viewer who, const struct room_view_opts *o, int pos,
                  struct room_view *out);

#endif
