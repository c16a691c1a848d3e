/* Pacing for ICMP rate limits (issue 34): one pacer per path, a model of
 * the token bucket Linux keeps per source address on every router
 * (inet_peer_xrlim_allow: a burst of XRLIM_BURST_FACTOR = 6 messages, then
 * one per net.ipv4.icmp_ratelimit = 1000 ms). Every send of TTL discovery
 * (probe/ttl.c) books a token first; once the path has shown it rate-limits (a hop answered
 * only after a pause), the send waits for its token, so a router with the
 * defaults answers each one. A hop that answered nothing is retried after
 * PROBE_PACE_REFILL_MS (one token back) before it is called silent. A path
 * that never showed a limit is not slowed down. probe/pace.c. */
#ifndef PROBE_PACE_H
#define PROBE_PACE_H

#define PROBE_PACE_BURST 6           /* XRLIM_BURST_FACTOR */
#define PROBE_PACE_INTERVAL_MS 1000  /* icmp_ratelimit default: one token per second */
#define PROBE_PACE_REFILL_MS 1100    /* the pause before a silent hop is asked again */
#define PROBE_PACE_PATHS 32          /* paths the process keeps a pacer for */

struct probe_pacer {
    double tokens;  /* messages the routers are believed to allow now */
    double last_ms; /* clock of the last update */
    int limited;    /* the path showed a rate limit: sends wait for their token */
};

/* Pure: a full bucket at now_ms. */
void probe_pacer_init(struct probe_pacer *p, double now_ms);
/* Pure: books one TTL-limited send; returns the ms to wait before it may go
 * (0 while the burst lasts, then spaced PROBE_PACE_INTERVAL_MS apart; always
 * 0 on a path not limited, whose bucket is still kept). */
int probe_pacer_book(struct probe_pacer *p, double now_ms);
/* Pure: a router answered nothing: its bucket is taken to be empty now;
 * limited: it answered after a pause, so the path rate-limits. */
void probe_pacer_drained(struct probe_pacer *p, double now_ms, int limited);

#include <stddef.h>

struct probe_lab;
/* The key of a path into out: the lab's prefix and layout (labs share
 * addresses, not routers; a lab rebuilt or switched under the same prefix
 * with other routers, MTUs or behaviours is another path, whose routers'
 * budgets and hop count owe nothing to the old one's; NULL off the lab) and
 * the target address. Returns 1 when its
 * sends are to be paced: always off the lab (every real router limits), on
 * the lab only when a router keeps the limits (--ratelimit). */
int probe_pace_path(char *out, size_t n, const struct probe_lab *lab, const char *host);
/* The process's pacer of a path (key: the lab's prefix and the target
 * address), shared by every caller (probe --deck, serve's and present's
 * background measurement); thread-safe. wait books a token and sleeps until
 * the send may go (returns the ms slept); drained marks the path empty (and
 * limited: rate-limiting). */
int probe_pace_wait(const char *path);
void probe_pace_drained(const char *path, int limited);
/* Sleeps ms (the pauses of pacing). */
void probe_pace_sleep(int ms);

struct probe_result;
/* Pure: 1 when r is a TTL-limited test of the raw observer that drew no
 * ICMP answer at all and so left "fragmented?" unknown, on a path whose
 * routers may rate-limit (paced: probe_pace_path): worth one more run after
 * PROBE_PACE_REFILL_MS (probe_run does it). */
int probe_pace_retry_wanted(const struct probe_result *r, int paced);

#endif
