/* TTL discovery (the article's trick): routers with connection tracking
 * reassemble fragments before they decide anything, so their Time Exceeded
 * quotes the whole packet. Send a datagram the host must fragment with TTL
 * 1, 2, ... until a Time Exceeded quotes a fragment: that TTL sees the wire. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "send.h"

#define TTL_SILENT_MAX 3        /* consecutive silent hops before calling the path ICMP-silent */
#define TTL_OVER_MTU 600        /* bytes above the device MTU: the host must fragment */
#define TTL_PORT_BASE 33434

struct ttl_ctx {
    const struct probe_run_opts *opts;
    int v6;
    const char *host;
    struct probe_ttl_discovery *out;
    char *err;
    size_t errlen;
};

static int ttl_inner(void *p) {
    struct ttl_ctx *c = p;
    struct probe_ttl_discovery *d = c->out;
    struct sockaddr_storage dst;
    int rc = probe_resolve(c->host, c->v6, TTL_PORT_BASE, &dst, c->err, c->errlen);
    if (rc < 0) return rc;
    int silent_run = 0;
    for (int ttl = 1; ttl <= PROBE_TTL_DISCOVER_MAX; ttl++) {
        struct probe_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.proto = c->v6 ? PROBE_UDP6 : PROBE_UDP4;
        spec.mode = PROBE_MODE_DONT;
        spec.ttl = ttl;
        spec.size = 3000;
        probe_sockaddr_set_port(&dst, TTL_PORT_BASE + ttl);
        void *st = NULL;
        if ((rc = probe_observer_raw.open(&st, c->v6 ? AF_INET6 : AF_INET, c->err, c->errlen)) < 0) return rc;
        struct probe_sendinfo si;
        struct probe_route rt;
        if ((rc = probe_send_open(&spec, &dst, ttl, PROBE_TTL_DISCOVER_HOP_MS, 0, &si, &rt, c->err, c->errlen)) < 0) {
            probe_observer_raw.close(st);
            return rc;
        }
        /* Bigger than the device MTU, so this host fragments it (mode DONT). */
        if (rt.dev_mtu > 0 && rt.dev_mtu + TTL_OVER_MTU <= PROBE_SIZE_MAX) spec.size = rt.dev_mtu + TTL_OVER_MTU;
        probe_observer_raw.arm(st, si.fd, c->err, c->errlen);
        int kmtu;
        probe_send_payload(&si, &kmtu);
        struct probe_observation obs;
        probe_observation_init(&obs);
        struct timespec deadline;
        probe_deadline_in(&deadline, PROBE_TTL_DISCOVER_HOP_MS);
        if (si.sent) probe_observer_raw.collect(st, &si, &deadline, &obs, c->err, c->errlen);
        probe_send_close(&si);
        probe_observer_raw.close(st);
        d->tried = ttl;
        const struct probe_icmp *te = NULL, *un = NULL;
        for (int i = 0; i < obs.nanswers; i++) {
            if (obs.answers[i].kind == PROBE_ICMP_TIME_EXCEEDED && !te) te = &obs.answers[i];
            if (obs.answers[i].kind == PROBE_ICMP_UNREACH && !un) un = &obs.answers[i];
        }
        if (te) {
            silent_run = 0;
            char from[48];
            inet_ntop(te->family, te->from, from, sizeof from);
            snprintf(d->hop[ttl - 1], sizeof d->hop[0], "%s", from);
            if (probe_quote_is_fragment(&te->q)) {
                d->ttl = ttl;
                if (d->nreassembled)
                    snprintf(d->why, sizeof d->why, "TTL %d: %s quoted a fragment; %d hop%s before it reassemble%s",
                             ttl, from, d->nreassembled, d->nreassembled == 1 ? "" : "s",
                             d->nreassembled == 1 ? "s" : "");
                else
                    snprintf(d->why, sizeof d->why, "TTL %d: %s quoted a fragment; no hop before it reassembles", ttl,
                             from);
                return 0;
            }
            snprintf(d->reassembled[d->nreassembled++], sizeof d->reassembled[0], "%s", from);
            continue;
        }
        if (un) {
            inet_ntop(un->family, un->from, d->hop[ttl - 1], sizeof d->hop[0]);
            d->reached_dst = 1;
            snprintf(d->why, sizeof d->why,
                     "the destination answered at TTL %d before any router quoted a fragment (%d reassembled)", ttl,
                     d->nreassembled);
            return 0;
        }
        d->silent++;
        if (++silent_run >= TTL_SILENT_MAX) {
            snprintf(d->why, sizeof d->why,
                     "no Time Exceeded for %d TTLs in a row (up to %d): this network sends none (ICMP-silent)",
                     silent_run, ttl);
            return 0;
        }
    }
    snprintf(d->why, sizeof d->why, "no hop up to TTL %d quoted a fragment", PROBE_TTL_DISCOVER_MAX);
    return 0;
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
    struct ttl_ctx c = {opts, v6, host, out, err, errlen};
    return opts->lab ? probe_netns_run(opts->lab->ns[PROBE_LAB_SRC], ttl_inner, &c, err, errlen) : ttl_inner(&c);
}
