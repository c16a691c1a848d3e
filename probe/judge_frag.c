/* The judge of "fragmented?" and of who fragmented: the host (fragments seen
 * leaving), a router (a quoted first fragment), nobody (a whole packet
 * quoted), or unknown with the reason. Pure. */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "judge.h"

static int from_target(const struct probe_sendinfo *si, const struct probe_icmp *p) {
    if (si->remote.ss_family == AF_INET6)
        return !memcmp(p->from, &((const struct sockaddr_in6 *)&si->remote)->sin6_addr, 16);
    return !memcmp(p->from, &((const struct sockaddr_in *)&si->remote)->sin_addr, 4);
}

void probe_judge_frag(const struct probe_judge_in *in, struct probe_result *r) {
    const struct probe_sendinfo *si = in->si;
    const struct probe_observation *obs = in->obs;
    const struct probe_path_topology *topo = in->topo;
    const struct probe_icmp *p = in->p;
    const char *hop = in->hop;
    int hop_node = in->hop_node;
    int hop_reassembles = topo && hop_node > 0 && topo->node[hop_node].reassembles;
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto);
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
        int by_host = host < 0 && probe_judge_host_frags(s, r->egress.dev_mtu, r->egress.path_mtu_before);
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
    } else if (!p && obs->echo_replies > 0 && host == 0 &&
               (v6 || (r->df.answer == PROBE_ANS_YES && !probe_path_topology_clears_df(topo)))) {
        /* An Echo Reply quotes nothing, but the request did arrive, and no
         * router may fragment it on the way. */
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED,
             "the target answered; %s, and the host did not fragment it",
             v6 ? "routers never fragment IPv6" : "with DF=1 no router may fragment it");
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (!p && obs->echo_replies > 0) {
        int clears = probe_path_topology_clears_df(topo);
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "only the target answered (Echo Reply), and it reassembles before answering: %s%s a router on the way "
             "may have fragmented it%s", clears ? topo->node[clears].name : "with DF=0",
             clears ? " clears DF, so" : "", host == 0 ? " (the host did not)" : "");
    } else if (r->icmp.other.answers) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "no ICMP answer quoted this packet at TTL %d, only another one%s: what the routers did to it is not "
             "visible", si->ttl, host == 0 ? " (the host did not fragment it)" : "");
    } else {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "no ICMP answer at TTL %d%s: what the routers did is not visible", si->ttl,
             host == 0 ? " (the host did not fragment)" : "");
    }
}
