/* Pure decoders of ICMP/ICMPv6 errors and of the IPv4/IPv6 header they quote.
 * No I/O: tests feed them canned bytes, a fuzzer feeds them garbage. Every
 * read is bounds-checked against len; nothing is trusted from the packet
 * (lengths inside it only ever shrink what we look at). */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "probe_wire.h"

/* IPv6 extension headers walked before giving up on finding the transport
 * header (a hostile chain cannot make us loop). */
#define PARSE_V6_EXT_MAX 8

static unsigned rd16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static void quote_init(struct probe_quote *q, int family, size_t len) {
    memset(q, 0, sizeof *q);
    q->family = family;
    q->total_len = q->ttl = q->df = q->mf = q->frag_offset = q->frag_hdr = -1;
    q->id = -1;
    q->l4 = q->sport = q->dport = -1;
    q->tcp_seq = -1;
    q->udp_check = q->tcp_hdr_len = -1;
    q->quoted_bytes = len > 0x7fffffff ? 0x7fffffff : (int)len;
}

/* The transport header's ports (TCP: sequence and header length; UDP:
 * checksum) at p, as far as len shows;
 * for an ICMP echo request its identifier and sequence in sport/dport. */
static void quote_l4(struct probe_quote *q, int l4, const uint8_t *p, size_t len) {
    q->l4 = l4;
    if ((l4 == IPPROTO_ICMP && q->family == AF_INET) || (l4 == IPPROTO_ICMPV6 && q->family == AF_INET6)) {
        unsigned echo = q->family == AF_INET ? 8 : 128; /* Echo Request */
        if (len >= 8 && p[0] == echo && p[1] == 0) {
            q->sport = (int)rd16(p + 4);
            q->dport = (int)rd16(p + 6);
        }
        return;
    }
    if (l4 != IPPROTO_UDP && l4 != IPPROTO_TCP) return;
    if (len >= 4) {
        q->sport = (int)rd16(p);
        q->dport = (int)rd16(p + 2);
    }
    if (l4 == IPPROTO_TCP && len >= 8) q->tcp_seq = rd32(p + 4);
    if (l4 == IPPROTO_TCP && len >= 13) q->tcp_hdr_len = (p[12] >> 4) * 4;
    if (l4 == IPPROTO_UDP && len >= 8) q->udp_check = (int)rd16(p + 6);
}

int probe_parse_quote4(const uint8_t *buf, size_t len, struct probe_quote *out) {
    quote_init(out, AF_INET, len);
    if (!buf || len < 20) return PROBE_PARSE_SHORT;
    if (buf[0] >> 4 != 4) return PROBE_PARSE_BAD;
    size_t ihl = (size_t)(buf[0] & 0x0f) * 4;
    if (ihl < 20) return PROBE_PARSE_BAD;
    if (ihl > len) return PROBE_PARSE_SHORT;
    unsigned frag = rd16(buf + 6);
    out->total_len = (int)rd16(buf + 2);
    if (out->total_len < (int)ihl) return PROBE_PARSE_BAD;
    out->id = rd16(buf + 4);
    out->df = (frag & 0x4000) != 0;
    out->mf = (frag & 0x2000) != 0;
    out->frag_offset = (int)(frag & 0x1fff) * 8;
    out->frag_hdr = 0;
    out->ttl = buf[8];
    memcpy(out->src, buf + 12, 4);
    memcpy(out->dst, buf + 16, 4);
    if (out->frag_offset > 0) return PROBE_PARSE_OK; /* no transport header in a later fragment */
    quote_l4(out, buf[9], buf + ihl, len - ihl);
    return PROBE_PARSE_OK;
}

int probe_parse_quote6(const uint8_t *buf, size_t len, struct probe_quote *out) {
    quote_init(out, AF_INET6, len);
    if (!buf || len < 40) return PROBE_PARSE_SHORT;
    if (buf[0] >> 4 != 6) return PROBE_PARSE_BAD;
    out->total_len = 40 + (int)rd16(buf + 4);
    out->ttl = buf[7];
    out->mf = 0;
    out->frag_offset = 0;
    out->frag_hdr = 0;
    memcpy(out->src, buf + 8, 16);
    memcpy(out->dst, buf + 24, 16);
    unsigned nh = buf[6];
    size_t off = 40;
    for (int i = 0; i < PARSE_V6_EXT_MAX; i++) {
        if (nh == 0 || nh == 43 || nh == 60) { /* hop-by-hop, routing, destination options */
            if (len < off + 2) return PROBE_PARSE_OK; /* cut inside the chain: l4 stays -1 */
            size_t hl = ((size_t)buf[off + 1] + 1) * 8;
            nh = buf[off];
            off += hl;
            continue;
        }
        if (nh == 44) { /* Fragment header */
            if (len < off + 8) return PROBE_PARSE_OK;
            unsigned fo = rd16(buf + off + 2);
            out->frag_hdr = 1;
            out->frag_offset = (int)(fo & 0xfff8);
            out->mf = (int)(fo & 1);
            out->id = rd32(buf + off + 4);
            nh = buf[off];
            off += 8;
            if (out->frag_offset > 0) return PROBE_PARSE_OK;
            continue;
        }
        if (off > len) return PROBE_PARSE_OK;
        quote_l4(out, (int)nh, buf + off, len - off);
        return PROBE_PARSE_OK;
    }
    return PROBE_PARSE_OK; /* chain too long: transport unknown */
}

/* An answer not read yet: type and code -1, an empty quote. */
static void icmp_init(struct probe_icmp *out, int family) {
    memset(out, 0, sizeof *out);
    out->family = family;
    out->type = out->code = -1;
    quote_init(&out->q, family, 0);
}

/* What an ICMP error of this family, type and code says (the caller has
 * ruled out messages that are not errors). */
static enum probe_icmp_kind icmp_kind(int family, int type, int code) {
    int v6 = family == AF_INET6;
    if (type == (v6 ? 3 : 11)) return code == 0 ? PROBE_ICMP_TIME_EXCEEDED : PROBE_ICMP_OTHER;
    if (v6 ? type == 2 : type == 3 && code == 4) return PROBE_ICMP_FRAG_NEEDED; /* Packet Too Big / Frag Needed */
    if (type == (v6 ? 1 : 3)) return PROBE_ICMP_UNREACH;
    return PROBE_ICMP_OTHER;
}

int probe_parse_icmp4(const uint8_t *buf, size_t len, struct probe_icmp *out) {
    icmp_init(out, AF_INET);
    if (!buf || len < 20) return PROBE_PARSE_SHORT;
    if (buf[0] >> 4 != 4) return PROBE_PARSE_BAD;
    size_t ihl = (size_t)(buf[0] & 0x0f) * 4;
    if (ihl < 20) return PROBE_PARSE_BAD;
    if (buf[9] != IPPROTO_ICMP) return PROBE_PARSE_BAD;
    size_t tot = rd16(buf + 2);
    if (tot < ihl) return PROBE_PARSE_BAD;
    if (tot < len) len = tot; /* trailing bytes are not part of the packet */
    if (ihl + 8 > len) return PROBE_PARSE_SHORT;
    memcpy(out->from, buf + 12, 4);
    const uint8_t *icmp = buf + ihl;
    out->type = icmp[0];
    out->code = icmp[1];
    if (out->type != 3 && out->type != 11 && out->type != 12) return PROBE_PARSE_NOT_ERROR;
    out->kind = icmp_kind(AF_INET, out->type, out->code);
    if (out->kind == PROBE_ICMP_FRAG_NEEDED) out->mtu = (int)rd16(icmp + 6);
    return probe_parse_quote4(icmp + 8, len - ihl - 8, &out->q);
}

int probe_parse_icmp6(const uint8_t *buf, size_t len, struct probe_icmp *out) {
    icmp_init(out, AF_INET6);
    if (!buf || len < 8) return PROBE_PARSE_SHORT;
    out->type = buf[0];
    out->code = buf[1];
    if (out->type >= 128 || out->type == 0 || out->type > 4) return PROBE_PARSE_NOT_ERROR;
    out->kind = icmp_kind(AF_INET6, out->type, out->code);
    if (out->kind == PROBE_ICMP_FRAG_NEEDED) {
        uint32_t mtu = rd32(buf + 4);
        out->mtu = mtu > 0x7fffffff ? 0x7fffffff : (int)mtu;
    }
    return probe_parse_quote6(buf + 8, len - 8, &out->q);
}

int probe_parse_echo_reply(const uint8_t *buf, size_t len, int family, int *id, int *seq) {
    if (!buf || len < 8) return 0;
    if (buf[0] != (family == AF_INET6 ? 129 : 0) || buf[1] != 0) return 0;
    *id = (int)rd16(buf + 4);
    *seq = (int)rd16(buf + 6);
    return 1;
}
