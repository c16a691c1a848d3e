/* Path-MTU discovery. The article's 1-RTT algorithm sends every common size
 * at once with PMTUD mode PROBE (sent whole, DF set, the PMTU cache ignored)
 * and takes the largest acknowledged; the classic search sends one probe
 * per round trip. Acknowledgements: ICMP echo replies on a ping socket
 * (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6, no privilege where
 * net.ipv4.ping_group_range allows) or UDP datagrams echoed by a responder.
 * Frag Needed / Packet Too Big come from the error queue (IP_RECVERR). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "fragprobe.h"
#include "probe_wire.h"

static const int common_sizes[] = {1280, 1360, 1400, 1500, 8000, 9000};
#define N_COMMON (int)(sizeof common_sizes / sizeof common_sizes[0])
/* The first bytes of every probe payload: a magic and a per-run token, then
 * the size index. Replies not carrying them are ignored. */
#define PD_MAGIC PROBE_PMTU_MAGIC
#define PD_TAG_LEN 12
/* Cap on datagrams read per round trip (untrusted replies; rate cap). */
#define PD_MAX_READS 256
/* After the first acknowledgement, wait this many of its round-trip times
 * (plus a floor) for the rest: all probes left together. */
#define PD_RTT_FACTOR 3
#define PD_RTT_FLOOR_MS 20.0
/* Sends retried after a pending asynchronous error (see pd_send). */
#define PD_SEND_RETRIES 8

struct pd_sock {
    int fd, family, ping, iphdr;
    uint32_t token;
    uint16_t ping_seq_base;
};

static void pd_close(struct pd_sock *s) {
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
}

static int pd_open(const struct sockaddr_storage *dst, int port, struct pd_sock *s, char *err, size_t errlen) {
    int v6 = dst->ss_family == AF_INET6;
    s->family = dst->ss_family;
    s->ping = port == 0;
    s->iphdr = v6 ? 40 : 20;
    s->fd = socket(s->family, SOCK_DGRAM | SOCK_CLOEXEC,
                   s->ping ? (v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP) : IPPROTO_UDP);
    if (s->fd < 0) {
        int e = errno;
        if (s->ping && (e == EACCES || e == EPERM)) {
            snprintf(err, errlen,
                     "ping sockets are not allowed for group %u here (net.ipv4.ping_group_range); "
                     "give HOST:PORT of a UDP responder, or allow them with "
                     "`sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"`", (unsigned)getgid());
            return PROBE_E_PERM;
        }
        if (v6 && e == EAFNOSUPPORT) {
            snprintf(err, errlen, "IPv6 is not available on this host");
            return PROBE_E_NOV6;
        }
        snprintf(err, errlen, "cannot open the probe socket: %s", strerror(e));
        return PROBE_E_FAIL;
    }
    int one = 1, mode = v6 ? IPV6_PMTUDISC_PROBE : IP_PMTUDISC_PROBE;
    if (setsockopt(s->fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER, &mode, sizeof mode) ||
        setsockopt(s->fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_RECVERR : IP_RECVERR, &one, sizeof one)) {
        snprintf(err, errlen, "cannot set PMTUD mode PROBE on the probe socket: %s", strerror(errno));
        pd_close(s);
        return PROBE_E_FAIL;
    }
    struct sockaddr_storage to = *dst;
    probe_sockaddr_set_port(&to, port);
    if (connect(s->fd, (struct sockaddr *)&to, probe_sockaddr_len(to.ss_family))) {
        int e = errno;
        pd_close(s);
        if (e == ENETUNREACH || e == EHOSTUNREACH) {
            snprintf(err, errlen, "no route to the target (%s)", strerror(e));
            return PROBE_E_NOROUTE;
        }
        snprintf(err, errlen, "cannot connect the probe socket: %s", strerror(e));
        return PROBE_E_FAIL;
    }
    uint32_t r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)(fv_clock_ms_frac() * 1000.0);
    s->token = r;
    s->ping_seq_base = (uint16_t)(r >> 7);
    return 0;
}

/* Sends one probe of IP size `size` tagged with index idx. */
static int pd_send(struct pd_sock *s, int size, int idx, char *err, size_t errlen) {
    static __thread uint8_t pkt[9100];
    int len = size - s->iphdr - (s->ping ? 0 : 8); /* ping sockets take the ICMP header in the data */
    if (len < 8 + PD_TAG_LEN || len > (int)sizeof pkt) {
        snprintf(err, errlen, "probe size %d out of range", size);
        return PROBE_E_FAIL;
    }
    memset(pkt, 0xa5, (size_t)len);
    size_t tag = 0;
    if (s->ping) {
        struct icmphdr ih;
        memset(&ih, 0, sizeof ih);
        ih.type = s->family == AF_INET6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
        ih.un.echo.sequence = htons((uint16_t)(s->ping_seq_base + idx));
        memcpy(pkt, &ih, 8);
        tag = 8;
    }
    uint32_t w[3] = {htonl(PD_MAGIC), htonl(s->token), htonl((uint32_t)idx)};
    memcpy(pkt + tag, w, sizeof w);
    /* A send fails once with the pending error of an earlier probe's ICMP
     * answer (sk_err: EMSGSIZE for Frag Needed, ECONNREFUSED...) without
     * sending; the kernel clears it as it reports it, so try again. */
    ssize_t r = -1;
    int e = 0;
    for (int attempt = 0; attempt < PD_SEND_RETRIES; attempt++) {
        r = send(s->fd, pkt, (size_t)len, 0);
        e = errno;
        if (r >= 0 || (e != EMSGSIZE && e != ECONNREFUSED && e != EHOSTUNREACH && e != ENETUNREACH)) break;
    }
    if (r < 0) {
        if (e == EMSGSIZE) return 1; /* bigger than the local MTU: not sent */
        if (e == ENETUNREACH || e == EHOSTUNREACH) {
            snprintf(err, errlen, "no route to the target (%s)", strerror(e));
            return PROBE_E_NOROUTE;
        }
        if (e == ECONNREFUSED) return 0; /* port unreachable; the error queue has it */
        snprintf(err, errlen, "sending a %d-byte probe failed: %s", size, strerror(e));
        return PROBE_E_FAIL;
    }
    return 0;
}

/* Reads one reply; returns the acknowledged index, or -1 for none. */
static int pd_read_reply(struct pd_sock *s, int n) {
    uint8_t buf[64];
    ssize_t r = recv(s->fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
    if (r < 0) return -1;
    size_t have = (size_t)r < sizeof buf ? (size_t)r : sizeof buf;
    size_t tag = 0;
    if (s->ping) {
        if (have < 8) return -1;
        uint8_t want = s->family == AF_INET6 ? ICMP6_ECHO_REPLY : ICMP_ECHOREPLY;
        if (buf[0] != want) return -1;
        tag = 8;
    }
    if (have < tag + PD_TAG_LEN) return -1;
    uint32_t w[3];
    memcpy(w, buf + tag, sizeof w);
    if (ntohl(w[0]) != PD_MAGIC || ntohl(w[1]) != s->token) return -1;
    uint32_t idx = ntohl(w[2]);
    return idx < (uint32_t)n ? (int)idx : -1;
}

/* Drains one error; returns the reported MTU (>0), 0 for no MTU, or a
 * negative PROBE_E_* for a hard error (unreachable) with err filled. */
static int pd_read_error(struct pd_sock *s, struct probe_pmtu_discovery *d, char *err, size_t errlen) {
    uint8_t data[64];
    union { struct cmsghdr align; uint8_t b[512]; } control;
    struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                        .msg_controllen = sizeof control.b};
    if (recvmsg(s->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return 0;
    struct probe_errq e;
    if (probe_errq_parse(control.b, mh.msg_controllen, &e) != 1) return 0;
    int mtu = probe_errq_mtu(&e);
    if (mtu > 0) {
        if (!d->reported_mtu || mtu < d->reported_mtu) {
            d->reported_mtu = mtu;
            snprintf(d->reporter, sizeof d->reporter, "%s", e.offender[0] ? e.offender : "the local host");
        }
        return mtu;
    }
    const char *kind = probe_errq_kind(&e);
    if (!strcmp(kind, "unreachable")) {
        int port_unreach = (e.origin == SO_EE_ORIGIN_ICMP && e.code == 3) ||
                           (e.origin == SO_EE_ORIGIN_ICMP6 && e.code == 4);
        if (port_unreach) {
            snprintf(err, errlen, "%s answered port unreachable: no UDP responder on port %d", d->addr, d->port);
            return PROBE_E_FAIL;
        }
        snprintf(err, errlen, "%s is unreachable (ICMP %s from %s)", d->addr, strerror(e.ee_errno),
                 e.offender[0] ? e.offender : "?");
        return PROBE_E_NOROUTE;
    }
    if (!strcmp(kind, "time-exceeded")) {
        snprintf(err, errlen, "the probe to %s expired in transit at %s (routing loop?)", d->addr, e.offender);
        return PROBE_E_NOROUTE;
    }
    return 0;
}

/* Waits for answers to the probes marked pending[] until all are resolved
 * or the deadline. Returns 0 or a hard PROBE_E_*. */
static int pd_collect(struct pd_sock *s, struct probe_pmtu_discovery *d, const int *pending,
                      double t0, int timeout_ms, char *err, size_t errlen) {
    double deadline = t0 + timeout_ms;
    for (int reads = 0; reads < PD_MAX_READS; reads++) {
        int open_left = 0, largest_acked = -1;
        for (int i = 0; i < d->n; i++) {
            if (d->acked[i]) largest_acked = i;
            if (pending[i] && !d->acked[i] && !d->reported[i]) open_left++;
        }
        if (!open_left) return 0;
        double left = deadline - fv_clock_ms_frac();
        if (left <= 0) return 0;
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)left + 1);
        if (pr < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll failed: %s", strerror(errno));
            return PROBE_E_FAIL;
        }
        if (pr <= 0) continue;
        if (pfd.revents & POLLERR) {
            int mtu = pd_read_error(s, d, err, errlen);
            if (mtu < 0) return mtu;
            /* A router's MTU answers every probe bigger than it. */
            for (int i = 0; mtu > 0 && i < d->n; i++)
                if (pending[i] && !d->acked[i] && d->sizes[i] > mtu) d->reported[i] = mtu;
        }
        if (pfd.revents & POLLIN) {
            int idx = pd_read_reply(s, d->n);
            if (idx >= 0 && pending[idx] && !d->acked[idx]) {
                d->acked[idx] = 1;
                if (largest_acked < 0) {
                    /* First acknowledgement: the rest left together with it. */
                    double rtt = fv_clock_ms_frac() - t0;
                    double extra = rtt * PD_RTT_FACTOR + PD_RTT_FLOOR_MS;
                    if (fv_clock_ms_frac() + extra < deadline) deadline = fv_clock_ms_frac() + extra;
                }
            }
        }
    }
    return 0;
}

static int pd_setup(const char *host, int port, struct probe_pmtu_discovery *d, struct sockaddr_storage *dst,
                    char *err, size_t errlen) {
    memset(d, 0, sizeof *d);
    d->port = port;
    int rc = probe_pmtu_resolve(host, AF_UNSPEC, dst, err, errlen);
    if (rc < 0) return rc;
    struct probe_pmtu_entry e;
    rc = probe_pmtu_show(host, &e, err, errlen);
    if (rc < 0) return rc;
    d->family = dst->ss_family;
    snprintf(d->addr, sizeof d->addr, "%s", e.addr);
    d->local_mtu = e.dev_mtu > 0 ? e.dev_mtu : 1500;
    if (d->local_mtu > 9000) d->local_mtu = 9000; /* loopback's 65536: the table tops out at 9000 */
    int min = d->family == AF_INET6 ? 1280 : 576;
    for (int i = 0; i < N_COMMON && d->n < PROBE_PMTU_MAX_SIZES - 1; i++)
        if (common_sizes[i] <= d->local_mtu) d->sizes[d->n++] = common_sizes[i];
    /* The local MTU itself when the table lacks it (e.g. 1450 on a tunnel). */
    if ((d->n == 0 || d->sizes[d->n - 1] < d->local_mtu) && d->local_mtu >= min)
        d->sizes[d->n++] = d->local_mtu;
    if (!d->n) {
        snprintf(err, errlen, "the local MTU %d is below the smallest probe size", d->local_mtu);
        return PROBE_E_FAIL;
    }
    return 0;
}

/* One round trip: every size of d->sizes at once, then the answers; fills
 * acked/reported and pmtu (largest acknowledged). 0 or a hard PROBE_E_*. */
static int pd_round(const struct sockaddr_storage *dst, int port, int timeout_ms, struct probe_pmtu_discovery *d,
                    char *err, size_t errlen) {
    struct pd_sock s = {.fd = -1};
    int rc = pd_open(dst, port, &s, err, errlen);
    if (rc < 0) return rc;
    int pending[PROBE_PMTU_MAX_SIZES] = {0};
    double t0 = fv_clock_ms_frac();
    for (int i = 0; i < d->n; i++) {
        rc = pd_send(&s, d->sizes[i], i, err, errlen);
        if (rc < 0) goto out;
        if (rc == 0) { pending[i] = 1; d->probes_sent++; }
    }
    d->round_trips++;
    rc = pd_collect(&s, d, pending, t0, timeout_ms, err, errlen);
    d->elapsed_ms += fv_clock_ms_frac() - t0;
    for (int i = 0; i < d->n; i++)
        if (d->acked[i]) d->pmtu = d->sizes[i];
out:
    pd_close(&s);
    return rc;
}

int probe_pmtu_probe_sizes(const char *host, int port, const int *sizes, int n, int timeout_ms,
                           struct probe_pmtu_discovery *d, char *err, size_t errlen) {
    struct sockaddr_storage dst;
    int rc = pd_setup(host, port, d, &dst, err, errlen);
    if (rc < 0) return rc;
    if (n < 1 || n > PROBE_PMTU_MAX_SIZES) {
        snprintf(err, errlen, "%d probe sizes: 1..%d at once", n, PROBE_PMTU_MAX_SIZES);
        return PROBE_E_FAIL;
    }
    d->n = n;
    for (int i = 0; i < n; i++) d->sizes[i] = sizes[i];
    return pd_round(&dst, port, timeout_ms, d, err, errlen);
}

int probe_pmtu_discover(const char *host, int port, int timeout_ms,
                        struct probe_pmtu_discovery *d, char *err, size_t errlen) {
    struct sockaddr_storage dst;
    int rc = pd_setup(host, port, d, &dst, err, errlen);
    if (rc < 0) return rc;
    rc = pd_round(&dst, port, timeout_ms, d, err, errlen);
    if (rc < 0) return rc;
    if (!d->pmtu) {
        if (d->reported_mtu)
            snprintf(err, errlen, "no probe to %s was acknowledged within %d ms, though %s reports MTU %d",
                     d->addr, timeout_ms, d->reporter, d->reported_mtu);
        else
            snprintf(err, errlen, "no answer from %s within %d ms (host down, filtered, or no %s)", d->addr,
                     timeout_ms, port ? "UDP responder on that port" : "echo replies");
        rc = PROBE_E_TIMEOUT;
    }
    return rc;
}

int probe_pmtu_discover_sequential(const char *host, int port, int timeout_ms,
                                   struct probe_pmtu_discovery *d, char *err, size_t errlen) {
    struct sockaddr_storage dst;
    int rc = pd_setup(host, port, d, &dst, err, errlen);
    if (rc < 0) return rc;
    struct pd_sock s = {.fd = -1};
    rc = pd_open(&dst, port, &s, err, errlen);
    if (rc < 0) return rc;
    /* Binary search on exact sizes between the protocol minimum (assumed
     * good, confirmed at the end) and the local MTU; a reported MTU jumps
     * straight to it. The table in d records each probe in order. */
    int lo = d->family == AF_INET6 ? 1280 : 576, hi = d->local_mtu, size = hi;
    int confirmed = 0;
    d->n = 0;
    double t0 = fv_clock_ms_frac();
    while (d->n < PROBE_PMTU_MAX_SIZES) {
        int i = d->n++;
        d->sizes[i] = size;
        d->acked[i] = d->reported[i] = 0;
        int pending[PROBE_PMTU_MAX_SIZES] = {0};
        pending[i] = 1;
        rc = pd_send(&s, size, i, err, errlen);
        if (rc < 0) goto out;
        d->probes_sent++;
        d->round_trips++;
        rc = pd_collect(&s, d, pending, fv_clock_ms_frac(), timeout_ms, err, errlen);
        if (rc < 0) goto out;
        if (d->acked[i]) {
            lo = size;
            confirmed = 1;
        } else if (d->reported[i] && d->reported[i] < size) {
            hi = d->reported[i] < hi ? d->reported[i] : hi;
        } else {
            hi = size - 1;
        }
        if (lo >= hi) {
            if (confirmed || lo != hi) break;
            size = lo; /* the minimum itself was never confirmed: probe it */
            hi = lo;
            if (d->n && d->sizes[d->n - 1] == lo) break;
            continue;
        }
        size = d->reported[i] && d->reported[i] < size && d->reported[i] > lo ? d->reported[i] : lo + (hi - lo + 1) / 2;
    }
    d->elapsed_ms = fv_clock_ms_frac() - t0;
    if (!confirmed) {
        snprintf(err, errlen, "no probe to %s was acknowledged (%d probes, %d ms each)", d->addr, d->probes_sent,
                 timeout_ms);
        rc = PROBE_E_TIMEOUT;
        goto out;
    }
    d->pmtu = lo;
    rc = 0;
out:
    pd_close(&s);
    return rc;
}
