/* The venue check's facts about this host: the join URL's address and the
 * IPv6 default route (check_venue.h; routes and interfaces: fv_route.h). */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "check_venue.h"
#include "fv_route.h"

/* Loopback and link-local of an address as text (either family). */
static void classify(const char *addr, int *loopback, int *linklocal) {
    struct in_addr a4;
    struct in6_addr a6;
    *loopback = *linklocal = 0;
    if (inet_pton(AF_INET, addr, &a4) == 1) {
        unsigned long h = ntohl(a4.s_addr);
        *loopback = (h >> 24) == 127;
        *linklocal = (h >> 16) == 0xa9feUL; /* 169.254.0.0/16 */
    } else if (inet_pton(AF_INET6, addr, &a6) == 1) {
        *loopback = IN6_IS_ADDR_LOOPBACK(&a6);
        *linklocal = IN6_IS_ADDR_LINKLOCAL(&a6);
    }
}

/* A name's first address as text: 0, or -1 when it does not resolve. */
static int resolve(const char *name, char *out, size_t n) {
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(name, NULL, &hints, &res)) return -1;
    const void *a = res->ai_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
                                               : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
    inet_ntop(res->ai_family, a, out, (socklen_t)n);
    freeaddrinfo(res);
    return 0;
}

void check_join_facts(struct check_join *j) {
    unsigned char buf[16];
    j->host[0] = j->addr[0] = j->iface[0] = 0;
    j->is_addr = j->resolved = j->loopback = j->linklocal = j->iface_default = 0;
    if (check_url_host(j->url, j->host, sizeof j->host)) return;
    j->is_addr = inet_pton(AF_INET, j->host, buf) == 1 || inet_pton(AF_INET6, j->host, buf) == 1;
    if (j->is_addr)
        snprintf(j->addr, sizeof j->addr, "%.63s", j->host); /* an address: it fits */
    else if (resolve(j->host, j->addr, sizeof j->addr) == 0)
        j->resolved = 1;
    else
        return;
    classify(j->addr, &j->loopback, &j->linklocal);
    if (fv_route_addr_iface(j->addr, j->iface, sizeof j->iface) == 0)
        j->iface_default = fv_route_iface_has_default(j->iface, strchr(j->addr, ':') ? AF_INET6 : AF_INET);
}

void check_v6_facts(struct check_v6 *v) {
    v->iface[0] = 0;
    if (fv_route_default_iface(AF_INET6, v->iface, sizeof v->iface)) v->iface[0] = 0;
}
