/* Which packet of a test an ICMP quote is about (issue 34). A test's flow
 * (its addresses and ports) can carry more than the packet its question is
 * about: a TCP write of 3000 bytes leaves as three segments, and a resend
 * of the first one is another packet again. Only a quote of the packet
 * itself answers; what ties it: TCP the first data segment's sequence
 * number and length (or, for a fragment, the IP ID it left with), UDP the
 * ports and the datagram's checksum, ICMP echo the identifier and sequence.
 * Pure: no I/O, canned quotes in the tests. */
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "observe.h"

void probe_packet_seen_init(struct probe_packet_seen *p) {
    memset(p, 0, sizeof *p);
    p->tcp_seq = -1;
    p->len = -1;
}

static int has_id(const struct probe_packet_seen *p, int64_t id) {
    for (int i = 0; i < p->nids; i++)
        if (p->ids[i] == id) return 1;
    return 0;
}

void probe_packet_seen_add_id(struct probe_packet_seen *p, int64_t id) {
    if (id >= 0 && !has_id(p, id) && p->nids < PROBE_PACKET_IDS_MAX) p->ids[p->nids++] = id;
}

/* The 4 or 16 bytes of an IPv4 / IPv6 socket address. */
static const uint8_t *addr_of(const struct sockaddr_storage *a) {
    if (a->ss_family == AF_INET6) return (const uint8_t *)&((const struct sockaddr_in6 *)a)->sin6_addr;
    return (const uint8_t *)&((const struct sockaddr_in *)a)->sin_addr;
}

static enum probe_about say(enum probe_about a, char *what, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum probe_about say(enum probe_about a, char *what, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, len, fmt, ap);
    va_end(ap);
    return a;
}

/* TCP: the first data segment is the packet (docs/PROBE.md). */
static enum probe_about tcp_about(const struct probe_packet_seen *pkt, const struct probe_quote *q, char *what,
                                  size_t len) {
    if (q->tcp_seq < 0) return say(PROBE_ABOUT_UNSURE, what, len, "a quote too short to show its TCP sequence number");
    if (pkt->tcp_seq < 0)
        return say(PROBE_ABOUT_UNSURE, what, len, "a quote of a segment (%d bytes), while the first segment's "
                   "sequence number was not seen leaving", q->total_len);
    if (q->tcp_seq != pkt->tcp_seq) {
        int32_t d = (int32_t)(uint32_t)(q->tcp_seq - pkt->tcp_seq);
        return say(PROBE_ABOUT_OTHER, what, len, "a quote of another segment (seq %+" PRId32 ", %d bytes)", d,
                   q->total_len);
    }
    if (probe_quote_is_fragment(q)) {
        if (pkt->nids && !has_id(pkt, q->id))
            return say(PROBE_ABOUT_OTHER, what, len, "a quote of a fragment of a resend of the first segment "
                       "(IP ID %" PRId64 ", %d bytes)", q->id, q->total_len);
        return PROBE_ABOUT_THIS;
    }
    if (pkt->len > 0 && q->total_len != pkt->len)
        return say(PROBE_ABOUT_OTHER, what, len, "a quote of a resend of the first segment in %d bytes (it left in %d)",
                   q->total_len, pkt->len);
    return PROBE_ABOUT_THIS;
}

enum probe_about probe_quote_about(const struct probe_sendinfo *si, const struct probe_packet_seen *pkt,
                                   const struct probe_quote *q, char *what, size_t len) {
    what[0] = '\0';
    size_t alen = si->family == AF_INET6 ? 16 : 4;
    if (q->family != si->family || memcmp(q->src, addr_of(&si->local), alen) ||
        memcmp(q->dst, addr_of(&si->remote), alen))
        return say(PROBE_ABOUT_OTHER, what, len, "a quote of a packet between other addresses");
    if (q->l4 < 0) { /* a later fragment: only its ID ties it to a packet */
        if (q->id < 0 || !pkt->nids)
            return say(PROBE_ABOUT_UNSURE, what, len, "a quote of a later fragment (%d bytes) whose packet is not "
                       "known", q->total_len);
        if (has_id(pkt, q->id)) return PROBE_ABOUT_THIS;
        return say(PROBE_ABOUT_OTHER, what, len, "a quote of a fragment of another packet (IP ID %" PRId64 ", %d bytes)",
                   q->id, q->total_len);
    }
    if (q->l4 != si->l4 || q->sport != si->sport || q->dport != si->dport)
        return say(PROBE_ABOUT_OTHER, what, len, "a quote of another flow (ports %d > %d)", q->sport, q->dport);
    if (si->l4 == IPPROTO_TCP) return tcp_about(pkt, q, what, len);
    /* A local answer (loopback, the host's own stack) may quote the datagram
     * before the device completed its checksum: the pseudo header's sum. */
    if (si->l4 == IPPROTO_UDP && si->udp_check >= 0 && q->udp_check >= 0 && q->udp_check != si->udp_check &&
        q->udp_check != si->udp_check_partial)
        return say(PROBE_ABOUT_OTHER, what, len, "a quote of another datagram (UDP checksum 0x%04x, not 0x%04x, %d bytes)",
                   (unsigned)q->udp_check, (unsigned)si->udp_check, q->total_len);
    /* UDP: one datagram per socket, its checksum agreeing (or not quoted);
     * ICMP echo: the identifier and sequence matched above. */
    return PROBE_ABOUT_THIS;
}
