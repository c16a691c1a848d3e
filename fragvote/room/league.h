/* The league of rooms: sessions ranked by collective score, with the RIPE 87
 * audience (fragquiz at RIPE 87: "collectively, their score was just below
 * 80%") as a fixed reference row; and the one line that compares a room with
 * that reference ("This room: 84 % — RIPE 87's network engineers: just under
 * 80 %") for the final projector screen and the exports. Pure: no I/O. */
#ifndef FRAGVOTE_LEAGUE_H
#define FRAGVOTE_LEAGUE_H

#include <stddef.h>
#include <stdint.h>

#include "fv_msg.h"

#define LEAGUE_REF_NAME "RIPE 87's network engineers"
#define LEAGUE_REF_SCORE "just under 80 %"
/* The article gives no finer number: a room at this score or more ranks
 * above the reference, a room below it ranks below. */
#define LEAGUE_REF_BELOW 0.80
/* A session with fewer voters is a solo game (fragvote play), not a room. */
#define LEAGUE_MIN_VOTERS 2
#define LEAGUE_LINE_MAX 128

struct league_entry {
    int64_t id;              /* session id; 0 for the reference row */
    double collective;       /* 0..1 */
    int scored;              /* questions scored */
    int voters;
};

/* Whether a session takes part: a collective score and at least
 * LEAGUE_MIN_VOTERS voters. */
int league_is_room(double collective, int voters);

/* Sorts e[0..n) into league order: higher collective first, then more scored
 * questions, then the older session (lower id). Returns the rank index at
 * which the reference row stands (0..n): every room before it scored at
 * least LEAGUE_REF_BELOW. */
int league_rank(struct league_entry *e, int n);

/* "This room: 84 % — RIPE 87's network engineers: just under 80 %" (the
 * score rounded to a whole percent); "" when collective < 0 (nothing scored).
 * Its words are the catalogs' league.line (the reference's name and score
 * there as in LEAGUE_REF_NAME, LEAGUE_REF_SCORE). */
void league_line(double collective, char *buf, size_t len);
/* The same as a message (msg/fv_msg.h), key "" when collective < 0. */
void league_line_msg(double collective, struct fv_msg *m);

#endif
