/* Which address a request is from when a reverse proxy stands in front of
 * the hub (serve --trust-proxy): the trusted proxies as networks, and the
 * client's address read from X-Forwarded-For only when the TCP peer is one
 * of them. Everything else (a header from anyone else, a malformed one)
 * leaves the TCP peer's address. The parsers are pure; hub_proxy_peer reads
 * the connection. Internal to fragvote/hub*.c and cmd_serve.c. */
#ifndef FRAGVOTE_HUB_PROXY_H
#define FRAGVOTE_HUB_PROXY_H

#include <stddef.h>

#include "hub_guard.h"

#define HUB_PROXY_MAX 16               /* trusted proxy networks (--trust-proxy entries) */
#define HUB_PROXY_XFF_MAX 512          /* X-Forwarded-For bytes read; a longer header is ignored */
#define HUB_PROXY_SPEC_MAX 64          /* one ADDR[/BITS] entry */

struct hub_proxy_net {
    unsigned char addr[16];            /* IPv6, IPv4 as ::ffff:a.b.c.d; bits beyond the prefix zero */
    int bits;                          /* prefix length in the 128-bit form (IPv4 /24 is 120) */
};

struct hub_proxy {
    int n;                             /* 0: no proxy trusted, the header is never read */
    struct hub_proxy_net net[HUB_PROXY_MAX];
};

/* Adds the trusted proxies in spec to p: a comma-separated list of IPv4 or
 * IPv6 addresses, each with an optional /BITS (CIDR). Returns 0, or -1 with
 * a sentence in err (p keeps the entries before the bad one). */
int hub_proxy_add(struct hub_proxy *p, const char *spec, char *err, size_t errlen);

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
