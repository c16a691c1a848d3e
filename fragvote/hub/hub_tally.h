/* Broadcasts (hub_tally.c), on the loop's thread. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_TALLY_H
#define FRAGVOTE_HUB_TALLY_H

#include "room_view.h"

struct hub;
struct hub_conn;
struct hub_conns;
struct hub_fanout;
struct hub_msg;
struct lws_context;
struct lws_protocols;
struct room;

struct hub_broadcast; /* opaque: hub_tally.c's own */


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
/* hub_new: the broadcasts, given the parts they read (screens and
 * presenters: their protocols, made writeable at a new tally;
 * audience_rate: hub_config.audience_tallies_per_s); NULL out of memory. */
struct hub_broadcast *hub_tally_new(struct hub *hub, struct room *room, struct hub_conns *conns,
                                    const struct hub_fanout *fanout, struct lws_context *ctx,
                                    const struct lws_protocols *screens, const struct lws_protocols *presenters,
                                    int audience_rate);
/* Once every part the messages' builders read is wired: the first state
 * messages; 0 or -1 out of memory. */
int hub_tally_start(struct hub_broadcast *b);
void hub_tally_free(struct hub_broadcast *b);        /* hub_free: the messages and b (NULL: nothing) */
/* The newest state for c: its viewer's, or a screen's about the question it follows (hub_conn.follow). */
struct hub_msg *hub_tally_state(struct hub_broadcast *b, const struct hub_conn *c);
int hub_tally_built(const struct hub_broadcast *b);  /* a tally was built once */
unsigned long hub_tally_version(const struct hub_broadcast *b);
unsigned long hub_tally_phone_count(const struct hub_broadcast *b); /* tallies written to phones (any thread) */
int hub_tally_pending(const struct hub_broadcast *b, const struct hub_conn *c); /* c is owed the newest tally now */
struct hub_msg *hub_tally_take(struct hub_broadcast *b, struct hub_conn *c); /* that tally, counted as sent to c */

#endif
