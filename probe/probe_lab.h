/* libfragprobe: the namespace lab (probe/lab*.c).
 *
 * src -- r1 -- r2 -- dst in four network namespaces "<prefix>-src" ...,
 * documentation prefixes only: 192.0.2.0/24 + 2001:db8:1::/64 (src-r1),
 * 198.51.100.0/24 + 2001:db8:2::/64 (r1-r2), 203.0.113.0/24 + 2001:db8:3::/64
 * (r2-dst); ".1"/"::1" is the side nearer src. Offloads off, ICMP rate
 * limits off, IPv6 nodad, forwarding on in r1 and r2. */
#ifndef FRAGPROBE_LAB_H
#define FRAGPROBE_LAB_H

#include <stddef.h>

#include "probe_witness.h"

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
