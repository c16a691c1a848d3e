/* Which address a request is from when a reverse proxy stands in front of
 * the hub (serve --trust-proxy): the trusted proxies as networks, and the
 * client's address read from X-Forwarded-For only when the TCP peer is one
 * of them. Everything else (a header from anyone else, a malformed one)
 * leaves the TCP peer's address. The parsers are pure; hub_proxy_peer reads
 * the connection. Internal to fragvote/hub: the proxies themselves (struct
 * hub_proxy, HUB_PROXY_MAX) and hub_proxy_add, which serve's options call,
 * are the hub's public interface, in hub.h. */
#ifndef FRAGVOTE_HUB_PROXY_H
#define FRAGVOTE_HUB_PROXY_H

#include <stddef.h>

#include "hub.h"

#define HUB_PROXY_XFF_MAX 512          /* X-Forwarded-For bytes read; a longer header is ignored */

struct hub_peer;

/* 1 when addr (16 bytes) is in one of p's networks. */
int hub_proxy_trusted(const struct hub_proxy *p, const unsigned char addr[16]);

/* Pure: the client address a trusted proxy reports in an X-Forwarded-For
 * value (xff, len bytes, not NUL-terminated): the right-most entry that is
 * not itself a trusted proxy. Returns 0 with out filled, or -1 when the
 * value is empty, longer than HUB_PROXY_XFF_MAX, has a malformed entry
 * before such an address, or names only trusted proxies. */
int hub_proxy_client(const struct hub_proxy *p, const char *xff, size_t len, unsigned char out[16]);

struct lws;

/* The peer of wsi for the throttles: its TCP peer (hub_guard_peer), or, when
 * that is one of p's proxies and the request's X-Forwarded-For names a
 * client, that client (self: it is this host's own connection address).
 * A trusted proxy's request without a usable header counts as the proxy,
 * never as this host. Call while the request's headers are there (HTTP
 * filter, websocket ESTABLISHED). Returns 0, or -1 as hub_guard_peer. */
int hub_proxy_peer(const struct hub_proxy *p, struct lws *wsi, struct hub_peer *out);

#endif
