/* `fragvote witness PORT`: the far end that testifies. UDP on PORT (IPv4 and
 * IPv6 sockets of their own, so the IP-level options apply) with
 * IP_RECVFRAGSIZE / IPV6_RECVFRAGSIZE -- the kernel hands over the IP length
 * of the largest fragment of a reassembled datagram, nothing for a whole one
 * -- and IP_RECVTTL / IPV6_RECVHOPLIMIT; TCP through a listener on the same
 * port (witness_tcp.c); with CAP_NET_RAW a packet tap for DF and the exact
 * pieces (witness_tap.c). Each well-formed, tagged, new probe gets one
 * 48-byte report back to where it came from, within the caps of
 * witness_guard.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "witness.h"

#define WITNESS_POLL_MS 200        /* how often the stop flag is looked at */
#define WITNESS_UDP_BATCH 64       /* datagrams per socket per loop turn */
#define WITNESS_UDP_RCVBUF (1 << 20) /* a deck's burst (or a flood) queues here, not dropped at once */
#define WITNESS_PORT_TRIES 20      /* port 0: free UDP ports tried until the TCP one is free too */

static int udp_open(int family, int port, char *err, size_t errlen) {
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return family == AF_INET6 ? -2 : -1; /* no IPv6 here: serve IPv4 alone */
    int one = 1, rc, rcvbuf = WITNESS_UDP_RCVBUF;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        setsockopt(fd, IPPROTO_IPV6, IPV6_RECVFRAGSIZE, &one, sizeof one);
        setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof one);
    } else {
        setsockopt(fd, IPPROTO_IP, IP_RECVFRAGSIZE, &one, sizeof one);
        setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof one);
    }
    if ((rc = probe_sockaddr_bind_any(fd, family, port)) < 0) {
        int e = errno;
        close(fd);
        if (family == AF_INET6 && e == EADDRNOTAVAIL) return -2;
        snprintf(err, errlen, "cannot listen on UDP port %d (%s): %s%s", port, family == AF_INET6 ? "IPv6" : "IPv4",
                 strerror(e), e == EACCES ? " (ports below 1024 need CAP_NET_BIND_SERVICE)" : "");
        return -1;
    }
    return fd;
}

/* Pure: TTL and largest fragment from a UDP recvmsg's control messages. */
static void udp_cmsgs(struct msghdr *mh, struct probe_witness_report *r) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_len < CMSG_LEN(sizeof(int))) continue;
        int v;
        memcpy(&v, CMSG_DATA(c), sizeof v);
        if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL) ||
            (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_HOPLIMIT))
            r->ttl = v;
        else if ((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVFRAGSIZE) ||
                 (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVFRAGSIZE))
            r->frag_max = v;
    }
}

static void udp_serve(struct witness_ctx *w, int fd) {
    uint8_t *buf = w->buf;
    for (int i = 0; i < WITNESS_UDP_BATCH; i++) {
        union { struct cmsghdr align; uint8_t b[256]; } control;
        struct sockaddr_storage from;
        struct iovec iov = {.iov_base = buf, .iov_len = WITNESS_READ_MAX};
        struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1,
                            .msg_control = control.b, .msg_controllen = sizeof control.b};
        ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
        if (n < 0) return;
        w->st.received++;
        size_t len = (size_t)n < WITNESS_READ_MAX ? (size_t)n : WITNESS_READ_MAX;
        struct probe_witness_probe pr;
        if (probe_witness_probe_decode(w->o->key, buf, len, &pr) < 0 || probe_proto_is_tcp(pr.proto)) {
            w->st.bad++;
            continue;
        }
        uint8_t src[16];
        probe_sockaddr_addr16(&from, src);
        struct probe_witness_report r;
        if (!witness_admit(w, src, &pr, &r)) continue;
        r.payload_bytes = (int)n;
        udp_cmsgs(&mh, &r);
        if (!r.frag_max) r.fragments = 0; /* no fragment size: it arrived whole */
        witness_tap_drain(&w->tap);
        witness_tap_udp(&w->tap, pr.nonce, &r);
        uint8_t out[PROBE_WITNESS_REPLY_MAX];
        int olen = probe_witness_report_encode(w->o->key, &r, out, sizeof out);
        /* Never more than the probe carried (a decoded probe is >= 48 bytes). */
        if (olen <= 0 || (size_t)olen > len) continue;
        if (sendto(fd, out, (size_t)olen, MSG_DONTWAIT, (struct sockaddr *)&from, mh.msg_namelen) == olen)
            w->st.replied++;
    }
}

static int want_raw(int raw) {
    if (raw >= 0) return raw;
    return geteuid() == 0 || probe_priv_has(CAP_NET_RAW);
}

int probe_witness_run(const struct probe_witness_opts *o, char *err, size_t errlen) {
    if (o->port < 0 || o->port > 65535) {
        snprintf(err, errlen, "port %d out of range 0..65535", o->port);
        return PROBE_E_FAIL;
    }
    struct witness_ctx *w = calloc(1, sizeof *w); /* large (replay memory, buffers): not on the stack */
    if (!w) {
        snprintf(err, errlen, "out of memory for the witness");
        return PROBE_E_FAIL;
    }
    w->o = o;
    w->tap.fd = -1;
    w->tcp.lfd[0] = w->tcp.lfd[1] = -1;
    for (int i = 0; i < PROBE_WITNESS_TCP_CONNS; i++) w->tcp.c[i].fd = -1;
    probe_witness_guard_init(&w->guard, o->rate, o->rate_source);
    int u4 = -1, u6 = -1, port = o->port, rc = PROBE_E_FAIL;
    /* Port 0: a free UDP port whose TCP twin may be taken; try a few. */
    for (int attempt = 0; attempt < WITNESS_PORT_TRIES; attempt++) {
        if ((u4 = udp_open(AF_INET, o->port, err, errlen)) < 0) goto cleanup;
        port = o->port;
        if (!port) {
            struct sockaddr_storage a;
            socklen_t al = sizeof a;
            getsockname(u4, (struct sockaddr *)&a, &al);
            port = probe_sockaddr_port(&a);
        }
        if ((u6 = udp_open(AF_INET6, port, err, errlen)) == -1 && o->port) goto cleanup;
        if (u6 != -1 && witness_tcp_open(w, port, err, errlen) == 0) break;
        if (o->port) goto cleanup;
        witness_tcp_close(w);
        close(u4);
        if (u6 >= 0) close(u6);
        u4 = u6 = -1;
    }
    if (u4 < 0) goto cleanup;
    if (want_raw(o->raw)) witness_tap_open(&w->tap, port);
    else w->tap.port = port;
    if (o->raw == 1 && w->tap.fd < 0) {
        snprintf(err, errlen, "the witness's packet tap needs CAP_NET_RAW: %s", strerror(errno));
        rc = PROBE_E_PERM;
        goto cleanup;
    }
    if (o->bound_port) *o->bound_port = port;
    if (o->ready && o->ready(o->ready_ctx, err, errlen)) {
        rc = PROBE_E_PERM;
        goto cleanup;
    }
    double end = o->seconds > 0 ? probe_clock_s() + o->seconds : 0;
    while (!(o->stop && *o->stop) && (!end || probe_clock_s() < end)) {
        struct pollfd pf[3 + 2 + PROBE_WITNESS_TCP_CONNS];
        int n = 0;
        pf[n++] = (struct pollfd){u4, POLLIN, 0};
        if (u6 >= 0) pf[n++] = (struct pollfd){u6, POLLIN, 0};
        if (w->tap.fd >= 0) pf[n++] = (struct pollfd){w->tap.fd, POLLIN, 0};
        n += witness_tcp_pollfds(w, pf + n, (int)(sizeof pf / sizeof *pf) - n);
        int pr = poll(pf, (nfds_t)n, WITNESS_POLL_MS);
        if (pr < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            goto cleanup;
        }
        witness_tap_drain(&w->tap);
        udp_serve(w, u4);
        if (u6 >= 0) udp_serve(w, u6);
        witness_tcp_service(w);
    }
    rc = (int)(w->st.replied > 0x7fffffff ? 0x7fffffff : w->st.replied);
cleanup:
    if (o->stats) *o->stats = w->st;
    if (u4 >= 0) close(u4);
    if (u6 >= 0) close(u6);
    witness_tcp_close(w);
    witness_tap_close(&w->tap);
    free(w);
    return rc;
}
