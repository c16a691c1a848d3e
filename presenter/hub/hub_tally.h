/* Broadcasts (hub_tally.c), on the loop's thread. Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_TALLY_H
#define FRAGVOTE_HUB_TALLY_H

#include "room_view.h"

struct hub;
struct hub_msg;

void hub_tally_schedule(struct hub *h);         /* a tally broadcast soon */
void hub_tally_now(struct hub *h);              /* a commit changed the counts: screens' tally now */
void hub_state_changed(struct hub *h);          /* new state messages to everyone, a tally soon */
/* One message per viewer from build (cur[] replaced only when all were built): 0 or -1. */
int hub_build_views(struct hub *h, char *(*build)(struct hub *, enum room_viewer), struct hub_msg *cur[]);
void hub_drop_views(struct hub_msg *cur[]);

#endif
