/* The witness's pure parts with canned bytes: SipHash-2-4 against the
 * reference vector, the probe header and the report (round trip, exact
 * bytes, every tampering refused), the rate caps and replay memory driven by
 * a fake clock, and the tap's reading of arriving packets. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "check.h"
#include "fragprobe.h"
#include "witness.h"

static const uint8_t key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static void test_siphash_matches_the_reference_vector(void) {
    uint8_t msg[15];
    for (int i = 0; i < 15; i++) msg[i] = (uint8_t)i;
    CHECK(probe_witness_siphash(key, msg, 15) == 0xa129ca6149be45e5ULL);
    /* The paper's first vectors: empty message and 8 bytes. */
    CHECK(probe_witness_siphash(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
    CHECK(probe_witness_siphash(key, msg, 8) == 0x93f5f5799a932462ULL);
}

static struct probe_witness_probe sample_probe(void) {
    struct probe_witness_probe p = {.proto = PROBE_UDP4, .payload_len = 1372};
    for (int i = 0; i < 16; i++) p.nonce[i] = (uint8_t)(0xa0 + i);
    return p;
}

static void test_probe_header_round_trips_with_its_exact_bytes(void) {
    struct probe_witness_probe p = sample_probe(), q;
    uint8_t buf[64];
    CHECK_INT(probe_witness_probe_encode(key, &p, buf, sizeof buf), PROBE_WITNESS_PROBE_BYTES);
    CHECK(!memcmp(buf, "FVWP\x01\x00\x00\x00", 8));
    CHECK(buf[8] == 0xa0 && buf[23] == 0xaf);
    CHECK(buf[24] == 0 && buf[25] == 0 && buf[26] == 0x05 && buf[27] == 0x5c); /* 1372 big endian */
    CHECK_INT(probe_witness_probe_decode(key, buf, PROBE_WITNESS_PROBE_BYTES, &q), 0);
    CHECK_INT(q.proto, PROBE_UDP4);
    CHECK_INT(q.payload_len, 1372);
    CHECK(!memcmp(q.nonce, p.nonce, 16));
    /* The rest of a probe's payload is filler: decoding ignores it. */
    uint8_t big[1372];
    memset(big, 'f', sizeof big);
    memcpy(big, buf, PROBE_WITNESS_PROBE_BYTES);
    CHECK_INT(probe_witness_probe_decode(key, big, sizeof big, &q), 0);
    CHECK_INT(probe_witness_probe_encode(key, &p, buf, 47), -1);
}

static void test_every_tampered_or_short_probe_is_refused(void) {
    struct probe_witness_probe p = sample_probe(), q;
    uint8_t buf[PROBE_WITNESS_PROBE_BYTES], bad[PROBE_WITNESS_PROBE_BYTES];
    probe_witness_probe_encode(key, &p, buf, sizeof buf);
    for (int i = 0; i < PROBE_WITNESS_PROBE_BYTES; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, buf, sizeof bad);
            bad[i] ^= (uint8_t)(1 << bit);
            if (probe_witness_probe_decode(key, bad, sizeof bad, &q) == 0) {
                fprintf(stderr, "byte %d bit %d flipped and still accepted\n", i, bit);
                CHECK(0);
            }
        }
    for (size_t n = 0; n < PROBE_WITNESS_PROBE_BYTES; n++) CHECK(probe_witness_probe_decode(key, buf, n, &q) < 0);
    uint8_t other[16] = {1};
    CHECK(probe_witness_probe_decode(other, buf, sizeof buf, &q) < 0); /* the wrong key */
    CHECK(probe_witness_probe_decode(key, NULL, 0, &q) < 0);
    /* A header claiming fewer payload bytes than the header itself. */
    p.payload_len = 47;
    probe_witness_probe_encode(key, &p, buf, sizeof buf);
    CHECK(probe_witness_probe_decode(key, buf, sizeof buf, &q) < 0);
}

static void test_report_round_trips_and_checks_the_nonce(void) {
    struct probe_witness_report r = {.raw = 1, .ttl = 62, .df = 0, .payload_bytes = 1372, .fragments = 2,
                                     .frag_max = 1276, .frag_min = 144, .segments = -1, .seg_max = -1}, s;
    for (int i = 0; i < 16; i++) r.nonce[i] = (uint8_t)(0xa0 + i);
    uint8_t buf[PROBE_WITNESS_REPLY_MAX];
    CHECK_INT(probe_witness_report_encode(key, &r, buf, sizeof buf), PROBE_WITNESS_REPORT_BYTES);
    CHECK(PROBE_WITNESS_REPORT_BYTES <= PROBE_WITNESS_REPLY_MAX);
    CHECK(PROBE_WITNESS_REPORT_BYTES <= PROBE_WITNESS_PROBE_BYTES); /* never more than a probe carries */
    CHECK(!memcmp(buf, "FVWR\x01\x07\x3e\x00", 8)); /* flags raw|df|fragments, TTL 62, DF 0 */
    CHECK(buf[30] == 0x04 && buf[31] == 0xfc);      /* 1276 */
    CHECK_INT(probe_witness_report_decode(key, buf, PROBE_WITNESS_REPORT_BYTES, r.nonce, &s), 0);
    CHECK_INT(s.raw, 1);
    CHECK_INT(s.ttl, 62);
    CHECK_INT(s.df, 0);
    CHECK_INT(s.payload_bytes, 1372);
    CHECK_INT(s.fragments, 2);
    CHECK_INT(s.frag_max, 1276);
    CHECK_INT(s.frag_min, 144);
    CHECK_INT(s.segments, -1);
    uint8_t wrong[16] = {0};
    CHECK(probe_witness_report_decode(key, buf, PROBE_WITNESS_REPORT_BYTES, wrong, &s) < 0);
    CHECK(probe_witness_report_decode(key, buf, PROBE_WITNESS_REPORT_BYTES - 1, r.nonce, &s) < 0);
    CHECK(probe_witness_report_decode(key, buf, PROBE_WITNESS_REPORT_BYTES + 1, r.nonce, &s) < 0);
    for (int i = 0; i < PROBE_WITNESS_REPORT_BYTES; i++) {
        uint8_t bad[PROBE_WITNESS_REPORT_BYTES];
        memcpy(bad, buf, sizeof bad);
        bad[i] ^= 0x10;
        CHECK(probe_witness_report_decode(key, bad, sizeof bad, r.nonce, &s) < 0);
    }
}

static void test_unprivileged_report_says_what_it_could_not_see(void) {
    /* No tap: fragment count and DF unknown, only the largest fragment. */
    struct probe_witness_report r = {.raw = 0, .ttl = 62, .df = -1, .payload_bytes = 2972, .fragments = -1,
                                     .frag_max = 1276, .frag_min = -1, .segments = -1, .seg_max = -1}, s;
    memset(r.nonce, 7, 16);
    uint8_t buf[PROBE_WITNESS_REPORT_BYTES];
    probe_witness_report_encode(key, &r, buf, sizeof buf);
    CHECK_INT(probe_witness_report_decode(key, buf, sizeof buf, r.nonce, &s), 0);
    CHECK_INT(s.raw, 0);
    CHECK_INT(s.df, -1);
    CHECK_INT(s.fragments, -1);
    CHECK_INT(s.frag_max, 1276);
    CHECK_INT(s.frag_min, -1);
}

static void test_keys_parse_and_format(void) {
    uint8_t k[16];
    char hex[33];
    CHECK_INT(probe_witness_key_parse("000102030405060708090a0b0c0d0E0F", k), 0);
    CHECK(!memcmp(k, key, 16));
    probe_witness_key_format(k, hex);
    CHECK_STR(hex, "000102030405060708090a0b0c0d0e0f");
    CHECK(probe_witness_key_parse("000102030405060708090a0b0c0d0e0", k) < 0);
    CHECK(probe_witness_key_parse("000102030405060708090a0b0c0d0e0fa", k) < 0);
    CHECK(probe_witness_key_parse("g00102030405060708090a0b0c0d0e0f", k) < 0);
    CHECK(probe_witness_key_parse(NULL, k) < 0);
}

static void test_guard_caps_per_source_overall_and_replays(void) {
    static struct probe_witness_guard g;
    probe_witness_guard_init(&g, 0, 0);
    CHECK_INT(g.rate, PROBE_WITNESS_RATE);
    CHECK_INT(g.rate_source, PROBE_WITNESS_RATE_SOURCE);
    uint8_t a[16] = {192, 0, 2, 1}, nonce[16] = {0};
    int ok = 0;
    for (int i = 0; i < PROBE_WITNESS_RATE_SOURCE * 3; i++) {
        memcpy(nonce, &i, sizeof i);
        ok += probe_witness_guard_allow(&g, a, nonce, 10.0 + i * 1e-5) == 1;
    }
    CHECK_INT(ok, PROBE_WITNESS_RATE_SOURCE); /* one source: its cap per window */
    /* A nonce answered before gets nothing, even in a new window. */
    int first = 0;
    memset(nonce, 0, 16);
    memcpy(nonce, &first, sizeof first);
    CHECK_INT(probe_witness_guard_allow(&g, a, nonce, 12.0), -1);
    /* Many sources: the overall cap. */
    probe_witness_guard_init(&g, 0, 0);
    ok = 0;
    for (int i = 0; i < PROBE_WITNESS_RATE * 2; i++) {
        uint8_t src[16] = {198, 51, (uint8_t)(i / 4 % 256), (uint8_t)(i % 4)};
        memcpy(nonce, &i, sizeof i);
        ok += probe_witness_guard_allow(&g, src, nonce, 20.0) == 1;
    }
    CHECK(ok <= PROBE_WITNESS_RATE);
    CHECK(ok > 0);
    /* The next window serves again. */
    int k = 999999;
    memcpy(nonce, &k, sizeof k);
    uint8_t b[16] = {203, 0, 113, 9};
    CHECK_INT(probe_witness_guard_allow(&g, b, nonce, 21.5), 1);
}

/* A canned IPv4 first fragment (UDP to port 33435, MF=1, ID 0x1234, TTL 62,
 * 1276 bytes) and its last fragment (offset 1256, 136 bytes). */
static size_t canned_v4(uint8_t *p, int first, const uint8_t *nonce) {
    int len = first ? 1276 : 136;
    memset(p, 0, (size_t)len);
    p[0] = 0x45;
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    p[4] = 0x12;
    p[5] = 0x34;
    unsigned fo = first ? 0x2000 : 1256 / 8;
    p[6] = (uint8_t)(fo >> 8);
    p[7] = (uint8_t)fo;
    p[8] = 62;
    p[9] = 17;
    memcpy(p + 12, (uint8_t[]){192, 0, 2, 1}, 4);
    memcpy(p + 16, (uint8_t[]){203, 0, 113, 2}, 4);
    if (first) {
        p[20] = 0x9c;
        p[21] = 0x40;
        p[22] = 33435 >> 8;
        p[23] = 33435 & 0xff;
        memcpy(p + 28, "FVWP\x01\x00\x00\x00", 8);
        memcpy(p + 36, nonce, 16);
    }
    return (size_t)len;
}

static void test_tap_reads_the_pieces_of_a_fragmented_datagram(void) {
    static struct witness_tap t;
    memset(&t, 0, sizeof t);
    t.fd = 99; /* pretend open: only the pure record/lookup run here */
    t.port = 33435;
    uint8_t nonce[16], pkt[1500];
    memset(nonce, 0x42, 16);
    witness_tap_record(&t, pkt, canned_v4(pkt, 1, nonce));
    witness_tap_record(&t, pkt, canned_v4(pkt, 0, nonce));
    struct probe_witness_report r = {.ttl = -1, .df = -1, .fragments = -1, .segments = -1};
    CHECK_INT(witness_tap_udp(&t, nonce, &r), 1);
    CHECK_INT(r.raw, 1);
    CHECK_INT(r.fragments, 2);
    CHECK_INT(r.frag_max, 1276);
    CHECK_INT(r.frag_min, 136);
    CHECK_INT(r.df, 0);
    CHECK_INT(r.ttl, 62);
    uint8_t other[16] = {0};
    CHECK_INT(witness_tap_udp(&t, other, &r), 0);
    /* Garbage and truncated headers are ignored. */
    for (size_t n = 0; n < 60; n++) witness_tap_record(&t, pkt, n);
}

/* A canned IPv4 TCP segment from 192.0.2.1:40000 to port 44202: SYN (no
 * data) or a data segment of len bytes with DF=df. */
static size_t canned_tcp(uint8_t *p, int syn, int len, int df) {
    memset(p, 0, (size_t)len);
    p[0] = 0x45;
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    p[6] = df ? 0x40 : 0;
    p[8] = 62;
    p[9] = 6;
    memcpy(p + 12, (uint8_t[]){192, 0, 2, 1}, 4);
    memcpy(p + 16, (uint8_t[]){203, 0, 113, 2}, 4);
    p[20] = 40000 >> 8, p[21] = 40000 & 0xff;
    p[22] = 44202 >> 8, p[23] = 44202 & 0xff;
    p[32] = 5 << 4;                /* 20-byte TCP header */
    p[33] = syn ? 0x02 : 0x18;     /* SYN, or PSH+ACK */
    return (size_t)len;
}

/* Issue 34 (found by probe/test_real_paths: a WRONG "DF set?"): a TCP test
 * whose client port an earlier connection used is this connection's alone
 * at the far end: its SYN starts it afresh. Before, the earlier connection's
 * segments (DF=0, 1,280 bytes) were reported as this one's. */
static void test_tap_tells_a_new_connection_from_an_old_one_on_the_same_port(void) {
    static struct witness_tap t;
    memset(&t, 0, sizeof t);
    t.fd = 99;
    t.port = 44202;
    uint8_t pkt[1500], src[16] = {192, 0, 2, 1};
    witness_tap_record(&t, pkt, canned_tcp(pkt, 1, 40, 0));
    witness_tap_record(&t, pkt, canned_tcp(pkt, 0, 1280, 0)); /* the old connection: DF=0 */
    witness_tap_record(&t, pkt, canned_tcp(pkt, 1, 40, 1));   /* a new one from the same port */
    witness_tap_record(&t, pkt, canned_tcp(pkt, 0, 1268, 1));
    struct probe_witness_report r = {.ttl = -1, .df = -1, .fragments = -1, .segments = -1};
    CHECK_INT(witness_tap_tcp(&t, AF_INET, src, 40000, &r), 1);
    CHECK_INT(r.df, 1);
    CHECK_INT(r.segments, 1);
    CHECK_INT(r.seg_max, 1268);
}

int main(void) {
    RUN(test_siphash_matches_the_reference_vector);
    RUN(test_probe_header_round_trips_with_its_exact_bytes);
    RUN(test_every_tampered_or_short_probe_is_refused);
    RUN(test_report_round_trips_and_checks_the_nonce);
    RUN(test_unprivileged_report_says_what_it_could_not_see);
    RUN(test_keys_parse_and_format);
    RUN(test_guard_caps_per_source_overall_and_replays);
    RUN(test_tap_reads_the_pieces_of_a_fragmented_datagram);
    RUN(test_tap_tells_a_new_connection_from_an_old_one_on_the_same_port);
    return check_summary();
}
