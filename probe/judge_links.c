/* "fragmented?" by the path's known link MTUs (the lab: its routers forward
 * every whole packet), for a packet that left the host whole with DF=0: the
 * router before the first link it crossed that is smaller than it fragments
 * it, none when it fits every one. Shared by the rules (rules.c, rule (d),
 * basis rule) and the recverr refinement (basis inferred), each with its own
 * why. Pure. */
#include "judge_fact.h"
#include "judge_links.h"

void probe_judge_links(const struct probe_path_topology *topo, int last, int len, enum probe_basis b,
                       struct probe_result *r) {
    int link = -1, mtu = last > 0 ? probe_path_topology_routed_mtu(topo, last, &link) : 0;
    int rule = b == PROBE_BASIS_RULE;
    if (mtu > 0 && len > mtu) {
        probe_fact_set(&r->fragmented, PROBE_ANS_YES, b, rule ? "why.rule_router_must" : "why.recverr_router_must",
                       "len=%d mtu=%d from=%s to=%s", len, mtu, topo->node[link].name, topo->node[link + 1].name);
        r->fragmenter = PROBE_FRAG_ROUTER;
    } else {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, b, rule ? "why.rule_fits" : "why.recverr_fits", "len=%d", len);
        r->fragmenter = PROBE_FRAG_NONE;
    }
}
