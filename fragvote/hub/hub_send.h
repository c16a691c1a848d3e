/* The wire side, sending (hub_send.c): send queues, shared messages, the fan-out. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_SEND_H
#define FRAGVOTE_HUB_SEND_H

#include <stddef.h>

#define HUB_TX_CHUNK 4096          /* larger messages go out as fragments of this size, one per writeable */
#define HUB_FANOUT_CHUNK 250       /* a state change reaches this many phones per loop iteration, so votes
                                    * arriving meanwhile are read and acked between chunks */

struct hub_broadcast;
struct hub_conn;
struct lws_context;

struct hub_msg; /* opaque: hub_send.c's own (a serialized message shared by every connection that sends it) */
struct hub_fanout; /* opaque: hub_send.c's own */


struct hub_msg *hub_msg_new(char *json);        /* takes (frees) json; one reference */
void hub_msg_ref(struct hub_msg *m);            /* one reference more */
void hub_msg_unref(struct hub_msg *m);
void hub_msg_mark_state(struct hub_msg *m);     /* m is a state: a newer one queued for a connection replaces it there */
const char *hub_msg_text(const struct hub_msg *m, size_t *len); /* its bytes (not NUL-terminated), len of them */
int hub_msg_refs(const struct hub_msg *m);      /* its references (the tests count them) */
void hub_conn_send(struct hub_conn *c, struct hub_msg *m); /* writes m now, or queues it (own reference) */
int hub_conn_write_now(struct hub_conn *c, struct hub_msg *m); /* 1: written now; 0: must wait (see hub_send.c) */
/* c is writeable (neither closing nor owed a ping): one write, the next
 * fragment of its queue (through txbuf, LWS_PRE + HUB_TX_CHUNK bytes), else
 * the tally bcast owes it, else nothing. lws_write's result (< 0: the
 * socket failed), 0 when nothing was written. */
int hub_conn_write_next(struct hub_conn *c, struct hub_broadcast *bcast, unsigned char *txbuf);
/* Removes from the ring q (cap places; *len messages from head) every
 * state message, but the head when head_busy (partly written), keeping
 * the others' order; their references are dropped. Returns how many. */
unsigned hub_queue_drop_states(struct hub_msg *q[], unsigned cap, unsigned head, unsigned *len, int head_busy);
void hub_conn_send_later(struct hub_conn *c, struct hub_msg *m); /* queues m; writeable in a later fan-out chunk */
struct hub_msg *hub_conn_dequeue(struct hub_conn *c); /* the head of c's queue, removed (c->qlen > 0); the
                                                       * caller unrefs it */
/* The fan-out list; ctx is woken when a fan-out begins (the pump runs
 * between the loop's turns). NULL: out of memory. */
struct hub_fanout *hub_fanout_new(struct lws_context *ctx);
/* The broadcasts it asks whether a phone written now is owed a tally too
 * (they are made after it: they ask it whether a fan-out is going on). */
void hub_fanout_set_bcast(struct hub_fanout *fo, const struct hub_broadcast *bcast);
void hub_fanout_free(struct hub_fanout *fo);   /* NULL: nothing */
void hub_fanout_remove(struct hub_conn *c);     /* c leaves the fan-out list (closing, or written now) */
void hub_fanout_pump(struct hub_fanout *fo);    /* the next HUB_FANOUT_CHUNK deferred connections: writeable */
int hub_fanout_busy(const struct hub_fanout *fo); /* a state change is still being fanned out */
void hub_conn_send_own(struct hub_conn *c, char *json);    /* a one-off message; takes json */
void hub_conn_error(struct hub_conn *c, long long id, const char *code, const char *message); /* id -1: none */
/* 0 when c is an authed presenter; else answers error forbidden (phones and
 * screens: why_not_audience; a presenter: "send the secret first") and 1. */
int hub_conn_forbidden(struct hub_conn *c, const char *why_not_audience);
void hub_conn_kill(struct hub_conn *c, int code, const char *reason); /* close at next writeable */

#endif
