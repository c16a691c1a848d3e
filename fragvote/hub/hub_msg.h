/* The hub's messages as JSON text (hub_msg.c); the caller owns the text. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_MSG_H
#define FRAGVOTE_HUB_MSG_H

#include "room_view.h"

#define HUB_PROTOCOL_VERSION 1

struct hub;
struct room;

/* What who may see of the state and the tally: room_view decides. */
char *hub_msg_state(struct hub *h, enum room_viewer who);
/* The state about question pos instead of the current one (a screen that
 * follows it: "q" is pos, with its split, reveal and path as room_view_at
 * and quiz_truth allow); NULL when pos is not in the deck. */
char *hub_msg_state_of(struct hub *h, enum room_viewer who, int pos);
char *hub_msg_tally(struct hub *h, enum room_viewer who);
char *hub_msg_welcome(struct room *room, int voter, const char *token);
/* A stored vote's answer (its confidence when it has one); votes: question
 * pos's count with it (quiz_votes). */
char *hub_msg_ack(long long id, int pos, int yes, enum confidence conf, int votes); /* id -1: no "id" */
char *hub_msg_error(long long id, const char *code, const char *message); /* id -1: no "id" */
/* The self-paced replay (docs/PROTOCOL.md "replay"): every revealed
 * question with its reveal and path as the room was shown them; NULL out of
 * memory. */
char *hub_msg_replay(struct hub *h);
char *hub_msg_replay_ack(long long id, int pos, int yes); /* the answer kept; id -1: no "id" */
char *hub_msg_simple(const char *type, const char *key, const char *value);

#endif
