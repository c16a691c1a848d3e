/* Internal to libfragprobe: "fragmented?" from the path's link MTUs
 * (probe/judge_links.c), for the rules and the recverr refinement. */
#ifndef FRAGPROBE_JUDGE_LINKS_H
#define FRAGPROBE_JUDGE_LINKS_H

#include "probe_path.h"
#include "probe_result.h"

/* "fragmented?" on a path of known link MTUs for a packet of len bytes that
 * left the host whole with DF=0, up to node last: yes, by the router before
 * the first smaller link, or no; basis b (PROBE_BASIS_RULE: the rules'
 * whys, else the recverr refinement's). Pure. */
void probe_judge_links(const struct probe_path_topology *topo, int last, int len, enum probe_basis b,
                       struct probe_result *r);

#endif
