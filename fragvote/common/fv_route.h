/* This host's interfaces and default routes, as the join URL needs them
 * (hub/hub_net.c: which address phones are shown) and as `fragvote check`
 * judges them (can phones reach that address?). Reads /proc/net/route,
 * /proc/net/ipv6_route and getifaddrs; libc only. */
#ifndef FRAGVOTE_FV_ROUTE_H
#define FRAGVOTE_FV_ROUTE_H

#include <stddef.h>

/* The interface holding the default route of family (AF_INET, AF_INET6;
 * the lowest metric; never a reject route or lo) into name: 0, or -1 when
 * there is none. */
int fv_route_default_iface(int family, char *name, size_t namelen);
/* 1 when ifname holds a default route of family, else 0. */
int fv_route_iface_has_default(const char *ifname, int family);
/* The first address of family on ifname, as text: 0, or -1 (none). */
int fv_route_iface_addr(const char *ifname, int family, char *out, size_t outlen);
/* The interface that holds addr (text, either family) into ifname: 0, or
 * -1 when no interface of this host has it. */
int fv_route_addr_iface(const char *addr, char *ifname, size_t namelen);

#endif
