/* The witness's eyes with CAP_NET_RAW: a packet tap on every interface of
 * its namespace that sees each arriving IP packet before reassembly, so the
 * report can give the DF bit and the exact pieces. A datagram's pieces are
 * tied together by the IP ID and to the probe by the nonce in the first
 * fragment; TCP data segments by the connection's source address and port.
 * witness_tap_record is pure (canned packets in the tests). */
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "witness.h"

#define TAP_DRAIN_MAX 256          /* packets read per drain (a flood cannot pin the loop) */
#define TAP_RCVBUF (1 << 20)

void witness_tap_open(struct witness_tap *t, int port) {
    memset(t->p, 0, sizeof t->p);
    t->next = 0;
    t->port = port;
    t->fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
    if (t->fd >= 0) {
        int sz = TAP_RCVBUF;
        setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    }
}

void witness_tap_close(struct witness_tap *t) {
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
}

void witness_tap_drain(struct witness_tap *t) {
    uint8_t *buf = t->buf;
    if (t->fd < 0) return;
    for (int i = 0; i < TAP_DRAIN_MAX; i++) {
        struct sockaddr_ll sll;
        socklen_t sl = sizeof sll;
        ssize_t n = recvfrom(t->fd, buf, WITNESS_READ_MAX, 0, (struct sockaddr *)&sll, &sl);
        if (n < 0) break;
        if (sll.sll_pkttype == PACKET_OUTGOING) continue;
        witness_tap_record(t, buf, (size_t)n);
    }
}

static unsigned g16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }

static struct witness_piece *find(struct witness_tap *t, int family, const uint8_t *src, int l4, int64_t id,
                                  int sport) {
    for (int i = 0; i < WITNESS_PIECES; i++) {
        struct witness_piece *p = &t->p[i];
        if (p->used && p->family == family && p->l4 == l4 && !memcmp(p->src, src, 16) &&
            (l4 == IPPROTO_TCP ? p->sport == sport : p->id == id))
            return p;
    }
    return NULL;
}

/* A TCP connection whose latest segment was fragmented with this ID. */
static struct witness_piece *find_id(struct witness_tap *t, int family, const uint8_t *src, int64_t id) {
    for (int i = 0; i < WITNESS_PIECES; i++) {
        struct witness_piece *p = &t->p[i];
        if (p->used && p->family == family && p->l4 == IPPROTO_TCP && p->id == id && !memcmp(p->src, src, 16))
            return p;
    }
    return NULL;
}

static struct witness_piece *fresh(struct witness_tap *t) {
    struct witness_piece *p = &t->p[t->next];
    t->next = (t->next + 1) % WITNESS_PIECES;
    memset(p, 0, sizeof *p);
    p->used = 1;
    p->df = p->ttl = -1;
    p->id = -1;
    return p;
}

static void count(struct witness_piece *p, int len, int df, int ttl, int frag) {
    if (!p->count) {
        p->df = df;
        p->ttl = ttl;
        p->min_len = len;
    }
    p->count++;
    if (frag) p->fragments++;
    if (len > p->max_len) p->max_len = len;
    if (len < p->min_len) p->min_len = len;
}

void witness_tap_record(struct witness_tap *t, const uint8_t *pkt, size_t len) {
    if (len < 20) return;
    int family, l4, df = -1, ttl, off, mf, frag, iplen;
    size_t hl;
    int64_t id;
    uint8_t src[16] = {0};
    if (pkt[0] >> 4 == 4) {
        family = AF_INET;
        hl = (size_t)(pkt[0] & 15) * 4;
        iplen = (int)g16(pkt + 2);
        if (hl < 20 || len < hl || iplen < (int)hl) return;
        unsigned fo = g16(pkt + 6);
        df = (fo >> 14) & 1;
        mf = (fo >> 13) & 1;
        off = (int)(fo & 0x1fff) * 8;
        id = g16(pkt + 4);
        ttl = pkt[8];
        l4 = pkt[9];
        memcpy(src, pkt + 12, 4);
    } else if (pkt[0] >> 4 == 6 && len >= 40) {
        family = AF_INET6;
        hl = 40;
        iplen = 40 + (int)g16(pkt + 4);
        ttl = pkt[7];
        l4 = pkt[6];
        memcpy(src, pkt + 8, 16);
        mf = off = 0;
        id = -1;
        if (l4 == 44) {
            if (len < 48) return;
            unsigned fo = g16(pkt + 42);
            off = (int)(fo & 0xfff8);
            mf = (int)(fo & 1);
            id = (int64_t)((uint32_t)g16(pkt + 44) << 16 | g16(pkt + 46));
            l4 = pkt[40];
            hl = 48;
        }
    } else {
        return;
    }
    frag = mf || off || (family == AF_INET6 && id >= 0);
    if (off > 0) {
        /* A later fragment: only its ID ties it to a datagram we track. */
        struct witness_piece *p = find(t, family, src, IPPROTO_UDP, id, 0);
        if (!p) p = find_id(t, family, src, id);
        if (p) {
            count(p, iplen, df, ttl, 1);
            p->later++;
        }
        return;
    }
    if (len < hl + 8 || (l4 != IPPROTO_UDP && l4 != IPPROTO_TCP)) return;
    const uint8_t *th = pkt + hl;
    int sport = (int)g16(th), dport = (int)g16(th + 2);
    if (dport != t->port) return;
    if (l4 == IPPROTO_TCP) {
        if (len < hl + 20) return;
        int thl = (th[12] >> 4) * 4;
        struct witness_piece *p = find(t, family, src, IPPROTO_TCP, -1, sport);
        /* A SYN opens another connection from this port (ports are reused):
         * what the old one sent is not this one's (its DF, its segments). */
        if (th[13] & 0x02) {
            if (p) p->used = 0;
            return;
        }
        if (iplen - (int)hl - thl <= 0) return; /* acks: not data */
        if (!p) {
            p = fresh(t);
            p->family = family;
            p->l4 = IPPROTO_TCP;
            p->sport = sport;
            memcpy(p->src, src, 16);
        }
        if (frag) p->id = id; /* its later fragments carry this ID */
        count(p, iplen, df, ttl, frag);
        return;
    }
    struct witness_piece *p = frag ? find(t, family, src, IPPROTO_UDP, id, 0) : NULL;
    if (!p) {
        p = fresh(t);
        p->family = family;
        p->l4 = IPPROTO_UDP;
        p->id = frag ? id : -2; /* -2: a whole datagram, never matched by ID */
        p->sport = sport;
        memcpy(p->src, src, 16);
    }
    if (len >= hl + 8 + 8 + PROBE_WITNESS_NONCE_BYTES) {
        memcpy(p->nonce, th + 8 + 8, PROBE_WITNESS_NONCE_BYTES);
        p->has_nonce = 1;
    }
    count(p, iplen, df, ttl, frag);
}

static void fill(const struct witness_piece *p, struct probe_witness_report *r) {
    r->raw = 1;
    r->df = p->family == AF_INET ? p->df : -1;
    if (p->ttl >= 0) r->ttl = p->ttl;
    r->fragments = p->fragments;
    r->frag_max = p->fragments ? p->max_len : 0;
    r->frag_min = p->fragments ? p->min_len : 0;
    if (p->l4 == IPPROTO_TCP) {
        r->segments = p->count - p->later;
        r->seg_max = p->max_len;
    }
}

int witness_tap_udp(const struct witness_tap *t, const uint8_t *nonce, struct probe_witness_report *r) {
    if (t->fd < 0) return 0;
    for (int i = 0; i < WITNESS_PIECES; i++) {
        const struct witness_piece *p = &t->p[i];
        if (p->used && p->l4 == IPPROTO_UDP && p->has_nonce && !memcmp(p->nonce, nonce, PROBE_WITNESS_NONCE_BYTES)) {
            fill(p, r);
            return 1;
        }
    }
    return 0;
}

int witness_tap_tcp(const struct witness_tap *t, int family, const uint8_t *src, int sport,
                    struct probe_witness_report *r) {
    if (t->fd < 0) return 0;
    for (int i = 0; i < WITNESS_PIECES; i++) {
        const struct witness_piece *p = &t->p[i];
        if (p->used && p->l4 == IPPROTO_TCP && p->family == family && p->sport == sport && !memcmp(p->src, src, 16)) {
            fill(p, r);
            return 1;
        }
    }
    return 0;
}
