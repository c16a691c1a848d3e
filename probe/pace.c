/* The pacer of TTL-limited sends (probe_pace.h): a token bucket per path,
 * pure on a given clock, and the process's table of them. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "probe_lab.h"
#include "probe_pace.h"
#include "probe_result.h"

static void pacer_refill(struct probe_pacer *p, double now_ms) {
    if (now_ms > p->last_ms) {
        p->tokens += (now_ms - p->last_ms) / PROBE_PACE_INTERVAL_MS;
        if (p->tokens > PROBE_PACE_BURST) p->tokens = PROBE_PACE_BURST;
        p->last_ms = now_ms;
    }
}

void probe_pacer_init(struct probe_pacer *p, double now_ms) {
    p->tokens = PROBE_PACE_BURST;
    p->last_ms = now_ms;
    p->limited = 0;
}

int probe_pacer_book(struct probe_pacer *p, double now_ms) {
    pacer_refill(p, now_ms);
    /* last_ms may lie ahead of now: sends already booked, the bucket empty then. */
    double at = p->last_ms;
    if (p->tokens < 1) {
        at += (1 - p->tokens) * PROBE_PACE_INTERVAL_MS;
        p->tokens = 0;
        p->last_ms = at;
    } else {
        p->tokens -= 1;
    }
    if (!p->limited) {
        p->last_ms = now_ms > p->last_ms ? now_ms : p->last_ms;
        return 0;
    }
    return at > now_ms ? (int)(at - now_ms + 0.999) : 0;
}

void probe_pacer_drained(struct probe_pacer *p, double now_ms, int limited) {
    pacer_refill(p, now_ms);
    p->tokens = 0;
    if (limited) p->limited = 1;
}

void probe_pace_sleep(int ms) {
    if (ms <= 0) return;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* FNV-1a over the lab's layout: its routers' links and behaviours. */
static unsigned lab_layout_hash(const struct probe_lab *lab) {
    unsigned h = 2166136261u;
    const unsigned char *b[2] = {(const unsigned char *)lab->cfg.mtu, (const unsigned char *)lab->cfg.behave};
    size_t len[2] = {sizeof lab->cfg.mtu, sizeof lab->cfg.behave};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < len[k]; i++) h = (h ^ b[k][i]) * 16777619u;
    return h;
}

int probe_pace_path(char *out, size_t n, const struct probe_lab *lab, const char *host) {
    if (!lab) {
        snprintf(out, n, "|%s", host ? host : "");
        return 1;
    }
    snprintf(out, n, "%s/%d/%08x|%s", lab->cfg.prefix, lab->cfg.routers, lab_layout_hash(lab), host ? host : "");
    for (int k = 0; k < PROBE_LAB_NODES_MAX; k++)
        if (lab->cfg.behave[k] & PROBE_LAB_RATELIMIT) return 1;
    return 0;
}

static pthread_mutex_t pace_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char key[96];
    struct probe_pacer p;
    double used_ms;
} pace_table[PROBE_PACE_PATHS];

/* The slot of path (the least recently used one is taken for a new path). */
static struct probe_pacer *pace_slot(const char *path, double now_ms) {
    int lru = 0;
    for (int i = 0; i < PROBE_PACE_PATHS; i++) {
        if (pace_table[i].key[0] && !strcmp(pace_table[i].key, path)) {
            pace_table[i].used_ms = now_ms;
            return &pace_table[i].p;
        }
        if (pace_table[i].used_ms < pace_table[lru].used_ms || !pace_table[i].key[0]) lru = i;
    }
    snprintf(pace_table[lru].key, sizeof pace_table[lru].key, "%s", path);
    pace_table[lru].used_ms = now_ms;
    probe_pacer_init(&pace_table[lru].p, now_ms);
    return &pace_table[lru].p;
}

int probe_pace_wait(const char *path) {
    double now = fv_clock_ms_frac();
    pthread_mutex_lock(&pace_mu);
    int wait = probe_pacer_book(pace_slot(path, now), now);
    pthread_mutex_unlock(&pace_mu);
    probe_pace_sleep(wait);
    return wait;
}

void probe_pace_drained(const char *path, int limited) {
    double now = fv_clock_ms_frac();
    pthread_mutex_lock(&pace_mu);
    probe_pacer_drained(pace_slot(path, now), now, limited);
    pthread_mutex_unlock(&pace_mu);
}

int probe_pace_retry_wanted(const struct probe_result *r, int paced) {
    return paced && r->sent.answer == PROBE_ANS_YES && r->fragmented.answer == PROBE_ANS_UNKNOWN &&
           !strcmp(r->egress.observer, "raw") && !r->witness.target[0] && r->spec.ttl > 0 && r->spec.ttl < 64 &&
           r->icmp.answers == 0 && r->icmp.other.answers == 0;
}
