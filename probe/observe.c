/* What the observers share: an empty observation and the answers kept in
 * it, how long to wait for more, and matching answers (ICMP quotes, Echo
 * Replies) to the test that was sent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "observe.h"

void probe_observation_init(struct probe_observation *obs) {
    memset(obs, 0, sizeof *obs);
    obs->egress_packets = obs->egress_fragments = -1;
    obs->egress_df = obs->egress_first_len = obs->egress_max_len = -1;
    obs->frag_creates = -1;
    obs->echo_replies = -1;
    probe_packet_seen_init(&obs->pkt);
}

void *probe_observer_state_new(size_t size, const char *name, char *err, size_t errlen) {
    void *s = calloc(1, size);
    if (!s) snprintf(err, errlen, "out of memory for the %s observer", name);
    return s;
}

void probe_observation_add(struct probe_observation *obs, const struct probe_icmp *a) {
    if (obs->nanswers < PROBE_ANSWERS_MAX) obs->answers[obs->nanswers++] = *a;
    else obs->answers_dropped++;
}

void probe_wait_decided(struct probe_wait *w, int grace_ms) {
    if (w->decided) return;
    w->decided = 1;
    probe_deadline_in(&w->grace_end, grace_ms);
}

int probe_wait_left_ms(const struct probe_wait *w) {
    int left = probe_ms_until(w->deadline);
    if (w->decided) {
        int grace = probe_ms_until(&w->grace_end);
        if (grace < left) left = grace;
    }
    return left;
}

/* True when an Echo Reply (id, seq) from `from` answers this ICMP test. */
int probe_echo_reply_matches(const struct probe_sendinfo *si, const void *from, int id, int seq) {
    size_t alen = si->family == AF_INET6 ? 16 : 4;
    return id == si->sport && seq == si->dport && !memcmp(from, probe_sockaddr_addr(&si->remote), alen);
}

int probe_answer_matches(const struct probe_sendinfo *si, const struct probe_quote *q,
                         const int64_t *known_ids, int nids) {
    size_t alen = si->family == AF_INET6 ? 16 : 4;
    if (q->family != si->family) return 0;
    if (memcmp(q->src, probe_sockaddr_addr(&si->local), alen) || memcmp(q->dst, probe_sockaddr_addr(&si->remote), alen))
        return 0;
    if (q->l4 >= 0) return q->l4 == si->l4 && q->sport == si->sport && q->dport == si->dport;
    /* A later fragment: only its ID ties it to this test. */
    for (int i = 0; i < nids; i++)
        if (q->id >= 0 && q->id == known_ids[i]) return 1;
    return 0;
}
