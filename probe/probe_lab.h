/* libfragprobe: the namespace lab (probe/lab*.c).
 *
 * src -- r1 -- ... -- rN -- dst (N = 2 by default, 1..PROBE_LAB_ROUTERS_MAX)
 * in network namespaces "<prefix>-src" "<prefix>-r1" ... "<prefix>-dst",
 * documentation prefixes only: 192.0.2.0/24 + 2001:db8:1::/64 (src-r1),
 * 203.0.113.0/24 + 2001:db8:3::/64 (rN-dst), and between the routers
 * 198.51.100.0/24 + 2001:db8:2::/64 (two routers) or its /28s +
 * 2001:db8:2:J::/64 (more); ".1"/"::1" is the side nearer src. Offloads off,
 * ICMP rate limits off (unless a router keeps them: PROBE_LAB_RATELIMIT),
 * IPv6 nodad, forwarding on in the routers. Each router may behave as real
 * ones do (docs/LAB.md, "Router behaviours"). */
#ifndef FRAGPROBE_LAB_H
#define FRAGPROBE_LAB_H

#include <stddef.h>

#include "probe_witness.h"

#define PROBE_LAB_PREFIX_DEFAULT "fv"
#define PROBE_LAB_PREFIX_ENV "FRAGVOTE_LAB_PREFIX"
#define PROBE_LAB_PREFIX_MAX 16       /* [A-Za-z0-9_-], so names stay short and safe */
#define PROBE_LAB_ROUTERS_DEFAULT 2
#define PROBE_LAB_ROUTERS_MAX 6
#define PROBE_LAB_NODES_MAX (PROBE_LAB_ROUTERS_MAX + 2)
#define PROBE_LAB_LINKS_MAX (PROBE_LAB_ROUTERS_MAX + 1)
/* Node indexes: src is 0, router k is k, dst is lab->nnodes - 1. */
enum probe_lab_node { PROBE_LAB_SRC, PROBE_LAB_R1, PROBE_LAB_R2 };

/* What a router does besides forwarding (bits of probe_lab_config.behave[k]). */
enum probe_lab_behaviour {
    PROBE_LAB_RATELIMIT = 1u << 0, /* keeps the kernel's default ICMP rate limits */
    PROBE_LAB_DROPFRAG = 1u << 1,  /* drops every fragment that reaches it */
    PROBE_LAB_BLACKHOLE = 1u << 2, /* drops the ICMP errors it forwards (its own still go out) */
    PROBE_LAB_SILENT = 1u << 3,    /* sends no Time Exceeded */
    PROBE_LAB_NAT = 1u << 4,       /* masquerades IPv4 with conntrack (and so reassembles IPv4) */
    PROBE_LAB_CLEARDF = 1u << 5,   /* clears DF on the whole IPv4 packets it forwards (breaks the rules) */
};
#define PROBE_LAB_BEHAVIOURS 6
#define PROBE_LAB_BEHAVIOUR_ALL 0x3fu
/* "ratelimit" "dropfrag" "blackhole" "silent" "nat" "cleardf" (the option and deck
 * spelling) for one bit; NULL for anything else. */
const char *probe_lab_behaviour_name(unsigned bit);
/* What it means, for people: "drops every fragment that reaches it". */
const char *probe_lab_behaviour_says(unsigned bit);
/* A name into its bit; 0 and *bit set, or -1. */
int probe_lab_behaviour_parse(const char *name, unsigned *bit);

struct probe_lab_config {
    char prefix[PROBE_LAB_PREFIX_MAX + 1]; /* "" = $FRAGVOTE_LAB_PREFIX, else "fv" */
    int routers;                           /* 0 = PROBE_LAB_ROUTERS_DEFAULT */
    int mtu[PROBE_LAB_LINKS_MAX];          /* src-r1, ..., rN-dst; 0 = 1280 for r1-r2, 1500 elsewhere */
    int reassemble;                        /* 0 none, k = rk (conntrack defrag) */
    unsigned behave[PROBE_LAB_NODES_MAX];  /* behave[k]: router k's PROBE_LAB_* bits */
};
struct probe_lab_link {
    int mtu;
    int a, b;                              /* node indexes; a is nearer src */
    char a_if[16], b_if[16];               /* interface names inside a's and b's namespace */
    char a4[16], b4[16], a6[48], b6[48];   /* addresses (without prefix length) */
    char net4[20], net6[24];               /* e.g. "192.0.2.0/24", "2001:db8:1::/64" */
    int plen4;                             /* IPv4 prefix length (24, or 28 between routers of a longer lab) */
};
/* The lab's topology: plain data, for the session record and for tests. */
struct probe_lab {
    struct probe_lab_config cfg;           /* resolved: prefix, routers, MTUs filled in */
    int nnodes, nlinks;                    /* routers + 2, routers + 1 */
    char name[PROBE_LAB_NODES_MAX][12];    /* "src" "r1" ... "dst" */
    char ns[PROBE_LAB_NODES_MAX][40];      /* namespace names */
    struct probe_lab_link link[PROBE_LAB_LINKS_MAX];
    int auto_ttl;                          /* TTL used for PROBE_TTL_AUTO: expires at r2 (r1 in a
                                              one-router lab), one hop past the bottleneck r1 */
};
/* Fills cfg with defaults (prefix from the environment). */
void probe_lab_config_default(struct probe_lab_config *cfg);
/* "1500,1280,1500" into cfg->mtu (each 1280..65535, IPv6 needs 1280): one
 * MTU per link, cfg->routers + 1 of them (routers 0 = two routers, three MTUs):
 * set cfg->routers first. */
int probe_lab_parse_mtus(const char *csv, struct probe_lab_config *cfg, char *err, size_t errlen);
/* "r2" into 2 (1..PROBE_LAB_ROUTERS_MAX), or -1. */
int probe_lab_router_parse(const char *s);
/* Router `router` ("r2") gets behaviour bit; 0, or -1 with err. Whether the
 * router exists is checked by probe_lab_plan (--routers may come later). */
int probe_lab_config_add(struct probe_lab_config *cfg, unsigned bit, const char *router, char *err, size_t errlen);
/* What router `node` does besides forwarding and reassembling, in words
 * ("drops every fragment that reaches it"; brief: "drops fragments", for a
 * picture; several joined by and_), "" for nothing or a node that is not a
 * router. */
void probe_lab_node_does(const struct probe_lab *lab, int node, int brief, const char *and_, char *buf, size_t len);
/* The behaviours as sentences, "r2 drops every fragment that reaches it; r1
 * keeps ..." (with reassembly: "r1 reassembles fragments" too), "" when the
 * routers only forward. */
void probe_lab_behaviours_text(const struct probe_lab *lab, int reassembly, char *buf, size_t len);
/* The same without reassembly (probe_lab_behaviours_text(lab, 0)) as
 * messages appended to the row m (fv_msg_row_add): lab.node_does with the
 * router and its first behaviour's lab.NAME, lab.and and lab.NAME for each
 * further one, lab.then between routers, so a page words it in its
 * language. */
struct fv_msg;
void probe_lab_behaviours_msgs(const struct probe_lab *lab, struct fv_msg *m, int *n, int cap);
/* The same config (MTUs, routers, behaviours, reassembly; prefix not
 * compared). Compare resolved configs (probe_lab.cfg): 0 means a default. */
int probe_lab_config_same(const struct probe_lab_config *a, const struct probe_lab_config *b);
/* Pure: the names and addresses a config gives (no system change). */
int probe_lab_plan(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen);
/* Builds the lab (replacing one with the same prefix). Needs CAP_SYS_ADMIN +
 * CAP_NET_ADMIN. On any failure it removes what it built. */
int probe_lab_up(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen);
/* Removes the namespaces of prefix ("" = default). Returns how many existed. */
int probe_lab_down(const char *prefix, char *err, size_t errlen);
/* Turns the running lab *lab into want (same prefix): when the routers and
 * MTUs are the same only what differs changes (nft tables, rate-limit
 * sysctls, in the routers whose behaviour differs); otherwise the lab is
 * rebuilt. *lab is the new lab after success. *rebuilt (may be NULL) says
 * which. The PMTU cache in src is flushed either way. */
int probe_lab_reconfigure(struct probe_lab *lab, const struct probe_lab_config *want, int *rebuilt, char *err,
                          size_t errlen);
/* Reads a running lab back from the system (routers, MTUs, reassembly,
 * behaviours). Returns 1 and fills *out when all its namespaces exist, 0
 * when none does, PROBE_E_FAIL when it is half there (err says what is
 * missing). */
int probe_lab_status(const char *prefix, struct probe_lab *out, char *err, size_t errlen);
/* One human paragraph of the topology into buf. */
void probe_lab_describe(const struct probe_lab *lab, char *buf, size_t len);
/* The destination's address ("203.0.113.2" / "2001:db8:3::2"). */
const char *probe_lab_dst_addr(const struct probe_lab *lab, int v6);
/* The destination's namespace name. */
const char *probe_lab_dst_ns(const struct probe_lab *lab);
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
#endif
