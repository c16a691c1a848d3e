/* libfragprobe: path MTUs (probe/pmtu*.c): the kernel's cache of them, their
 * discovery in one round trip (the article's algorithm), its responder and
 * its watch, and name resolution for the probe. */
#ifndef FRAGPROBE_PMTU_H
#define FRAGPROBE_PMTU_H

#include <stddef.h>
#include <stdint.h>

#include "probe_spec.h"

/* Resolves host (literal or name) to one address of the wanted family
 * (AF_INET, AF_INET6, or AF_UNSPEC = first found). Returns 0, PROBE_E_HOST
 * or PROBE_E_NOV6. out is a struct sockaddr_storage. */
struct sockaddr_storage;
int probe_pmtu_resolve(const char *host, int family, struct sockaddr_storage *out, char *err, size_t errlen);

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
 * the kernel and stay unacknowledged. 0 or PROBE_E_*. */
int probe_pmtu_probe_sizes(const char *host, int port, const int *sizes, int n, int timeout_ms,
                           struct probe_pmtu_discovery *out, char *err, size_t errlen);

/* The article's whole algorithm (probe/pmtu_watch.c): discover in
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

#endif
