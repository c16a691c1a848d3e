/* The self-paced replay after the talk (hub_replay.c; docs/PROTOCOL.md
 * "The self-paced replay"). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_REPLAY_H
#define FRAGVOTE_HUB_REPLAY_H

struct hub;
struct hub_conn;
struct hub_msg;
struct hub_client_msg;

/* The replay message, shared by every phone that asks, embedded in struct
 * hub (h->replay) and read or written only by hub_replay.c: built for the
 * phones' state message it holds a reference to, built again when that
 * state changed. */
struct hub_replay {
    struct hub_msg *of_state;      /* the phones' state it was built for (a reference) */
    struct hub_msg *msg;           /* the replay message (a reference) */
};

void hub_replay_ask(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m);  /* "replay" */
void hub_replay_vote(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m); /* "replay_vote" */
void hub_replay_free(struct hub *h);

#endif
