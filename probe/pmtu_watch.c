/* `pmtu discover --watch`: the article's algorithm after its first round
 * trip. "Every ten minutes, we reprobe the path MTU by sending a packet that
 * is the next MTU size up. If we get an acknowledgment for the larger MTU
 * size, then we know the path MTU has changed, and we reprobe with all of the
 * packet sizes larger than that and smaller than the local MTU. Otherwise we
 * use the current path MTU for another ten minutes. If we start losing
 * packets for any reason, including the path MTU shrinking, we renegotiate
 * the connection from scratch." A probe tool carries no data whose loss it
 * could notice, so each reprobe also sends the current size: its loss is the
 * "losing packets". One timer, one table (the discovery's sizes), one
 * variable -- the round trips themselves are probe/pmtu_discover.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "fragprobe.h"

#define WATCH_SLICE_MS 100 /* how often a wait between reprobes looks at *stop */

int probe_pmtu_next_size(const int *table, int n, int pmtu) {
    int next = 0;
    for (int i = 0; i < n; i++)
        if (table[i] > pmtu && (!next || table[i] < next)) next = table[i];
    return next;
}

struct watch {
    const char *host;
    int port, timeout_ms, interval_ms;
    const struct probe_pmtu_watch_opts *o;
    struct timespec t0;
    int table[PROBE_PMTU_MAX_SIZES], n;
    int pmtu, events;
};

static double watch_ms(const struct watch *w) {
    return probe_ms_since(&w->t0);
}

static void emit(struct watch *w, enum probe_pmtu_watch_kind kind, int old, int round_trips, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void emit(struct watch *w, enum probe_pmtu_watch_kind kind, int old, int round_trips, const char *fmt, ...) {
    struct probe_pmtu_watch_event ev = {.kind = kind, .t_ms = watch_ms(w), .old_pmtu = old, .pmtu = w->pmtu,
                                        .round_trips = round_trips};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev.why, sizeof ev.why, fmt, ap);
    va_end(ap);
    w->events++;
    if (w->o->on_event) w->o->on_event(&ev, w->o->arg);
}

/* "1280 acknowledged, 1360 too big (MTU 1280), 1500 lost" for one round. */
static void round_summary(const struct probe_pmtu_discovery *d, char *buf, size_t len) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < d->n && k + 1 < len; i++) {
        int w;
        if (d->acked[i]) w = snprintf(buf + k, len - k, "%s%d acknowledged", i ? ", " : "", d->sizes[i]);
        else if (d->reported[i])
            w = snprintf(buf + k, len - k, "%s%d too big (MTU %d)", i ? ", " : "", d->sizes[i], d->reported[i]);
        else w = snprintf(buf + k, len - k, "%s%d lost", i ? ", " : "", d->sizes[i]);
        if (w < 0) break;
        k += (size_t)w < len - k ? (size_t)w : len - k - 1;
    }
}

/* The full 1-RTT discovery: sets the table and pmtu (0 when nothing came
 * back). Returns 0, or the error when it could not run (err filled). */
static int watch_discover(struct watch *w, char *summary, size_t slen, char *err, size_t errlen) {
    struct probe_pmtu_discovery d;
    int rc = probe_pmtu_discover(w->host, w->port, w->timeout_ms, &d, err, errlen);
    if (rc < 0 && rc != PROBE_E_TIMEOUT) {
        w->pmtu = 0;
        snprintf(summary, slen, "%s", err);
        return rc;
    }
    w->n = d.n;
    memcpy(w->table, d.sizes, sizeof w->table);
    w->pmtu = d.pmtu;
    round_summary(&d, summary, slen);
    return 0;
}

/* Waits until `until_ms` (watch time); 1 when the watch must end first. */
static int watch_wait(const struct watch *w, double until_ms, double end_ms) {
    for (;;) {
        if (w->o->stop && *w->o->stop) return 1;
        double now = watch_ms(w);
        if (end_ms > 0 && now >= end_ms) return 1;
        if (now >= until_ms) return 0;
        double left = until_ms - now;
        if (end_ms > 0 && end_ms - now < left) left = end_ms - now;
        if (left > WATCH_SLICE_MS) left = WATCH_SLICE_MS;
        struct timespec ts = {0, (long)(left * 1e6)};
        nanosleep(&ts, NULL); /* a signal cuts it short: *stop is looked at next */
    }
}

/* One reprobe: the current size and the next one up. */
static void watch_reprobe(struct watch *w) {
    char sum[256], sum2[256], err[256];
    int old = w->pmtu;
    if (!old) {
        int rc = watch_discover(w, sum, sizeof sum, err, sizeof err);
        emit(w, PROBE_PMTU_WATCH_RESTART, old, 1, "nothing was acknowledged: discovered again%s: %s",
             rc < 0 ? " and failed" : "", sum);
        return;
    }
    int next = probe_pmtu_next_size(w->table, w->n, old);
    int sizes[2] = {old, next};
    struct probe_pmtu_discovery d;
    int rc = probe_pmtu_probe_sizes(w->host, w->port, sizes, next ? 2 : 1, w->timeout_ms, &d, err, sizeof err);
    if (rc < 0 || !d.acked[0]) {
        if (rc < 0) snprintf(sum, sizeof sum, "%s", err);
        else round_summary(&d, sum, sizeof sum);
        watch_discover(w, sum2, sizeof sum2, err, sizeof err);
        emit(w, PROBE_PMTU_WATCH_RESTART, old, 2, "%d lost (%s): started over: %s", old, sum, sum2);
        return;
    }
    if (!next || !d.acked[1]) {
        round_summary(&d, sum, sizeof sum);
        emit(w, PROBE_PMTU_WATCH_SAME, old, 1, "%s", sum);
        return;
    }
    /* The path grew: every size above the acknowledged one, at once. */
    w->pmtu = next;
    int larger[PROBE_PMTU_MAX_SIZES], nl = 0;
    for (int i = 0; i < w->n; i++)
        if (w->table[i] > next) larger[nl++] = w->table[i];
    if (!nl) {
        emit(w, PROBE_PMTU_WATCH_GREW, old, 1, "%d acknowledged, the local MTU", next);
        return;
    }
    rc = probe_pmtu_probe_sizes(w->host, w->port, larger, nl, w->timeout_ms, &d, err, sizeof err);
    if (rc < 0) snprintf(sum2, sizeof sum2, "%s", err);
    else round_summary(&d, sum2, sizeof sum2);
    if (rc == 0 && d.pmtu > w->pmtu) w->pmtu = d.pmtu;
    emit(w, PROBE_PMTU_WATCH_GREW, old, 2, "%d acknowledged: reprobed the larger sizes: %s", next, sum2);
}

int probe_pmtu_watch(const char *host, int port, const struct probe_pmtu_watch_opts *o, char *err, size_t errlen) {
    struct watch w = {.host = host, .port = port, .o = o};
    w.timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : PROBE_PMTU_TIMEOUT_MS;
    w.interval_ms = o->interval_ms > 0 ? o->interval_ms : PROBE_PMTU_WATCH_INTERVAL_S * 1000;
    if (w.interval_ms > PROBE_PMTU_WATCH_INTERVAL_MAX_S * 1000 || o->seconds < 0) {
        snprintf(err, errlen, "interval or run time out of range");
        return PROBE_E_FAIL;
    }
    fv_clock_now(&w.t0);
    char sum[256];
    int rc = watch_discover(&w, sum, sizeof sum, err, errlen);
    if (rc < 0) return rc;
    emit(&w, PROBE_PMTU_WATCH_START, 0, 1, "1-RTT discovery: %s", sum);
    double end_ms = o->seconds > 0 ? o->seconds * 1e3 : 0;
    double tick = w.interval_ms;
    while (!watch_wait(&w, tick, end_ms)) {
        watch_reprobe(&w);
        tick += w.interval_ms;
        double now = watch_ms(&w);
        if (tick < now) tick = now + w.interval_ms; /* a slow round trip: no burst of catch-up probes */
    }
    return w.events;
}
