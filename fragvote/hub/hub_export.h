/* A session's export over the presenter connection (hub_export.c). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_EXPORT_H
#define FRAGVOTE_HUB_EXPORT_H

struct hub_batch;
struct hub_config;
struct hub_conn;
struct room;

/* An `export` from c in format (its "format", NULL absent): the session's
 * export (cfg->export_session) once the talk is over and no batch of b is in
 * flight, or an error. */
void hub_export(const struct hub_config *cfg, struct room *room, struct hub_batch *b, struct hub_conn *c,
                const char *format);

#endif
