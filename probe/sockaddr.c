/* Socket addresses of either family in a sockaddr_storage: ports, address
 * bytes, the any-address. One place for the AF_INET / AF_INET6 casts. */
#include <string.h>

#include "base.h"

socklen_t probe_sockaddr_len(int family) {
    return family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

int probe_sockaddr_port(const struct sockaddr_storage *ss) {
    return ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port
                                           : ((const struct sockaddr_in *)ss)->sin_port);
}

void probe_sockaddr_set_port(struct sockaddr_storage *ss, int port) {
    if (ss->ss_family == AF_INET6) ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
    else ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
}

const void *probe_sockaddr_addr(const struct sockaddr_storage *ss) {
    return ss->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
                                     : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
}

void probe_sockaddr_addr16(const struct sockaddr_storage *ss, uint8_t out[16]) {
    memset(out, 0, 16);
    memcpy(out, probe_sockaddr_addr(ss), ss->ss_family == AF_INET6 ? 16 : 4);
}

int probe_sockaddr_bind_any(int fd, int family, int port) {
    struct sockaddr_storage a;
    memset(&a, 0, sizeof a); /* 0.0.0.0 and :: are all zeros */
    a.ss_family = (sa_family_t)family;
    probe_sockaddr_set_port(&a, port);
    return bind(fd, (struct sockaddr *)&a, probe_sockaddr_len(family));
}
