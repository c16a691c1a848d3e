/* Internal to libfragprobe: the judge (probe/judge.c), which turns what was
 * sent and seen into the three facts. probe_run calls it after the observer;
 * the per-fact judges behind it are judge_facts.h, the rules and the
 * refinements that run after it rules.h, judge_links.h, the witness merge
 * and the recverr refinement (probe_witness.h, probe_run.h). */
#ifndef FRAGPROBE_JUDGE_H
#define FRAGPROBE_JUDGE_H

#include "observation.h"
#include "probe_path.h"
#include "probe_result.h"
#include "sendinfo.h"

/* The three facts from what was sent and seen. Pure: everything it knows
 * comes in here -- the path's node names, addresses, link MTUs and
 * reassembling router in topo (probe_path_topology_lab of the lab; NULL off
 * the lab: hop names and link MTUs unknown). */
void probe_judge(const struct probe_sendinfo *si, const struct probe_observation *obs,
                 const struct probe_path_topology *topo, struct probe_result *r);

#endif
