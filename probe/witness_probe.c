/* The prober's side of a witness, around one test: the nonce before the
 * send, the report after it (read from the sending socket: the witness
 * answers over the same path), and "HOST:PORT" of a witness. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base.h"
#include "witness_probe.h"

int probe_witness_target_parse(const char *s, struct probe_witness_target *t, char *err, size_t errlen) {
    const char *colon;
    size_t hl;
    const char *host = s;
    if (!s || !*s) {
        snprintf(err, errlen, "a witness is HOST:PORT");
        return -1;
    }
    if (s[0] == '[') {
        const char *end = strchr(s, ']');
        if (!end || end[1] != ':') {
            snprintf(err, errlen, "a witness with an IPv6 address is [ADDR]:PORT, not '%s'", s);
            return -1;
        }
        host = s + 1;
        hl = (size_t)(end - host);
        colon = end + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon || strchr(s, ':') != colon) {
            snprintf(err, errlen, "a witness is HOST:PORT (IPv6: [ADDR]:PORT), not '%s'", s);
            return -1;
        }
        hl = (size_t)(colon - s);
    }
    char *endp;
    errno = 0;
    long port = strtol(colon + 1, &endp, 10);
    if (!colon[1] || *endp || errno || port < 1 || port > 65535) {
        snprintf(err, errlen, "the witness's port must be 1..65535, not '%s'", colon + 1);
        return -1;
    }
    if (hl >= sizeof t->host) {
        snprintf(err, errlen, "the witness's host name is too long");
        return -1;
    }
    memcpy(t->host, host, hl);
    t->host[hl] = 0;
    t->port = (int)port;
    return 0;
}

int witness_probe_begin(struct probe_sendinfo *si, const struct probe_witness_target *t, char *err, size_t errlen) {
    if (probe_witness_random(si->witness_nonce, sizeof si->witness_nonce, err, errlen) < 0) return PROBE_E_FAIL;
    si->witness_key = t->key;
    return 0;
}

/* 1 when the observation holds an answer that means the probe cannot have
 * reached the witness (or will not be answered): stop waiting for it. Not
 * for TCP's Frag Needed / Packet Too Big: the stack resends smaller
 * segments at once, and those reach the witness. */
static int near_end_decided(const struct probe_sendinfo *si, const struct probe_observation *obs) {
    for (int i = 0; i < obs->nanswers; i++) {
        enum probe_icmp_kind k = obs->answers[i].kind;
        if (k == PROBE_ICMP_OTHER || (si->l4 == IPPROTO_TCP && k == PROBE_ICMP_FRAG_NEEDED)) continue;
        return 1;
    }
    return 0;
}

void witness_probe_collect(const struct probe_sendinfo *si, const struct probe_observation *obs,
                           const struct timespec *deadline, int timeout_ms, struct probe_result *r) {
    r->witness.heard = 0;
    if (!si->sent) {
        snprintf(r->witness.note, sizeof r->witness.note, "nothing was sent, so the witness %.80s had nothing to see",
                 r->witness.target);
        return;
    }
    /* The observers waited for the report already; TCP with the recverr
     * observer (which does not watch TCP sockets) may still be waiting. */
    for (;;) {
        int left = near_end_decided(si, obs) ? 0 : probe_ms_until(deadline);
        struct pollfd p = {.fd = si->fd, .events = POLLIN};
        if (poll(&p, 1, left) <= 0 || !(p.revents & POLLIN)) break;
        uint8_t buf[PROBE_WITNESS_REPLY_MAX + 1];
        ssize_t n = recv(si->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) break;
        struct probe_witness_report w;
        if (probe_witness_report_decode(si->witness_key, buf, (size_t)n, si->witness_nonce, &w) < 0) {
            if (si->l4 == IPPROTO_TCP) break; /* a stream: what follows would be misaligned */
            continue;                         /* a stray datagram: wait for the real one */
        }
        r->witness.heard = 1;
        r->witness.raw = w.raw;
        r->witness.ttl = w.ttl;
        r->witness.df = w.df;
        r->witness.bytes = w.payload_bytes;
        r->witness.fragments = w.fragments;
        r->witness.frag_max = w.frag_max;
        r->witness.frag_min = w.frag_min;
        r->witness.segments = w.segments;
        r->witness.seg_max = w.seg_max;
        return;
    }
    if (near_end_decided(si, obs))
        snprintf(r->witness.note, sizeof r->witness.note,
                 "the witness %.80s did not report: an ICMP error came back instead (the probe did not reach a listening witness)", r->witness.target);
    else {
        r->witness.silent = 1;
        r->witness.waited_ms = timeout_ms;
        snprintf(r->witness.note, sizeof r->witness.note,
                 "the witness %.80s did not answer within %d ms: the near end's observation only", r->witness.target, timeout_ms);
    }
}
