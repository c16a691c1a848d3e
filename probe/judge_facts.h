/* Internal to libfragprobe: the per-fact judges behind probe_judge
 * (probe/judge.c, judge.h), each pure: what was sent and seen, and the
 * known topology, come in as struct probe_judge_in; each sets only its own
 * fact in the result. probe_judge calls them in order (sent, DF, fragmented), since "fragmented?" reads the DF
 * answer. The rules (probe/rules.c) and explanations plug in here. */
#ifndef FRAGPROBE_JUDGE_FACTS_H
#define FRAGPROBE_JUDGE_FACTS_H

#include "observation.h"
#include "probe_path.h"
#include "probe_result.h"
#include "probe_wire.h"
#include "sendinfo.h"

struct probe_judge_in {
    const struct probe_sendinfo *si;
    const struct probe_observation *obs;
    const struct probe_path_topology *topo; /* NULL off the lab */
    const struct probe_icmp *p;             /* the ICMP answer that quoted this packet, or NULL */
    const char *hop;                        /* its sender, labelled ("" without one) */
    int hop_node;                           /* its node in topo, or -1 */
};

/* sent? -- sets r->sent (judge_sent.c). Reads r->egress.kernel_mtu. */
void probe_judge_sent(const struct probe_judge_in *in, struct probe_result *r);
/* DF? -- sets r->df (judge_df.c). Reads r->spec and r->egress. */
void probe_judge_df(const struct probe_judge_in *in, struct probe_result *r);
/* fragmented?, and who fragmented -- sets r->fragmented and r->fragmenter
 * (judge_frag.c). Reads r->spec, r->egress and r->df (judge DF first). */
void probe_judge_frag(const struct probe_judge_in *in, struct probe_result *r);

#endif
