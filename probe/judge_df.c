/* The judge of "DF?": seen on the first packet out, or in a quoted header;
 * otherwise the kernel's rules (ip(7)) for the socket and mode. Pure. */
#include <stdio.h>
#include <string.h>

#include "judge_fact.h"
#include "judge_facts.h"
#include "judge_kernel.h"

void probe_judge_df(const struct probe_judge_in *in, struct probe_result *r) {
    const struct probe_sendinfo *si = in->si;
    const struct probe_observation *obs = in->obs;
    const struct probe_icmp *p = in->p;
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto);
    /* A quote from past a router that clears DF shows DF=0 whatever left the host. */
    int clears = probe_path_topology_clears_df(in->topo);
    int quote_cleared = p && p->q.df == 0 && clears && (in->hop_node < 0 || in->hop_node > clears);
    if (v6) {
        probe_fact_set(&r->df, PROBE_ANS_YES, PROBE_BASIS_INFERRED, "why.v6_no_df", " ");
    } else if (!si->sent) {
        int df = probe_judge_rule_df(s);
        probe_fact_set(&r->df, df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_INFERRED, "why.df_unsent",
                       "proto=%s mode=%s df=%d", probe_proto_name(s->proto), probe_mode_name(s->mode), df);
    } else if (obs->egress_df >= 0) {
        probe_fact_set(&r->df, obs->egress_df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.df_egress",
                       "df=%d", obs->egress_df);
    } else if (p && p->q.df >= 0 && !quote_cleared) {
        probe_fact_set(&r->df, p->q.df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.df_quoted", "df=%d",
                       p->q.df);
    } else {
        int df = probe_judge_rule_df(s) && !probe_judge_host_frags(s, r->egress.dev_mtu, r->egress.path_mtu_before);
        probe_fact_set(&r->df, df ? PROBE_ANS_YES : PROBE_ANS_NO, PROBE_BASIS_INFERRED, "why.df_rule", "mode=%s df=%d",
                       probe_mode_name(s->mode), df);
    }
}
