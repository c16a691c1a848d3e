/* The optional nickname leaderboard (serve --leaderboard, off by default):
 * a phone may pick a nickname; the final screen shows the top
 * LEADERBOARD_TOP voters with one, by personal score. Nicknames are never
 * required, kept in memory only (never in the database, never exported; a
 * phone sends its nickname again after each welcome) and cleaned before they
 * are kept: control and bidirectional-formatting characters and invalid
 * UTF-8 dropped, blanks trimmed, cut to LEADERBOARD_NICK_MAX bytes on a
 * character boundary. The hub owns one only when the leaderboard is on.
 * No lws, no I/O; one thread (the hub's). */
#ifndef FRAGVOTE_LEADERBOARD_H
#define FRAGVOTE_LEADERBOARD_H

#include <stddef.h>

#include "room.h"

#define LEADERBOARD_NICK_MAX 24       /* bytes of a nickname kept (UTF-8, cut on a character boundary) */
#define LEADERBOARD_TOP 10            /* rows on the final screen */
#define LEADERBOARD_NICK_SETS_MAX 10  /* nickname changes per voter per session; more are refused */

/* Pure: cleans a nickname into out (at least LEADERBOARD_NICK_MAX + 1
 * bytes). Returns its length, or -1 when nothing is left (then out is ""). */
int leaderboard_nick_clean(const char *in, char *out, size_t outlen);

struct leaderboard;

/* Caller owns the result; release with leaderboard_free(). NULL: out of memory. */
struct leaderboard *leaderboard_new(void);
void leaderboard_free(struct leaderboard *lb);

/* Cleans nick and keeps it for voter (an index of the room). Returns 0 with
 * the kept nickname in out (LEADERBOARD_NICK_MAX + 1 bytes); -1 with err: a
 * nickname with nothing left after cleaning, more than
 * LEADERBOARD_NICK_SETS_MAX changes, out of memory. */
int leaderboard_set(struct leaderboard *lb, int voter, const char *nick, char *out, char *err, size_t errlen);
/* The voter's nickname, or NULL if none. */
const char *leaderboard_nick(const struct leaderboard *lb, int voter);

struct leaderboard_row {
    char nick[LEADERBOARD_NICK_MAX + 1];
    int correct, scored;
};
/* The top voters with a nickname by personal score (room_voter_score: more
 * right answers first; then fewer wrong ones; then who joined first) into
 * out[0..LEADERBOARD_TOP); returns how many. */
int leaderboard_top(const struct leaderboard *lb, const struct room *r, struct leaderboard_row *out);

#endif
