/* fragvote check: the venue check before a talk (issue 39). Each check is
 * facts gathered by I/O (check_net.c: addresses and routes; check_path.c:
 * the probe engine's TTL discovery and bursts, the witness) and a pure judge
 * (check_judge.c) that turns them into one line: ✔ or ✘, what was found and,
 * with ✘, what to do. cmd_check.c wires them and prints the summary "this
 * deck will measure N of M tests on this network". docs/CHECK.md. */
#ifndef FRAGVOTE_CHECK_VENUE_H
#define FRAGVOTE_CHECK_VENUE_H

#include <net/if.h>
#include <stddef.h>
#include <stdio.h>

#include "fragprobe.h"

struct check_line {
    int ok;          /* 1 ✔, 0 ✘ */
    char what[400];  /* "join URL http://...", "target 203.0.113.2 (IPv4)" */
    char says[1000]; /* what was found; with ✘, then what to do */
};
/* "✔ WHAT: SAYS\n" on out. */
void check_line_print(FILE *out, const struct check_line *l);

/* ---- 1. the join URL ---- */
struct check_join {
    char url[300];            /* the join URL serve would show (hub_join_url_make) */
    char host[256];           /* its host part, brackets removed */
    int is_addr;              /* host is an address literal, not a name */
    int public_url;           /* from --public-url */
    int bound;                /* from --bind */
    int loopback, linklocal;  /* of host (an address, or what the name resolved to) */
    int resolved;             /* a name: it resolved (host's facts are those of its address) */
    char addr[64];            /* the address judged */
    char iface[IF_NAMESIZE + 1]; /* the interface holding addr, "" none of this host's */
    int iface_default;        /* iface holds a default route of addr's family */
};
/* Pure: the host of an http(s)/ws(s) URL (no brackets, no port) into
 * host: 0, or -1 when url has none. */
int check_url_host(const char *url, char *host, size_t hostlen);
/* Pure: can phones on this network reach it? */
void check_judge_join(const struct check_join *j, struct check_line *out);
/* I/O: j->url, public_url and bound set; fills the rest (resolving a name,
 * this host's interfaces and default routes, fv_route.h). */
void check_join_facts(struct check_join *j);

/* ---- 3. privileges ---- */
/* Pure: one line for a capability (a CAP_* the engine needs,
 * cli_engine_caps) that the process has or lacks. */
void check_judge_cap(int cap, int has, struct check_line *out);

/* ---- 2. the deck's targets ---- */
#define CHECK_BURST_DEFAULT 10     /* TTL-limited datagrams of a rate burst */
struct check_target {
    char host[256];
    int v6;
    int tests;                     /* deck tests to this host and family */
    int raw;                       /* the process has CAP_NET_RAW (else nothing was sent) */
    int rc;                        /* probe_ttl_discover's return (0 ran, PROBE_E_*) */
    char err[256];
    struct probe_ttl_discovery d;
    int burst_ttl;                 /* 0: no burst (none wanted or no hop answered) */
    int burst_rc;
    struct probe_ttl_burst burst;
};
/* Pure: the TTL a burst aims at: the first TTL whose hop answered Time
 * Exceeded at once (not after a pause), else the first that answered at
 * all; 0 when none did. */
int check_target_answering_ttl(const struct check_target *t);
/* Pure: is the target reachable and do the routers on the way answer? */
void check_judge_path(const struct check_target *t, struct check_line *out);
/* Pure: the burst: answered all, or rate-limited. 0 when no line is due
 * (no burst ran), else 1 with *out. */
int check_judge_rate(const struct check_target *t, struct check_line *out);
/* Pure: 1 when the deck's tests to t can be measured on this network:
 * the target answered (a router's Time Exceeded or the destination) and a
 * router answers Time Exceeded, or a keyed witness stands at the far end
 * (witness_ok). */
int check_target_measures(const struct check_target *t, int witness_ok);
/* I/O: TTL discovery (raw only) and, when a hop answers and burst > 0, a
 * burst of that many at it (the probe engine, probe_run.h). */
void check_target_run(struct check_target *t, int burst);

/* ---- 4. the witness ---- */
struct check_witness {
    char label[300];               /* HOST:PORT */
    int rc;                        /* probe_run's return, 0 ran */
    char err[256];
    int heard;                     /* its keyed report came back */
    char note[200];                /* the probe's note: why not */
};
/* Pure. */
void check_judge_witness(const struct check_witness *w, struct check_line *out);
/* I/O: one small UDP test to the witness with its key (probe_run). */
void check_witness_run(const struct probe_witness_target *wt, enum probe_observer_kind obs, struct check_witness *w);

/* ---- 5. IPv6 ---- */
struct check_v6 {
    int tests;                     /* the deck's IPv6 tests off the lab */
    char iface[IF_NAMESIZE + 1];   /* the interface of the IPv6 default route, "" none */
};
/* Pure. */
void check_judge_v6(const struct check_v6 *v, struct check_line *out);
/* I/O: the interface of the IPv6 default route. */
void check_v6_facts(struct check_v6 *v);

/* ---- 6. a websocket through a hosted hub (--hub URL) ---- */
#define CHECK_HUB_HOLD_S_DEFAULT 10    /* seconds the websocket is held open */
struct check_hub {
    char url[300];
    int hold_ms;                   /* asked for */
    int connected;                 /* the websocket opened */
    double open_ms;                /* from the start to open (TCP, TLS, upgrade) */
    double held_ms;                /* open this long (until the hold ended, or it dropped) */
    int dropped;                   /* it closed before the hold ended */
    char why[200];                 /* why it did not open, or why it dropped */
    int pings, pongs;              /* the protocol's ping, one a second, and the pongs back */
    double rtt_min_ms, rtt_max_ms; /* of the pongs */
};
/* Pure. */
void check_judge_hub(const struct check_hub *h, struct check_line *out);

/* --phone: the presenter's connection to the hub shows a URL and its QR and
 * waits for a phone to join through the hub (the hub's tally counts it) and
 * for the phone page's report of its round trip to the hub (`phone_rtt`). */
#define CHECK_PHONE_WAIT_S_DEFAULT 120
#define CHECK_PHONE_RTT_WAIT_S 10      /* after a phone joined, its round-trip report is awaited this long */
struct check_phone {
    char url[300];                 /* the hub */
    int wait_ms;                   /* asked for */
    int connected, authed;         /* the websocket opened; the hub took the presenter secret */
    char why[200];                 /* why not (did not open, refused, no state) */
    char join_url[512];            /* the room's join URL, as the hub's state says it */
    int joined0, joined;           /* phones that joined the room: when shown, at the end */
    double shown_ms, joined_ms;    /* the URL shown, the first phone joined (from the start) */
    int rtt_n;                     /* the phone's round-trip report: samples (0: none came) ... */
    double rtt_median_ms, rtt_max_ms; /* ... their median and maximum, ms */
    char rtt_refused[160];         /* a report refused (figures that cannot be true: not printed), "" none */
};
/* Pure: the URL a phone opens for the check: the room's join URL with
 * check=1, which has the phone page measure and report its round trip. */
void check_phone_url(const char *join_url, char *out, size_t outlen);
/* Pure. */
void check_judge_phone(const struct check_phone *p, struct check_line *out);

#endif
