/* The root observer: a raw ICMP (or ICMPv6) socket for the routers' answers
 * and a packet socket that sees what actually left this host (fragments, DF,
 * lengths). Both see the whole namespace; answers are matched to the test by
 * addresses, ports and, for later fragments, the IP ID. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base.h"
#include "observe.h"

#define RAW_PKT_MAX 65536      /* one datagram read; longer ones are truncated (MSG_TRUNC) */
#define RAW_IDS_MAX 32         /* IP IDs of this test remembered to match later fragments */
#define RAW_TAP_RCVBUF (1 << 20)
#define RAW_GRACE_MS 5         /* after a decisive answer, wait this long for the rest */

struct raw_state {
    int family;
    int icmp_fd, tap_fd;
    int64_t ids[RAW_IDS_MAX];
    int nids;
    uint8_t buf[RAW_PKT_MAX];
};

static int raw_open(void **statep, int family, char *err, size_t errlen) {
    struct raw_state *s = probe_observer_state_new(sizeof *s, "raw", err, errlen);
    if (!s) return PROBE_E_FAIL;
    s->family = family;
    s->tap_fd = -1;
    s->icmp_fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
    if (s->icmp_fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open a raw %s socket: %s%s", family == AF_INET6 ? "ICMPv6" : "ICMP",
                 strerror(e), e == EPERM ? " (needs root or CAP_NET_RAW; or use --observer recverr)" : "");
        free(s);
        return e == EPERM ? PROBE_E_PERM : e == EAFNOSUPPORT ? PROBE_E_NOV6 : PROBE_E_FAIL;
    }
    if (family == AF_INET6) {
        struct icmp6_filter f;
        ICMP6_FILTER_SETBLOCKALL(&f);
        ICMP6_FILTER_SETPASS(ICMP6_DST_UNREACH, &f);
        ICMP6_FILTER_SETPASS(ICMP6_PACKET_TOO_BIG, &f);
        ICMP6_FILTER_SETPASS(ICMP6_TIME_EXCEEDED, &f);
        ICMP6_FILTER_SETPASS(ICMP6_PARAM_PROB, &f);
        ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &f); /* the target's answer to an icmp6 test */
        setsockopt(s->icmp_fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof f);
    }
    /* ETH_P_ALL: only "all protocols" taps see outgoing packets. */
    s->tap_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (s->tap_fd >= 0) {
        int sz = RAW_TAP_RCVBUF;
        setsockopt(s->tap_fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    }
    /* Without the tap the judge falls back to quotes and rules: not fatal. */
    *statep = s;
    return 0;
}

static void raw_close(void *p) {
    struct raw_state *s = p;
    if (!s) return;
    if (s->icmp_fd >= 0) close(s->icmp_fd);
    if (s->tap_fd >= 0) close(s->tap_fd);
    free(s);
}

static void remember_id(struct raw_state *s, int64_t id) {
    if (id < 0) return;
    for (int i = 0; i < s->nids; i++)
        if (s->ids[i] == id) return;
    if (s->nids < RAW_IDS_MAX) s->ids[s->nids++] = id;
}

/* A packet of this test leaving: is it the packet the question is about
 * (issue 34)? TCP: the first data segment and its resends of the same
 * length; UDP and ICMP: the datagram and its fragments. */
static void packet_seen(const struct probe_sendinfo *si, const struct probe_quote *q, struct probe_packet_seen *pkt) {
    if (si->l4 != IPPROTO_TCP) {
        if (si->family == AF_INET || probe_quote_is_fragment(q)) probe_packet_seen_add_id(pkt, q->id);
        return;
    }
    if (q->l4 != IPPROTO_TCP || q->tcp_seq < 0 || q->tcp_hdr_len < 0) return;
    int data = q->total_len - (si->family == AF_INET6 ? 40 : 20) - q->tcp_hdr_len;
    if (pkt->tcp_seq < 0 && data > 0) {
        pkt->tcp_seq = q->tcp_seq;
        /* Longer than the route allows: a GSO packet the device cuts into
         * segments; the first one's length on the wire is not seen here. */
        pkt->len = si->route_mtu > 0 && q->total_len > si->route_mtu ? -1 : q->total_len;
    }
    if (q->tcp_seq == pkt->tcp_seq && (q->total_len == pkt->len || pkt->len < 0) && si->family == AF_INET)
        probe_packet_seen_add_id(pkt, q->id);
}

/* Drains what left the host; counts this test's packets. */
static void tap_drain(struct raw_state *s, const struct probe_sendinfo *si, struct probe_observation *obs) {
    if (s->tap_fd < 0) return;
    for (;;) {
        struct sockaddr_ll sll;
        socklen_t sl = sizeof sll;
        ssize_t n = recvfrom(s->tap_fd, s->buf, sizeof s->buf, MSG_TRUNC, (struct sockaddr *)&sll, &sl);
        if (n < 0) break;
        if (!si || sll.sll_pkttype != PACKET_OUTGOING) continue;
        if (sll.sll_protocol != htons(s->family == AF_INET6 ? ETH_P_IPV6 : ETH_P_IP)) continue;
        size_t len = (size_t)n < sizeof s->buf ? (size_t)n : sizeof s->buf;
        struct probe_quote q;
        int rc = s->family == AF_INET6 ? probe_parse_quote6(s->buf, len, &q) : probe_parse_quote4(s->buf, len, &q);
        if (rc != PROBE_PARSE_OK || !probe_answer_matches(si, &q, s->ids, s->nids)) continue;
        if (q.l4 >= 0 && (probe_quote_is_fragment(&q) || si->family == AF_INET)) remember_id(s, q.id);
        packet_seen(si, &q, &obs->pkt);
        if (obs->egress_packets < 0) obs->egress_packets = obs->egress_fragments = 0;
        if (obs->egress_first_len < 0) {
            obs->egress_first_len = q.total_len;
            obs->egress_df = q.df;
            obs->egress_max_len = 0;
        }
        obs->egress_packets++;
        if (probe_quote_is_fragment(&q)) obs->egress_fragments++;
        if (q.total_len > obs->egress_max_len) obs->egress_max_len = q.total_len;
    }
}

/* Reads ICMP errors (and, for an ICMP test, the target's Echo Reply);
 * returns 1 when one of them answers this test. */
static int icmp_drain(struct raw_state *s, const struct probe_sendinfo *si, struct probe_observation *obs) {
    int got = 0;
    for (;;) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(s->icmp_fd, s->buf, sizeof s->buf, 0, (struct sockaddr *)&from, &fl);
        if (n < 0) break;
        struct probe_icmp m;
        int rc = s->family == AF_INET6 ? probe_parse_icmp6(s->buf, (size_t)n, &m)
                                       : probe_parse_icmp4(s->buf, (size_t)n, &m);
        if (s->family == AF_INET6) memcpy(m.from, &((struct sockaddr_in6 *)&from)->sin6_addr, 16);
        if (rc == PROBE_PARSE_NOT_ERROR && obs->echo_replies >= 0) {
            /* An ICMP test that reached its target. IPv4: after the IP header
             * (parse_icmp4 checked it); IPv6: the raw socket gives no header. */
            size_t at = s->family == AF_INET6 ? 0 : (size_t)(s->buf[0] & 0x0f) * 4;
            int id, seq;
            if ((size_t)n > at && probe_parse_echo_reply(s->buf + at, (size_t)n - at, s->family, &id, &seq) &&
                probe_echo_reply_matches(si, m.from, id, seq)) {
                obs->echo_replies++;
                got = 1;
            }
            continue;
        }
        if (rc != PROBE_PARSE_OK) continue;
        if (!probe_answer_matches(si, &m.q, s->ids, s->nids)) continue;
        if (m.q.l4 >= 0) remember_id(s, m.q.id);
        probe_observation_add(obs, &m);
        got = 1;
    }
    return got;
}

static int raw_collect(void *p, const struct probe_sendinfo *si, const struct timespec *deadline,
                       struct probe_observation *obs, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    struct raw_state *s = p;
    if (s->tap_fd >= 0 && obs->egress_packets < 0) {
        obs->egress_packets = obs->egress_fragments = 0;
    }
    if (si->l4 == IPPROTO_ICMP || si->l4 == IPPROTO_ICMPV6) obs->echo_replies = 0;
    struct probe_wait w = {.deadline = deadline};
    for (;;) {
        tap_drain(s, si, obs);
        if (si->sent && icmp_drain(s, si, obs)) probe_wait_decided(&w, RAW_GRACE_MS);
        if (!si->sent) break;
        int left = probe_wait_left_ms(&w);
        if (left <= 0) break;
        struct pollfd pf[3] = {{s->icmp_fd, POLLIN, 0}, {s->tap_fd, POLLIN, 0}, {si->fd, POLLIN, 0}};
        /* A witness's report is readable on the sending socket: decisive too. */
        int await = si->witness_key && !w.decided, np = await ? 3 : s->tap_fd >= 0 ? 2 : 1;
        int r = poll(pf, (nfds_t)np, left);
        if (r < 0 && errno != EINTR) break;
        if (await && r > 0 && (pf[2].revents & (POLLIN | POLLERR | POLLHUP))) probe_wait_decided(&w, RAW_GRACE_MS);
    }
    tap_drain(s, si, obs);
    return 0;
}

/* Before the send: throw away what the tap saw so far (TCP handshake). */
static int raw_arm(void *p, int fd, char *err, size_t errlen) {
    (void)fd;
    (void)err;
    (void)errlen;
    tap_drain(p, NULL, NULL);
    return 0;
}

const struct probe_observer probe_observer_raw = {
    .name = "raw",
    .open = raw_open,
    .arm = raw_arm,
    .collect = raw_collect,
    .close = raw_close,
};
