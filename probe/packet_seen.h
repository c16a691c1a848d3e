/* Internal to libfragprobe: the packet a test's question is about, as it
 * left the host (docs/PROBE.md, "Which packet an answer is about"): TCP its
 * first data segment, UDP the datagram, ICMP the echo request. The raw
 * observer's tap fills it; -1 / 0 where unseen. Its functions are in
 * probe/quote_about.c, which ties quotes to it. */
#ifndef FRAGPROBE_PACKET_SEEN_H
#define FRAGPROBE_PACKET_SEEN_H

#include <stdint.h>

#define PROBE_PACKET_IDS_MAX 8
struct probe_packet_seen {
    int64_t tcp_seq;                 /* TCP: the first data segment's sequence number */
    int len;                         /* TCP: its IP length */
    int nids;                        /* the IP IDs (IPv6: fragment IDs) it left with: a TCP */
    int64_t ids[PROBE_PACKET_IDS_MAX]; /* resend of it has its own; a fragment carries its packet's */
};
void probe_packet_seen_init(struct probe_packet_seen *p);
void probe_packet_seen_add_id(struct probe_packet_seen *p, int64_t id);

#endif
