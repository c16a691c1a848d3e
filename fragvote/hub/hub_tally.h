/* Broadcasts (hub_tally.c), on the loop's thread. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_TALLY_H
#define FRAGVOTE_HUB_TALLY_H

#include <stdatomic.h>

#include "room_view.h"

struct hub;
struct hub_conn;
struct hub_conns;
struct hub_fanout;
struct hub_msg;
struct lws_context;
struct lws_protocols;
struct room;

/* The broadcast state, embedded in struct hub (h->bcast) and read or
 * written only by hub_tally.c; other files ask the functions below. It is
 * given the parts it reads (hub_tally_start). */
struct hub_broadcast {
    struct hub *hub;               /* the loop (deadlines, the status) and the messages' builders (hub_msg.h) */
    struct room *room;
    struct hub_conns *conns;       /* who gets a state; the rotation's list and cursor */
    const struct hub_fanout *fanout; /* a state change still going out pauses the rotation */
    struct lws_context *ctx;
    const struct lws_protocols *screens, *presenters; /* made writeable at a new tally */
    int audience_rate;             /* tallies a second to phones (hub_config.audience_tallies_per_s; 0: the default) */
    struct hub_msg *state[ROOM_VIEWERS]; /* the newest state, one per viewer (hub_msg_state) */
    struct hub_msg *tally[ROOM_VIEWERS]; /* the newest tally, one per viewer (hub_msg_tally) */
    struct hub_msg *follow[QUIZ_QUESTIONS_MAX]; /* the newest state about question i for the screens that
                                                 * follow it (hub_msg_state_of), built when one is sent */
    unsigned long tally_version;
    int tally_dirty;
    int status_stale;              /* a tally was built since the last hub_status_update of the tick */
    /* Phones get the tally in a rotation: every HUB_ROTATION_MS it visits
     * the next connections and writes the newest tally to the phones among
     * them that are behind, HUB_AUDIENCE_SENDS_PER_S * HUB_ROTATION_MS / 1000
     * at most (never all at once; see audience_step). Its place in the
     * list is the connections' cursor HUB_CUR_ROTATION (hub_conns.h). */
    int rot_left;                  /* connections still to visit since the last tally change */
    double rot_credit;             /* visits the rotation may still make (HUB_PHONE_TALLY_HZ rounds a second) */
    long long rot_ms;              /* when the last step ran (its visits and sends follow the time since) */
    atomic_ulong phone_tallies;    /* tallies written to phones (hub_status.phone_tallies); read by any thread */
};

void hub_tally_schedule(struct hub_broadcast *b);    /* a tally broadcast soon */
void hub_tally_now(struct hub_broadcast *b);         /* a commit changed the counts: screens' tally now */
void hub_state_changed(struct hub_broadcast *b);     /* new state messages to everyone, a tally soon */
void hub_state_changed_screens(struct hub_broadcast *b); /* the same, sent to screens and presenters only (what
                                                      * changed is none of the phones': the "why" view) */
void hub_state_soon(struct hub_broadcast *b);        /* a change nobody waits for (a nickname on the final board):
                                                      * one state change within HUB_STATE_DEBOUNCE_MS for all of them */
void hub_status_soon(struct hub_broadcast *b);       /* a counter the console shows changed: status at the next tick */
/* One message per viewer from build (cur[] replaced only when all were built): 0 or -1. */
int hub_build_views(struct hub *h, char *(*build)(struct hub *, enum room_viewer), struct hub_msg *cur[]);
void hub_drop_views(struct hub_msg *cur[]);
/* hub_create: the parts b reads (the fields above its messages), then the
 * first state messages; 0 or -1 out of memory. */
int hub_tally_start(struct hub_broadcast *b);
void hub_tally_free(struct hub_broadcast *b);        /* hub_free: the messages */
/* The newest state for c: its viewer's, or a screen's about the question it follows (hub_conn.follow). */
struct hub_msg *hub_tally_state(struct hub_broadcast *b, const struct hub_conn *c);
int hub_tally_built(const struct hub_broadcast *b);  /* a tally was built once */
unsigned long hub_tally_version(const struct hub_broadcast *b);
unsigned long hub_tally_phone_count(const struct hub_broadcast *b); /* tallies written to phones (any thread) */
int hub_tally_pending(const struct hub_broadcast *b, const struct hub_conn *c); /* c is owed the newest tally now */
struct hub_msg *hub_tally_take(struct hub_broadcast *b, struct hub_conn *c); /* that tally, counted as sent to c */

#endif
