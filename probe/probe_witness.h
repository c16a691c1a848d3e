/* libfragprobe: the far-end witness (probe/witness*.c).
 *
 * `fragvote witness PORT` runs probe_witness_run on the far end; the prober
 * puts a probe header at the start of the test's payload and the witness
 * answers with a report of what arrived: whole or in fragments
 * (IP_RECVFRAGSIZE / IPV6_RECVFRAGSIZE: the largest fragment of a
 * reassembled datagram, as its IP packet length), the size, the TTL / hop
 * limit on arrival, for TCP the data segments; with CAP_NET_RAW also DF and
 * the exact pieces. Header and report are tagged with SipHash-2-4 under a
 * key both ends share, and the report echoes the prober's nonce.
 *
 * Not a reflector: a datagram is answered only when it is a well-formed probe
 * with a valid tag and a nonce not seen before; a reply is
 * PROBE_WITNESS_REPORT_BYTES (<= PROBE_WITNESS_REPLY_MAX), never more than the
 * probe carried (a probe is at least PROBE_WITNESS_PROBE_BYTES); at most
 * PROBE_WITNESS_RATE replies a second overall and PROBE_WITNESS_RATE_SOURCE
 * per source address. */
#ifndef FRAGPROBE_WITNESS_PUBLIC_H
#define FRAGPROBE_WITNESS_PUBLIC_H

#include "probe_result.h"

#define PROBE_WITNESS_KEY_BYTES 16
#define PROBE_WITNESS_NONCE_BYTES 16
#define PROBE_WITNESS_PROBE_BYTES 48   /* header at the start of a probe's payload */
#define PROBE_WITNESS_REPORT_BYTES 48  /* one report */
#define PROBE_WITNESS_REPLY_MAX 64     /* hard cap on any reply */
#define PROBE_WITNESS_RATE 1000        /* replies per second, all sources */
#define PROBE_WITNESS_RATE_SOURCE 200  /* replies per second to one source address */
#define PROBE_WITNESS_NONCES 1024      /* nonces remembered: a replayed probe gets nothing */
#define PROBE_WITNESS_TCP_CONNS 16     /* TCP connections served at once; more are refused */
#define PROBE_WITNESS_TCP_MS 500       /* a TCP probe's data must arrive within this (then: what came) */
#define PROBE_WITNESS_PORT_LAB 33435   /* the lab's witness in dst */

/* The header at the start of a probe's payload (wire: 48 bytes, big endian). */
struct probe_witness_probe {
    int proto;                    /* enum probe_proto of the test */
    uint8_t nonce[PROBE_WITNESS_NONCE_BYTES];
    uint32_t payload_len;         /* transport payload bytes the prober sent */
};
/* What the witness saw of one probe. Fields are -1 when it could not see them. */
struct probe_witness_report {
    uint8_t nonce[PROBE_WITNESS_NONCE_BYTES];
    int raw;                      /* 1: the witness had CAP_NET_RAW (DF and pieces exact) */
    int ttl;                      /* TTL / hop limit on arrival (first fragment) */
    int df;                       /* IPv4 DF on arrival (raw only) */
    int payload_bytes;            /* transport payload bytes received */
    int fragments;                /* IP fragments it arrived in: 0 whole (raw: exact; else -1 when fragmented) */
    int frag_max;                 /* IP length of the largest fragment, 0 when it arrived whole */
    int frag_min;                 /* of the smallest (raw only) */
    int segments;                 /* TCP data segments received (-1 for UDP) */
    int seg_max;                  /* TCP: IP length of the largest data segment (raw), else -1 */
};
/* Pure: header / report to and from their wire form. Encode returns the bytes
 * written (or -1 when len is too small); decode returns 0, or -1 for anything
 * that is not exactly a well-formed, correctly tagged message. The report's
 * decoder also requires the expected nonce. */
int probe_witness_probe_encode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const struct probe_witness_probe *p,
                               uint8_t *buf, size_t len);
int probe_witness_probe_decode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *buf, size_t len,
                               struct probe_witness_probe *out);
int probe_witness_report_encode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const struct probe_witness_report *r,
                                uint8_t *buf, size_t len);
int probe_witness_report_decode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *buf, size_t len,
                                const uint8_t nonce[PROBE_WITNESS_NONCE_BYTES], struct probe_witness_report *out);
/* SipHash-2-4 (the tag). Pure. */
uint64_t probe_witness_siphash(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *msg, size_t len);
/* "0011..." (32 hex digits) to a key: 0, or -1. */
int probe_witness_key_parse(const char *hex, uint8_t key[PROBE_WITNESS_KEY_BYTES]);
void probe_witness_key_format(const uint8_t key[PROBE_WITNESS_KEY_BYTES], char out[2 * PROBE_WITNESS_KEY_BYTES + 1]);
/* A fresh random key or nonce (getrandom): 0, or PROBE_E_FAIL with err. */
int probe_witness_random(uint8_t *out, size_t n, char *err, size_t errlen);

/* The witness's rate caps and replay memory (probe/witness_guard.c), pure
 * apart from the clock the caller passes: one per witness. */
#define PROBE_WITNESS_SOURCES 256     /* source addresses tracked per window */
struct probe_witness_guard {
    int rate, rate_source;             /* caps per one-second window */
    double window_start;               /* seconds, caller's clock */
    int in_window;
    int nsources;
    struct { uint8_t addr[16]; int n; } sources[PROBE_WITNESS_SOURCES];
    uint8_t nonces[PROBE_WITNESS_NONCES][PROBE_WITNESS_NONCE_BYTES];
    int nnonces, next_nonce;
};
/* rate / rate_source 0 = the documented defaults. */
void probe_witness_guard_init(struct probe_witness_guard *g, int rate, int rate_source);
/* 1 when a reply to addr (16 bytes, IPv4 in the first 4) for nonce may go out
 * now (and counts it), 0 when a rate cap says no, -1 for a nonce already answered. */
int probe_witness_guard_allow(struct probe_witness_guard *g, const uint8_t addr[16],
                              const uint8_t nonce[PROBE_WITNESS_NONCE_BYTES], double now_s);

/* The daemon. Listens on UDP and TCP port (IPv4 and IPv6) in the calling
 * thread's network namespace until *stop is set or `seconds` pass (0 = no
 * limit). raw: 1 use CAP_NET_RAW (a packet tap) for DF and exact pieces,
 * 0 never, -1 when the process has it. *bound_port (may be NULL) gets the
 * port once listening (port 0 = any free one). Returns the replies sent, or
 * PROBE_E_*. */
struct probe_witness_stats {
    long received, replied, bad, replayed, rate_capped, tcp_refused;
};
struct probe_witness_opts {
    int port;
    uint8_t key[PROBE_WITNESS_KEY_BYTES];
    int raw;
    int rate, rate_source;             /* 0 = defaults */
    int seconds;
    volatile int *stop;
    volatile int *bound_port;          /* set once listening (may be NULL) */
    struct probe_witness_stats *stats; /* may be NULL */
    /* Called once every socket is open and bound, before the first packet
     * is read (fragvote witness drops root here); non-zero stops the run
     * with err. NULL: none. */
    int (*ready)(void *ctx, char *err, size_t errlen);
    void *ready_ctx;
};
int probe_witness_run(const struct probe_witness_opts *o, char *err, size_t errlen);

/* ---- the prober's side ----
 * With probe_run_opts.witness a UDP or TCP test goes to the witness (its
 * host and port; "" host = the lab's dst), with TTL 64 when the spec says
 * auto (the probe must reach it), the probe header at the start of the
 * payload (tests smaller than IP + transport header + 48 bytes go without),
 * and the observers' wait ends when the report comes back. Within the
 * test's timeout: a silent or unreachable witness leaves the near-end answer
 * with a note in r->witness.note and the evidence. */
struct probe_witness_target {
    char host[256];                    /* "" = the lab's dst */
    int port;
    uint8_t key[PROBE_WITNESS_KEY_BYTES];
};
/* "HOST:PORT" / "[V6]:PORT" into t->host / t->port: 0, or -1 with err. */
int probe_witness_target_parse(const char *s, struct probe_witness_target *t, char *err, size_t errlen);
/* Pure: merges the witness's report (r->witness: its report, heard) into
 * the near-end facts. Each fact keeps the near end's observation where it
 * has one; otherwise the far end's (basis observed, far_end 1), else the
 * kernel's rules (TCP is never IP-fragmented by its sender, routers never
 * fragment IPv6). topo may be NULL (no link MTUs: "a router on the way"). */
void probe_witness_merge(const struct probe_path_topology *topo, struct probe_result *r);
/* "observed (far end)" for a fact of r the witness observed, else
 * probe_basis_name (f is &r->sent, &r->df or &r->fragmented). */
const char *probe_fact_basis_label(const struct probe_result *r, const struct probe_fact *f);

#endif

