/* A session's export over the presenter connection (hub_export.c). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_EXPORT_H
#define FRAGVOTE_HUB_EXPORT_H

struct hub;
struct hub_conn;
struct hub_client_msg;

void hub_export(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m);

#endif
