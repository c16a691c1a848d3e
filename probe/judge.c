/* The judge: turns what was sent and what an observer saw into the three
 * answers. Pure: no I/O, and it asks nobody -- the path's node names and link
 * MTUs come in as data (struct probe_path_topology) -- so both observers are
 * judged by the same rules and tests can feed it observations. An answer is "observed" only when a packet
 * (ours leaving, or a router's quote) shows it; otherwise the kernel's rules
 * (ip(7), measured in ../shared notes) give an "inferred" answer, or it
 * stays "unknown" with the reason. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "observe.h"

void probe_fact_setv(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *fmt, va_list ap) {
    f->answer = a;
    f->basis = b;
    vsnprintf(f->why, sizeof f->why, fmt, ap);
}

void probe_fact_set(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    probe_fact_setv(f, a, b, fmt, ap);
    va_end(ap);
}

/* ---- the kernel's rules (Linux, ip(7)) ---- */
static int rule_df(const struct probe_spec *s) {
    enum probe_mode m = s->mode;
    if (probe_proto_is_tcp(s->proto))
        return !(m == PROBE_MODE_DONT || m == PROBE_MODE_PROBE || m == PROBE_MODE_INTERFACE || m == PROBE_MODE_OMIT);
    return !(m == PROBE_MODE_DONT || m == PROBE_MODE_INTERFACE || m == PROBE_MODE_OMIT);
}

/* 1 when the kernel fragments this datagram itself (UDP only). */
static int rule_host_frag(const struct probe_spec *s, int dev_mtu, int path_mtu) {
    if (probe_proto_is_tcp(s->proto) || dev_mtu <= 0) return 0;
    int path = path_mtu > 0 ? path_mtu : dev_mtu;
    switch (s->mode) {
    case PROBE_MODE_DEFAULT: case PROBE_MODE_WANT: case PROBE_MODE_DONT: return s->size > path;
    case PROBE_MODE_OMIT: return s->size > dev_mtu;
    default: return 0;
    }
}

int probe_judge_host_frags(const struct probe_spec *s, int dev_mtu, int path_mtu) {
    return rule_host_frag(s, dev_mtu, path_mtu);
}

static void addr_str(int family, const uint8_t *a, char *buf, size_t len) {
    if (!inet_ntop(family, a, buf, (socklen_t)len)) snprintf(buf, len, "?");
}

/* "r2 (198.51.100.2)" in the lab, the address elsewhere. */
static void hop_label(const struct probe_result *r, char *buf, size_t len) {
    if (r->icmp.hop_name[0]) snprintf(buf, len, "%s (%s)", r->icmp.hop_name, r->icmp.hop);
    else snprintf(buf, len, "%s", r->icmp.hop);
}

/* The answer that speaks about the packet as a whole: of the answers about
 * the packet the question is about (issue 34), the first that quotes it whole
 * or its first fragment. An answer about another packet of the test is
 * counted and the first one described in r->other_*, never used. */
static const struct probe_icmp *primary_answer(const struct probe_sendinfo *si, const struct probe_observation *obs,
                                               struct probe_result *r) {
    const struct probe_icmp *whole = NULL, *any = NULL;
    for (int i = 0; i < obs->nanswers; i++) {
        const struct probe_icmp *a = &obs->answers[i];
        char what[sizeof r->icmp.other.quote];
        if (probe_quote_about(si, &obs->pkt, &a->q, what, sizeof what) != PROBE_ABOUT_THIS) {
            if (r->icmp.other.answers++) continue;
            addr_str(a->family, a->from, r->icmp.other.hop, sizeof r->icmp.other.hop);
            snprintf(r->icmp.other.quote, sizeof r->icmp.other.quote, "%s", what);
            continue;
        }
        if (!any) any = a;
        if (!whole && a->q.frag_offset == 0 && a->kind != PROBE_ICMP_OTHER) whole = a;
    }
    return whole ? whole : any;
}

static int from_target(const struct probe_sendinfo *si, const struct probe_icmp *p) {
    if (si->remote.ss_family == AF_INET6)
        return !memcmp(p->from, &((const struct sockaddr_in6 *)&si->remote)->sin6_addr, 16);
    return !memcmp(p->from, &((const struct sockaddr_in *)&si->remote)->sin_addr, 4);
}

void probe_judge(const struct probe_sendinfo *si, const struct probe_observation *obs,
                 const struct probe_path_topology *topo, struct probe_result *r) {
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto), tcp = probe_proto_is_tcp(s->proto);
    r->icmp.other.answers = 0;
    r->icmp.other.hop[0] = r->icmp.other.quote[0] = '\0';
    const struct probe_icmp *p = primary_answer(si, obs, r);
    char hop[96] = "";
    r->icmp.answers = obs->nanswers + obs->answers_dropped;
    r->egress.packets = obs->egress_packets;
    r->egress.fragments = obs->egress_fragments;
    r->egress.first_len = obs->egress_first_len;
    r->icmp.echo_replies = obs->echo_replies;
    int hop_node = -1;
    if (p) {
        addr_str(p->family, p->from, r->icmp.hop, sizeof r->icmp.hop);
        if (topo && (hop_node = probe_path_topology_node_of(topo, r->icmp.hop)) >= 0)
            snprintf(r->icmp.hop_name, sizeof r->icmp.hop_name, "%.*s", (int)sizeof r->icmp.hop_name - 1, topo->node[hop_node].name);
        hop_label(r, hop, sizeof hop);
        r->icmp.type = p->type;
        r->icmp.code = p->code;
        r->icmp.mtu = p->mtu;
        r->icmp.quoted_len = p->q.total_len;
        r->icmp.quoted_df = p->q.df;
        r->icmp.quoted_mf = p->q.mf;
        r->icmp.quoted_offset = p->q.frag_offset;
        r->icmp.quoted_frag_hdr = p->q.frag_hdr;
    }
    int hop_reassembles = topo && hop_node > 0 && topo->node[hop_node].reassembles;

    /* ---- sent? ---- */
    if (!si->sent) {
        if (r->egress.kernel_mtu > 0)
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "send() failed: %s (kernel MTU %d)",
                 strerror(si->send_errno), r->egress.kernel_mtu);
        else
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "send() failed: %s", strerror(si->send_errno));
    } else if (obs->egress_packets > 0) {
        /* Each fact's why speaks only of its own fact: the quiz reveals
         * "sent?" while "DF?" and "fragmented?" are still to be voted on, so
         * no packet count, size or answering hop here (docs/PROTOCOL.md). */
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "it was seen leaving the host");
    } else if (p) {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "an ICMP answer quoted it");
    } else if (obs->echo_replies > 0) {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED,
                       "the target answered the echo request (Echo Reply)");
    } else if (obs->egress_packets == 0) {
        probe_fact_set(&r->sent, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "send() succeeded but nothing of this test was seen leaving the host");
    } else {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_INFERRED,
             "send() accepted it; this observer cannot see the wire and no hop answered");
    }

    /* ---- DF? ---- */
    if (v6) {
        probe_fact_set(&r->df, PROBE_ANS_YES, PROBE_BASIS_INFERRED,
             "IPv6 has no DF bit: routers never fragment IPv6, only the sender may");
    } else if (!si->sent) {
        int df = rule_df(s);
        probe_fact_set(&r->df, df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_INFERRED,
             "nothing was sent; a %s socket in mode %s sets DF=%d", probe_proto_name(s->proto),
             probe_mode_name(s->mode), df);
    } else if (obs->egress_df >= 0) {
        probe_fact_set(&r->df, obs->egress_df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_OBSERVED,
             "DF=%d on the first packet that left the host", obs->egress_df);
    } else if (p && p->q.df >= 0) {
        probe_fact_set(&r->df, p->q.df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_OBSERVED,
             "DF=%d in the header an ICMP answer quoted", p->q.df);
    } else {
        int df = rule_df(s) && !rule_host_frag(s, r->egress.dev_mtu, r->egress.path_mtu_before);
        probe_fact_set(&r->df, df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_INFERRED,
             "not seen on the wire; by the kernel's rules mode %s gives DF=%d", probe_mode_name(s->mode), df);
    }

    /* ---- fragmented, and by whom? ---- */
    int host = -1; /* did this host fragment: 1, 0, -1 unknown */
    char host_why[128] = "";
    if (obs->egress_fragments > 0) {
        host = 1;
        snprintf(host_why, sizeof host_why, "the host sent %d fragments, the first %d bytes",
                 obs->egress_fragments, obs->egress_first_len);
    } else if (obs->egress_packets > 0) {
        host = 0;
    } else if (obs->frag_creates > 0) {
        host = 1;
        snprintf(host_why, sizeof host_why, "the host's fragment counter rose by %lld", (long long)obs->frag_creates);
    } else if (obs->frag_creates == 0) {
        host = 0;
    }
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    if (!si->sent) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "nothing left the host");
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (host == 1) {
        probe_fact_set(&r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "%s", host_why);
        r->fragmenter = PROBE_FRAG_HOST;
    } else if (p && p->q.total_len < 0 && p->kind == PROBE_ICMP_FRAG_NEEDED && host == 0) {
        /* The observer saw no quoted IP header (recverr), but a router only
         * answers Frag Needed / Packet Too Big about what reached it whole. */
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED,
             "%s answered %s (MTU %d): it reached that router whole and was dropped", hop,
             v6 ? "Packet Too Big" : "Frag Needed", p->mtu);
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (p && p->q.total_len < 0) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "%s answered, but this observer does not see the quoted IP header (MF, offset)%s", hop,
             host == 0 ? "; the host did not fragment" : "");
    } else if (p && probe_quote_is_fragment(&p->q)) {
        int by_host = host < 0 && rule_host_frag(s, r->egress.dev_mtu, r->egress.path_mtu_before);
        probe_fact_set(&r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED,
             "%s quoted a fragment (%d bytes, MF=%d, offset %d)%s", hop, p->q.total_len, p->q.mf,
             p->q.frag_offset, by_host ? "; by the kernel's rules the host made it" : "");
        r->fragmenter = by_host ? PROBE_FRAG_HOST : PROBE_FRAG_ROUTER;
    } else if (p && hop_reassembles) {
        if (hop_node == 1 && host == 0) { /* the first router */
            probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED,
                 "left the host whole and %s is the first router", hop);
            r->fragmenter = PROBE_FRAG_NONE;
        } else {
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                 "%s reassembles: its quote shows the reassembled datagram, not what crossed the link", hop);
        }
    } else if (p && topo && hop_node > 0 && hop_node < topo->nnodes - 1 && p->kind == PROBE_ICMP_TIME_EXCEEDED &&
               !v6 && p->q.df == 0 && p->q.total_len > topo->link[hop_node].mtu) {
        /* The probe expired at a router that would itself have to fragment it
         * (its next link is smaller): a router checks the TTL first. */
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "%s quoted it whole, but expired there: %s's next link has MTU %d < %d, so what it would do is not "
             "visible at TTL %d",
             hop, r->icmp.hop_name, topo->link[hop_node].mtu, p->q.total_len, si->ttl);
    } else if (p && p->kind == PROBE_ICMP_UNREACH && !v6 && p->q.df == 0 && from_target(si, p)) {
        /* The destination reassembles before it answers port unreachable. */
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "only the destination answered, and it reassembles before answering: with DF=0 a router on the way "
             "may have fragmented it%s", host == 0 ? " (the host did not)" : "");
    } else if (p && p->kind == PROBE_ICMP_FRAG_NEEDED) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED,
             "%s dropped the whole %d-byte packet with %s (MTU %d)", hop, p->q.total_len,
             v6 ? "Packet Too Big" : "Frag Needed", p->mtu);
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (p && host != 1) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "%s quoted the whole %d-byte packet", hop,
             p->q.total_len);
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (!p && obs->echo_replies > 0 && host == 0 && (v6 || r->df.answer == PROBE_ANS_YES)) {
        /* An Echo Reply quotes nothing, but the request did arrive, and no
         * router may fragment it on the way. */
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED,
             "the target answered; %s, and the host did not fragment it",
             v6 ? "routers never fragment IPv6" : "with DF=1 no router may fragment it");
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (!p && obs->echo_replies > 0) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "only the target answered (Echo Reply), and it reassembles before answering: with DF=0 a router "
             "on the way may have fragmented it%s", host == 0 ? " (the host did not)" : "");
    } else if (r->icmp.other.answers) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "no ICMP answer quoted this packet at TTL %d, only another one%s: what the routers did to it is not "
             "visible", si->ttl, host == 0 ? " (the host did not fragment it)" : "");
    } else {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "no ICMP answer at TTL %d%s: what the routers did is not visible", si->ttl,
             host == 0 ? " (the host did not fragment)" : "");
    }

    /* ---- one line of evidence ---- */
    char *e = r->evidence;
    size_t el = sizeof r->evidence;
    int n = 0;
    if (tcp && si->sent && obs->egress_first_len > 0)
        n = v6 ? snprintf(e, el, "TCP: first segment %d bytes; ", obs->egress_first_len)
               : snprintf(e, el, "TCP: first segment %d bytes, DF=%d; ", obs->egress_first_len, obs->egress_df);
    if (n < 0 || (size_t)n >= el) n = 0;
    e += n;
    el -= (size_t)n;
    if (!si->sent) {
        int cached = r->egress.kernel_mtu > 0 && r->egress.dev_mtu > 0 && r->egress.kernel_mtu < r->egress.dev_mtu;
        if (si->send_errno == EMSGSIZE && cached)
            snprintf(e, el, "send() failed with EMSGSIZE: %d > %d in the PMTU cache (device MTU %d)", s->size,
                     r->egress.kernel_mtu, r->egress.dev_mtu);
        else if (si->send_errno == EMSGSIZE)
            snprintf(e, el, "send() failed with EMSGSIZE: %d > device MTU %d", s->size, r->egress.kernel_mtu);
        else
            snprintf(e, el, "send() failed: %s", strerror(si->send_errno));
    } else if (r->fragmenter == PROBE_FRAG_HOST) {
        char again[200] = "";
        if (p && probe_quote_is_fragment(&p->q) && obs->egress_max_len > 0 && p->q.total_len < obs->egress_max_len)
            snprintf(again, sizeof again, "; %s quoted a %d-byte fragment: a router fragmented again", hop,
                     p->q.total_len);
        if (r->egress.dev_mtu > 0 && s->size > r->egress.dev_mtu)
            snprintf(e, el, "kernel fragmented locally: %d > device MTU %d%s", s->size, r->egress.dev_mtu, again);
        else if (r->egress.path_mtu_before > 0 && r->egress.path_mtu_before < s->size)
            snprintf(e, el, "kernel fragmented locally: the PMTU cache says %d < %d%s", r->egress.path_mtu_before, s->size,
                     again);
        else
            snprintf(e, el, "kernel fragmented locally%s", again);
    } else if (r->fragmenter == PROBE_FRAG_ROUTER) {
        char who[48] = "a router before it";
        if (topo && hop_node > 0) snprintf(who, sizeof who, "router %s", topo->node[hop_node - 1].name);
        snprintf(e, el, "%s fragmented it: %s quoted a %d-byte first fragment with DF=%d", who, hop,
                 p ? p->q.total_len : -1, p ? p->q.df : -1);
    } else if (p && p->q.total_len < 0) {
        snprintf(e, el, "%s", r->fragmented.why);
    } else if (p && p->kind == PROBE_ICMP_FRAG_NEEDED && r->fragmented.answer == PROBE_ANS_NO) {
        snprintf(e, el, "%s dropped it with %s, MTU %d: the kernel now caches PMTU %d for this destination", hop,
                 v6 ? "Packet Too Big" : "Frag Needed", p->mtu, p->mtu);
    } else if (p && r->fragmented.answer == PROBE_ANS_NO) {
        snprintf(e, el, "went whole: %s quoted the whole %d-byte packet%s", hop, p->q.total_len,
                 v6 ? "" : p->q.df ? " with DF=1" : " with DF=0");
    } else {
        snprintf(e, el, "%s", r->fragmented.why);
    }
    if (r->icmp.other.answers) {
        int node = topo ? probe_path_topology_node_of(topo, r->icmp.other.hop) : -1;
        char who[96];
        if (node >= 0) snprintf(who, sizeof who, "%.15s (%s)", topo->node[node].name, r->icmp.other.hop);
        else snprintf(who, sizeof who, "%s", r->icmp.other.hop);
        size_t k = strlen(r->evidence);
        snprintf(r->evidence + k, sizeof r->evidence - k, "; %s answered with %s: not this packet", who,
                 r->icmp.other.quote);
    }
}
