/* The static files in gzip for clients that take it (hub_gzip.c): lws file
 * operations to hand to the context (lws_context_creation_info.fops). */
#ifndef FRAGVOTE_HUB_GZIP_H
#define FRAGVOTE_HUB_GZIP_H

#include <libwebsockets.h>

struct hub_gzip;

struct hub_gzip *hub_gzip_new(void);                                /* NULL: out of memory */
const struct lws_plat_file_ops *hub_gzip_fops(const struct hub_gzip *g); /* lives as long as g */
void hub_gzip_free(struct hub_gzip *g);                             /* after the context is gone */

#endif
