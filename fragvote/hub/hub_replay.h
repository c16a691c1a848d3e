/* The self-paced replay after the talk (hub_replay.c; docs/PROTOCOL.md
 * "The self-paced replay"). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_REPLAY_H
#define FRAGVOTE_HUB_REPLAY_H

struct hub;
struct hub_batch;
struct hub_broadcast;
struct hub_conn;
struct hub_guard;
struct hub_msg;
struct room;

/* The replay message, shared by every phone that asks, embedded in struct
 * hub (h->replay) and read or written only by hub_replay.c: built for the
 * phones' state message it holds a reference to, built again when that
 * state changed. It is given the parts it uses (hub_replay_init). */
struct hub_replay {
    struct hub *hub;               /* the message's builder (hub_msg_replay) */
    struct room *room;
    struct hub_guard *guard;       /* a first answer is charged to its address like a new voter's */
    struct hub_broadcast *bcast;   /* the phones' state the message was built for */
    struct hub_batch *batch;       /* the answers go into the group commit */
    struct hub_msg *of_state;      /* the phones' state it was built for (a reference) */
    struct hub_msg *msg;           /* the replay message (a reference) */
};

void hub_replay_init(struct hub_replay *r, struct hub *hub, struct room *room, struct hub_guard *guard,
                     struct hub_broadcast *bcast, struct hub_batch *batch);
void hub_replay_ask(struct hub_replay *r, struct hub_conn *c); /* "replay" */
/* "replay_vote", read (hub_conn.c answered one that was not): the phone's
 * id (-1 none), the question's position q, the answer yes. */
void hub_replay_vote(struct hub_replay *r, struct hub_conn *c, long long id, long long q, int yes);
void hub_replay_free(struct hub_replay *r);

#endif
