/* Internal to libfragprobe: the rules of IP where nothing observed
 * "fragmented?" (probe/rules.c). */
#ifndef FRAGPROBE_RULES_H
#define FRAGPROBE_RULES_H

#include "probe_path.h"
#include "probe_result.h"

/* DF=1 or IPv6 and seen leaving whole gives "no" with basis rule; a silent
 * witness adds "dropped on the way". Runs after the witness merge. Pure. */
void probe_rules_apply(const struct probe_path_topology *topo, struct probe_result *r);

#endif
