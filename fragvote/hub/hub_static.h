/* The static files (hub_static.c): the pages, their scripts and style,
 * kept in memory (plain, and in gzip for clients that take it) and each
 * answered in one write, headers and body together. */
#ifndef FRAGVOTE_HUB_STATIC_H
#define FRAGVOTE_HUB_STATIC_H

#include <libwebsockets.h>

struct hub_static;

/* dir: the root, an open directory it takes over (closed by
 * hub_static_free). Every file is read relative to it (openat), so a root
 * opened before a drop of privileges stays readable after it whatever the
 * directories above it allow (docs/PRIVILEGES.md). joins: the joined
 * scripts' names it serves ("common,path,phone.js"), NULL-terminated, kept
 * (not copied); NULL: none. NULL: out of memory (dir is then not taken). */
struct hub_static *hub_static_new(int dir, const char *const *joins);
/* Answers the request on wsi for path ("/" is index.html) from the root:
 * 200 with the file, 304 when If-None-Match names its validator, headers
 * only for HEAD, 404 for a name that is not a file of the root. cacheable
 * 0: "cache-control: no-store" and no validator (the projector's and the
 * presenter's pages). frame: the sources whose pages may put it in a frame
 * (a Content-Security-Policy "frame-ancestors" of their own); NULL: none
 * ('none', and "X-Frame-Options: DENY" for browsers older than CSP 2).
 * Returns what LWS_CALLBACK_HTTP returns (0 keep going, -1 close). */
int hub_static_answer(struct hub_static *s, struct lws *wsi, const char *path, int cacheable, const char *frame);
void hub_static_free(struct hub_static *s);

#endif
