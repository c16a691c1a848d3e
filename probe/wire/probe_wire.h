/* libfragprobewire: the pure decoders of what the kernel hands back -- ICMP
 * errors and the packets they quote (probe/wire/parse.c), MSG_ERRQUEUE
 * control messages (probe/wire/errq.c) and the /proc/net/snmp counters
 * (probe/wire/snmp.c). No I/O and nothing of the rest of the probe: libc
 * only, so they link alone, and tests and fuzzers feed them bytes. Their
 * users are the probe engine (probe/: the observers, the judges, PMTU
 * discovery) and its tests and fuzzers; the program does not include it. */
#ifndef FRAGPROBE_WIRE_H
#define FRAGPROBE_WIRE_H

#include <stddef.h>
#include <stdint.h>


/* ---- ICMP errors (probe/wire/parse.c) ---- */
enum probe_icmp_kind {
    PROBE_ICMP_OTHER,            /* an error we do not interpret (quote still parsed) */
    PROBE_ICMP_TIME_EXCEEDED,    /* v4 11/0, v6 3/0 (code 1 = reassembly timeout: OTHER) */
    PROBE_ICMP_FRAG_NEEDED,      /* v4 3/4 Fragmentation Needed, v6 2/0 Packet Too Big */
    PROBE_ICMP_UNREACH,          /* any other Destination Unreachable (port unreachable...) */
};
/* The offending packet as an ICMP error quotes it. Fields are -1 when the
 * quote is too short to show them. */
struct probe_quote {
    int family;                  /* AF_INET / AF_INET6 */
    uint8_t src[16], dst[16];    /* IPv4 in the first 4 bytes */
    int total_len;               /* IPv4 total length; IPv6 40 + payload length */
    int ttl;                     /* TTL / hop limit as it reached the hop */
    int df;                      /* IPv4 DF bit; IPv6: -1 (there is none) */
    int mf;                      /* IPv4 MF; IPv6 M flag of the Fragment header, 0 without one */
    int frag_offset;             /* in bytes; 0 when not a fragment */
    int frag_hdr;                /* IPv6: 1 with a Fragment header; IPv4: 0 */
    int64_t id;                  /* IPv4 ID / IPv6 fragment identification, -1 if none */
    int l4;                      /* 17 UDP / 6 TCP / 1 ICMP / 58 ICMPv6 / other; -1 for a non-first fragment */
    int sport, dport;            /* -1 when not in the quote; for an ICMP echo request
                                    the identifier and the sequence number */
    int64_t tcp_seq;             /* -1 when not in the quote */
    int quoted_bytes;            /* bytes of the original packet present */
    /* What ties a quote to one packet of the test: */
    int udp_check;               /* UDP: the checksum it carries, -1 when not in the quote */
    int tcp_hdr_len;             /* TCP: its header length (data offset), -1 when not in the quote */
};
struct probe_icmp {
    int family;
    int type, code;
    enum probe_icmp_kind kind;
    int mtu;                     /* next-hop MTU of Frag Needed / PTB, 0 if none */
    uint8_t from[16];            /* the answering hop (v4: from the outer header; v6: set by the caller) */
    struct probe_quote q;
};
enum probe_parse_rc {
    PROBE_PARSE_OK = 0,
    PROBE_PARSE_NOT_ERROR = 1,   /* a valid ICMP message that quotes nothing (echo, ND, ...) */
    PROBE_PARSE_SHORT = -1,      /* truncated before the quoted IP header */
    PROBE_PARSE_BAD = -2,        /* malformed or hostile: bad version, header length, lengths */
};
/* buf: a whole IPv4 packet as a raw IPPROTO_ICMP socket returns it (outer
 * IPv4 header, ICMP header, quote). */
int probe_parse_icmp4(const uint8_t *buf, size_t len, struct probe_icmp *out);
/* buf: an ICMPv6 message as a raw IPPROTO_ICMPV6 socket returns it (no IPv6
 * header): the caller copies the sender's address into out->from. */
int probe_parse_icmp6(const uint8_t *buf, size_t len, struct probe_icmp *out);
/* The quoted (or captured) packet itself: an IPv4 / IPv6 header and what
 * follows. Also used on the packets the egress tap sees leave the host. */
int probe_parse_quote4(const uint8_t *buf, size_t len, struct probe_quote *out);
int probe_parse_quote6(const uint8_t *buf, size_t len, struct probe_quote *out);
/* An ICMP / ICMPv6 Echo Reply at buf (its ICMP header first: a ping socket's
 * recv, an ICMPv6 raw socket, or an IPv4 raw packet after its IP header):
 * 1 with *id and *seq filled, 0 when it is anything else or too short.
 * (The destination's answer to an icmp4/icmp6 test.) */
int probe_parse_echo_reply(const uint8_t *buf, size_t len, int family, int *id, int *seq);
static inline int probe_quote_is_fragment(const struct probe_quote *q) {
    return q->mf == 1 || q->frag_offset > 0 || q->frag_hdr == 1;
}

/* One error from MSG_ERRQUEUE, decoded from the control messages of
 * recvmsg(MSG_ERRQUEUE): struct sock_extended_err + SO_EE_OFFENDER. */
struct probe_errq {
    int family;                   /* AF_INET (IP_RECVERR) or AF_INET6 (IPV6_RECVERR) */
    int ee_errno;                 /* EMSGSIZE, EHOSTUNREACH, ECONNREFUSED... */
    int origin;                   /* SO_EE_ORIGIN_LOCAL / _ICMP / _ICMP6 */
    int type, code;               /* ICMP type/code as received */
    uint32_t info;                /* ee_info: the MTU for Frag Needed, PTB and local EMSGSIZE */
    char offender[64];            /* the answering hop (SO_EE_OFFENDER), "" if none */
};
/* Pure: walks the control buffer, fills *out from the first IP/IPv6 RECVERR
 * message. Returns 1 found, 0 none present, -1 malformed. */
int probe_errq_parse(const uint8_t *control, size_t len, struct probe_errq *out);
/* "frag-needed" "packet-too-big" "time-exceeded" "unreachable" "local-emsgsize" "local" "other" */
const char *probe_errq_kind(const struct probe_errq *e);
/* The MTU the error reports (Frag Needed, PTB, local EMSGSIZE), 0 if it carries none. */
int probe_errq_mtu(const struct probe_errq *e);

/* Local fragmentation counters: the text of /proc/net/snmp "Ip: ...
 * FragCreates" or /proc/net/snmp6 "Ip6FragCreates": 0, or -1 when the field
 * is missing or malformed. */
int probe_snmp_parse_frag_creates(const char *text, int v6, uint64_t *out);
#endif
