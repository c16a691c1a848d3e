/* A room: the quiz of one session bound to the store.
 *
 * Every transition of the quiz is persisted (question states, the cursor,
 * measurements); voters and votes are kept in memory for fast lookups and
 * written in batches (group commit, see room_write_*). A room resumes a
 * session from the database after a restart: states, truths, tallies, voters
 * and their votes.
 *
 * Like struct quiz, a struct room belongs to one thread (the hub's lws
 * thread); it does no networking. */
#ifndef FRAGVOTE_ROOM_H
#define FRAGVOTE_ROOM_H

#include <stddef.h>
#include <stdint.h>

#include "deck.h"
#include "prober.h"
#include "quiz.h"

#define ROOM_CODE_LEN 6            /* room code: this many characters of ROOM_CODE_ALPHABET */
#define ROOM_CODE_ALPHABET "ABCDEFGHJKMNPQRSTUVWXYZ23456789" /* no 0/O, 1/I/L */
#define ROOM_TOKEN_ID_BYTES 8      /* voter token: a random id ... */
#define ROOM_TOKEN_MAC_BYTES 8     /* ... and its HMAC-SHA256 under the room's key, truncated */
#define ROOM_TOKEN_HEX 32          /* both as 32 lower-case hex digits (docs/PROTOCOL.md, Identity) */
#define ROOM_TOKEN_KEY_BYTES 32    /* the room's token key (random, stored with the session) */
#define ROOM_VOTERS_MAX 200000     /* voters remembered per session */
#define ROOM_REPLAY_ANSWERS_MAX 400000 /* self-paced replay answers kept per session (20,000 phones x 20) */
#define ROOM_ASKS_MAX 64           /* measurements asked of the prober and not answered yet */
#define ROOM_BUSY_LIVE_MS 200      /* the room's own writes wait this long for a database another
                                    * process holds (the live timeout its owner sets on the store;
                                    * room_write.c asserts it is db.h's DB_BUSY_LIVE_MS) */

struct room_info {
    const char *title;             /* NULL: the deck's title */
    const char *host, *kernel, *observer, *target, *lab_json; /* stored with the session; NULL = "" */
    const char *code;              /* room code; NULL or "": a random one */
};

struct room;
struct db; /* the store (db.h), only by pointer: the room links it PRIVATE, so a part above the room
            * (the hub) is compiled without the store in reach */

/* Starts a new session for deck d in db (the room keeps db, not d). Caller
 * owns the result; release with room_free() (which does not close db). */
struct room *room_create(struct db *db, const struct deck *d, const struct room_info *info, char *err,
                         size_t errlen);
/* Resumes session_id; d must be the session's deck (deck_load_string of its
 * stored JSON). */
struct room *room_resume(struct db *db, int64_t session_id, const struct deck *d, char *err, size_t errlen);
void room_free(struct room *r);

struct quiz *room_quiz(struct room *r);
struct db *room_db(struct room *r);
int64_t room_session_id(const struct room *r);
const char *room_code(const struct room *r);
const char *room_title(const struct room *r);
/* The deck's "lang" (docs/DECKS.md), "" when it names none. */
const char *room_lang(const struct room *r);
int room_voter_count(const struct room *r);

/* Presenter actions: the quiz transition, then persisted. On a database
 * failure the action is reported as failed (err) but the quiz keeps the new
 * state; the next successful action writes all states again. */
enum room_action { ROOM_OPEN, ROOM_CLOSE, ROOM_MEASURE, ROOM_RERUN, ROOM_REVEAL, ROOM_NEXT, ROOM_BACK, ROOM_SKIP,
                   ROOM_REVOTE, ROOM_END, ROOM_ANSWER };
const char *room_action_name(enum room_action a);    /* "open" "close" "measure" "rerun" ... "revote" */
int room_action_parse(const char *name, enum room_action *out);
/* ROOM_REVOTE opens the current closed question's second round: the store
 * moves its votes to the first round (db_question_revote) before the quiz
 * changes, so a failed write changes nothing; every voter's vote on it is
 * cleared for the final round.
 * ROOM_MEASURE uses the test's result the room holds (measured for another
 * question, or prefetched while voting) at once, waits for an ask of the
 * test in flight, or asks the prober; ROOM_RERUN always asks afresh.
 * Returns 0 done, QUIZ_MEASURE_PROBE (measure/rerun: the answer to an ask
 * will bring the truth, room_prober_result), or -1 with err. */
int room_act(struct room *r, enum room_action a, char *err, size_t errlen);

/* ---- measurements: the prober interface (prober.h) ----
 * The room keeps the one cache of probe results, per deck test, in memory:
 * a prefetched result is never shown to anyone; once applied to a question
 * it is stored as a measurement and shown at the reveal (quiz_truth). */
/* p is copied; NULL: none (asks still wait in room_prober_pending). If
 * voting is open on the current question, its prefetch is asked now. */
void room_set_prober(struct room *r, const struct prober *p);
int room_has_prober(const struct room *r);
/* 1 (default): when voting opens (open, re-vote) on a test with no result
 * and no ask in flight, ask for it then (position -1). Needs a prober. */
void room_set_prefetch(struct room *r, int on);
/* A result for ask rid: 0 accepted -- given to the questions waiting for it
 * (stored as measurements), or held until measure (a prefetch), or dropped
 * (a rerun asked again meanwhile); -1 with err: refused (rid never asked,
 * answered already, or res is of another test: protocol, mode or size
 * differ), nothing stored; or accepted but a waiting question could not take
 * it (skipped meanwhile, database error). */
int room_prober_result(struct room *r, uint64_t rid, const struct probe_result *res, char *err, size_t errlen);
/* Whether the answer to ask rid will change the quiz: a question measuring
 * waits for it (measure, rerun, a resumed question). 0 for a prefetch no
 * question waits for yet, a superseded ask, one whose question was skipped
 * meanwhile, or a rid the room does not hold: taking that answer changes
 * nothing anyone may see, so the hub sends nothing for it (a frame, or when
 * it came, would tell a room still voting the measurement's outcome:
 * docs/SECURITY.md) and needs no pause of the store. */
int room_prober_result_awaited(const struct room *r, uint64_t rid);
/* Asks not answered yet (superseded ones left out), oldest first: up to max
 * into out (spec pointers valid until the next call that changes the room);
 * returns how many. A prober that lost them (a reconnect) asks them again. */
int room_prober_pending(const struct room *r, struct prober_ask *out, int max);
/* Measure and rerun actions taken so far (the console sees that one was),
 * and how many measures a prefetch answered (or was answering). */
void room_measure_counts(const struct room *r, unsigned long *measures, unsigned long *prefetch_hits);
/* For a caller that runs the probe itself (tools, tests; no prober): the
 * result of the ask question pos waits for, as room_prober_result (no test
 * check). */
int room_measured(struct room *r, int pos, const struct probe_result *res, char *err, size_t errlen);
int room_end(struct room *r, char *err, size_t errlen); /* stamps the session's end */

/* A remote prober's deck (docs/PROTOCOL.md "The remote prober"): while
 * nothing of the session has happened (every question pending, the cursor
 * at 0, no voter) the session takes d -- its questions, title and stored
 * deck; the room code and token key stay -- and *adopted is 1. Afterwards
 * a deck asking the same questions (same tests in order: protocol, mode,
 * size, TTL, kinds) is accepted with *adopted 0, any other refused. The
 * room keeps nothing of d (the quiz copies its tests). 0, or -1 with err. */
int room_deck_adopt(struct room *r, const struct deck *d, int *adopted, char *err, size_t errlen);
/* The remote prober's host, kernel, observer, target and lab layout become
 * the session's and its live measurement set's (what its export, `fragvote
 * sessions` and `replay --remeasure` show as the measuring machine). */
struct room_prober_facts {
    const char *host, *kernel, *observer, *target;
    const char *lab_json; /* NULL: not the lab */
};
int room_prober_facts(struct room *r, const struct room_prober_facts *f, char *err, size_t errlen);

/* ---- voters ---- */
/* A token is a random id and a MAC of it under the room's key, so the room
 * can tell the tokens it issued from made-up ones without a lookup, and a
 * token minted without voting costs nothing to remember. */
/* Issues a fresh token (ROOM_TOKEN_HEX hex digits + NUL): id from getrandom(). */
int room_token_new(const struct room *r, char out[ROOM_TOKEN_HEX + 1], char *err, size_t errlen);
/* Whether token is well-formed (exactly ROOM_TOKEN_HEX lower-case hex digits). */
int room_token_valid(const char *token);
/* Whether this room issued token: well-formed and its MAC checks out (in
 * constant time), or it is a known voter's (sessions from before keyed
 * tokens). Anything else must get a fresh token, never a voter. */
int room_token_issued(const struct room *r, const char *token);
/* Index (>= 0) of the voter with this token if already known, else -1. */
int room_voter_find(const struct room *r, const char *token);
/* May a vote on question pos count now? The one "may vote" rule (the hub
 * asks it before a vote joins a batch, room_write_plan again when the batch
 * is planned; db_vote_put's SQL condition stays as the durable guard): pos
 * is a question, it is the current one, voting on it is open and the quiz
 * has not ended. 0, or -1 with the reason in err. */
int room_vote_check(const struct room *r, long long pos, char *err, size_t errlen);
/* ---- the self-paced replay (room_replay.c; docs/SERVE.md "After the talk") ----
 * Once the talk has ended, or when the room is a recorded session served
 * again (replay --serve), a phone may play the revealed questions again on
 * its own; its answers are written by the group commit
 * (room_write_plan_replay) into their own table and change nothing of the
 * room: no count, no score, no voter. */
void room_set_recorded(struct room *r);       /* replay --serve: the replay is open from the start */
int room_replay_open(const struct room *r);   /* 1 when a phone may play the replay */
/* May a replay answer on pos be stored: the replay open, pos a revealed
 * question. 0, or -1 with the reason in err. */
int room_replay_check(const struct room *r, long long pos, char *err, size_t errlen);

/* This voter's current vote on pos: -1 none, 0 no, 1 yes. */
int room_voter_vote(const struct room *r, int voter, int pos);
/* Its confidence (CONFIDENCE_NONE: none, or no vote). Only the voter's own
 * phone is told it (welcome); no message shows anyone's to others. */
enum confidence room_voter_confidence(const struct room *r, int voter, int pos);

/* ---- group commit ----
 * The one way votes (and voters) are written. The hub collects votes for a
 * few milliseconds, then writes them in three steps, so the SQL can run on
 * a thread of its own while the hub's thread keeps serving (the hub's
 * store, hub_store.c):
 *   room_write_plan()   hub's thread: checks a vote against the room's memory
 *                       (question open, token issued, room not full) and
 *                       fills w with what to write (room_write_plan_join:
 *                       a voter without a vote);
 *   room_write_run()    store thread: one transaction with every planned
 *                       write, waiting up to wait_ms for a database another
 *                       process holds; touches nothing of the room but its
 *                       database and session id (both fixed);
 *   room_write_apply()  hub's thread, after run committed: new voters and the
 *                       votes into memory and the quiz's counts.
 * Between plan and apply the hub's thread must not change the quiz or write
 * to the database itself (room_act, room_measured, room_end wait). */
struct room_write {
    int voter;                     /* room voter index; -1: the token's first vote (a new voter) */
    int pos, yes;                  /* pos -1: a join (room_write_plan_join), the voter and no vote */
    int replay;                    /* a replay answer (room_write_plan_replay): no voter, apart from votes */
    enum confidence conf;          /* the vote's confidence, stored with its answer in one statement */
    int64_t qid, voter_id;         /* voter_id 0 when new */
    char hash[65];                 /* a new voter's token hash (db_token_hash), computed once by the plan */
    int result;                    /* after run: 0 stored, 1 refused (err), -1 database error */
    int64_t new_id;                /* after run: the voter's id */
    char err[160];
};
/* Returns 0 (w filled), or 1 refused with err. voter: the room's index of
 * the voter, or -1 to look token up (a voter the room does not know is
 * new: w->voter stays -1, and token must be one room_token_issued knows),
 * or ROOM_VOTER_CHECKED: the same, the caller having checked the token with
 * room_token_issued already (the hub, at the phone's hello: its HMAC is not
 * computed again for every first vote). yes and conf: the vote
 * (CONFIDENCE_NONE: none; a changed vote takes the new confidence).
 * new_in_batch: new voters planned in this batch so far (the room's cap
 * counts them). */
#define ROOM_VOTER_CHECKED (-2)
int room_write_plan(struct room *r, struct room_write *w, int voter, const char *token, int pos, int yes,
                    enum confidence conf, int new_in_batch, char *err, size_t errlen);
/* A join: the voter of a token this room issued, found or created, with
 * no vote (play's player; the hub's phones are voters from their first
 * vote). After apply, w->voter is its index. 0, or 1 refused with err. */
int room_write_plan_join(struct room *r, struct room_write *w, const char *token, int new_in_batch, char *err,
                         size_t errlen);
/* A phone's answer to the self-paced replay (below): token one this room
 * issued, pos a revealed question, the replay open; in_batch: replay
 * answers planned in this batch so far (the room's cap counts them). After
 * run, w->yes is the answer kept (the phone's first). 0, or 1 refused. */
int room_write_plan_replay(struct room *r, struct room_write *w, const char *token, int pos, int yes,
                           int in_batch, char *err, size_t errlen);
/* Waits up to wait_ms for a lock another process holds (the database's
 * busy timeout, set back to ROOM_BUSY_LIVE_MS afterwards). Returns 0
 * committed (each w->result says what became of it), -1 nothing stored
 * (rolled back, err). */
int room_write_run(struct room *r, struct room_write *w, int n, int wait_ms, char *err, size_t errlen);
/* The database's checkpoints on a thread of their own (db_ckpt.h), for a
 * room whose commits run on a store thread: a commit then only appends to
 * the log, never copies it into the file (8-15 ms every ~25 commits of a
 * large room otherwise). Until room_free's owner closes the database.
 * 0, or -1 with err (then SQLite keeps checkpointing in the commits). */
int room_write_checkpoints_apart(struct room *r, char *err, size_t errlen);
/* After a committed run: sets w->voter of new voters, counts the stored
 * votes. Returns 0, or -1 when memory ran out adding a voter (err). */
int room_write_apply(struct room *r, struct room_write *w, int n, char *err, size_t errlen);
/* Run and apply at once, for a caller without a store thread (play, tools,
 * tests): run's transaction on the database's own busy timeout, then
 * apply. 0 every write stored; 1 committed, but a write was refused or
 * failed (err: the first one's reason; each w->result says); -1 nothing
 * stored, or memory ran out applying (err). */
int room_write_commit(struct room *r, struct room_write *w, int n, char *err, size_t errlen);

/* Personal score of a voter over revealed questions: answered, scored (with
 * a known truth), correct. */
void room_voter_score(const struct room *r, int voter, int *answered, int *scored, int *correct);

#endif
