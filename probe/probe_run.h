/* libfragprobe: running a test (probe/run.c) and finding its TTL (probe/ttl.c).
 *
 * probe_run resolves the target, opens the sending socket, drives one
 * observer (probe_run_opts.observer; the plug-in interface is in
 * probe/observe.h), has the judges turn what was sent and seen into the
 * three facts, merges a far-end witness's report and builds the path. */
#ifndef FRAGPROBE_RUN_H
#define FRAGPROBE_RUN_H

#include "probe_result.h"

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
    /* Send to this far-end witness and merge its report (UDP and TCP
     * tests; NULL none). See probe_witness.h. */
    const struct probe_witness_target *witness;
    /* The lab's topology for judging only, when the caller already
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

/* ---- TTL discovery (probe/ttl*.c) ---- */
#define PROBE_TTL_DISCOVER_MAX 16     /* highest TTL tried */
#define PROBE_TTL_DISCOVER_HOP_MS 300 /* wait per TTL for a Time Exceeded */
enum probe_hop_state { PROBE_HOP_ANSWERED, PROBE_HOP_RATELIMITED, PROBE_HOP_SILENT };
struct probe_ttl_discovery {
    int ttl;                          /* first TTL whose Time Exceeded quoted a fragment, 0 if none */
    int tried;                        /* TTLs tried */
    int nreassembled;                 /* hops that quoted the whole packet (they reassemble) */
    char reassembled[PROBE_TTL_DISCOVER_MAX][48];
    char hop[PROBE_TTL_DISCOVER_MAX][48]; /* the address that answered TTL i+1 (of tried), "" silent */
    int silent;                       /* TTLs that got no answer, not even after a pause */
    int ratelimited;                  /* TTLs answered only after a pause (probe_pace.h) */
    unsigned char hop_state[PROBE_TTL_DISCOVER_MAX]; /* enum probe_hop_state of TTL i+1 */
    int reached_dst;                  /* the destination answered (no router left) */
    char why[200];                    /* one line: what was found */
};
/* Sends a larger-than-MTU UDP datagram (mode DONT) with TTL 1, 2, ... until a
 * Time Exceeded quotes a fragment. Needs CAP_NET_RAW (raw ICMP socket).
 * Returns 0 (out->ttl may be 0 with the reason in out->why) or PROBE_E_*. */
int probe_ttl_discover(const struct probe_run_opts *opts, int v6, const char *host,
                       struct probe_ttl_discovery *out, char *err, size_t errlen);

/* A router's ICMP budget: count datagrams (like discovery's) with this TTL,
 * one after the other, each waiting up to PROBE_TTL_DISCOVER_HOP_MS for its
 * Time Exceeded, not paced. A Linux router with the default limits answers
 * a burst of 6 and then about one a second (probe_pace.h). Needs
 * CAP_NET_RAW. Returns 0 with *out, or PROBE_E_*. */
#define PROBE_TTL_BURST_MAX 20        /* datagrams a burst sends at most (at most 6 s) */
struct probe_ttl_burst {
    int sent, answered;               /* datagrams sent, Time Exceeded heard about them */
    double ms;                        /* how long the burst took */
};
int probe_ttl_burst(const struct probe_run_opts *opts, int v6, const char *host, int ttl, int count,
                    struct probe_ttl_burst *out, char *err, size_t errlen);

/* The recverr observer never sees a quoted IP header, so the judge's
 * "quoted the whole packet" cannot stand for its results: this re-derives
 * "fragmented?" from the kernel's rules (inferred), using the path's link
 * MTUs when topo is given (the lab's: probe_path_topology_lab), else unknown
 * where they matter. No-op for other observers; probe_run calls it on every
 * result. Pure. */
void probe_recverr_refine(const struct probe_path_topology *topo, struct probe_result *r);
#endif
