/* The witness's TCP side: a listener on the witness port (IPv4 and IPv6).
 * A TCP probe is one connection whose data starts with the probe header; the
 * witness reads until the header's payload_len bytes are in (or
 * PROBE_WITNESS_TCP_MS pass), then writes one report on the connection and
 * closes it. Unprivileged it counts the data segments with TCP_INFO
 * (tcpi_data_segs_in); with the tap it also has their IP lengths and DF.
 * At most PROBE_WITNESS_TCP_CONNS connections at once: more are accepted and
 * closed at once, so a flood cannot fill the backlog for real probes. */
#include <errno.h>
#include <linux/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "witness.h"

static int listen_one(int family, int port, char *err, size_t errlen) {
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -2;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (probe_sockaddr_bind_any(fd, family, port) < 0 || listen(fd, PROBE_WITNESS_TCP_CONNS) < 0) {
        int e = errno;
        close(fd);
        if (family == AF_INET6 && e == EADDRNOTAVAIL) return -2;
        snprintf(err, errlen, "cannot listen on TCP port %d (%s): %s", port, family == AF_INET6 ? "IPv6" : "IPv4",
                 strerror(e));
        return -1;
    }
    return fd;
}

int witness_tcp_open(struct witness_ctx *w, int port, char *err, size_t errlen) {
    for (int i = 0; i < PROBE_WITNESS_TCP_CONNS; i++) w->tcp.c[i].fd = -1;
    w->tcp.lfd[0] = listen_one(AF_INET, port, err, errlen);
    if (w->tcp.lfd[0] < 0) return -1;
    w->tcp.lfd[1] = listen_one(AF_INET6, port, err, errlen);
    return w->tcp.lfd[1] == -1 ? -1 : 0;
}

static void conn_end(struct witness_tcp_conn *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
}

void witness_tcp_close(struct witness_ctx *w) {
    for (int i = 0; i < 2; i++)
        if (w->tcp.lfd[i] >= 0) close(w->tcp.lfd[i]);
    w->tcp.lfd[0] = w->tcp.lfd[1] = -1;
    for (int i = 0; i < PROBE_WITNESS_TCP_CONNS; i++) conn_end(&w->tcp.c[i]);
}

int witness_tcp_pollfds(struct witness_ctx *w, struct pollfd *pf, int max) {
    int n = 0;
    for (int i = 0; i < 2 && n < max; i++)
        if (w->tcp.lfd[i] >= 0) pf[n++] = (struct pollfd){w->tcp.lfd[i], POLLIN, 0};
    for (int i = 0; i < PROBE_WITNESS_TCP_CONNS && n < max; i++)
        if (w->tcp.c[i].fd >= 0) pf[n++] = (struct pollfd){w->tcp.c[i].fd, POLLIN, 0};
    return n;
}

static void accept_all(struct witness_ctx *w, int lfd) {
    for (;;) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        int fd = accept4(lfd, (struct sockaddr *)&from, &fl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        struct witness_tcp_conn *c = NULL;
        for (int i = 0; i < PROBE_WITNESS_TCP_CONNS && !c; i++)
            if (w->tcp.c[i].fd < 0) c = &w->tcp.c[i];
        if (!c) {
            w->st.tcp_refused++;
            close(fd);
            continue;
        }
        memset(c, 0, sizeof *c);
        c->fd = fd;
        c->family = from.ss_family;
        c->sport = probe_sockaddr_port(&from);
        probe_sockaddr_addr16(&from, c->src);
        c->deadline = probe_clock_s() + PROBE_WITNESS_TCP_MS / 1000.0;
    }
}

/* Answers one connection whose data is in (or whose time is up). */
static void conn_report(struct witness_ctx *w, struct witness_tcp_conn *c) {
    struct probe_witness_probe pr;
    w->st.received++;
    if (c->got < PROBE_WITNESS_PROBE_BYTES || probe_witness_probe_decode(w->o->key, c->head, sizeof c->head, &pr) < 0 ||
        !probe_proto_is_tcp(pr.proto)) {
        w->st.bad++;
        return;
    }
    struct probe_witness_report r;
    if (!witness_admit(w, c->src, &pr, &r)) return;
    r.payload_bytes = c->got > PROBE_SIZE_MAX ? PROBE_SIZE_MAX : (int)c->got;
    struct tcp_info ti;
    socklen_t tl = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 &&
        tl >= offsetof(struct tcp_info, tcpi_data_segs_in) + sizeof ti.tcpi_data_segs_in)
        r.segments = (int)ti.tcpi_data_segs_in;
    witness_tap_drain(&w->tap);
    witness_tap_tcp(&w->tap, c->family, c->src, c->sport, &r);
    uint8_t out[PROBE_WITNESS_REPLY_MAX];
    int olen = probe_witness_report_encode(w->o->key, &r, out, sizeof out);
    if (olen <= 0 || (size_t)olen > c->got) return;
    if (send(c->fd, out, (size_t)olen, MSG_DONTWAIT | MSG_NOSIGNAL) == olen) w->st.replied++;
}

static void conn_read(struct witness_ctx *w, struct witness_tcp_conn *c) {
    for (;;) {
        ssize_t n = recv(c->fd, w->buf, WITNESS_READ_MAX, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n <= 0) {
            /* The prober closed (or reset): answer if we can, then end. */
            if (n == 0) conn_report(w, c);
            conn_end(c);
            return;
        }
        if (c->got < sizeof c->head) {
            size_t k = sizeof c->head - c->got < (size_t)n ? sizeof c->head - c->got : (size_t)n;
            memcpy(c->head + c->got, w->buf, k);
        }
        c->got += (size_t)n;
        if (c->got >= sizeof c->head) {
            struct probe_witness_probe pr;
            if (probe_witness_probe_decode(w->o->key, c->head, sizeof c->head, &pr) < 0) {
                w->st.received++;
                w->st.bad++;
                conn_end(c);
                return;
            }
            if (c->got >= pr.payload_len) {
                conn_report(w, c);
                conn_end(c);
                return;
            }
        }
    }
}

void witness_tcp_service(struct witness_ctx *w) {
    for (int i = 0; i < 2; i++)
        if (w->tcp.lfd[i] >= 0) accept_all(w, w->tcp.lfd[i]);
    double now = probe_clock_s();
    for (int i = 0; i < PROBE_WITNESS_TCP_CONNS; i++) {
        struct witness_tcp_conn *c = &w->tcp.c[i];
        if (c->fd < 0) continue;
        conn_read(w, c);
        if (c->fd >= 0 && now > c->deadline) {
            conn_report(w, c);
            conn_end(c);
        }
    }
}
