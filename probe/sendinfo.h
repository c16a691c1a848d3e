/* Internal to libfragprobe: what the sender did (probe/send.c fills it), so
 * an observer can match answers to this test and the judges know what went
 * out. */
#ifndef FRAGPROBE_SENDINFO_H
#define FRAGPROBE_SENDINFO_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "probe_spec.h"
#include "probe_witness.h"

struct probe_sendinfo {
    const struct probe_spec *spec;
    int family;                      /* AF_INET / AF_INET6 */
    int l4;                          /* IPPROTO_UDP / IPPROTO_TCP / IPPROTO_ICMP / IPPROTO_ICMPV6 */
    int fd;                          /* the sending socket */
    struct sockaddr_storage local, remote;
    int sport, dport;                /* ICMP echo: the identifier and the sequence number */
    char sock[8];                    /* "udp" "tcp" "ping" "raw" */
    int ttl;                         /* as sent */
    int sent;                        /* 1 send()/write() succeeded, 0 refused (send_errno) */
    int send_errno;
    int64_t tcp_seq0;                /* first data sequence number (TCP), -1 unknown */
    int udp_check;                   /* UDP: the checksum the datagram carries, -1 unknown */
    int udp_check_partial;           /* the same before a device completes it (a local answer quotes that) */
    int route_mtu;                   /* IP_MTU when connected: a longer TCP packet at the tap is a GSO
                                        one the device cuts into segments, -1 unknown */
    /* With a witness the probe header starts the payload, and the
     * observers end their wait when the report is readable on fd. */
    const uint8_t *witness_key;      /* NULL: no witness */
    uint8_t witness_nonce[PROBE_WITNESS_NONCE_BYTES];
    struct timespec t_sent;
};

#endif
