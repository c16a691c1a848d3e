/* The sender: one socket per test with the PMTUD mode and TTL of the spec,
 * connected to the target; the datagram, the TCP write or the ICMP echo
 * request (its socket and header: send_icmp.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base.h"
#include "fragprobe.h"
#include "send.h"

#define SEND_TCP_TTL_CONNECT 64  /* the handshake must reach the listener */

static int mode_value(enum probe_mode m) {
    /* IP_PMTUDISC_DONT 0 .. IP_PMTUDISC_OMIT 5, same numbers for IPv6. */
    return (int)m - 1;
}

int probe_header_bytes(enum probe_proto p) {
    return (probe_proto_is_v6(p) ? 40 : 20) + (probe_proto_is_tcp(p) ? 20 : 8); /* UDP and ICMP echo: 8 */
}

static int set_ttl(int fd, int v6, int ttl) {
    return v6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof ttl)
              : setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl);
}

int probe_route_mtu(int fd, int v6) {
    int mtu = 0;
    socklen_t l = sizeof mtu;
    int rc = v6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &l) : getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &l);
    return rc < 0 ? -1 : mtu;
}

/* MTU of the interface holding the socket's local address (in this thread's namespace). */
static int device_mtu(const struct sockaddr_storage *local) {
    struct ifaddrs *ifa = NULL, *i;
    int mtu = -1;
    if (getifaddrs(&ifa) < 0) return -1;
    for (i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != local->ss_family) continue;
        int same = local->ss_family == AF_INET6
                       ? !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
                                 &((const struct sockaddr_in6 *)local)->sin6_addr, 16)
                       : ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
                             ((const struct sockaddr_in *)local)->sin_addr.s_addr;
        if (!same) continue;
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) break;
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", i->ifa_name);
        if (ioctl(fd, SIOCGIFMTU, &ifr) == 0) mtu = ifr.ifr_mtu;
        close(fd);
        break;
    }
    freeifaddrs(ifa);
    return mtu;
}

int probe_resolve(const char *host, int v6, int port, struct sockaddr_storage *out, char *err, size_t errlen) {
    int rc = probe_pmtu_resolve(host, v6 ? AF_INET6 : AF_INET, out, err, errlen);
    if (rc < 0) return rc;
    probe_sockaddr_set_port(out, port);
    return 0;
}

static int errno_code(int e) {
    if (e == ENETUNREACH || e == EHOSTUNREACH) return PROBE_E_NOROUTE;
    if (e == EAFNOSUPPORT || e == EADDRNOTAVAIL) return PROBE_E_NOV6;
    if (e == EPERM || e == EACCES) return PROBE_E_PERM;
    return PROBE_E_FAIL;
}

int probe_send_open(const struct probe_spec *spec, const struct sockaddr_storage *dst, int ttl, int timeout_ms,
                    int icmp_raw, struct probe_sendinfo *si, struct probe_route *rt, char *err, size_t errlen) {
    int v6 = probe_proto_is_v6(spec->proto), tcp = probe_proto_is_tcp(spec->proto);
    int icmp = probe_proto_is_icmp(spec->proto);
    memset(si, 0, sizeof *si);
    si->spec = spec;
    si->family = v6 ? AF_INET6 : AF_INET;
    si->l4 = tcp ? IPPROTO_TCP : icmp ? (v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP) : IPPROTO_UDP;
    si->ttl = ttl;
    si->tcp_seq0 = -1;
    si->udp_check = si->udp_check_partial = -1;
    si->remote = *dst;
    if (icmp) { /* ICMP has no ports: a raw socket would take one for a protocol number */
        probe_sockaddr_set_port(&si->remote, 0);
    }
    dst = &si->remote;
    socklen_t dlen = probe_sockaddr_len(si->family);
    int fd;
    if (icmp) {
        if ((fd = probe_icmp_socket(v6, icmp_raw, spec->port, si, err, errlen)) < 0) return fd;
    } else {
        snprintf(si->sock, sizeof si->sock, "%s", tcp ? "tcp" : "udp");
        fd = socket(si->family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot open a %s socket: %s", probe_proto_name(spec->proto), strerror(errno));
        return errno_code(errno);
    }
    si->fd = fd;
    if (spec->mode != PROBE_MODE_DEFAULT) {
        int v = mode_value(spec->mode);
        int rc = v6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v, sizeof v)
                    : setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof v);
        if (rc < 0) {
            snprintf(err, errlen, "this kernel refuses %s_MTU_DISCOVER=%s: %s", v6 ? "IPV6" : "IP",
                     probe_mode_name(spec->mode), strerror(errno));
            goto fail;
        }
    }
    if (set_ttl(fd, v6, tcp ? SEND_TCP_TTL_CONNECT : ttl) < 0) {
        snprintf(err, errlen, "cannot set the TTL: %s", strerror(errno));
        goto fail;
    }
    if (tcp) {
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (const struct sockaddr *)dst, dlen) < 0 && errno != EINPROGRESS) {
            snprintf(err, errlen, "TCP connect failed: %s", strerror(errno));
            goto fail_errno;
        }
        struct pollfd pf = {fd, POLLOUT, 0};
        int r = poll(&pf, 1, timeout_ms);
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
        if (r <= 0 || soerr) {
            snprintf(err, errlen, "TCP connect to port %d %s: the target needs a listener (the lab provides one)",
                     probe_sockaddr_port(dst), r <= 0 ? "timed out" : strerror(soerr));
            close(fd);
            si->fd = -1;
            return r <= 0 ? PROBE_E_TIMEOUT : errno_code(soerr);
        }
        /* Only the data segments get the small TTL. */
        if (set_ttl(fd, v6, ttl) < 0) {
            snprintf(err, errlen, "cannot lower the TTL: %s", strerror(errno));
            goto fail;
        }
    } else if (connect(fd, (const struct sockaddr *)dst, dlen) < 0) {
        snprintf(err, errlen, "cannot route to the target: %s", strerror(errno));
        goto fail_errno;
    }
    socklen_t ll = sizeof si->local;
    getsockname(fd, (struct sockaddr *)&si->local, &ll);
    if (!icmp) {
        si->sport = probe_sockaddr_port(&si->local);
        si->dport = probe_sockaddr_port(dst);
    } else if (!strcmp(si->sock, "ping")) {
        si->sport = probe_sockaddr_port(&si->local); /* a ping socket's port is its echo identifier */
    }
    rt->path_mtu = probe_route_mtu(fd, v6);
    si->route_mtu = rt->path_mtu;
    rt->dev_mtu = device_mtu(&si->local);
    return 0;
fail_errno:;
    int e = errno;
    close(fd);
    si->fd = -1;
    return errno_code(e);
fail:
    close(fd);
    si->fd = -1;
    return PROBE_E_FAIL;
}

int probe_send_payload(struct probe_sendinfo *si, int *kernel_mtu) {
    const struct probe_spec *spec = si->spec;
    int hdr = probe_header_bytes(spec->proto);
    if (si->l4 == IPPROTO_TCP) {
        /* Timestamps add 12 bytes of options to every segment: the packet,
         * not the payload, is spec->size. */
        struct tcp_info ti;
        socklen_t tl = sizeof ti;
        if (getsockopt(si->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 && (ti.tcpi_options & TCPI_OPT_TIMESTAMPS))
            hdr += 12;
    }
    int icmp = probe_proto_is_icmp(spec->proto);
    if (icmp) hdr -= 8; /* both ICMP sockets take the echo header with the data */
    size_t n = spec->size > hdr ? (size_t)(spec->size - hdr) : 1;
    char *buf = calloc(1, n ? n : 1);
    if (!buf) return PROBE_E_FAIL;
    if (icmp)
        probe_icmp_echo_build((uint8_t *)buf, n, si->family == AF_INET6, !strcmp(si->sock, "raw"), si->sport, si->dport);
    else
        memset(buf, 'f', n);
    if (si->witness_key) {
        /* The witness reads its header from the start of the payload. */
        struct probe_witness_probe wp = {.proto = (int)spec->proto, .payload_len = (uint32_t)n};
        memcpy(wp.nonce, si->witness_nonce, sizeof wp.nonce);
        probe_witness_probe_encode(si->witness_key, &wp, (uint8_t *)buf, n);
    }
    /* What ties a router's quote to this datagram (issue 34). */
    if (si->l4 == IPPROTO_UDP) si->udp_check = probe_udp_checksum(si, (const uint8_t *)buf, n, &si->udp_check_partial);
    fv_clock_now(&si->t_sent);
    ssize_t w = send(si->fd, buf, n, MSG_NOSIGNAL);
    free(buf);
    *kernel_mtu = 0;
    if (w < 0) {
        si->sent = 0;
        si->send_errno = errno;
        if (errno == EMSGSIZE) *kernel_mtu = probe_route_mtu(si->fd, si->family == AF_INET6);
        return 0;
    }
    si->sent = 1;
    return 0;
}

void probe_send_close(struct probe_sendinfo *si) {
    if (si->fd < 0) return;
    if (si->l4 == IPPROTO_TCP) {
        /* Reset rather than linger: the data never reaches the listener. */
        struct linger lg = {1, 0};
        setsockopt(si->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(si->fd);
    si->fd = -1;
}
