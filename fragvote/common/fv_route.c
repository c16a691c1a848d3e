/* Interfaces and default routes (see fv_route.h). */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "fv_route.h"

#define ROUTE_F_UP 0x0001u     /* RTF_UP */
#define ROUTE_F_REJECT 0x0200u /* RTF_REJECT: IPv6's "unreachable" default on lo */

/* One default route of /proc/net/route (IPv4) per call: 1 with its
 * interface and metric, 0 for another line. */
static int default_v4(const char *line, char *ifn, unsigned long *metric) {
    unsigned long dst, gw, flags, refcnt, use, mask;
    if (sscanf(line, "%16s %lx %lx %lx %lu %lu %lu %lx", ifn, &dst, &gw, &flags, &refcnt, &use, metric, &mask) != 8)
        return 0;
    return dst == 0 && mask == 0 && (flags & ROUTE_F_UP) && !(flags & ROUTE_F_REJECT);
}

/* The same for /proc/net/ipv6_route: ::/0, up, not a reject route, not lo. */
static int default_v6(const char *line, char *ifn, unsigned long *metric) {
    char dst[33], src[33], gw[33];
    unsigned plen, splen;
    unsigned long refcnt, use, flags;
    if (sscanf(line, "%32s %x %32s %x %32s %lx %lx %lx %lx %16s", dst, &plen, src, &splen, gw, metric, &refcnt, &use,
               &flags, ifn) != 10)
        return 0;
    return plen == 0 && strspn(dst, "0") == 32 && (flags & ROUTE_F_UP) && !(flags & ROUTE_F_REJECT) &&
           strcmp(ifn, "lo");
}

/* Calls each default route of family (its interface, its metric) until
 * fn returns non-zero; returns that, or 0. */
static int each_default(int family, int (*fn)(const char *ifn, unsigned long metric, void *ctx), void *ctx) {
    FILE *f = fopen(family == AF_INET6 ? "/proc/net/ipv6_route" : "/proc/net/route", "r");
    if (!f) return 0;
    char line[512], ifn[IF_NAMESIZE + 1];
    unsigned long metric;
    int rc = 0;
    if (family == AF_INET && !fgets(line, sizeof line, f)) goto out; /* IPv4's header */
    while (!rc && fgets(line, sizeof line, f))
        if (family == AF_INET6 ? default_v6(line, ifn, &metric) : default_v4(line, ifn, &metric))
            rc = fn(ifn, metric, ctx);
out:
    fclose(f);
    return rc;
}

struct best {
    char *name;
    size_t namelen;
    unsigned long metric;
    int found;
};

static int keep_lowest(const char *ifn, unsigned long metric, void *ctx) {
    struct best *b = ctx;
    if (!b->found || metric < b->metric) {
        snprintf(b->name, b->namelen, "%s", ifn);
        b->metric = metric;
        b->found = 1;
    }
    return 0;
}

int fv_route_default_iface(int family, char *name, size_t namelen) {
    struct best b = {name, namelen, 0, 0};
    each_default(family, keep_lowest, &b);
    return b.found ? 0 : -1;
}

static int is_iface(const char *ifn, unsigned long metric, void *ctx) {
    (void)metric;
    return !strcmp(ifn, (const char *)ctx);
}

int fv_route_iface_has_default(const char *ifname, int family) {
    return each_default(family, is_iface, (void *)ifname);
}

int fv_route_iface_addr(const char *ifname, int family, char *out, size_t outlen) {
    struct ifaddrs *ifa, *i;
    int rc = -1;
    if (getifaddrs(&ifa)) return -1;
    for (i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != family || strcmp(i->ifa_name, ifname)) continue;
        const void *a = family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr
                                           : (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        inet_ntop(family, a, out, (socklen_t)outlen);
        rc = 0;
        break;
    }
    freeifaddrs(ifa);
    return rc;
}

int fv_route_addr_iface(const char *addr, char *ifname, size_t namelen) {
    unsigned char want[16];
    int family = inet_pton(AF_INET, addr, want) == 1 ? AF_INET : inet_pton(AF_INET6, addr, want) == 1 ? AF_INET6 : 0;
    if (!family) return -1;
    struct ifaddrs *ifa, *i;
    int rc = -1;
    if (getifaddrs(&ifa)) return -1;
    for (i = ifa; i && rc; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != family) continue;
        const void *a = family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr
                                           : (const void *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        if (!memcmp(a, want, family == AF_INET6 ? 16 : 4)) {
            snprintf(ifname, namelen, "%s", i->ifa_name);
            rc = 0;
        }
    }
    freeifaddrs(ifa);
    return rc;
}
