/* Internal to libfragprobe: what an observer saw of one test (filled by
 * probe/observe_raw.c or probe/observe_recverr.c, read by the judges). */
#ifndef FRAGPROBE_OBSERVATION_H
#define FRAGPROBE_OBSERVATION_H

#include <stdint.h>

#include "packet_seen.h"
#include "probe_run.h"
#include "probe_wire.h"

/* -1 = this observer cannot see it. */
struct probe_observation {
    int egress_packets;              /* packets of this test seen leaving the host */
    int egress_fragments;            /* of which IP fragments */
    int egress_df;                   /* DF of the first one (IPv4), -1 unknown/IPv6 */
    int egress_first_len;            /* its total length */
    int egress_max_len;              /* the longest one */
    int64_t frag_creates;            /* FragCreates / Ip6FragCreates delta around the send */
    int echo_replies;                /* ICMP tests: Echo Replies from the target to our request,
                                        -1 when not looked for */
    struct probe_packet_seen pkt;    /* the packet the question is about */
    int nanswers;                    /* kept in answers[] */
    int answers_dropped;             /* matched but not kept (array full) */
    struct probe_icmp answers[PROBE_ANSWERS_MAX];
};
/* probe/observe.c: */
void probe_observation_init(struct probe_observation *obs);
/* Keeps an answer matched to this test (at most PROBE_ANSWERS_MAX; more are
 * only counted in answers_dropped). */
void probe_observation_add(struct probe_observation *obs, const struct probe_icmp *a);

#endif
