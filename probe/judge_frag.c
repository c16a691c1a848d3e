/* The judge of "fragmented?" and of who fragmented: the host (fragments seen
 * leaving), a router (a quoted first fragment), nobody (a whole packet
 * quoted), or unknown with the reason. Pure. */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "judge_fact.h"
#include "judge_facts.h"
#include "judge_kernel.h"

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
    if (obs->egress_fragments > 0) {
        host = 1;
    } else if (obs->egress_packets > 0) {
        host = 0;
    } else if (obs->frag_creates > 0) {
        host = 1;
    } else if (obs->frag_creates == 0) {
        host = 0;
    }
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    if (!si->sent) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.nothing_left", " ");
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (host == 1 && obs->egress_fragments > 0) {
        probe_fact_set(&r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.host_sent_frags", "n=%d len=%d",
                       obs->egress_fragments, obs->egress_first_len);
        r->fragmenter = PROBE_FRAG_HOST;
    } else if (host == 1) {
        probe_fact_set(&r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.host_counter", "n=%d",
                       (int)obs->frag_creates);
        r->fragmenter = PROBE_FRAG_HOST;
    } else if (p && p->q.total_len < 0 && p->kind == PROBE_ICMP_FRAG_NEEDED && host == 0) {
        /* The observer saw no quoted IP header (recverr), but a router only
         * answers Frag Needed / Packet Too Big about what reached it whole. */
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.frag_needed_whole",
                       "hop=%s icmp=%s mtu=%d", hop, v6 ? "Packet Too Big" : "Frag Needed", p->mtu);
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (p && p->q.total_len < 0) {
        if (host == 0)
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.quote_unseen_host", "hop=%s", hop);
        else
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.quote_unseen", "hop=%s", hop);
    } else if (p && probe_quote_is_fragment(&p->q)) {
        int by_host = host < 0 && probe_judge_host_frags(s, r->egress.dev_mtu, r->egress.path_mtu_before);
        probe_fact_set(&r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED,
                       by_host ? "why.quoted_fragment_host" : "why.quoted_fragment", "hop=%s len=%d mf=%d offset=%d", hop,
                       p->q.total_len, p->q.mf, p->q.frag_offset);
        r->fragmenter = by_host ? PROBE_FRAG_HOST : PROBE_FRAG_ROUTER;
    } else if (p && hop_reassembles) {
        if (hop_node == 1 && host == 0) { /* the first router */
            probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.first_router_whole", "hop=%s", hop);
            r->fragmenter = PROBE_FRAG_NONE;
        } else {
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.hop_reassembles", "hop=%s", hop);
        }
    } else if (p && topo && hop_node > 0 && hop_node < topo->nnodes - 1 && p->kind == PROBE_ICMP_TIME_EXCEEDED &&
               !v6 && p->q.df == 0 && p->q.total_len > topo->link[hop_node].mtu) {
        /* The probe expired at a router that would itself have to fragment it
         * (its next link is smaller): a router checks the TTL first. */
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.expired_before",
                       "hop=%s router=%s mtu=%d len=%d ttl=%d", hop, r->icmp.hop_name, topo->link[hop_node].mtu,
                       p->q.total_len, si->ttl);
    } else if (p && p->kind == PROBE_ICMP_UNREACH && !v6 && p->q.df == 0 && from_target(si, p)) {
        /* The destination reassembles before it answers port unreachable. */
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                       host == 0 ? "why.dest_reassembles_host" : "why.dest_reassembles", " ");
    } else if (p && p->kind == PROBE_ICMP_FRAG_NEEDED) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.dropped_whole",
                       "hop=%s len=%d icmp=%s mtu=%d", hop, p->q.total_len, v6 ? "Packet Too Big" : "Frag Needed", p->mtu);
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (p && host != 1) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.quoted_whole", "hop=%s len=%d", hop,
                       p->q.total_len);
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (!p && obs->echo_replies > 0 && host == 0 &&
               (v6 || (r->df.answer == PROBE_ANS_YES && !probe_path_topology_clears_df(topo)))) {
        /* An Echo Reply quotes nothing, but the request did arrive, and no
         * router may fragment it on the way. */
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED, v6 ? "why.echo_v6" : "why.echo_df1", " ");
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (!p && obs->echo_replies > 0) {
        int clears = probe_path_topology_clears_df(topo);
        if (clears)
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                           host == 0 ? "why.echo_cleared_host" : "why.echo_cleared", "router=%s", topo->node[clears].name);
        else
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                           host == 0 ? "why.echo_df0_host" : "why.echo_df0", " ");
    } else if (r->icmp.other.answers) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                       host == 0 ? "why.other_only_host" : "why.other_only", "ttl=%d", si->ttl);
    } else {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                       host == 0 ? "why.no_answer_host" : "why.no_answer", "ttl=%d", si->ttl);
    }
}
