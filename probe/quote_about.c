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

#include "quote_about.h"

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

/* What a quote is about, as a message (a catalog key "ev.quote_*" and its
 * arguments: docs/LANGUAGES.md) into msg when asked, and its English into
 * what. */
struct about_out {
    char *what;
    size_t len;
    struct fv_msg *msg; /* NULL: the English only */
};
static enum probe_about say(enum probe_about a, const struct about_out *o, const char *key, const char *spec, ...)
    __attribute__((format(printf, 4, 5)));
static enum probe_about say(enum probe_about a, const struct about_out *o, const char *key, const char *spec, ...) {
    struct fv_msg m;
    va_list ap;
    va_start(ap, spec);
    fv_msg_setv(&m, key, spec, ap);
    va_end(ap);
    fv_msg_text(&m, o->what, o->len);
    if (o->msg) *o->msg = m;
    return a;
}

/* TCP: the first data segment is the packet (docs/PROBE.md). */
static enum probe_about tcp_about(const struct probe_packet_seen *pkt, const struct probe_quote *q,
                                  const struct about_out *o) {
    char n[24];
    if (q->tcp_seq < 0) return say(PROBE_ABOUT_UNSURE, o, "ev.quote_short", " ");
    if (pkt->tcp_seq < 0) return say(PROBE_ABOUT_UNSURE, o, "ev.quote_segment_unseen", "len=%d", q->total_len);
    if (q->tcp_seq != pkt->tcp_seq) {
        snprintf(n, sizeof n, "%+" PRId32, (int32_t)(uint32_t)(q->tcp_seq - pkt->tcp_seq));
        return say(PROBE_ABOUT_OTHER, o, "ev.quote_other_segment", "seq=%s len=%d", n, q->total_len);
    }
    if (probe_quote_is_fragment(q)) {
        snprintf(n, sizeof n, "%" PRId64, q->id);
        if (pkt->nids && !has_id(pkt, q->id))
            return say(PROBE_ABOUT_OTHER, o, "ev.quote_resend_fragment", "id=%s len=%d", n, q->total_len);
        return PROBE_ABOUT_THIS;
    }
    if (pkt->len > 0 && q->total_len != pkt->len)
        return say(PROBE_ABOUT_OTHER, o, "ev.quote_resend", "len=%d left=%d", q->total_len, pkt->len);
    return PROBE_ABOUT_THIS;
}

enum probe_about probe_quote_about(const struct probe_sendinfo *si, const struct probe_packet_seen *pkt,
                                   const struct probe_quote *q, char *what, size_t len, struct fv_msg *msg) {
    what[0] = '\0';
    if (msg) memset(msg, 0, sizeof *msg);
    const struct about_out o = {what, len, msg};
    char n[3][24];
    size_t alen = si->family == AF_INET6 ? 16 : 4;
    if (q->family != si->family || memcmp(q->src, addr_of(&si->local), alen) ||
        memcmp(q->dst, addr_of(&si->remote), alen))
        return say(PROBE_ABOUT_OTHER, &o, "ev.quote_other_addresses", " ");
    if (q->l4 < 0) { /* a later fragment: only its ID ties it to a packet */
        if (q->id < 0 || !pkt->nids)
            return say(PROBE_ABOUT_UNSURE, &o, "ev.quote_later_fragment", "len=%d", q->total_len);
        if (has_id(pkt, q->id)) return PROBE_ABOUT_THIS;
        snprintf(n[0], sizeof n[0], "%" PRId64, q->id);
        return say(PROBE_ABOUT_OTHER, &o, "ev.quote_other_packet", "id=%s len=%d", n[0], q->total_len);
    }
    if (q->l4 != si->l4 || q->sport != si->sport || q->dport != si->dport)
        return say(PROBE_ABOUT_OTHER, &o, "ev.quote_other_flow", "sport=%d dport=%d", q->sport, q->dport);
    if (si->l4 == IPPROTO_TCP) return tcp_about(pkt, q, &o);
    /* A local answer (loopback, the host's own stack) may quote the datagram
     * before the device completed its checksum: the pseudo header's sum. */
    if (si->l4 == IPPROTO_UDP && si->udp_check >= 0 && q->udp_check >= 0 && q->udp_check != si->udp_check &&
        q->udp_check != si->udp_check_partial) {
        snprintf(n[1], sizeof n[1], "0x%04x", (unsigned)q->udp_check);
        snprintf(n[2], sizeof n[2], "0x%04x", (unsigned)si->udp_check);
        return say(PROBE_ABOUT_OTHER, &o, "ev.quote_other_datagram", "got=%s want=%s len=%d", n[1], n[2], q->total_len);
    }
    /* UDP: one datagram per socket, its checksum agreeing (or not quoted);
     * ICMP echo: the identifier and sequence matched above. */
    return PROBE_ABOUT_THIS;
}
