/* libfragprobe: what a test is and what the engine answers about it.
 *
 * A test is protocol x PMTUD mode x size x TTL x target. The engine sends it
 * and answers three questions -- sent? DF set on the wire? fragmented (by
 * whom)? -- each with how it knows (observed on the wire, inferred from the
 * kernel's documented rules, decided by a rule of IP, or unknown), plus one
 * line of evidence. Also the error convention every part of the library
 * shares (PROBE_E_*). Names and parsers: probe/spec.c. */
#ifndef FRAGPROBE_SPEC_H
#define FRAGPROBE_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "fv_msg.h"

/* Library version string (static). */
const char *probe_version(void);

/* Functions that can fail return 0 (or a count) and on failure one of these
 * negative codes with a sentence in err. */
enum probe_errcode {
    PROBE_E_FAIL = -1,       /* anything else (I/O, kernel refused, malformed reply) */
    PROBE_E_PERM = -2,       /* missing capability (the message names it) */
    PROBE_E_HOST = -3,       /* name does not resolve */
    PROBE_E_NOROUTE = -4,    /* no route to the address */
    PROBE_E_NOV6 = -5,       /* IPv6 unavailable on this host */
    PROBE_E_TIMEOUT = -6,    /* nothing came back in time */
    PROBE_E_SILENT = -7,     /* sent, but neither replies nor ICMP errors: ICMP-silent path */
};

/* ---- test spec ---- */
/* ICMP4/ICMP6: an ICMP echo request, what `ping -M MODE` sends; over a ping
 * socket (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6, unprivileged where
 * net.ipv4.ping_group_range allows) or, with the raw observer, a raw socket. */
enum probe_proto { PROBE_UDP4, PROBE_TCP4, PROBE_UDP6, PROBE_TCP6, PROBE_ICMP4, PROBE_ICMP6 };
#define PROBE_PROTO_COUNT 6
/* IP_MTU_DISCOVER / IPV6_MTU_DISCOVER values; PROBE_MODE_DEFAULT leaves the
 * socket option unset (the system default, WANT unless ip_no_pmtu_disc). */
enum probe_mode {
    PROBE_MODE_DEFAULT, PROBE_MODE_DONT, PROBE_MODE_WANT, PROBE_MODE_DO,
    PROBE_MODE_PROBE, PROBE_MODE_INTERFACE, PROBE_MODE_OMIT
};

#define PROBE_SIZE_MAX 65000      /* largest packet size a test may ask for */
#define PROBE_TTL_AUTO 0          /* ttl = 0: discover (real paths) or from the lab topology */

struct probe_spec {
    enum probe_proto proto;
    enum probe_mode mode;
    int size;                     /* IP packet size in bytes (header included), 68..PROBE_SIZE_MAX */
    int ttl;                      /* 1..255, or PROBE_TTL_AUTO */
    char host[256];               /* target address or name; "" = the lab's destination */
    int port;                     /* target port; 0 = default (the lab responder's).
                                     icmp4/icmp6: the echo identifier, 0 = chosen per test
                                     (as run: the one used) */
};

/* Names as decks and the CLI use them: "udp4" "tcp4" "udp6" "tcp6" "icmp4" "icmp6";
 * "default" "dont" "want" "do" "probe" "interface" "omit". Parse returns 0,
 * or -1 for an unknown name. */
const char *probe_proto_name(enum probe_proto p);
const char *probe_mode_name(enum probe_mode m);
int probe_proto_parse(const char *name, enum probe_proto *out);
int probe_mode_parse(const char *name, enum probe_mode *out);
static inline int probe_proto_is_v6(enum probe_proto p) { return p == PROBE_UDP6 || p == PROBE_TCP6 || p == PROBE_ICMP6; }
static inline int probe_proto_is_tcp(enum probe_proto p) { return p == PROBE_TCP4 || p == PROBE_TCP6; }
static inline int probe_proto_is_icmp(enum probe_proto p) { return p == PROBE_ICMP4 || p == PROBE_ICMP6; }
/* Checks a spec without running it: 0, or PROBE_E_FAIL with the reason. */
int probe_spec_check(const struct probe_spec *spec, char *err, size_t errlen);

/* ---- answers ---- */
enum probe_answer { PROBE_ANS_UNKNOWN = -1, PROBE_ANS_NO = 0, PROBE_ANS_YES = 1 };
/* RULE: a rule of IP decides it from what was observed of the other facts
 * (DF=1 seen leaving whole: no router fragments it; IPv6: no router
 * fragments it), where nothing observed the fact itself. */
enum probe_basis { PROBE_BASIS_OBSERVED, PROBE_BASIS_INFERRED, PROBE_BASIS_UNKNOWN, PROBE_BASIS_RULE };
enum probe_fragmenter { PROBE_FRAG_NONE, PROBE_FRAG_HOST, PROBE_FRAG_ROUTER, PROBE_FRAG_UNKNOWN };

const char *probe_answer_name(enum probe_answer a);     /* "yes" / "no" / "unknown" */
const char *probe_basis_name(enum probe_basis b);       /* "observed" / "inferred" / "unknown" / "rule" */
int probe_basis_parse(const char *name, enum probe_basis *out); /* 0, or -1 for another name */
const char *probe_fragmenter_name(enum probe_fragmenter f); /* "none" "host" "router" "unknown" */

#define PROBE_WHY_PARTS 4         /* the far end's arrival: where and how, segments, their largest, TTL */
struct probe_fact {
    enum probe_answer answer;
    enum probe_basis basis;
    char why[160];                /* the rule or observation behind it */
    int nmsg;                     /* why as messages in a row (fv_msg.h; why is their English): 1 for a
                                     judge's why, more for the far end's words; 0 none (an old stored
                                     result), -1 lost (did not fit) */
    struct fv_msg msg[PROBE_WHY_PARTS];
};
#endif
