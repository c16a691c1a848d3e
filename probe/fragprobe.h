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
/* ICMP4/ICMP6 (issue 21): an ICMP echo request, what `ping -M MODE` sends;
 * over a ping socket (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6, unprivileged where
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

/* ---- answers ---- */
enum probe_answer { PROBE_ANS_UNKNOWN = -1, PROBE_ANS_NO = 0, PROBE_ANS_YES = 1 };
/* RULE (issue 34): a rule of IP decides it from what was observed of the
 * other facts (DF=1 seen leaving whole: no router fragments it; IPv6: no
 * router fragments it), where nothing observed the fact itself. */
enum probe_basis { PROBE_BASIS_OBSERVED, PROBE_BASIS_INFERRED, PROBE_BASIS_UNKNOWN, PROBE_BASIS_RULE };
enum probe_fragmenter { PROBE_FRAG_NONE, PROBE_FRAG_HOST, PROBE_FRAG_ROUTER, PROBE_FRAG_UNKNOWN };

const char *probe_answer_name(enum probe_answer a);     /* "yes" / "no" / "unknown" */
const char *probe_basis_name(enum probe_basis b);       /* "observed" / "inferred" / "unknown" / "rule" */
int probe_basis_parse(const char *name, enum probe_basis *out); /* 0, or -1 for another name */
const char *probe_fragmenter_name(enum probe_fragmenter f); /* "none" "host" "router" "unknown" */

struct probe_fact {
    enum probe_answer answer;
    enum probe_basis basis;
    char why[160];                /* the rule or observation behind it */
};

/* ---- the path (issue 20; section "path" at the end has the functions) ---- */
#define PROBE_PATH_VERSION 1
#define PROBE_PATH_NODES_MAX 20      /* host, PROBE_TTL_DISCOVER_MAX hops, a gap, the answering hop, target */
#define PROBE_PATH_EVENTS_MAX 24
#define PROBE_PATH_PIECES_MAX 64     /* pieces listed; more are counted in `more` (65000 / 1280 fits) */

enum probe_path_role { PROBE_PATH_HOST, PROBE_PATH_ROUTER, PROBE_PATH_TARGET, PROBE_PATH_GAP };
enum probe_path_mtu_from { PROBE_PATH_MTU_NONE, PROBE_PATH_MTU_LAB, PROBE_PATH_MTU_DEVICE, PROBE_PATH_MTU_ICMP };
enum probe_path_what {
    PROBE_PATH_REFUSED, PROBE_PATH_FRAGMENTED, PROBE_PATH_REASSEMBLED, PROBE_PATH_PASSED,
    PROBE_PATH_DROPPED, PROBE_PATH_EXPIRED, PROBE_PATH_ARRIVED, PROBE_PATH_SILENT,
    PROBE_PATH_OTHER               /* an answer about another packet of the test (issue 34): shown, not this packet's fate */
};
enum probe_path_seen {
    PROBE_PATH_SEEN_CAPTURE, PROBE_PATH_SEEN_ICMP, PROBE_PATH_SEEN_WITNESS, PROBE_PATH_SEEN_KERNEL,
    PROBE_PATH_SEEN_TOPOLOGY, PROBE_PATH_SEEN_INFERENCE
};
enum probe_path_pieces_from {
    PROBE_PATH_PIECES_NONE, PROBE_PATH_PIECES_CAPTURE, PROBE_PATH_PIECES_QUOTE, PROBE_PATH_PIECES_WITNESS,
    PROBE_PATH_PIECES_RULE
};
enum probe_path_icmp {
    PROBE_PATH_ICMP_NONE, PROBE_PATH_ICMP_FRAG_NEEDED, PROBE_PATH_ICMP_PACKET_TOO_BIG,
    PROBE_PATH_ICMP_TIME_EXCEEDED, PROBE_PATH_ICMP_PORT_UNREACHABLE, PROBE_PATH_ICMP_UNREACHABLE,
    PROBE_PATH_ICMP_ECHO_REPLY
};
/* The JSON spellings: "host" "router" "target" "gap"; null "lab" "device"
 * "icmp"; "refused" "fragmented" ... "silent" "other"; "capture" "icmp" "witness" "kernel"
 * "topology" "inference"; null "capture" "quote" "witness" "rule"; null
 * "frag_needed" "packet_too_big" "time_exceeded" "port_unreachable"
 * "unreachable" "echo_reply". Parse returns 0, or -1 for an unknown name. */
const char *probe_path_role_name(enum probe_path_role v);
const char *probe_path_mtu_from_name(enum probe_path_mtu_from v);   /* NULL for NONE */
const char *probe_path_what_name(enum probe_path_what v);
const char *probe_path_seen_name(enum probe_path_seen v);
const char *probe_path_pieces_from_name(enum probe_path_pieces_from v); /* NULL for NONE */
const char *probe_path_icmp_name(enum probe_path_icmp v);           /* NULL for NONE */
int probe_path_role_parse(const char *s, enum probe_path_role *out);
int probe_path_mtu_from_parse(const char *s, enum probe_path_mtu_from *out);
int probe_path_what_parse(const char *s, enum probe_path_what *out);
int probe_path_seen_parse(const char *s, enum probe_path_seen *out);
int probe_path_pieces_from_parse(const char *s, enum probe_path_pieces_from *out);
int probe_path_icmp_parse(const char *s, enum probe_path_icmp *out);

struct probe_path_node {
    char name[40];                /* "src" "r1" ... / "host" "hop 3" / the target / "…" for a gap */
    char addr[48];                /* the address answering from it, "" unknown */
    enum probe_path_role role;
    int reassembles;              /* known to reassemble fragments */
    int silent;                   /* TTL discovery got no answer from it */
};
struct probe_path_link {          /* link[i] joins node[i] and node[i+1] */
    int mtu;                      /* 0 unknown */
    enum probe_path_mtu_from from;
};
/* IP packet lengths, in path order. n = -1: unknown; n may exceed
 * PROBE_PATH_PIECES_MAX (the first ones are listed). */
struct probe_path_pieces {
    int n;
    int len[PROBE_PATH_PIECES_MAX];
    enum probe_path_pieces_from from;
};
/* What a filtered view shows (probe_path.shown / probe_path_event.shown);
 * every bit set = the full picture. */
#define PROBE_PATH_SHOW_DF 0x01       /* sent.df */
#define PROBE_PATH_SHOW_PIECES 0x02   /* sent.pieces */
#define PROBE_PATH_SHOW_ERROR 0x04    /* sent.error, sent.mtu */
#define PROBE_PATH_SHOW_REACHED 0x08  /* reached */
#define PROBE_PATH_SHOW_CACHE 0x10    /* sent.pmtu_cache */
#define PROBE_PATH_SHOW_LEFT 0x20     /* sent.left */
#define PROBE_PATH_SHOW_ALL 0x3f
#define PROBE_PATH_EV_ICMP 0x01       /* icmp, mtu */
#define PROBE_PATH_EV_QUOTE 0x02      /* quote */
#define PROBE_PATH_EV_ARRIVAL 0x04    /* ttl, df on arrival */
#define PROBE_PATH_EV_TEXT 0x08       /* text */
#define PROBE_PATH_EV_ALL 0x0f
struct probe_path_event {
    int node;
    enum probe_path_what what;
    enum probe_path_seen seen_by;
    struct probe_path_pieces pieces;  /* after this node (n = -1 unknown / not told) */
    enum probe_path_icmp icmp;
    int mtu;                          /* the ICMP's (or EMSGSIZE's) MTU, 0 none */
    int has_quote;
    int q_len, q_df, q_mf, q_offset, q_frag_hdr; /* -1 unseen */
    int ttl, df;                      /* arrival (witness), -1 unseen */
    char text[160];                   /* one human line */
    unsigned shown;                   /* PROBE_PATH_EV_* */
};
struct probe_path {
    int v;                            /* PROBE_PATH_VERSION; 0 = no path (not built / an old row) */
    char view[16];                    /* "full", or the question kind a filtered view is for */
    int nnodes;
    struct probe_path_node node[PROBE_PATH_NODES_MAX];
    struct probe_path_link link[PROBE_PATH_NODES_MAX - 1];
    int left;                         /* 1 something left the host, 0 nothing, -1 unknown */
    int bytes;                        /* the test's IP packet size */
    int df;                           /* DF as it left: 1 / 0, -1 unknown or IPv6 */
    struct probe_path_pieces sent;    /* what left the host */
    int send_errno;                   /* EMSGSIZE..., 0 none */
    int kernel_mtu;                   /* with it, 0 none */
    int pmtu_cache;                   /* cached path MTU before the send, 0 none */
    int reached;                      /* furthest node an observation shows the packet reached, -1 unknown */
    int nevents;
    struct probe_path_event ev[PROBE_PATH_EVENTS_MAX];
    unsigned shown;                   /* PROBE_PATH_SHOW_* */
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
    /* Added by issue 11 (-1 / "" when unseen). */
    char hop_name[16];            /* lab node of the answering hop ("r2"), "" off the lab */
    int icmp_type, icmp_code;     /* the answer the judge relied on, -1 if none */
    int icmp_mtu;                 /* its MTU (Frag Needed / PTB), 0 if none */
    int dev_mtu;                  /* MTU of the outgoing device, -1 unknown */
    int path_mtu_before;          /* route MTU before the send (IP_MTU): cached or device, -1 unknown */
    int egress_packets;           /* packets of this test seen leaving the host, -1 unknown */
    int egress_fragments;         /* of which IP fragments, -1 unknown */
    int egress_first_len;         /* total length of the first one, -1 unknown */
    int answers;                  /* ICMP answers matched to this test */
    char reassembling[128];       /* hops known to reassemble, "" if none */
    char ttl_basis[96];           /* where the TTL came from: given / lab topology / discovery */
    /* Added by issue 21. */
    char sock[8];                 /* the sending socket: "udp" "tcp" "ping" "raw" */
    /* Added by issue 19: the far-end witness (section "witness"); -1 unseen. */
    char witness[280];            /* "HOST:PORT" of the witness asked, "" none */
    int witness_heard;            /* 1 its report came back, 0 not (witness_note says why) */
    int witness_silent;           /* 1 nothing explains the missing report (timeout): the evidence says so */
    int w_raw, w_ttl, w_df, w_bytes, w_fragments, w_frag_max, w_frag_min, w_segments, w_seg_max;
    unsigned far_end;             /* facts the witness observed: bits 1 sent, 2 df, 4 fragmented */
    char witness_note[200];       /* what the witness added, or why it could not */
    /* Added by issue 20. */
    int echo_replies;             /* ICMP tests: Echo Replies from the target, -1 not looked for */
    struct probe_path path;       /* hop by hop (probe_run builds it last); v 0 = none */
    /* Added by issue 34: an ICMP answer about another packet of the test (a
     * later TCP segment, a resend, another datagram): shown, never the answer. */
    int other_answers;            /* how many came back */
    char other_hop[64];           /* the address of the first one's hop, "" none */
    char other_quote[128];        /* what it quoted: "another segment (seq +2896, 104 bytes)" */
};

/* ==== section "probe" (issue 11): running tests, observers, decoders, TTL discovery, the lab ====
 * Owned by probe/run*.c, send*.c, observe.c, observe_raw*.c, judge*.c, clock.c, sockaddr.c,
 * parse*.c, ttl*.c, lab*.c, spec.c. Same error convention as "unpriv" below:
 * 0 (or a count) on success, a negative PROBE_E_* code with a sentence in err.
 *
 * How an observer plugs in (probe/observe.h has the exact ops):
 *   probe_run() resolves the target, creates the sending socket, then drives
 *   one struct probe_observer chosen by probe_run_opts.observer:
 *     open()    before anything is sent (raw: ICMP socket + egress tap;
 *               recverr: counters before),
 *     arm(fd)   on the sending socket before the send (recverr: IP_RECVERR),
 *     collect() after the send, until a decisive answer or the deadline,
 *               filling a struct probe_observation (ICMP answers as
 *               struct probe_icmp, quote fields -1 where unseen; what left
 *               the host, -1 where unseen),
 *     close().
 *   The judge (probe/judge.c) alone turns spec + send outcome + observation
 *   into the three facts; an observer never writes answers itself, so both
 *   observers are judged by the same rules. PROBE_OBS_AUTO = raw when the
 *   process has CAP_NET_RAW, else recverr. A new observer: implement the ops
 *   in probe/observe_<name>*.c as `const struct probe_observer
 *   probe_observer_<name>` and list it in probe/run.c (observer_for). */

/* ---- pure decoders of ICMP errors (probe/parse*.c) ---- */
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
    /* Issue 34: what ties a quote to one packet of the test. */
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
 * (Issue 21: the destination's answer to an icmp4/icmp6 test.) */
int probe_parse_echo_reply(const uint8_t *buf, size_t len, int family, int *id, int *seq);
static inline int probe_quote_is_fragment(const struct probe_quote *q) {
    return q->mf == 1 || q->frag_offset > 0 || q->frag_hdr == 1;
}

/* ---- running a test (probe/run*.c) ---- */
enum probe_observer_kind { PROBE_OBS_AUTO, PROBE_OBS_RAW, PROBE_OBS_RECVERR };
const char *probe_observer_name(enum probe_observer_kind k);   /* "auto" "raw" "recverr" */
int probe_observer_parse(const char *name, enum probe_observer_kind *out);

#define PROBE_TIMEOUT_MS_DEFAULT 1000 /* per test, when probe_run_opts.timeout_ms is 0 */
#define PROBE_TIMEOUT_MS_MAX 30000
#define PROBE_ANSWERS_MAX 16          /* ICMP answers kept per test; more are counted only */
#define PROBE_UDP_PORT_DEFAULT 33434  /* traceroute's base port when spec.port is 0 */

struct probe_lab;
struct probe_witness_target;
struct probe_run_opts {
    enum probe_observer_kind observer;
    int timeout_ms;                   /* 0 = PROBE_TIMEOUT_MS_DEFAULT */
    const struct probe_lab *lab;      /* non-NULL: send from the lab's src namespace
                                         (on a worker thread, setns), and "" host = lab dst */
    int flush_pmtu;                   /* flush the sending namespace's PMTU cache first */
    /* Issue 19: send to this far-end witness and merge its report (UDP and
     * TCP tests; NULL none). See section "witness". */
    const struct probe_witness_target *witness;
    /* Issue 19: the lab's topology for judging only, when the caller already
     * runs inside the lab's src (no setns: an unprivileged prober). Ignored
     * when lab is set. */
    const struct probe_lab *topology;
};
/* Runs one test, blocking for at most about timeout_ms (plus TTL discovery
 * when spec->ttl is PROBE_TTL_AUTO on a real path). Thread-safe: tests may run
 * concurrently on several threads (each has its own sockets and matches
 * answers by addresses, ports and IP ID). Fills *out (answers may be
 * "unknown" with the reason); returns 0, or PROBE_E_* when the test could not
 * run at all (bad spec, unknown host, no privilege, no lab). */
int probe_run(const struct probe_run_opts *opts, const struct probe_spec *spec,
              struct probe_result *out, char *err, size_t errlen);
/* Checks a spec without running it: 0, or PROBE_E_FAIL with the reason. */
int probe_spec_check(const struct probe_spec *spec, char *err, size_t errlen);

/* ---- TTL discovery (probe/ttl*.c) ---- */
#define PROBE_TTL_DISCOVER_MAX 16     /* highest TTL tried */
#define PROBE_TTL_DISCOVER_HOP_MS 300 /* wait per TTL for a Time Exceeded */
struct probe_ttl_discovery {
    int ttl;                          /* first TTL whose Time Exceeded quoted a fragment, 0 if none */
    int tried;                        /* TTLs tried */
    int nreassembled;                 /* hops that quoted the whole packet (they reassemble) */
    char reassembled[PROBE_TTL_DISCOVER_MAX][48];
    char hop[PROBE_TTL_DISCOVER_MAX][48]; /* the address that answered TTL i+1 (of tried), "" silent (issue 20) */
    int silent;                       /* TTLs that got no answer */
    int reached_dst;                  /* the destination answered (no router left) */
    char why[200];                    /* one line: what was found */
};
/* Sends a larger-than-MTU UDP datagram (mode DONT) with TTL 1, 2, ... until a
 * Time Exceeded quotes a fragment. Needs CAP_NET_RAW (raw ICMP socket).
 * Returns 0 (out->ttl may be 0 with the reason in out->why) or PROBE_E_*. */
int probe_ttl_discover(const struct probe_run_opts *opts, int v6, const char *host,
                       struct probe_ttl_discovery *out, char *err, size_t errlen);

/* ---- the namespace lab (probe/lab*.c) ----
 * src -- r1 -- r2 -- dst in four network namespaces "<prefix>-src" ...,
 * documentation prefixes only: 192.0.2.0/24 + 2001:db8:1::/64 (src-r1),
 * 198.51.100.0/24 + 2001:db8:2::/64 (r1-r2), 203.0.113.0/24 + 2001:db8:3::/64
 * (r2-dst); ".1"/"::1" is the side nearer src. Offloads off, ICMP rate
 * limits off, IPv6 nodad, forwarding on in r1 and r2. */
#define PROBE_LAB_PREFIX_DEFAULT "fv"
#define PROBE_LAB_PREFIX_ENV "FRAGVOTE_LAB_PREFIX"
#define PROBE_LAB_PREFIX_MAX 16       /* [A-Za-z0-9_-], so names stay short and safe */
#define PROBE_LAB_NODES 4
#define PROBE_LAB_LINKS 3
enum probe_lab_node { PROBE_LAB_SRC, PROBE_LAB_R1, PROBE_LAB_R2, PROBE_LAB_DST };
const char *probe_lab_node_name(enum probe_lab_node n);  /* "src" "r1" "r2" "dst" */

struct probe_lab_config {
    char prefix[PROBE_LAB_PREFIX_MAX + 1]; /* "" = $FRAGVOTE_LAB_PREFIX, else "fv" */
    int mtu[PROBE_LAB_LINKS];              /* src-r1, r1-r2, r2-dst; 0 = 1500 / 1280 / 1500 */
    int reassemble;                        /* 0 none, 1 = r1, 2 = r2 (conntrack defrag) */
};
struct probe_lab_link {
    int mtu;
    enum probe_lab_node a, b;              /* a is nearer src */
    char a_if[16], b_if[16];               /* interface names inside a's and b's namespace */
    char a4[16], b4[16], a6[48], b6[48];   /* addresses (without prefix length) */
    char net4[20], net6[24];               /* e.g. "192.0.2.0/24", "2001:db8:1::/64" */
};
/* The lab's topology: plain data, for the session record and for tests. */
struct probe_lab {
    struct probe_lab_config cfg;           /* resolved: prefix, MTUs filled in */
    char ns[PROBE_LAB_NODES][40];          /* namespace names */
    struct probe_lab_link link[PROBE_LAB_LINKS];
    int auto_ttl;                          /* TTL used for PROBE_TTL_AUTO: expires at r2,
                                              one hop past the bottleneck router r1 */
};
/* Fills cfg with defaults (prefix from the environment). */
void probe_lab_config_default(struct probe_lab_config *cfg);
/* "1500,1280,1500" into cfg->mtu (each 1280..65535, IPv6 needs 1280). */
int probe_lab_parse_mtus(const char *csv, struct probe_lab_config *cfg, char *err, size_t errlen);
/* Pure: the names and addresses a config gives (no system change). */
int probe_lab_plan(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen);
/* Builds the lab (replacing one with the same prefix). Needs CAP_SYS_ADMIN +
 * CAP_NET_ADMIN. On any failure it removes what it built. */
int probe_lab_up(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen);
/* Removes the namespaces of prefix ("" = default). Returns how many existed. */
int probe_lab_down(const char *prefix, char *err, size_t errlen);
/* Reads a running lab back from the system (MTUs, reassembly). Returns 1 and
 * fills *out when all four namespaces exist, 0 when none does, PROBE_E_FAIL
 * when it is half there (err says what is missing). */
int probe_lab_status(const char *prefix, struct probe_lab *out, char *err, size_t errlen);
/* One human paragraph of the topology into buf. */
void probe_lab_describe(const struct probe_lab *lab, char *buf, size_t len);
/* The destination's address ("203.0.113.2" / "2001:db8:3::2"). */
const char *probe_lab_dst_addr(const struct probe_lab *lab, int v6);
/* The node owning a lab address, or -1. */
int probe_lab_node_of(const struct probe_lab *lab, const char *addr);

/* Flushes the learned PMTUs (IPv4 route cache, IPv6 exceptions) in src. */
int probe_lab_flush_pmtu(const struct probe_lab *lab, char *err, size_t errlen);
/* Moves the CALLING THREAD into a named network namespace (/run/netns/NAME);
 * *saved gets a descriptor of the old one for probe_netns_leave (which closes
 * it). Other threads are unaffected. */
int probe_netns_enter(const char *name, int *saved, char *err, size_t errlen);
int probe_netns_leave(int saved);
/* Runs fn(arg) on a new thread inside namespace name and waits for it;
 * returns fn's return value, or PROBE_E_FAIL with err if it could not. */
int probe_netns_run(const char *name, int (*fn)(void *arg), void *arg, char *err, size_t errlen);
/* ==== end of section "probe" ==== */

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

/* The recverr observer never sees a quoted IP header, so the judge's
 * "quoted the whole packet" cannot stand for its results: this re-derives
 * "fragmented?" from the kernel's rules (inferred), using the path's link
 * MTUs when topo is given (the lab's: probe_path_topology_lab), else unknown where
 * they matter. No-op for other observers; probe_run calls it on every
 * result. Pure. */
struct probe_path_topology;
void probe_recverr_refine(const struct probe_path_topology *topo, struct probe_result *r);

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
    int oif;                      /* its interface index */
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
/* The responder for HOST:PORT discovery (run it on the far end, e.g. in the
 * lab's dst namespace): answers each tagged probe datagram on port (IPv4 and
 * IPv6) with its first PROBE_PMTU_REPLY_BYTES bytes -- never more than it got,
 * at most PROBE_PMTU_REPLY_RATE replies a second, untagged datagrams
 * ignored. Runs until *stop is set or `seconds` pass (0 = no limit); returns
 * the number of replies, or PROBE_E_*. */
#define PROBE_PMTU_MAGIC 0x4656504du  /* "FVPM": first 4 payload bytes of every probe */
#define PROBE_PMTU_REPLY_BYTES 32
#define PROBE_PMTU_REPLY_RATE 2000
int probe_pmtu_respond(int port, int seconds, volatile int *stop, char *err, size_t errlen);
/* The classic one-probe-at-a-time binary search between 1280 (IPv6) / 576
 * (IPv4) and the local MTU, for comparison. */
int probe_pmtu_discover_sequential(const char *host, int port, int timeout_ms,
                                   struct probe_pmtu_discovery *out, char *err, size_t errlen);
/* One round trip with exactly these n sizes (1..PROBE_PMTU_MAX_SIZES), sent
 * at once like probe_pmtu_discover; out->pmtu is the largest acknowledged
 * (0 if none: not an error here). Sizes above the local MTU are refused by
 * the kernel and stay unacknowledged. 0 or PROBE_E_*. (Issue 21.) */
int probe_pmtu_probe_sizes(const char *host, int port, const int *sizes, int n, int timeout_ms,
                           struct probe_pmtu_discovery *out, char *err, size_t errlen);

/* The article's whole algorithm (probe/pmtu_watch.c, issue 21): discover in
 * one round trip; then every interval reprobe the current path MTU and the
 * next size up of the table; an acknowledged next size means the path grew:
 * reprobe every larger size at once and take the largest acknowledged; a lost
 * probe at the current size (for any reason, including a smaller MTU) means
 * start over with the full discovery. Each round trip is reported to
 * on_event. Ends when `seconds` pass (0 = no limit) or *stop is set. */
#define PROBE_PMTU_WATCH_INTERVAL_S 600   /* the article's ten minutes */
#define PROBE_PMTU_WATCH_INTERVAL_MAX_S 86400
enum probe_pmtu_watch_kind {
    PROBE_PMTU_WATCH_START,       /* the first discovery */
    PROBE_PMTU_WATCH_SAME,        /* reprobe: current size acknowledged, the next one not */
    PROBE_PMTU_WATCH_GREW,        /* the next size up was acknowledged: larger sizes reprobed */
    PROBE_PMTU_WATCH_RESTART,     /* the current size was lost: discovered again from scratch */
};
struct probe_pmtu_watch_event {
    enum probe_pmtu_watch_kind kind;
    double t_ms;                  /* since the watch began */
    int old_pmtu, pmtu;           /* before and after this event; 0 = nothing acknowledged */
    int round_trips;              /* of this event (1 or 2) */
    char why[400];                /* one human line: what was probed and what came back */
};
typedef void (*probe_pmtu_watch_fn)(const struct probe_pmtu_watch_event *ev, void *arg);
struct probe_pmtu_watch_opts {
    int interval_ms;              /* 0 = PROBE_PMTU_WATCH_INTERVAL_S */
    int seconds;                  /* total run time, 0 = until *stop */
    int timeout_ms;               /* per round trip, 0 = PROBE_PMTU_TIMEOUT_MS */
    volatile int *stop;           /* set (e.g. by a signal handler) to end the watch; may be NULL */
    probe_pmtu_watch_fn on_event;
    void *arg;
};
/* Returns the number of events reported (>= 1), or PROBE_E_* when the first
 * discovery cannot run at all (unknown host, no ping socket...). A target
 * that answers nothing is an event with pmtu 0, then retried each interval. */
int probe_pmtu_watch(const char *host, int port, const struct probe_pmtu_watch_opts *opts, char *err, size_t errlen);
/* Pure: the smallest size of table[0..n) above pmtu, 0 if none. */
int probe_pmtu_next_size(const int *table, int n, int pmtu);

/* Privileges. probe_priv_has: 1 when the effective set holds cap (a CAP_*
 * number of <linux/capability.h>: CAP_NET_RAW, CAP_NET_ADMIN, ...), else 0.
 * probe_priv_drop: from root, drops to SUDO_UID/SUDO_GID, else to "nobody",
 * clearing supplementary groups and all capabilities; open sockets stay
 * usable. Returns the new uid, or PROBE_E_*. */
int probe_priv_has(int cap);
int probe_priv_drop(char *err, size_t errlen);
/* The same drop, but the listed capabilities (e.g. CAP_NET_RAW for a raw
 * observer that opens sockets per test, CAP_NET_ADMIN for the per-test PMTU
 * flush, CAP_SYS_ADMIN for setns into the lab) stay permitted and effective;
 * every other one is gone. ncaps 0 = probe_priv_drop. */
int probe_priv_drop_keep(const int *caps, int ncaps, char *err, size_t errlen);
/* ==== end of section "unpriv" ==== */

/* ==== section "witness" (issue 19): the far end testifies ====
 * Owned by probe/witness*.c. `fragvote witness PORT` runs probe_witness_run
 * on the far end; the prober puts a probe header at the start of the test's
 * payload and the witness answers with a report of what arrived: whole or in
 * fragments (IP_RECVFRAGSIZE / IPV6_RECVFRAGSIZE: the largest fragment of a
 * reassembled datagram, as its IP packet length), the size, the TTL / hop
 * limit on arrival, for TCP the data segments; with CAP_NET_RAW also DF and
 * the exact pieces. Header and report are tagged with SipHash-2-4 under a
 * key both ends share, and the report echoes the prober's nonce.
 *
 * Not a reflector: a datagram is answered only when it is a well-formed probe
 * with a valid tag and a nonce not seen before; a reply is
 * PROBE_WITNESS_REPORT_BYTES (<= PROBE_WITNESS_REPLY_MAX), never more than the
 * probe carried (a probe is at least PROBE_WITNESS_PROBE_BYTES); at most
 * PROBE_WITNESS_RATE replies a second overall and PROBE_WITNESS_RATE_SOURCE
 * per source address. */
#define PROBE_WITNESS_KEY_BYTES 16
#define PROBE_WITNESS_NONCE_BYTES 16
#define PROBE_WITNESS_PROBE_BYTES 48   /* header at the start of a probe's payload */
#define PROBE_WITNESS_REPORT_BYTES 48  /* one report */
#define PROBE_WITNESS_REPLY_MAX 64     /* hard cap on any reply */
#define PROBE_WITNESS_RATE 1000        /* replies per second, all sources */
#define PROBE_WITNESS_RATE_SOURCE 200  /* replies per second to one source address */
#define PROBE_WITNESS_NONCES 1024      /* nonces remembered: a replayed probe gets nothing */
#define PROBE_WITNESS_TCP_CONNS 16     /* TCP connections served at once; more are refused */
#define PROBE_WITNESS_TCP_MS 500       /* a TCP probe's data must arrive within this (then: what came) */
#define PROBE_WITNESS_PORT_LAB 33435   /* the lab's witness in dst */

/* The header at the start of a probe's payload (wire: 48 bytes, big endian). */
struct probe_witness_probe {
    int proto;                    /* enum probe_proto of the test */
    uint8_t nonce[PROBE_WITNESS_NONCE_BYTES];
    uint32_t payload_len;         /* transport payload bytes the prober sent */
};
/* What the witness saw of one probe. Fields are -1 when it could not see them. */
struct probe_witness_report {
    uint8_t nonce[PROBE_WITNESS_NONCE_BYTES];
    int raw;                      /* 1: the witness had CAP_NET_RAW (DF and pieces exact) */
    int ttl;                      /* TTL / hop limit on arrival (first fragment) */
    int df;                       /* IPv4 DF on arrival (raw only) */
    int payload_bytes;            /* transport payload bytes received */
    int fragments;                /* IP fragments it arrived in: 0 whole (raw: exact; else -1 when fragmented) */
    int frag_max;                 /* IP length of the largest fragment, 0 when it arrived whole */
    int frag_min;                 /* of the smallest (raw only) */
    int segments;                 /* TCP data segments received (-1 for UDP) */
    int seg_max;                  /* TCP: IP length of the largest data segment (raw), else -1 */
};
/* Pure: header / report to and from their wire form. Encode returns the bytes
 * written (or -1 when len is too small); decode returns 0, or -1 for anything
 * that is not exactly a well-formed, correctly tagged message. The report's
 * decoder also requires the expected nonce. */
int probe_witness_probe_encode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const struct probe_witness_probe *p,
                               uint8_t *buf, size_t len);
int probe_witness_probe_decode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *buf, size_t len,
                               struct probe_witness_probe *out);
int probe_witness_report_encode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const struct probe_witness_report *r,
                                uint8_t *buf, size_t len);
int probe_witness_report_decode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *buf, size_t len,
                                const uint8_t nonce[PROBE_WITNESS_NONCE_BYTES], struct probe_witness_report *out);
/* SipHash-2-4 (the tag). Pure. */
uint64_t probe_witness_siphash(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *msg, size_t len);
/* "0011..." (32 hex digits) to a key: 0, or -1. */
int probe_witness_key_parse(const char *hex, uint8_t key[PROBE_WITNESS_KEY_BYTES]);
void probe_witness_key_format(const uint8_t key[PROBE_WITNESS_KEY_BYTES], char out[2 * PROBE_WITNESS_KEY_BYTES + 1]);
/* A fresh random key or nonce (getrandom): 0, or PROBE_E_FAIL with err. */
int probe_witness_random(uint8_t *out, size_t n, char *err, size_t errlen);

/* The witness's rate caps and replay memory (probe/witness_guard.c), pure
 * apart from the clock the caller passes: one per witness. */
#define PROBE_WITNESS_SOURCES 256     /* source addresses tracked per window */
struct probe_witness_guard {
    int rate, rate_source;             /* caps per one-second window */
    double window_start;               /* seconds, caller's clock */
    int in_window;
    int nsources;
    struct { uint8_t addr[16]; int n; } sources[PROBE_WITNESS_SOURCES];
    uint8_t nonces[PROBE_WITNESS_NONCES][PROBE_WITNESS_NONCE_BYTES];
    int nnonces, next_nonce;
};
/* rate / rate_source 0 = the documented defaults. */
void probe_witness_guard_init(struct probe_witness_guard *g, int rate, int rate_source);
/* 1 when a reply to addr (16 bytes, IPv4 in the first 4) for nonce may go out
 * now (and counts it), 0 when a rate cap says no, -1 for a nonce already answered. */
int probe_witness_guard_allow(struct probe_witness_guard *g, const uint8_t addr[16],
                              const uint8_t nonce[PROBE_WITNESS_NONCE_BYTES], double now_s);

/* The daemon. Listens on UDP and TCP port (IPv4 and IPv6) in the calling
 * thread's network namespace until *stop is set or `seconds` pass (0 = no
 * limit). raw: 1 use CAP_NET_RAW (a packet tap) for DF and exact pieces,
 * 0 never, -1 when the process has it. *bound_port (may be NULL) gets the
 * port once listening (port 0 = any free one). Returns the replies sent, or
 * PROBE_E_*. */
struct probe_witness_stats {
    long received, replied, bad, replayed, rate_capped, tcp_refused;
};
struct probe_witness_opts {
    int port;
    uint8_t key[PROBE_WITNESS_KEY_BYTES];
    int raw;
    int rate, rate_source;             /* 0 = defaults */
    int seconds;
    volatile int *stop;
    volatile int *bound_port;          /* set once listening (may be NULL) */
    struct probe_witness_stats *stats; /* may be NULL */
};
int probe_witness_run(const struct probe_witness_opts *o, char *err, size_t errlen);

/* ---- the prober's side ----
 * With probe_run_opts.witness a UDP or TCP test goes to the witness (its
 * host and port; "" host = the lab's dst), with TTL 64 when the spec says
 * auto (the probe must reach it), the probe header at the start of the
 * payload (tests smaller than IP + transport header + 48 bytes go without),
 * and the observers' wait ends when the report comes back. Within the
 * test's timeout: a silent or unreachable witness leaves the near-end answer
 * with a note in witness_note and the evidence. */
struct probe_witness_target {
    char host[256];                    /* "" = the lab's dst */
    int port;
    uint8_t key[PROBE_WITNESS_KEY_BYTES];
};
/* "HOST:PORT" / "[V6]:PORT" into t->host / t->port: 0, or -1 with err. */
int probe_witness_target_parse(const char *s, struct probe_witness_target *t, char *err, size_t errlen);
/* Pure: merges the witness's report (the w_* fields of r, witness_heard) into
 * the near-end facts. Each fact keeps the near end's observation where it
 * has one; otherwise the far end's (basis observed, far_end 1), else the
 * kernel's rules (TCP is never IP-fragmented by its sender, routers never
 * fragment IPv6). topo may be NULL (no link MTUs: "a router on the way"). */
void probe_witness_merge(const struct probe_path_topology *topo, struct probe_result *r);
/* "observed (far end)" for a fact of r the witness observed, else
 * probe_basis_name (f is &r->sent, &r->df or &r->fragmented). */
const char *probe_fact_basis_label(const struct probe_result *r, const struct probe_fact *f);

/* A witness for the lab: a thread inside the lab's dst namespace running
 * probe_witness_run on a free port with a fresh key; target is what
 * probe_run_opts.witness needs. raw as in probe_witness_opts. */
struct probe_lab_witness {
    struct probe_witness_target target;
    struct probe_witness_opts opts;
    struct probe_witness_stats stats;
    volatile int stop, bound;
    int running, rc;
    char ns[40];
    char err[256];
    unsigned long thread;              /* pthread_t */
};
int probe_lab_witness_start(const struct probe_lab *lab, int raw, struct probe_lab_witness *w, char *err,
                            size_t errlen);
void probe_lab_witness_stop(struct probe_lab_witness *w);
/* ==== end of section "witness" ==== */

/* ==== section "path" (issue 20): what happened to the packet, hop by hop ====
 * Owned by probe/path*.c. The picture a reveal draws: the nodes from the host
 * to the target, the link MTUs where known, what left the host and, at each
 * node, what happened (passed, fragmented into which pieces, reassembled,
 * dropped with which ICMP, expired, arrived, silent). Built from a finished
 * probe_result and a topology passed in (the lab's, or what TTL discovery
 * found) -- never looked up. JSON shape (presenter/probe_json.c) and the
 * meaning of each field: docs/PROBE.md, "The path". */
/* The types are at the top of this header (struct probe_result carries a
 * struct probe_path); the functions: */
/* What is known of the path before judging it: nodes and link MTUs. */
struct probe_path_topology {
    int nnodes;
    struct probe_path_node node[PROBE_PATH_NODES_MAX];
    struct probe_path_link link[PROBE_PATH_NODES_MAX - 1];
};
/* Pure: the lab's four nodes, its addresses of family v6 (a router's is the
 * interface facing src: the one that answers), its MTUs, its reassembler. */
void probe_path_topology_lab(const struct probe_lab *lab, int v6, struct probe_path_topology *out);
/* Pure: a real path. d (may be NULL: no discovery ran) gives the hops TTL
 * discovery heard, in order; r the device MTU (first link), the answering
 * hop (placed at the test's TTL after a Time Exceeded, else after a gap)
 * and its Frag Needed / PTB MTU (its next link). Unseen stretches are gaps. */
void probe_path_topology_real(const struct probe_ttl_discovery *d, const struct probe_result *r,
                              struct probe_path_topology *out);
/* Pure: the node whose address is addr, or -1 (probe/path_topology.c). The
 * judges (probe_judge, probe_recverr_refine, probe_witness_merge) get the
 * lab's topology as data from probe_run and look hops up with this: they
 * ask the lab nothing. */
int probe_path_topology_node_of(const struct probe_path_topology *t, const char *addr);
/* Pure: the path of a finished test. Only r's observations and topo are
 * used; out may be &r->path. */
void probe_path_build(const struct probe_result *r, const struct probe_path_topology *topo, struct probe_path *out);
/* Pure: IP's fragmentation rule (Linux: pieces of the largest multiple of 8
 * bytes of data that fit, the last one the rest): the IP lengths of the
 * pieces of a total-byte packet whose pieces may be at most max bytes. v6
 * counts the 8-byte Fragment header in each piece. Returns the count. */
int probe_path_split(int total, int max, int v6, struct probe_path_pieces *out);
/* The hop table (probe/path_text.c, pure): one row per node, as `fragvote
 * probe` prints it and the markdown export writes it -- the hop (node index,
 * "…" for a gap), its name, address ("" unknown), the MTU of the link that
 * leaves it ("?" unknown, "" for the target) and what was seen there (the
 * events' lines with what shows each, in brackets). Returns the rows written
 * (at most max; p->nnodes when it fits). */
struct probe_path_row {
    char hop[12];                 /* "0".."N" or "…": room for any int, so no build warns of truncation */
    char name[40];
    char addr[48];
    char mtu[12];
    char seen[400];
};
int probe_path_rows(const struct probe_path *p, struct probe_path_row *rows, int max);
/* The same table as aligned text, as `fragvote probe` and `fragvote replay`
 * print it: a header line ("hop  node  address  mtu  seen there") and one
 * line per row, each starting with indent, into buf (cut to len; a path of
 * PROBE_PATH_NODES_MAX rows fits PROBE_PATH_TEXT_MAX). Returns the rows, 0
 * (buf "") when p has no path. Pure. */
#define PROBE_PATH_TEXT_MAX ((PROBE_PATH_NODES_MAX + 1) * (int)(sizeof(struct probe_path_row) + 24))
int probe_path_text(const struct probe_path *p, const char *indent, char *buf, size_t len);
/* ==== end of section "path" ==== */

#endif
