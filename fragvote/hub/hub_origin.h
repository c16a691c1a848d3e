/* Which other sites' pages the hub trusts, and with what. A websocket
 * (issue 36, item 7): a browser sends the page's Origin with every upgrade,
 * and a page on another site could otherwise make its visitors' browsers
 * mint voters or spend the presenter-secret guess budget from their own
 * addresses. A frame (issue 39, item 5): the projector's page may be put in
 * an <iframe> of the sites serve --frame-ancestors names (a slide deck),
 * never the phone's or the presenter's page. Pure. */
#ifndef FRAGVOTE_HUB_ORIGIN_H
#define FRAGVOTE_HUB_ORIGIN_H

#include <stddef.h>

/* 1 when an upgrade with this Origin header may proceed: none at all
 * (command-line clients: `fragvote present`, load generators, tests), one
 * whose host and port are the request's own Host (the page serve served;
 * the scheme is not compared, since a TLS proxy in front speaks plain HTTP
 * to serve), or the origin of public_url (`--public-url`: a proxy that
 * rewrites Host). A Host without a port matches an origin on its scheme's
 * default port. 0 otherwise, "null" included. */
int hub_origin_allowed(const char *origin, const char *host, const char *public_url);

#define HUB_FRAME_SOURCES_MAX 400 /* bytes of a --frame-ancestors list */

/* 0 when sources may be the projector page's Content-Security-Policy
 * frame-ancestors (serve --frame-ancestors): one or more of 'self' and
 * origins "http[s]://HOST[:PORT]" (HOST may start with "*." for its
 * subdomains), separated by spaces, at most HUB_FRAME_SOURCES_MAX bytes.
 * Nothing else: not 'none' (the default, said by leaving the option out),
 * nor "*" or a scheme alone (every site), nor a path, nor a character that
 * would end the directive or the header (';' ',' quotes, controls). Else -1
 * with why in err. */
int hub_origin_frame_sources_check(const char *sources, char *err, size_t errlen);

#endif
