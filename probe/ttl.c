/* TTL discovery (the article's trick): routers with connection tracking
 * reassemble fragments before they decide anything, so their Time Exceeded
 * quotes the whole packet. Send a datagram the host must fragment with TTL
 * 1, 2, ... until a Time Exceeded quotes a fragment: that TTL sees the wire. */
#include <arpa/inet.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "fragprobe.h"
#include "observe.h"
#include "probe_pace.h"
#include "send.h"

#define TTL_SILENT_MAX 3        /* consecutive silent hops before calling the path ICMP-silent */
#define TTL_OVER_MTU 600        /* bytes above the device MTU: the host must fragment */
#define TTL_PORT_BASE 33434

struct ttl_ctx {
    const struct probe_run_opts *opts;
    int v6;
    const char *host;
    struct probe_ttl_discovery *out;
    char pace_key[96]; /* the path's pacer: lab prefix | target */
    int paced;         /* 0: a known lab whose routers do not rate-limit */
    char *err;
    size_t errlen;
};

/* One datagram with this TTL, paced (probe_pace.h), and what came back. */
static int ttl_send_one(struct ttl_ctx *c, struct sockaddr_storage *dst, int ttl, struct probe_observation *obs) {
    struct probe_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.proto = c->v6 ? PROBE_UDP6 : PROBE_UDP4;
    spec.mode = PROBE_MODE_DONT;
    spec.ttl = ttl;
    spec.size = 3000;
    probe_sockaddr_set_port(dst, TTL_PORT_BASE + ttl);
    if (c->paced) probe_pace_wait(c->pace_key);
    void *st = NULL;
    int rc;
    if ((rc = probe_observer_raw.open(&st, c->v6 ? AF_INET6 : AF_INET, c->err, c->errlen)) < 0) return rc;
    struct probe_sendinfo si;
    struct probe_route rt;
    if ((rc = probe_send_open(&spec, dst, ttl, PROBE_TTL_DISCOVER_HOP_MS, 0, &si, &rt, c->err, c->errlen)) < 0) {
        probe_observer_raw.close(st);
        return rc;
    }
    /* Bigger than the device MTU, so this host fragments it (mode DONT). */
    if (rt.dev_mtu > 0 && rt.dev_mtu + TTL_OVER_MTU <= PROBE_SIZE_MAX) spec.size = rt.dev_mtu + TTL_OVER_MTU;
    probe_observer_raw.arm(st, si.fd, c->err, c->errlen);
    int kmtu;
    probe_send_payload(&si, &kmtu);
    probe_observation_init(obs);
    struct timespec deadline;
    probe_deadline_in(&deadline, PROBE_TTL_DISCOVER_HOP_MS);
    if (si.sent) probe_observer_raw.collect(st, &si, &deadline, obs, c->err, c->errlen);
    probe_send_close(&si);
    probe_observer_raw.close(st);
    return 0;
}

/* The Time Exceeded and the Unreachable of obs (NULL where none). */
static int ttl_answers(const struct probe_observation *obs, const struct probe_icmp **te, const struct probe_icmp **un) {
    *te = *un = NULL;
    for (int i = 0; i < obs->nanswers; i++) {
        if (obs->answers[i].kind == PROBE_ICMP_TIME_EXCEEDED && !*te) *te = &obs->answers[i];
        if (obs->answers[i].kind == PROBE_ICMP_UNREACH && !*un) *un = &obs->answers[i];
    }
    return *te || *un;
}

/* This TTL asked, and once more after a pause that gives a rate-limited
 * router a token back: answered the second time, the hop is rate-limited. */
static int ttl_ask(struct ttl_ctx *c, struct sockaddr_storage *dst, int ttl, struct probe_observation *obs) {
    struct probe_ttl_discovery *d = c->out;
    const struct probe_icmp *te, *un;
    int rc = ttl_send_one(c, dst, ttl, obs);
    if (rc < 0 || ttl_answers(obs, &te, &un)) return rc;
    if (c->paced) probe_pace_drained(c->pace_key, 0);
    probe_pace_sleep(PROBE_PACE_REFILL_MS);
    if ((rc = ttl_send_one(c, dst, ttl, obs)) < 0) return rc;
    if (ttl_answers(obs, &te, &un)) {
        d->hop_state[ttl - 1] = PROBE_HOP_RATELIMITED;
        d->ratelimited++;
        if (c->paced) probe_pace_drained(c->pace_key, 1); /* from now on its sends wait for a token */
    } else {
        d->hop_state[ttl - 1] = PROBE_HOP_SILENT;
    }
    return 0;
}

/* ", TTL 1 and 2 rate-limited (answered after a pause)" for the why line. */
static void ttl_note_ratelimited(const struct probe_ttl_discovery *d, char *out, size_t n) {
    out[0] = 0;
    if (!d->ratelimited) return;
    size_t k = (size_t)snprintf(out, n, "; rate-limited (answered after a %d ms pause) at TTL", PROBE_PACE_REFILL_MS);
    for (int i = 0; i < d->tried && k < n; i++)
        if (d->hop_state[i] == PROBE_HOP_RATELIMITED) k += (size_t)snprintf(out + k, n - k, " %d", i + 1);
}

static int ttl_inner(void *p) {
    struct ttl_ctx *c = p;
    struct probe_ttl_discovery *d = c->out;
    struct sockaddr_storage dst;
    int rc = probe_resolve(c->host, c->v6, TTL_PORT_BASE, &dst, c->err, c->errlen);
    if (rc < 0) return rc;
    int silent_run = 0;
    char rl[64]; /* (small enough that every why line below fits it: -Wformat-truncation) */
    for (int ttl = 1; ttl <= PROBE_TTL_DISCOVER_MAX; ttl++) {
        struct probe_observation obs;
        if ((rc = ttl_ask(c, &dst, ttl, &obs)) < 0) return rc;
        d->tried = ttl;
        const struct probe_icmp *te = NULL, *un = NULL;
        ttl_answers(&obs, &te, &un);
        ttl_note_ratelimited(d, rl, sizeof rl);
        if (te) {
            silent_run = 0;
            char from[48];
            inet_ntop(te->family, te->from, from, sizeof from);
            snprintf(d->hop[ttl - 1], sizeof d->hop[0], "%s", from);
            if (probe_quote_is_fragment(&te->q)) {
                d->ttl = ttl;
                if (d->nreassembled)
                    snprintf(d->why, sizeof d->why, "TTL %d: %s quoted a fragment; %d hop%s before it reassemble%s%s",
                             ttl, from, d->nreassembled, d->nreassembled == 1 ? "" : "s",
                             d->nreassembled == 1 ? "s" : "", rl);
                else
                    snprintf(d->why, sizeof d->why, "TTL %d: %s quoted a fragment; no hop before it reassembles%s",
                             ttl, from, rl);
                return 0;
            }
            snprintf(d->reassembled[d->nreassembled++], sizeof d->reassembled[0], "%s", from);
            continue;
        }
        if (un) {
            inet_ntop(un->family, un->from, d->hop[ttl - 1], sizeof d->hop[0]);
            d->reached_dst = 1;
            snprintf(d->why, sizeof d->why,
                     "the destination answered at TTL %d before any router quoted a fragment (%d reassembled%s%s%s)",
                     ttl, d->nreassembled, d->silent ? ", " : "", d->silent ? "some hops silent" : "", rl);
            return 0;
        }
        d->silent++;
        if (++silent_run >= TTL_SILENT_MAX) {
            snprintf(d->why, sizeof d->why,
                     "no Time Exceeded for %d TTLs in a row (up to %d), not even after a %d ms pause each: "
                     "silent, not rate-limited (ICMP-silent)%s",
                     silent_run, ttl, PROBE_PACE_REFILL_MS, rl);
            return 0;
        }
    }
    snprintf(d->why, sizeof d->why, "no hop up to TTL %d quoted a fragment%s", PROBE_TTL_DISCOVER_MAX, rl);
    return 0;
}

/* A discovery on a path that showed a rate limit is kept for
 * TTL_REUSE_MS and answers the next discovery of the same path: asking again
 * would spend the budget the tests need (a deck, the matrix of a real path). */
#define TTL_REUSE_MS 60000
#define TTL_REUSE_PATHS 8
static pthread_mutex_t ttl_reuse_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char key[96];
    double at_ms;
    struct probe_ttl_discovery d;
} ttl_reuse[TTL_REUSE_PATHS];
static int ttl_reuse_next;

static int ttl_reused(const char *key, struct probe_ttl_discovery *out) {
    double now = fv_clock_ms_frac();
    int hit = 0;
    pthread_mutex_lock(&ttl_reuse_mu);
    for (int i = 0; i < TTL_REUSE_PATHS && !hit; i++)
        if (ttl_reuse[i].key[0] && !strcmp(ttl_reuse[i].key, key) && now - ttl_reuse[i].at_ms < TTL_REUSE_MS) {
            *out = ttl_reuse[i].d;
            hit = 1;
        }
    pthread_mutex_unlock(&ttl_reuse_mu);
    return hit;
}

static void ttl_keep(const char *key, const struct probe_ttl_discovery *d) {
    pthread_mutex_lock(&ttl_reuse_mu);
    int i = ttl_reuse_next++ % TTL_REUSE_PATHS;
    snprintf(ttl_reuse[i].key, sizeof ttl_reuse[i].key, "%s", key);
    ttl_reuse[i].at_ms = fv_clock_ms_frac();
    ttl_reuse[i].d = *d;
    pthread_mutex_unlock(&ttl_reuse_mu);
}

int probe_ttl_discover(const struct probe_run_opts *opts, int v6, const char *host, struct probe_ttl_discovery *out,
                       char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    struct probe_run_opts none = {0};
    if (!opts) opts = &none;
    if (!host || !*host) {
        if (!opts->lab) {
            snprintf(err, errlen, "TTL discovery needs a target");
            return PROBE_E_HOST;
        }
        host = probe_lab_dst_addr(opts->lab, v6);
    }
    struct ttl_ctx c = {opts, v6, host, out, "", 0, err, errlen};
    const struct probe_lab *lab = opts->lab ? opts->lab : opts->topology;
    c.paced = probe_pace_path(c.pace_key, sizeof c.pace_key, lab, host);
    if (ttl_reused(c.pace_key, out)) return 0;
    int rc = opts->lab ? probe_netns_run(opts->lab->ns[PROBE_LAB_SRC], ttl_inner, &c, err, errlen) : ttl_inner(&c);
    if (rc == 0 && out->ratelimited) ttl_keep(c.pace_key, out);
    return rc;
}

/* The burst's datagrams, one after the other on this thread (in src for the lab). */
struct ttl_burst_ctx {
    struct ttl_ctx c;
    int ttl, count;
    struct probe_ttl_burst *out;
};

static int ttl_burst_inner(void *p) {
    struct ttl_burst_ctx *b = p;
    struct sockaddr_storage dst;
    int rc = probe_resolve(b->c.host, b->c.v6, TTL_PORT_BASE, &dst, b->c.err, b->c.errlen);
    if (rc < 0) return rc;
    double t0 = fv_clock_ms_frac();
    for (int i = 0; i < b->count; i++) {
        struct probe_observation obs;
        const struct probe_icmp *te, *un;
        if ((rc = ttl_send_one(&b->c, &dst, b->ttl, &obs)) < 0) return rc;
        b->out->sent++;
        if (ttl_answers(&obs, &te, &un) && te) b->out->answered++;
    }
    b->out->ms = fv_clock_ms_frac() - t0;
    return 0;
}

int probe_ttl_burst(const struct probe_run_opts *opts, int v6, const char *host, int ttl, int count,
                    struct probe_ttl_burst *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    struct probe_run_opts none = {0};
    if (!opts) opts = &none;
    if (!host || !*host) host = opts->lab ? probe_lab_dst_addr(opts->lab, v6) : NULL;
    if (!host || ttl < 1 || ttl > PROBE_TTL_DISCOVER_MAX || count < 1 || count > PROBE_TTL_BURST_MAX) {
        snprintf(err, errlen, "a burst wants a target, a TTL in 1..%d and 1..%d datagrams", PROBE_TTL_DISCOVER_MAX,
                 PROBE_TTL_BURST_MAX);
        return PROBE_E_FAIL;
    }
    /* Not paced: the burst is there to find the routers' budget. */
    struct ttl_burst_ctx b = {{opts, v6, host, NULL, "", 0, err, errlen}, ttl, count, out};
    return opts->lab ? probe_netns_run(opts->lab->ns[PROBE_LAB_SRC], ttl_burst_inner, &b, err, errlen)
                     : ttl_burst_inner(&b);
}
