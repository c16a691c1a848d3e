/* The room's own state, shared by its parts and seen by no caller (room.h
 * keeps struct room opaque): room.c (lifecycle, resume, actions, the
 * persistence of transitions, a remote prober's deck, the token key given
 * to room_token.c), room_voter.c, room_prober.c, room_write.c and
 * room_replay.c: five files. Each part keeps its state
 * in its own struct here (struct room_voters, struct room_prober). */
#ifndef FRAGVOTE_ROOM_INTERNAL_H
#define FRAGVOTE_ROOM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "room.h"
#include "room_prober.h"
#include "room_voter.h"

struct room {
    struct db *db;
    struct quiz *quiz;
    int64_t session_id, live_set;
    char code[ROOM_CODE_LEN + 1];
    unsigned char token_key[ROOM_TOKEN_KEY_BYTES]; /* authenticates the voter tokens (stored with the session) */
    char title[DECK_TEXT_MAX];
    char lang[DECK_LANG_MAX];   /* the deck's "lang", "" when it names none */
    int nq;
    int64_t qid[QUIZ_QUESTIONS_MAX];
    enum quiz_state saved_state[QUIZ_QUESTIONS_MAX]; /* as last written to the db */
    unsigned char saved_measuring[QUIZ_QUESTIONS_MAX]; /* likewise: a measurement asked, not answered */
    unsigned char reask[QUIZ_QUESTIONS_MAX]; /* resumed with a measurement in flight: ask the next prober again */
    int saved_cursor;
    struct room_prober pr;      /* measurements: the room side of the prober interface (room_prober.c) */
    struct room_voters voters;  /* the voter table (room_voter.c) */
    struct {
        int recorded;           /* a recorded session served again (replay --serve): the replay is open */
        int counted;            /* answers read from the store (on the first replay answer planned) */
        long long answers;      /* replay answers stored for the session, once counted */
    } replay;                   /* the self-paced replay (room_replay.c) */
};

/* room.c: writes every question state that differs from the stored one,
 * whether each is measuring, and the cursor. 0, or -1 with err (the states
 * that could be written are). */
int room_persist(struct room *r, char *err, size_t errlen);

/* room_replay.c, for room_write.c: a replay answer's statement (store
 * thread; w->result, w->yes the answer kept, w->new_id 1 when stored now)
 * and its count in memory (hub's thread, after the commit). */
void room_replay_run(struct room *r, struct room_write *w);
void room_replay_apply(struct room *r, const struct room_write *w);

#endif
