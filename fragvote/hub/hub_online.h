/* The tokens online that are not voters yet: a phone is a voter only from
 * its first vote (no row, no room memory before), but the tally's `online`
 * counts it from its welcome, once however many connections it has open
 * (a wifi blip, a second tab). A counting set of tokens, one entry per
 * distinct token with an open, welcomed connection and no vote; its size is
 * bounded by the open connections. lws thread only. Internal to
 * fragvote/hub*.c. */
#ifndef FRAGVOTE_HUB_ONLINE_H
#define FRAGVOTE_HUB_ONLINE_H

#include "room.h"

struct hub_online_slot {
    char token[ROOM_TOKEN_HEX + 1];    /* "" : free */
    unsigned conns;                    /* its open connections */
};

struct hub_online {
    struct hub_online_slot *slots;     /* open addressing, linear probing; cap a power of two */
    unsigned cap, used;                /* used: distinct tokens */
};

/* One more connection of token (a well-formed token). Returns 1 when the
 * token was not in the set, 0 when it was, -1 out of memory. */
int hub_online_add(struct hub_online *s, const char *token);
/* One connection of token fewer. Returns 1 when it was its last, 0 when it
 * has others, -1 when the token is not in the set. */
int hub_online_remove(struct hub_online *s, const char *token);
void hub_online_free(struct hub_online *s);

/* The voters online: per voter index its open connections, and how many
 * voters have at least one (the tally's `online`, with the set above). */
struct hub_voters {
    unsigned short *conns;             /* per voter index */
    int cap;
    int joined;                        /* voters with at least one open connection */
};
/* One more open connection of voter v: 0, or -1 out of memory. */
int hub_voters_add(struct hub_voters *s, int v);
/* One fewer (one that hub_voters_add counted). */
void hub_voters_remove(struct hub_voters *s, int v);
void hub_voters_free(struct hub_voters *s);

#endif
