/* The witness's wire format: the probe header the prober puts at the start
 * of a test's payload and the report the witness sends back. Both are 48
 * bytes, big endian, and end with a SipHash-2-4 tag over the rest under the
 * key both ends share; the report echoes the probe's nonce. Pure: no I/O, so
 * tests feed canned bytes and the fuzzer garbage.
 *
 *  probe  0 "FVWP"  4 version 1  5 proto  6..7 zero  8 nonce[16]
 *         24 payload_len u32  28..39 zero  40 tag u64
 *  report 0 "FVWR"  4 version 1  5 flags (1 raw, 2 df known, 4 fragments known)
 *         6 ttl (0 unknown)  7 df  8 nonce[16]  24 payload_bytes u32
 *         28 fragments u16  30 frag_max u16  32 frag_min u16
 *         34 segments u16 (0xffff none)  36 seg_max u16 (0 unknown)  38..39 zero
 *         40 tag u64 */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <errno.h>

#include "fragprobe.h"

#define WIRE_VERSION 1
#define WIRE_TAG_AT 40
#define WIRE_NONE16 0xffffu
#define FLAG_RAW 1
#define FLAG_DF 2
#define FLAG_FRAGS 4

static const uint8_t magic_probe[4] = {'F', 'V', 'W', 'P'};
static const uint8_t magic_report[4] = {'F', 'V', 'W', 'R'};

static uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#define SIPROUND                                                                                                   \
    do {                                                                                                           \
        v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);                                                  \
        v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;                                                                     \
        v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;                                                                     \
        v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);                                                  \
    } while (0)

uint64_t probe_witness_siphash(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *msg, size_t len) {
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
    uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = le64(msg + i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    for (size_t i = 0; i < len % 8; i++) b |= (uint64_t)msg[whole + i] << (8 * i);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static void put16(uint8_t *p, unsigned v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
    put16(p, v >> 16);
    put16(p + 2, v & 0xffff);
}
static unsigned get16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }

static void put_tag(const uint8_t *key, uint8_t *buf) {
    uint64_t t = probe_witness_siphash(key, buf, WIRE_TAG_AT);
    for (int i = 0; i < 8; i++) buf[WIRE_TAG_AT + i] = (uint8_t)(t >> (56 - 8 * i));
}

/* Constant time: a tag check must not tell an attacker how much was right. */
static int tag_ok(const uint8_t *key, const uint8_t *buf) {
    uint64_t t = probe_witness_siphash(key, buf, WIRE_TAG_AT);
    uint8_t diff = 0;
    for (int i = 0; i < 8; i++) diff |= (uint8_t)(buf[WIRE_TAG_AT + i] ^ (uint8_t)(t >> (56 - 8 * i)));
    return diff == 0;
}

static int zero(const uint8_t *p, size_t n) {
    uint8_t o = 0;
    for (size_t i = 0; i < n; i++) o |= p[i];
    return o == 0;
}

int probe_witness_probe_encode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const struct probe_witness_probe *p,
                               uint8_t *buf, size_t len) {
    if (len < PROBE_WITNESS_PROBE_BYTES || p->proto < 0 || p->proto > 255) return -1;
    memset(buf, 0, PROBE_WITNESS_PROBE_BYTES);
    memcpy(buf, magic_probe, 4);
    buf[4] = WIRE_VERSION;
    buf[5] = (uint8_t)p->proto;
    memcpy(buf + 8, p->nonce, PROBE_WITNESS_NONCE_BYTES);
    put32(buf + 24, p->payload_len);
    put_tag(key, buf);
    return PROBE_WITNESS_PROBE_BYTES;
}

int probe_witness_probe_decode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *buf, size_t len,
                               struct probe_witness_probe *out) {
    if (!buf || len < PROBE_WITNESS_PROBE_BYTES || memcmp(buf, magic_probe, 4) || buf[4] != WIRE_VERSION) return -1;
    if (buf[5] > PROBE_TCP6 || !zero(buf + 6, 2) || !zero(buf + 28, 12) || !tag_ok(key, buf)) return -1;
    memset(out, 0, sizeof *out);
    out->proto = buf[5];
    memcpy(out->nonce, buf + 8, PROBE_WITNESS_NONCE_BYTES);
    out->payload_len = get32(buf + 24);
    if (out->payload_len < PROBE_WITNESS_PROBE_BYTES || out->payload_len > PROBE_SIZE_MAX) return -1;
    return 0;
}

static unsigned clamp16(int v, unsigned none) { return v < 0 ? none : v > 0xfffe ? 0xfffe : (unsigned)v; }

int probe_witness_report_encode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const struct probe_witness_report *r,
                                uint8_t *buf, size_t len) {
    if (len < PROBE_WITNESS_REPORT_BYTES) return -1;
    memset(buf, 0, PROBE_WITNESS_REPORT_BYTES);
    memcpy(buf, magic_report, 4);
    buf[4] = WIRE_VERSION;
    buf[5] = (uint8_t)((r->raw == 1 ? FLAG_RAW : 0) | (r->df >= 0 ? FLAG_DF : 0) | (r->fragments >= 0 ? FLAG_FRAGS : 0));
    buf[6] = (uint8_t)(r->ttl > 0 && r->ttl <= 255 ? r->ttl : 0);
    buf[7] = (uint8_t)(r->df == 1);
    memcpy(buf + 8, r->nonce, PROBE_WITNESS_NONCE_BYTES);
    put32(buf + 24, r->payload_bytes > 0 ? (uint32_t)r->payload_bytes : 0);
    put16(buf + 28, r->fragments >= 0 ? clamp16(r->fragments, 0) : 0);
    put16(buf + 30, clamp16(r->frag_max, 0));
    put16(buf + 32, clamp16(r->frag_min, 0));
    put16(buf + 34, clamp16(r->segments, WIRE_NONE16));
    put16(buf + 36, clamp16(r->seg_max, 0));
    put_tag(key, buf);
    return PROBE_WITNESS_REPORT_BYTES;
}

int probe_witness_report_decode(const uint8_t key[PROBE_WITNESS_KEY_BYTES], const uint8_t *buf, size_t len,
                                const uint8_t nonce[PROBE_WITNESS_NONCE_BYTES], struct probe_witness_report *out) {
    if (!buf || len != PROBE_WITNESS_REPORT_BYTES || memcmp(buf, magic_report, 4) || buf[4] != WIRE_VERSION) return -1;
    if ((buf[5] & ~(FLAG_RAW | FLAG_DF | FLAG_FRAGS)) || buf[7] > 1 || !zero(buf + 38, 2)) return -1;
    if (!tag_ok(key, buf) || memcmp(buf + 8, nonce, PROBE_WITNESS_NONCE_BYTES)) return -1;
    memset(out, 0, sizeof *out);
    memcpy(out->nonce, buf + 8, PROBE_WITNESS_NONCE_BYTES);
    out->raw = buf[5] & FLAG_RAW ? 1 : 0;
    out->ttl = buf[6] ? buf[6] : -1;
    out->df = buf[5] & FLAG_DF ? buf[7] : -1;
    uint32_t pb = get32(buf + 24);
    if (pb > PROBE_SIZE_MAX) return -1;
    out->payload_bytes = (int)pb;
    out->fragments = buf[5] & FLAG_FRAGS ? (int)get16(buf + 28) : -1;
    out->frag_max = (int)get16(buf + 30);
    out->frag_min = buf[5] & FLAG_FRAGS ? (int)get16(buf + 32) : -1;
    unsigned seg = get16(buf + 34);
    out->segments = seg == WIRE_NONE16 ? -1 : (int)seg;
    out->seg_max = get16(buf + 36) ? (int)get16(buf + 36) : -1;
    /* Whole means no fragment sizes; fragmented means the largest is known. */
    if (out->fragments == 0 && out->frag_max) return -1;
    if (out->fragments > 0 && !out->frag_max) return -1;
    return 0;
}

int probe_witness_key_parse(const char *hex, uint8_t key[PROBE_WITNESS_KEY_BYTES]) {
    if (!hex || strlen(hex) != 2 * PROBE_WITNESS_KEY_BYTES) return -1;
    for (int i = 0; i < PROBE_WITNESS_KEY_BYTES; i++) {
        unsigned v = 0;
        for (int j = 0; j < 2; j++) {
            char c = hex[2 * i + j];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) return -1;
            v = v << 4 | (unsigned)d;
        }
        key[i] = (uint8_t)v;
    }
    return 0;
}

void probe_witness_key_format(const uint8_t key[PROBE_WITNESS_KEY_BYTES], char out[2 * PROBE_WITNESS_KEY_BYTES + 1]) {
    for (int i = 0; i < PROBE_WITNESS_KEY_BYTES; i++) snprintf(out + 2 * i, 3, "%02x", key[i]);
}

int probe_witness_random(uint8_t *out, size_t n, char *err, size_t errlen) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            snprintf(err, errlen, "no random bytes for a key or nonce: %s", strerror(errno));
            return PROBE_E_FAIL;
        }
        got += (size_t)r;
    }
    return 0;
}
