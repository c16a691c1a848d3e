/* A session's export over the presenter connection (hub_export.c). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_EXPORT_H
#define FRAGVOTE_HUB_EXPORT_H

struct hub_batch;
struct hub_client_msg;
struct hub_config;
struct hub_conn;
struct room;

/* m is an `export` from c: the session's export (cfg->export_session) once
 * the talk is over and no batch of b is in flight, or an error. */
void hub_export(const struct hub_config *cfg, struct room *room, struct hub_batch *b, struct hub_conn *c,
                const struct hub_client_msg *m);

#endif
