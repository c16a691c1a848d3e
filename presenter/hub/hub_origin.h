/* Which web pages may open a websocket to the hub (issue 36, item 7). A
 * browser sends the page's Origin with every upgrade, and a page on another
 * site could otherwise make its visitors' browsers mint voters or spend the
 * presenter-secret guess budget from their own addresses. Pure. */
#ifndef FRAGVOTE_HUB_ORIGIN_H
#define FRAGVOTE_HUB_ORIGIN_H

/* 1 when an upgrade with this Origin header may proceed: none at all
 * (command-line clients: `fragvote present`, load generators, tests), one
 * whose host and port are the request's own Host (the page serve served;
 * the scheme is not compared, since a TLS proxy in front speaks plain HTTP
 * to serve), or the origin of public_url (`--public-url`: a proxy that
 * rewrites Host). A Host without a port matches an origin on its scheme's
 * default port. 0 otherwise, "null" included. */
int hub_origin_allowed(const char *origin, const char *host, const char *public_url);

#endif
