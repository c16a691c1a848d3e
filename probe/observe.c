/* Choosing an observer, matching answers to a test, and clock helpers
 * shared by the observers. */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "observe.h"

const struct probe_observer *probe_observer_get(enum probe_observer_kind kind, char *err, size_t errlen) {
    if (kind == PROBE_OBS_AUTO)
        kind = (geteuid() == 0 || probe_priv_has(CAP_NET_RAW)) ? PROBE_OBS_RAW : PROBE_OBS_RECVERR;
    if (kind == PROBE_OBS_RAW) return &probe_observer_raw;
    if (kind == PROBE_OBS_RECVERR) return &probe_observer_recverr;
    snprintf(err, errlen, "the %s observer is not built into this fragvote", probe_observer_name(kind));
    return NULL;
}

void probe_observation_init(struct probe_observation *obs) {
    memset(obs, 0, sizeof *obs);
    obs->egress_packets = obs->egress_fragments = -1;
    obs->egress_df = obs->egress_first_len = obs->egress_max_len = -1;
    obs->frag_creates = -1;
    obs->echo_replies = -1;
}

static const void *sa_addr(const struct sockaddr_storage *ss) {
    return ss->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
                                     : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
}

/* True when an Echo Reply (id, seq) from `from` answers this ICMP test. */
int probe_echo_reply_matches(const struct probe_sendinfo *si, const void *from, int id, int seq) {
    size_t alen = si->family == AF_INET6 ? 16 : 4;
    return id == si->sport && seq == si->dport && !memcmp(from, sa_addr(&si->remote), alen);
}

int probe_answer_matches(const struct probe_sendinfo *si, const struct probe_quote *q,
                         const int64_t *known_ids, int nids) {
    size_t alen = si->family == AF_INET6 ? 16 : 4;
    if (q->family != si->family) return 0;
    if (memcmp(q->src, sa_addr(&si->local), alen) || memcmp(q->dst, sa_addr(&si->remote), alen)) return 0;
    if (q->l4 >= 0) return q->l4 == si->l4 && q->sport == si->sport && q->dport == si->dport;
    /* A later fragment: only its ID ties it to this test. */
    for (int i = 0; i < nids; i++)
        if (q->id >= 0 && q->id == known_ids[i]) return 1;
    return 0;
}

double probe_ms_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

void probe_deadline_after(const struct timespec *t0, int ms, struct timespec *out) {
    *out = *t0;
    out->tv_sec += ms / 1000;
    out->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (out->tv_nsec >= 1000000000L) {
        out->tv_sec++;
        out->tv_nsec -= 1000000000L;
    }
}

void probe_deadline_in(struct timespec *out, int ms) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    probe_deadline_after(&now, ms, out);
}

int probe_ms_until(const struct timespec *deadline) {
    double left = -probe_ms_since(deadline);
    return left <= 0 ? 0 : (int)(left + 0.999);
}
