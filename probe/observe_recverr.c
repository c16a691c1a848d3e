/* The unprivileged observer. What a normal user can see of one test:
 *   - ICMP errors answering the sending UDP socket, via IP_RECVERR /
 *     IPV6_RECVERR and MSG_ERRQUEUE: type/code, the MTU of Frag Needed /
 *     Packet Too Big (ee_info) and the answering hop (SO_EE_OFFENDER);
 *   - for an ICMP test over a ping socket, the target's Echo Reply on it;
 *   - local fragmentation, as the delta of /proc/net/snmp FragCreates or
 *     /proc/net/snmp6 Ip6FragCreates around the send (per namespace).
 * It cannot see the quoted IP header (length, DF, MF, offset) nor what left
 * the host, so those fields stay -1 and the judge infers them from the
 * kernel's documented rules (and says so). TCP sockets are not armed: the
 * kernel consumes their ICMP errors itself (and IP_RECVERR would turn a
 * Time Exceeded into a hard error on the connection). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base.h"
#include "observe.h"
#include "snmp_read.h"

/* After the first decisive answer, wait this long for more (IPv6 sends one
 * Time Exceeded per fragment; the kernel hands us at most the first). */
#define RECVERR_GRACE_MS 30
/* Cap on error-queue messages read per test (untrusted input; rate cap). */
#define RECVERR_MAX_READS 64
/* After a witness's report: it came from past every router, so only a
 * straggling error could still be on its way. */
#define RECVERR_WITNESS_GRACE_MS 5

struct recverr_state {
    int family;
    int armed;                 /* IP_RECVERR set on the sending socket */
    int have_before;
    uint64_t frag_before;
};

static int recverr_open(void **state, int family, char *err, size_t errlen) {
    struct recverr_state *s = probe_observer_state_new(sizeof *s, "recverr", err, errlen);
    if (!s) return PROBE_E_FAIL;
    s->family = family;
    char e2[128];
    s->have_before = probe_snmp_read_frag_creates(family == AF_INET6, &s->frag_before, e2, sizeof e2) == 0;
    *state = s;
    return 0;
}

static int recverr_arm(void *state, int fd, char *err, size_t errlen) {
    struct recverr_state *s = state;
    int proto = 0;
    socklen_t pl = sizeof proto;
    if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &pl) == 0 && proto == IPPROTO_TCP) return 0;
    int one = 1, v6 = s->family == AF_INET6;
    if (setsockopt(fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_RECVERR : IP_RECVERR, &one, sizeof one)) {
        snprintf(err, errlen, "cannot set %s on the sending socket: %s", v6 ? "IPV6_RECVERR" : "IP_RECVERR",
                 strerror(errno));
        return PROBE_E_FAIL;
    }
    s->armed = 1;
    return 0;
}

/* Pure: one error-queue entry as the ICMP answer the judge understands.
 * Returns 0, or -1 when it is not an ICMP answer (a local error). */
static int recverr_to_icmp(const struct probe_errq *e, const struct probe_sendinfo *si, struct probe_icmp *out) {
    memset(out, 0, sizeof *out);
    if (e->origin != SO_EE_ORIGIN_ICMP && e->origin != SO_EE_ORIGIN_ICMP6) return -1;
    int v6 = e->origin == SO_EE_ORIGIN_ICMP6;
    out->family = v6 ? AF_INET6 : AF_INET;
    out->type = e->type;
    out->code = e->code;
    if (!v6) {
        out->kind = e->type == 11 && e->code == 0 ? PROBE_ICMP_TIME_EXCEEDED
                  : e->type == 3 && e->code == 4  ? PROBE_ICMP_FRAG_NEEDED
                  : e->type == 3                  ? PROBE_ICMP_UNREACH
                                                  : PROBE_ICMP_OTHER;
    } else {
        out->kind = e->type == 3 && e->code == 0 ? PROBE_ICMP_TIME_EXCEEDED
                  : e->type == 2                 ? PROBE_ICMP_FRAG_NEEDED
                  : e->type == 1                 ? PROBE_ICMP_UNREACH
                                                 : PROBE_ICMP_OTHER;
    }
    out->mtu = out->kind == PROBE_ICMP_FRAG_NEEDED ? probe_errq_mtu(e) : 0;
    if (e->offender[0]) inet_pton(out->family, e->offender, out->from);
    /* The kernel matched the quote to our socket by addresses and ports, so
     * those are known; everything of the quoted IP header is not. */
    struct probe_quote *q = &out->q;
    q->family = si->family;
    if (si->family == AF_INET) {
        memcpy(q->src, &((const struct sockaddr_in *)&si->local)->sin_addr, 4);
        memcpy(q->dst, &((const struct sockaddr_in *)&si->remote)->sin_addr, 4);
    } else {
        memcpy(q->src, &((const struct sockaddr_in6 *)&si->local)->sin6_addr, 16);
        memcpy(q->dst, &((const struct sockaddr_in6 *)&si->remote)->sin6_addr, 16);
    }
    q->total_len = q->ttl = q->df = q->mf = q->frag_offset = q->frag_hdr = -1;
    q->id = -1;
    q->tcp_seq = -1;
    q->udp_check = q->tcp_hdr_len = -1;
    q->l4 = si->l4;
    q->sport = si->sport;
    q->dport = si->dport;
    q->quoted_bytes = 0;
    return 0;
}

/* An ICMP test's ping socket: reads the Echo Replies queued on it (the
 * kernel delivers only those with its identifier); returns how many answer
 * this test. */
static int recverr_echo_drain(int fd, const struct probe_sendinfo *si, struct probe_observation *obs) {
    int got = 0;
    for (int i = 0; i < RECVERR_MAX_READS; i++) {
        uint8_t data[64];
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fd, data, sizeof data, MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from, &fl);
        if (n < 0) break;
        int id, seq;
        size_t len = (size_t)n < sizeof data ? (size_t)n : sizeof data;
        if (from.ss_family == si->family && probe_parse_echo_reply(data, len, si->family, &id, &seq) &&
            probe_echo_reply_matches(si, probe_sockaddr_addr(&from), id, seq))
            got++;
    }
    obs->echo_replies += got;
    return got;
}

/* Reads every queued error; returns how many decisive answers were added. */
static int recverr_drain(int fd, const struct probe_sendinfo *si, struct probe_observation *obs) {
    int decisive = 0;
    for (int i = 0; i < RECVERR_MAX_READS; i++) {
        uint8_t data[64];
        union { struct cmsghdr align; uint8_t b[512]; } control;
        struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                            .msg_controllen = sizeof control.b};
        if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) break;
        struct probe_errq e;
        struct probe_icmp a;
        if (probe_errq_parse(control.b, mh.msg_controllen, &e) != 1 || recverr_to_icmp(&e, si, &a) < 0) continue;
        probe_observation_add(obs, &a);
        if (a.kind != PROBE_ICMP_OTHER) decisive++;
    }
    return decisive;
}

static int recverr_collect(void *state, const struct probe_sendinfo *si, const struct timespec *deadline,
                           struct probe_observation *obs, char *err, size_t errlen) {
    struct recverr_state *s = state;
    (void)err;
    (void)errlen;
    obs->egress_packets = obs->egress_fragments = obs->egress_df = -1;
    obs->egress_first_len = obs->egress_max_len = -1;
    int ping = !strcmp(si->sock, "ping");
    if (ping) obs->echo_replies = 0;
    if ((s->armed || si->witness_key) && si->fd >= 0) {
        struct probe_wait w = {.deadline = deadline};
        if (s->armed && recverr_drain(si->fd, si, obs) > 0) probe_wait_decided(&w, RECVERR_GRACE_MS);
        /* A refused send (EMSGSIZE...) put nothing on the wire: nothing can answer. */
        for (; si->sent;) {
            int left = probe_wait_left_ms(&w);
            if (left <= 0) break;
            /* A witness's report is readable on the socket: decisive too. */
            int await = si->witness_key && !w.decided;
            struct pollfd p = {.fd = si->fd, .events = ping || await ? POLLIN : 0};
            int pr = poll(&p, 1, left);
            if (pr < 0 && errno != EINTR) break;
            if (await && pr > 0 && (p.revents & POLLIN)) {
                probe_wait_decided(&w, RECVERR_WITNESS_GRACE_MS);
                continue;
            }
            if (!s->armed) { /* TCP: only the witness's report to wait for */
                if (pr > 0 && (p.revents & (POLLHUP | POLLNVAL | POLLERR))) break;
                continue;
            }
            /* The target answered: nothing more will come. */
            if (pr > 0 && (p.revents & POLLIN) && recverr_echo_drain(si->fd, si, obs) > 0)
                probe_wait_decided(&w, RECVERR_GRACE_MS);
            if (pr > 0 && (p.revents & POLLERR)) {
                int before = obs->nanswers + obs->answers_dropped;
                if (recverr_drain(si->fd, si, obs) > 0) probe_wait_decided(&w, RECVERR_GRACE_MS);
                if (obs->nanswers + obs->answers_dropped == before) {
                    /* A pending socket error without a queued entry: clear it
                     * so poll does not spin until the deadline. */
                    int soerr;
                    socklen_t sl = sizeof soerr;
                    getsockopt(si->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
                }
            }
            if (pr > 0 && (p.revents & (POLLHUP | POLLNVAL))) break;
        }
    }
    uint64_t after;
    char e2[128];
    if (s->have_before && probe_snmp_read_frag_creates(s->family == AF_INET6, &after, e2, sizeof e2) == 0)
        obs->frag_creates = after >= s->frag_before ? (int64_t)(after - s->frag_before) : -1;
    else
        obs->frag_creates = -1;
    return 0;
}

static void recverr_close(void *state) { free(state); }

const struct probe_observer probe_observer_recverr = {
    .name = "recverr",
    .open = recverr_open,
    .arm = recverr_arm,
    .collect = recverr_collect,
    .close = recverr_close,
};
