/* libfragprobe: what happened to the packet, hop by hop (probe/path*.c).
 *
 * The picture a reveal draws: the nodes from the host to the target, the
 * link MTUs where known, what left the host and, at each node, what happened
 * (passed, fragmented into which pieces, reassembled, dropped with which
 * ICMP, expired, arrived, silent). Built from a finished probe_result and a
 * topology passed in (the lab's, or what TTL discovery found) -- never looked
 * up. JSON shape (fragvote/measure/path_json.c) and the meaning of each
 * field: docs/PROBE.md, "The path". */
#ifndef FRAGPROBE_PATH_H
#define FRAGPROBE_PATH_H

#include <stddef.h>

#define PROBE_PATH_VERSION 1
#define PROBE_PATH_NODES_MAX 20      /* host, PROBE_TTL_DISCOVER_MAX hops, a gap, the answering hop, target */
#define PROBE_PATH_EVENTS_MAX 24
#define PROBE_PATH_PIECES_MAX 64     /* pieces listed; more are counted in `more` (65000 / 1280 fits) */

enum probe_path_role { PROBE_PATH_HOST, PROBE_PATH_ROUTER, PROBE_PATH_TARGET, PROBE_PATH_GAP };
enum probe_path_mtu_from { PROBE_PATH_MTU_NONE, PROBE_PATH_MTU_LAB, PROBE_PATH_MTU_DEVICE, PROBE_PATH_MTU_ICMP };
enum probe_path_what {
    PROBE_PATH_REFUSED, PROBE_PATH_FRAGMENTED, PROBE_PATH_REASSEMBLED, PROBE_PATH_PASSED,
    PROBE_PATH_DROPPED, PROBE_PATH_EXPIRED, PROBE_PATH_ARRIVED, PROBE_PATH_SILENT,
    PROBE_PATH_OTHER               /* an answer about another packet of the test: shown, not this packet's fate */
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
    int drops_fragments;          /* a lab router that drops every fragment reaching it (lab --dropfrag) */
    int clears_df;                /* a lab router that clears DF on whole IPv4 packets (lab --cleardf) */
    char does[96];                /* a lab router's behaviour, briefly ("drops fragments", "rate-limits
                                     ICMP, no Time Exceeded"), "" none or not known */
    unsigned behave;              /* the same as PROBE_LAB_* bits (probe_lab.h), which the pages word
                                     in their language; 0 none or not known */
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

struct probe_result;
struct probe_lab;
struct probe_ttl_discovery;
/* What is known of the path before judging it: nodes and link MTUs. */
struct probe_path_topology {
    int nnodes;
    struct probe_path_node node[PROBE_PATH_NODES_MAX];
    struct probe_path_link link[PROBE_PATH_NODES_MAX - 1];
};
/* Pure: the lab's nodes, its addresses of family v6 (a router's is the
 * interface facing src: the one that answers), its MTUs, its reassemblers
 * (and, for IPv4, its NAT routers) and what each router does. */
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
/* Pure: the node the test's packet reached last: the answering hop, or
 * where its TTL ran out (node index = TTL along the path), or the
 * destination; -1 unknown. */
int probe_path_topology_last_node(const struct probe_path_topology *t, const struct probe_result *r);
/* Pure: the smallest MTU among the links a router forwarded the packet onto
 * before it reached node `last` (links 1..last-1; link 0 is the host's own),
 * its index in *link; 0 if none. */
int probe_path_topology_routed_mtu(const struct probe_path_topology *t, int last, int *link);
/* Pure: the first router on t known to clear DF (lab --cleardf), or 0 when
 * none is known (t NULL: nothing known). Where one is, "with DF=1 no router
 * may fragment it" does not hold: the judges infer nothing from DF=1. */
int probe_path_topology_clears_df(const struct probe_path_topology *t);
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

#endif
