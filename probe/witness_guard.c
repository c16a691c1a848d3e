/* Why the witness is no reflector, in one place: it replies at most
 * g->rate times per one-second window overall and g->rate_source times to one
 * source address, and never twice to the same nonce (a probe captured and
 * replayed under a spoofed source address gets nothing). Pure: the caller
 * passes the clock, so tests can drive the windows; witness_admit applies
 * it to the daemon at the clock's time. */
#include <string.h>

#include "witness.h"

void probe_witness_guard_init(struct probe_witness_guard *g, int rate, int rate_source) {
    memset(g, 0, sizeof *g);
    g->rate = rate > 0 ? rate : PROBE_WITNESS_RATE;
    g->rate_source = rate_source > 0 ? rate_source : PROBE_WITNESS_RATE_SOURCE;
    g->window_start = -1e9;
}

static int nonce_seen(const struct probe_witness_guard *g, const uint8_t *nonce) {
    for (int i = 0; i < g->nnonces; i++)
        if (!memcmp(g->nonces[i], nonce, PROBE_WITNESS_NONCE_BYTES)) return 1;
    return 0;
}

int probe_witness_guard_allow(struct probe_witness_guard *g, const uint8_t addr[16],
                              const uint8_t nonce[PROBE_WITNESS_NONCE_BYTES], double now_s) {
    if (nonce_seen(g, nonce)) return -1;
    if (now_s - g->window_start >= 1.0 || now_s < g->window_start) {
        g->window_start = now_s;
        g->in_window = 0;
        g->nsources = 0;
    }
    if (g->in_window >= g->rate) return 0;
    int slot = -1;
    for (int i = 0; i < g->nsources; i++)
        if (!memcmp(g->sources[i].addr, addr, 16)) slot = i;
    if (slot < 0) {
        /* Too many sources in one window: refuse newcomers rather than forget
         * someone's count. */
        if (g->nsources >= PROBE_WITNESS_SOURCES) return 0;
        slot = g->nsources++;
        memcpy(g->sources[slot].addr, addr, 16);
        g->sources[slot].n = 0;
    }
    if (g->sources[slot].n >= g->rate_source) return 0;
    g->sources[slot].n++;
    g->in_window++;
    memcpy(g->nonces[g->next_nonce], nonce, PROBE_WITNESS_NONCE_BYTES);
    g->next_nonce = (g->next_nonce + 1) % PROBE_WITNESS_NONCES;
    if (g->nnonces < PROBE_WITNESS_NONCES) g->nnonces++;
    return 1;
}

int witness_admit(struct witness_ctx *w, const uint8_t src[16], const struct probe_witness_probe *pr,
                  struct probe_witness_report *r) {
    int verdict = probe_witness_guard_allow(&w->guard, src, pr->nonce, probe_clock_s());
    if (verdict <= 0) {
        if (verdict < 0) w->st.replayed++;
        else w->st.rate_capped++;
        return 0;
    }
    *r = (struct probe_witness_report){.raw = 0, .ttl = -1, .df = -1, .fragments = -1, .frag_max = 0,
                                       .frag_min = -1, .segments = -1, .seg_max = -1};
    memcpy(r->nonce, pr->nonce, sizeof r->nonce);
    return 1;
}
