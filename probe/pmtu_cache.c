/* The kernel's path-MTU cache: learned PMTUs are route exceptions shared by
 * every socket to a destination. Show asks RTM_GETROUTE for one address (the
 * reply carries RTAX_MTU and an expiry when an exception exists); flush
 * writes /proc/sys/net/ipv4/route/flush for IPv4 (the kernel has no
 * per-destination IPv4 delete) and deletes IPv6 cloned routes one by one
 * with RTM_DELROUTE, as `ip -6 route flush cache` does. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "fragprobe.h"
#include "pmtu_cache.h"

/* Largest netlink reply we accept in one recv (a dump sends many). */
#define PMTU_NL_BUF 32768
/* Clock ticks in rta_expires: the kernel reports USER_HZ, 100 on every ABI. */
#define PMTU_USER_HZ 100
/* Cap on exceptions deleted by one IPv6 flush (untrusted count from the kernel). */
#define PMTU_FLUSH_MAX 4096

/* IPv6 is usable when the kernel has it and it is not disabled in this
 * network namespace (net.ipv6.conf.all.disable_ipv6). */
static int is_v6_available(void) {
    int fd = socket(AF_INET6, SOCK_DGRAM, 0);
    if (fd < 0) return 0;
    close(fd);
    fd = open("/proc/sys/net/ipv6/conf/all/disable_ipv6", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    char c = '0';
    ssize_t n = read(fd, &c, 1);
    close(fd);
    return !(n == 1 && c == '1');
}

int probe_pmtu_resolve(const char *host, int family, struct sockaddr_storage *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!host || !*host) {
        snprintf(err, errlen, "no host given");
        return PROBE_E_HOST;
    }
    struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_DGRAM};
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0 || !res) {
        if (family == AF_INET6 && (rc == EAI_ADDRFAMILY || rc == EAI_NODATA || rc == EAI_FAMILY)) {
            snprintf(err, errlen, "%s has no IPv6 address", host);
            return PROBE_E_NOV6;
        }
        snprintf(err, errlen, "unknown host %s: %s", host, gai_strerror(rc));
        return PROBE_E_HOST;
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (out->ss_family == AF_INET6 && !is_v6_available()) {
        snprintf(err, errlen, "IPv6 is not available on this host (needed for %s)", host);
        return PROBE_E_NOV6;
    }
    return 0;
}

static void sa_to_text(const struct sockaddr_storage *ss, char *buf, size_t len) {
    if (ss->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, buf, (socklen_t)len);
    else
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, buf, (socklen_t)len);
}

int probe_pmtu_parse_route(const uint8_t *buf, size_t len, struct probe_pmtu_entry *out) {
    memset(out, 0, sizeof *out);
    struct nlmsghdr nh;
    if (!buf || len < NLMSG_HDRLEN + sizeof(struct rtmsg)) return -1;
    memcpy(&nh, buf, sizeof nh);
    if (nh.nlmsg_len > len || nh.nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg))) return -1;
    if (nh.nlmsg_type != RTM_NEWROUTE) return -1;
    struct rtmsg rtm;
    memcpy(&rtm, buf + NLMSG_HDRLEN, sizeof rtm);
    if (rtm.rtm_family != AF_INET && rtm.rtm_family != AF_INET6) return -1;
    out->family = rtm.rtm_family;
    size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof rtm);
    size_t end = nh.nlmsg_len;
    int metric_mtu = 0;
    uint32_t expires = 0;
    while (off + sizeof(struct rtattr) <= end) {
        struct rtattr ra;
        memcpy(&ra, buf + off, sizeof ra);
        if (ra.rta_len < sizeof ra || ra.rta_len > end - off) return -1;
        const uint8_t *data = buf + off + RTA_LENGTH(0);
        size_t dlen = ra.rta_len - RTA_LENGTH(0);
        switch (ra.rta_type) {
        case RTA_DST:
            if (rtm.rtm_family == AF_INET && dlen == 4)
                inet_ntop(AF_INET, data, out->addr, sizeof out->addr);
            else if (rtm.rtm_family == AF_INET6 && dlen == 16)
                inet_ntop(AF_INET6, data, out->addr, sizeof out->addr);
            break;
        case RTA_OIF:
            if (dlen >= 4) {
                uint32_t oif;
                memcpy(&oif, data, 4);
                out->oif = (int)oif;
            }
            break;
        case RTA_CACHEINFO:
            if (dlen >= sizeof(struct rta_cacheinfo)) {
                struct rta_cacheinfo ci;
                memcpy(&ci, data, sizeof ci);
                expires = ci.rta_expires;
            }
            break;
        case RTA_METRICS: {
            size_t m = 0;
            while (m + sizeof(struct rtattr) <= dlen) {
                struct rtattr mra;
                memcpy(&mra, data + m, sizeof mra);
                if (mra.rta_len < sizeof mra || mra.rta_len > dlen - m) return -1;
                if ((mra.rta_type & NLA_TYPE_MASK) == RTAX_MTU && mra.rta_len >= RTA_LENGTH(4)) {
                    uint32_t v;
                    memcpy(&v, data + m + RTA_LENGTH(0), 4);
                    metric_mtu = v <= 65535 ? (int)v : 0;
                }
                m += RTA_ALIGN(mra.rta_len);
            }
            break;
        }
        default:
            break;
        }
        off += RTA_ALIGN(ra.rta_len);
    }
    /* A learned PMTU is an exception with an expiry; an MTU metric without
     * one is configured on the route, not cached. */
    if (expires > 0 && metric_mtu > 0) {
        out->mtu = metric_mtu;
        out->expires_s = (int)((expires + PMTU_USER_HZ - 1) / PMTU_USER_HZ);
    }
    return 0;
}

static int nl_open(char *err, size_t errlen) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open a netlink socket: %s", strerror(errno));
        return PROBE_E_FAIL;
    }
    struct timeval tv = {.tv_sec = 2};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Maps a kernel netlink error to our codes with one sentence. */
static int nl_error(int e, const char *what, const char *addr, char *err, size_t errlen) {
    if (e == ENETUNREACH || e == EHOSTUNREACH) {
        snprintf(err, errlen, "no route to %s", addr);
        return PROBE_E_NOROUTE;
    }
    if (e == EPERM || e == EACCES) {
        snprintf(err, errlen, "%s needs CAP_NET_ADMIN (run with sudo, or `setcap cap_net_admin+ep` on the program)", what);
        return PROBE_E_PERM;
    }
    if (e == EAFNOSUPPORT) {
        snprintf(err, errlen, "IPv6 is not available on this host");
        return PROBE_E_NOV6;
    }
    snprintf(err, errlen, "%s for %s failed: %s", what, addr, strerror(e));
    return PROBE_E_FAIL;
}

static int dev_mtu(int oif, char *name, size_t namelen) {
    char ifname[IF_NAMESIZE] = "";
    if (oif <= 0 || !if_indextoname((unsigned)oif, ifname)) return 0;
    snprintf(name, namelen, "%s", ifname);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
    int mtu = ioctl(fd, SIOCGIFMTU, &ifr) == 0 ? ifr.ifr_mtu : 0;
    close(fd);
    return mtu;
}

static int route_get(const struct sockaddr_storage *dst, struct probe_pmtu_entry *out, char *err, size_t errlen) {
    char addr[64];
    sa_to_text(dst, addr, sizeof addr);
    struct {
        struct nlmsghdr nh;
        struct rtmsg rtm;
        char attrs[64];
    } req;
    memset(&req, 0, sizeof req);
    int v6 = dst->ss_family == AF_INET6;
    size_t alen = v6 ? 16 : 4;
    req.nh.nlmsg_type = RTM_GETROUTE;
    req.nh.nlmsg_flags = NLM_F_REQUEST;
    req.nh.nlmsg_seq = 1;
    req.rtm.rtm_family = (unsigned char)dst->ss_family;
    req.rtm.rtm_dst_len = (unsigned char)(alen * 8);
    struct rtattr *ra = (struct rtattr *)req.attrs;
    ra->rta_type = RTA_DST;
    ra->rta_len = (unsigned short)RTA_LENGTH(alen);
    memcpy(RTA_DATA(ra), v6 ? (const void *)&((const struct sockaddr_in6 *)dst)->sin6_addr
                            : (const void *)&((const struct sockaddr_in *)dst)->sin_addr, alen);
    req.nh.nlmsg_len = NLMSG_LENGTH(sizeof req.rtm) + RTA_ALIGN(ra->rta_len);

    int fd = nl_open(err, errlen);
    if (fd < 0) return fd;
    int rc = PROBE_E_FAIL;
    static __thread uint8_t buf[PMTU_NL_BUF];
    if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
        rc = nl_error(errno, "asking the kernel for the route", addr, err, errlen);
        goto out;
    }
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
        snprintf(err, errlen, "no netlink answer for the route to %s: %s", addr, strerror(errno));
        goto out;
    }
    struct nlmsghdr nh;
    if ((size_t)n < sizeof nh) {
        snprintf(err, errlen, "short netlink answer for the route to %s", addr);
        goto out;
    }
    memcpy(&nh, buf, sizeof nh);
    if (nh.nlmsg_type == NLMSG_ERROR && (size_t)n >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
        struct nlmsgerr e;
        memcpy(&e, buf + NLMSG_HDRLEN, sizeof e);
        rc = nl_error(-e.error, "the route lookup", addr, err, errlen);
        goto out;
    }
    if (probe_pmtu_parse_route(buf, (size_t)n, out) < 0) {
        snprintf(err, errlen, "malformed netlink route for %s", addr);
        goto out;
    }
    snprintf(out->addr, sizeof out->addr, "%s", addr);
    out->dev_mtu = dev_mtu(out->oif, out->dev, sizeof out->dev);
    rc = 0;
out:
    close(fd);
    return rc;
}

int probe_pmtu_show(const char *host, struct probe_pmtu_entry *out, char *err, size_t errlen) {
    struct sockaddr_storage ss;
    memset(out, 0, sizeof *out);
    int rc = probe_pmtu_resolve(host, AF_UNSPEC, &ss, err, errlen);
    if (rc < 0) return rc;
    return route_get(&ss, out, err, errlen);
}

static int flush_v4(char *err, size_t errlen) {
    if (!probe_priv_has(CAP_NET_ADMIN)) {
        snprintf(err, errlen, "flushing the PMTU cache needs CAP_NET_ADMIN (run with sudo, or `setcap cap_net_admin+ep` on the program)");
        return PROBE_E_PERM;
    }
    int fd = open("/proc/sys/net/ipv4/route/flush", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "1\n", 2) != 2) {
        int e = errno;
        if (fd >= 0) close(fd);
        return nl_error(e, "flushing the IPv4 PMTU cache", "IPv4", err, errlen);
    }
    close(fd);
    return 0;
}

/* Dumps IPv6 cloned routes (PMTU exceptions) and deletes those matching
 * only (or all when only is NULL). Returns the number deleted or PROBE_E_*. */
static int flush_v6(const struct in6_addr *only, char *err, size_t errlen) {
    if (!probe_priv_has(CAP_NET_ADMIN)) {
        snprintf(err, errlen, "flushing the PMTU cache needs CAP_NET_ADMIN (run with sudo, or `setcap cap_net_admin+ep` on the program)");
        return PROBE_E_PERM;
    }
    if (!is_v6_available()) return 0;
    int fd = nl_open(err, errlen);
    if (fd < 0) return fd;
    int one = 1;
    setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof one);
    struct {
        struct nlmsghdr nh;
        struct rtmsg rtm;
    } req;
    memset(&req, 0, sizeof req);
    req.nh.nlmsg_len = sizeof req;
    req.nh.nlmsg_type = RTM_GETROUTE;
    req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.nh.nlmsg_seq = 2;
    req.rtm.rtm_family = AF_INET6;
    req.rtm.rtm_flags = RTM_F_CLONED;
    static __thread uint8_t buf[PMTU_NL_BUF];
    static __thread uint8_t dels[PMTU_NL_BUF];
    size_t ndel = 0;
    int count = 0, rc = PROBE_E_FAIL;
    if (send(fd, &req, sizeof req, 0) < 0) {
        rc = nl_error(errno, "listing IPv6 PMTU exceptions", "IPv6", err, errlen);
        goto out;
    }
    /* Collect the deletions first (the dump must finish before we write). */
    for (int done = 0; !done;) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) {
            snprintf(err, errlen, "listing IPv6 PMTU exceptions failed: %s", strerror(errno));
            goto out;
        }
        size_t off = 0;
        while (off + NLMSG_HDRLEN <= (size_t)n) {
            struct nlmsghdr nh;
            memcpy(&nh, buf + off, sizeof nh);
            if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > (size_t)n - off) break;
            if (nh.nlmsg_type == NLMSG_DONE) { done = 1; break; }
            if (nh.nlmsg_type == NLMSG_ERROR) {
                struct nlmsgerr e = {0};
                if (nh.nlmsg_len >= NLMSG_LENGTH(sizeof e)) memcpy(&e, buf + off + NLMSG_HDRLEN, sizeof e);
                rc = nl_error(-e.error, "listing IPv6 PMTU exceptions", "IPv6", err, errlen);
                goto out;
            }
            if (nh.nlmsg_type == RTM_NEWROUTE && nh.nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtmsg))) {
                struct rtmsg rtm;
                memcpy(&rtm, buf + off + NLMSG_HDRLEN, sizeof rtm);
                struct probe_pmtu_entry e;
                int match = (rtm.rtm_flags & RTM_F_CLONED) &&
                            probe_pmtu_parse_route(buf + off, nh.nlmsg_len, &e) == 0;
                if (match && only) {
                    struct in6_addr a;
                    match = inet_pton(AF_INET6, e.addr, &a) == 1 && !memcmp(&a, only, sizeof a);
                }
                if (match && ndel + NLMSG_ALIGN(nh.nlmsg_len) <= sizeof dels && count < PMTU_FLUSH_MAX) {
                    memcpy(dels + ndel, buf + off, nh.nlmsg_len);
                    struct nlmsghdr *d = (struct nlmsghdr *)(dels + ndel);
                    d->nlmsg_type = RTM_DELROUTE;
                    d->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
                    d->nlmsg_seq = 100 + (uint32_t)count;
                    ndel += NLMSG_ALIGN(nh.nlmsg_len);
                    count++;
                }
            }
            off += NLMSG_ALIGN(nh.nlmsg_len);
        }
    }
    close(fd);
    /* Fresh socket without strict checking for the deletes (as iproute2). */
    fd = nl_open(err, errlen);
    if (fd < 0) return fd;
    for (size_t off = 0; off < ndel;) {
        struct nlmsghdr *d = (struct nlmsghdr *)(dels + off);
        if (send(fd, d, d->nlmsg_len, 0) < 0) {
            rc = nl_error(errno, "deleting an IPv6 PMTU exception", "IPv6", err, errlen);
            goto out;
        }
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
            struct nlmsgerr e;
            memcpy(&e, buf + NLMSG_HDRLEN, sizeof e);
            /* ESRCH: it expired or was deleted between dump and delete. */
            if (e.error && e.error != -ESRCH) {
                rc = nl_error(-e.error, "deleting an IPv6 PMTU exception", "IPv6", err, errlen);
                goto out;
            }
        }
        off += NLMSG_ALIGN(d->nlmsg_len);
    }
    rc = count;
out:
    close(fd);
    return rc;
}

int probe_pmtu_flush(const char *host, char *err, size_t errlen) {
    if (!host || !*host) {
        int rc = flush_v4(err, errlen);
        if (rc < 0) return rc;
        rc = flush_v6(NULL, err, errlen);
        return rc < 0 ? rc : 0;
    }
    struct sockaddr_storage ss;
    int rc = probe_pmtu_resolve(host, AF_UNSPEC, &ss, err, errlen);
    if (rc < 0) return rc;
    if (ss.ss_family == AF_INET) return flush_v4(err, errlen);
    rc = flush_v6(&((struct sockaddr_in6 *)&ss)->sin6_addr, err, errlen);
    return rc < 0 ? rc : 0;
}
