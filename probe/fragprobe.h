/* libfragprobe: the one public header of the probe engine.
 *
 * A test is protocol x PMTUD mode x size x TTL x target. The engine sends it
 * and answers three questions -- sent? DF set on the wire? fragmented (by
 * whom)? -- each with how it knows (observed on the wire, inferred from the
 * kernel's documented rules, or unknown), plus one line of evidence.
 *
 * This header is the contract with the rest of fragvote (deck, quiz, serve,
 * replay). Extend it; do not change the meaning of what is here. The probe
 * knows nothing of votes, JSON libraries, SQLite or libwebsockets. */
#ifndef FRAGPROBE_H
#define FRAGPROBE_H

#include <stddef.h>
#include <stdint.h>

/* Library version string (static). */
const char *probe_version(void);

/* ---- test spec ---- */
enum probe_proto { PROBE_UDP4, PROBE_TCP4, PROBE_UDP6, PROBE_TCP6 };
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
    int port;                     /* target port; 0 = default (the lab responder's) */
};

/* Names as decks and the CLI use them: "udp4" "tcp4" "udp6" "tcp6";
 * "default" "dont" "want" "do" "probe" "interface" "omit". Parse returns 0,
 * or -1 for an unknown name. */
const char *probe_proto_name(enum probe_proto p);
const char *probe_mode_name(enum probe_mode m);
int probe_proto_parse(const char *name, enum probe_proto *out);
int probe_mode_parse(const char *name, enum probe_mode *out);
static inline int probe_proto_is_v6(enum probe_proto p) { return p == PROBE_UDP6 || p == PROBE_TCP6; }
static inline int probe_proto_is_tcp(enum probe_proto p) { return p == PROBE_TCP4 || p == PROBE_TCP6; }

/* ---- answers ---- */
enum probe_answer { PROBE_ANS_UNKNOWN = -1, PROBE_ANS_NO = 0, PROBE_ANS_YES = 1 };
enum probe_basis { PROBE_BASIS_OBSERVED, PROBE_BASIS_INFERRED, PROBE_BASIS_UNKNOWN };
enum probe_fragmenter { PROBE_FRAG_NONE, PROBE_FRAG_HOST, PROBE_FRAG_ROUTER, PROBE_FRAG_UNKNOWN };

const char *probe_answer_name(enum probe_answer a);     /* "yes" / "no" / "unknown" */
const char *probe_basis_name(enum probe_basis b);       /* "observed" / "inferred" / "unknown" */
const char *probe_fragmenter_name(enum probe_fragmenter f); /* "none" "host" "router" "unknown" */

struct probe_fact {
    enum probe_answer answer;
    enum probe_basis basis;
    char why[160];                /* the rule or observation behind it */
};

struct probe_result {
    struct probe_spec spec;       /* as run (ttl resolved) */
    struct probe_fact sent, df, fragmented;
    enum probe_fragmenter fragmenter;
    int send_errno;               /* errno of send()/write() (EMSGSIZE...), 0 if none */
    int kernel_mtu;               /* MTU the kernel reported with EMSGSIZE, 0 if none */
    int cached_pmtu_before;       /* PMTU cached for the target before the send, 0 if none */
    /* From the quoted header of the ICMP answer (raw observer), -1 when not seen. */
    int quoted_len, quoted_df, quoted_mf, quoted_offset, quoted_frag_hdr;
    char hop[64];                 /* address of the answering hop, "" if none */
    char observer[16];            /* "raw" / "recverr" */
    char evidence[512];           /* one human line, e.g. "kernel fragmented locally: cached PMTU 1280 < 1400" */
    double elapsed_ms;
};

/* ==== section "unpriv" (issue 4): error queue, counters, PMTU cache, privileges ====
 * Owned by the unpriv files (observe_recverr*.c, snmp*.c, pmtu*.c, priv*.c).
 * Functions that can fail return 0 (or a count) and on failure one of the
 * negative PROBE_E_* codes below with a sentence in err. */
enum probe_errcode {
    PROBE_E_FAIL = -1,       /* anything else (I/O, kernel refused, malformed reply) */
    PROBE_E_PERM = -2,       /* missing capability (the message names it) */
    PROBE_E_HOST = -3,       /* name does not resolve */
    PROBE_E_NOROUTE = -4,    /* no route to the address */
    PROBE_E_NOV6 = -5,       /* IPv6 unavailable on this host */
    PROBE_E_TIMEOUT = -6,    /* nothing came back in time */
    PROBE_E_SILENT = -7,     /* sent, but neither replies nor ICMP errors: ICMP-silent path */
};

/* Resolves host (literal or name) to one address of the wanted family
 * (AF_INET, AF_INET6, or AF_UNSPEC = first found). Returns 0, PROBE_E_HOST
 * or PROBE_E_NOV6. out is a struct sockaddr_storage. */
struct sockaddr_storage;
int probe_pmtu_resolve(const char *host, int family, struct sockaddr_storage *out, char *err, size_t errlen);

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

/* Local fragmentation counters, per network namespace and readable by anyone:
 * /proc/net/snmp "Ip: ... FragCreates" and /proc/net/snmp6 "Ip6FragCreates".
 * Parse is pure (0, or -1 when the field is missing or malformed). */
int probe_snmp_parse_frag_creates(const char *text, int v6, uint64_t *out);
int probe_snmp_read_frag_creates(int v6, uint64_t *out, char *err, size_t errlen);

/* The kernel's path-MTU cache (route exceptions), via netlink RTM_GETROUTE. */
struct probe_pmtu_entry {
    int family;
    char addr[64];                /* the destination asked about */
    char dev[16];                 /* outgoing device */
    int dev_mtu;                  /* its MTU (the local MTU) */
    int mtu;                      /* cached path MTU, 0 when nothing is cached */
    int expires_s;                /* seconds the cached value still lives, 0 if none */
};
/* Pure: decodes one RTM_NEWROUTE netlink message (header included). */
int probe_pmtu_parse_route(const uint8_t *buf, size_t len, struct probe_pmtu_entry *out);
int probe_pmtu_show(const char *host, struct probe_pmtu_entry *out, char *err, size_t errlen);
/* Clears learned PMTUs: host NULL or "" = every exception of both families;
 * else that host's family (IPv4: the whole IPv4 route cache, the kernel has no
 * per-destination flush; IPv6: only that destination). Needs CAP_NET_ADMIN. */
int probe_pmtu_flush(const char *host, char *err, size_t errlen);

/* Path-MTU discovery. Acknowledgements are ICMP echo replies on a ping socket
 * (port 0) or UDP datagrams echoed by a responder on port (first 8 bytes back). */
#define PROBE_PMTU_MAX_SIZES 16
#define PROBE_PMTU_TIMEOUT_MS 1000
struct probe_pmtu_discovery {
    int family;
    char addr[64];
    int port;                     /* 0 = ICMP echo */
    int local_mtu;                /* MTU of the outgoing device: the cap on sizes */
    int n;
    int sizes[PROBE_PMTU_MAX_SIZES];
    int acked[PROBE_PMTU_MAX_SIZES];
    int reported[PROBE_PMTU_MAX_SIZES]; /* MTU from Frag Needed / PTB for that size, 0 if none */
    int pmtu;                     /* largest acknowledged size, 0 if none */
    int reported_mtu;             /* smallest MTU reported by a router, 0 if none */
    char reporter[64];            /* the router that reported it */
    int round_trips, probes_sent;
    double elapsed_ms;
};
/* The article's algorithm: all common sizes (1280 1360 1400 1500 8000 9000,
 * capped by the local MTU) at once with PMTUD mode PROBE; one round trip. */
int probe_pmtu_discover(const char *host, int port, int timeout_ms,
                        struct probe_pmtu_discovery *out, char *err, size_t errlen);
/* The classic one-probe-at-a-time binary search between 1280 (IPv6) / 576
 * (IPv4) and the local MTU, for comparison. */
int probe_pmtu_discover_sequential(const char *host, int port, int timeout_ms,
                                   struct probe_pmtu_discovery *out, char *err, size_t errlen);

/* Privileges. probe_priv_has: 1 when the effective set holds cap (CAP_NET_RAW
 * 13, CAP_NET_ADMIN 12), else 0. probe_priv_drop: from root, drops to
 * SUDO_UID/SUDO_GID, else to "nobody", clearing supplementary groups and all
 * capabilities; open sockets stay usable. Returns the new uid, or PROBE_E_*. */
int probe_priv_has(int cap);
int probe_priv_drop(char *err, size_t errlen);
/* ==== end of section "unpriv" ==== */

#endif
