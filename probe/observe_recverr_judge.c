/* What the unprivileged observer's answers may claim. The judge (judge.c)
 * reads a router's quote as "observed"; the recverr observer never sees the
 * quoted IP header (length, DF, MF, offset), only that an ICMP error came
 * back and from whom. So for its results the "fragmented?" answer is
 * re-derived here from the kernel's documented rules (../shared notes,
 * ip(7)) and labelled inferred -- or unknown when the rules need the path's
 * link MTUs and we do not know them (not the lab). Pure: no I/O. */
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "fragprobe.h"
#include "judge_fact.h"
#include "judge_links.h"

void probe_recverr_refine(const struct probe_path_topology *topo, struct probe_result *r) {
    int clears = 0; /* the first router known to clear DF, once asked */
    if (strcmp(r->egress.observer, "recverr") || r->sent.answer != PROBE_ANS_YES) return;
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto), tcp = probe_proto_is_tcp(s->proto);
    /* The host's own fragmentation is seen (FragCreates moved): keep it. */
    if (r->fragmenter == PROBE_FRAG_HOST && r->fragmented.basis == PROBE_BASIS_OBSERVED) return;
    int frag_needed = r->icmp.mtu > 0 && r->icmp.quoted_len < 0;
    if (frag_needed) {
        /* A router dropped it whole and said so: that much is observed, but
         * not its quoted length. */
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.recverr_dropped", "hop=%s icmp=%s mtu=%d",
                       r->icmp.hop, v6 ? "Packet Too Big" : "Frag Needed", r->icmp.mtu);
        r->fragmenter = PROBE_FRAG_NONE;
        probe_ev_clear(r);
        probe_ev_add(r, "ev.dropped", "hop=%s icmp=%s mtu=%d", r->icmp.hop, v6 ? "Packet Too Big" : "Frag Needed",
                     r->icmp.mtu);
        return;
    }
    if (v6) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED, "why.recverr_v6", " ");
        r->fragmenter = PROBE_FRAG_NONE;
    } else if (r->df.answer == PROBE_ANS_YES && (clears = probe_path_topology_clears_df(topo)) > 0) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.recverr_df1_cleared",
                       "mode=%s router=%s", probe_mode_name(s->mode), topo->node[clears].name);
    } else if (r->df.answer == PROBE_ANS_YES) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED,
                       r->icmp.hop[0] ? "why.recverr_df1_reached" : "why.recverr_df1", "mode=%s", probe_mode_name(s->mode));
        r->fragmenter = PROBE_FRAG_NONE;
    } else {
        int node = topo ? probe_path_topology_last_node(topo, r) : -1;
        /* What left the host: the datagram whole (the host did not fragment
         * it), or for TCP one segment no larger than the route's MTU. */
        int len = s->size;
        if (tcp) {
            int route = r->egress.path_mtu_before > 0 ? r->egress.path_mtu_before : r->egress.dev_mtu;
            if (route > 0 && route < len) len = route;
            int last_link = topo ? topo->link[topo->nnodes - 2].mtu : 0;
            if (last_link > 0 && last_link < len) len = last_link; /* dst's MSS */
        }
        if (node < 0) {
            probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.recverr_df0_unknown", " ");
            r->fragmenter = PROBE_FRAG_UNKNOWN;
        } else {
            probe_judge_links(topo, node, len, PROBE_BASIS_INFERRED, r);
        }
    }
    probe_ev_clear(r);
    probe_ev_add_fact(r, &r->fragmented);
    probe_ev_add(r, "ev.inferred_recverr", " ");
}
