/* The ICMP decoders on canned bytes: what a router's answer says about the
 * packet it quotes, and that short or hostile input is refused without
 * reading past the buffer (run under the sanitizer build too). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

#include "check.h"
#include "check_wire.h"
#include "fragprobe.h"
#include "probe_wire.h"

/* IPv4 Time Exceeded from 198.51.100.2 quoting the first fragment of a UDP
 * datagram 192.0.2.2:40000 -> 203.0.113.2:33434: 1276 bytes, ID 0x1234,
 * MF=1, DF=0, TTL 1 as it reached the hop. */
static const uint8_t te4_first_frag[] = {
    0x45, 0xc0, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
    0xc6, 0x33, 0x64, 0x02, 0xc0, 0x00, 0x02, 0x02,             /* outer IPv4 */
    0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* ICMP 11/0 */
    0x45, 0x00, 0x04, 0xfc, 0x12, 0x34, 0x20, 0x00, 0x01, 0x11, 0x00, 0x00,
    0xc0, 0x00, 0x02, 0x02, 0xcb, 0x00, 0x71, 0x02,             /* quoted IPv4 */
    0x9c, 0x40, 0x82, 0x9a, 0x04, 0xe8, 0x00, 0x00,             /* quoted UDP */
};

/* IPv4 Fragmentation Needed (3/4, next-hop MTU 1280) from 192.0.2.1 quoting a
 * whole 1400-byte DF datagram. */
static const uint8_t fn4_whole_df[] = {
    0x45, 0xc0, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
    0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,
    0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,             /* 3/4 mtu 1280 */
    0x45, 0x00, 0x05, 0x78, 0xab, 0xcd, 0x40, 0x00, 0x02, 0x11, 0x00, 0x00,
    0xc0, 0x00, 0x02, 0x02, 0xcb, 0x00, 0x71, 0x02,
    0x9c, 0x41, 0x82, 0x9a, 0x05, 0x64, 0x00, 0x00,
};

/* ICMPv6 Time Exceeded (no IPv6 header: a raw socket strips it) quoting the
 * first fragment of a UDP datagram 2001:db8:1::2 -> 2001:db8:3::2, Fragment
 * header id 0xdeadbeef, offset 0, M=1, payload 1232. */
static const uint8_t te6_first_frag[] = {
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* ICMPv6 3/0 */
    0x60, 0x00, 0x00, 0x00, 0x04, 0xd0, 0x2c, 0x01,             /* plen 1232, nh 44, hlim 1 */
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
    0x11, 0x00, 0x00, 0x01, 0xde, 0xad, 0xbe, 0xef,             /* Fragment: nh UDP, off 0, M */
    0x9c, 0x42, 0x82, 0x9a, 0x05, 0x9c, 0x00, 0x00,             /* UDP */
};

/* ICMPv6 Packet Too Big (MTU 1280) quoting a whole 1400-byte UDP packet. */
static const uint8_t ptb6_whole[] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,
    0x60, 0x00, 0x00, 0x00, 0x05, 0x50, 0x11, 0x02,             /* plen 1360, nh UDP */
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
    0x9c, 0x43, 0x82, 0x9a, 0x05, 0x50, 0x00, 0x00,
};

static void test_ipv4_time_exceeded_quotes_first_fragment(void) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(te4_first_frag, sizeof te4_first_frag, &m), PROBE_PARSE_OK);
    CHECK_INT(m.kind, PROBE_ICMP_TIME_EXCEEDED);
    CHECK_INT(m.type, 11);
    char from[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, m.from, from, sizeof from);
    CHECK_STR(from, "198.51.100.2");
    CHECK_ICMP_FIELDS(&m, {"total_len", 1276}, {"mf", 1}, {"df", 0}, {"frag_offset", 0}, {"id", 0x1234},
                      {"l4", IPPROTO_UDP}, {"sport", 40000}, {"dport", 33434}, {"fragment", 1});
}

static void test_ipv4_non_first_fragment_has_no_ports(void) {
    uint8_t b[sizeof te4_first_frag];
    memcpy(b, te4_first_frag, sizeof b);
    b[28 + 6] = 0x00; b[28 + 7] = 0x9f;   /* MF=0, offset 159*8 = 1272 */
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"frag_offset", 1272}, {"mf", 0}, {"l4", -1}, {"sport", -1}, {"dport", -1}, {"id", 0x1234},
                      {"fragment", 1});
}

static void test_ipv4_frag_needed_whole_df_packet(void) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(fn4_whole_df, sizeof fn4_whole_df, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"kind", PROBE_ICMP_FRAG_NEEDED}, {"mtu", 1280}, {"total_len", 1400}, {"df", 1}, {"mf", 0},
                      {"frag_offset", 0}, {"ttl", 2}, {"sport", 40001}, {"fragment", 0});
}

static void test_ipv4_port_unreachable_is_unreach(void) {
    uint8_t b[sizeof fn4_whole_df];
    memcpy(b, fn4_whole_df, sizeof b);
    b[21] = 3; b[26] = 0; b[27] = 0;      /* 3/3 port unreachable */
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_OK);
    CHECK_INT(m.kind, PROBE_ICMP_UNREACH);
    CHECK_INT(m.mtu, 0);
}

static void test_ipv4_quote_cut_after_ip_header_keeps_header(void) {
    /* 20 bytes of quote: the IP header is there, the ports are not. */
    struct probe_icmp m;
    uint8_t b[48];
    memcpy(b, te4_first_frag, sizeof b);
    b[2] = 0; b[3] = 48;
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"total_len", 1276}, {"mf", 1}, {"sport", -1}, {"quoted_bytes", 20});
}

static void test_ipv4_quote_cut_inside_ip_header_is_short(void) {
    struct probe_icmp m;
    for (size_t n = 0; n < 48; n++) {
        uint8_t b[48];
        memcpy(b, te4_first_frag, n);
        if (n >= 4) { b[2] = 0; b[3] = (uint8_t)n; }
        int rc = probe_parse_icmp4(b, n, &m);
        if (rc != PROBE_PARSE_SHORT) {
            fprintf(stderr, "length %zu: rc %d\n", n, rc);
            CHECK(rc == PROBE_PARSE_SHORT);
        }
    }
}

static void test_ipv4_outer_length_limits_the_quote(void) {
    /* The outer total length says 40: trailing bytes beyond it are not read. */
    uint8_t b[sizeof te4_first_frag];
    memcpy(b, te4_first_frag, sizeof b);
    b[3] = 40;
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_SHORT);
}

static void test_ipv4_hostile_headers_are_refused(void) {
    struct probe_icmp m;
    uint8_t b[sizeof te4_first_frag];
    memcpy(b, te4_first_frag, sizeof b);
    b[0] = 0x55;                            /* outer version 5 */
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_BAD);
    memcpy(b, te4_first_frag, sizeof b);
    b[0] = 0x43;                            /* IHL 12 bytes */
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_BAD);
    memcpy(b, te4_first_frag, sizeof b);
    b[0] = 0x4f;                            /* IHL 60 > what follows the ICMP header */
    CHECK(probe_parse_icmp4(b, sizeof b, &m) < 0);
    memcpy(b, te4_first_frag, sizeof b);
    b[9] = 6;                               /* not ICMP */
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_BAD);
    memcpy(b, te4_first_frag, sizeof b);
    b[28] = 0x4f;                           /* quoted IHL 60 > quote: short */
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_SHORT);
    memcpy(b, te4_first_frag, sizeof b);
    b[28] = 0x65;                           /* quoted version 6 inside ICMPv4 */
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_BAD);
    memcpy(b, te4_first_frag, sizeof b);
    b[30] = 0; b[31] = 4;                   /* quoted total length 4 < header */
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_BAD);
    CHECK_INT(probe_parse_icmp4(NULL, 0, &m), PROBE_PARSE_SHORT);
}

static void test_ipv4_echo_reply_is_not_an_error(void) {
    uint8_t b[28] = {0x45, 0, 0, 28, 0, 0, 0, 0, 64, 1, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
                     0, 0, 0, 0, 0, 1, 0, 1};
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(b, sizeof b, &m), PROBE_PARSE_NOT_ERROR);
    CHECK_INT(m.type, 0);
}

static void test_ipv6_time_exceeded_with_fragment_header(void) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp6(te6_first_frag, sizeof te6_first_frag, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"kind", PROBE_ICMP_TIME_EXCEEDED}, {"family", AF_INET6}, {"total_len", 1272},
                      {"frag_hdr", 1}, {"mf", 1}, {"frag_offset", 0}, {"id", 0xdeadbeefLL}, {"df", -1},
                      {"l4", IPPROTO_UDP}, {"sport", 40002}, {"dport", 33434});
    char dst[INET6_ADDRSTRLEN];
    inet_ntop(AF_INET6, m.q.dst, dst, sizeof dst);
    CHECK_STR(dst, "2001:db8:3::2");
    CHECK(probe_quote_is_fragment(&m.q));
}

static void test_ipv6_non_first_fragment(void) {
    uint8_t b[sizeof te6_first_frag];
    memcpy(b, te6_first_frag, sizeof b);
    b[48 + 2] = 0x04; b[48 + 3] = 0xd0;     /* offset 1232, M=0 */
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp6(b, sizeof b, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"frag_offset", 1232}, {"mf", 0}, {"l4", -1}, {"sport", -1}, {"fragment", 1});
}

static void test_ipv6_packet_too_big_whole_packet(void) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp6(ptb6_whole, sizeof ptb6_whole, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"kind", PROBE_ICMP_FRAG_NEEDED}, {"mtu", 1280}, {"total_len", 1400}, {"frag_hdr", 0},
                      {"mf", 0}, {"sport", 40003}, {"fragment", 0});
}

static void test_ipv6_truncated_and_hostile(void) {
    struct probe_icmp m;
    for (size_t n = 0; n < 48; n++)
        if (probe_parse_icmp6(te6_first_frag, n, &m) != PROBE_PARSE_SHORT) {
            fprintf(stderr, "length %zu not short\n", n);
            CHECK(0);
        }
    /* Cut inside the Fragment header: the IPv6 header is known, the rest not. */
    CHECK_INT(probe_parse_icmp6(te6_first_frag, 52, &m), PROBE_PARSE_OK);
    CHECK_INT(m.q.frag_hdr, 0);
    CHECK_INT(m.q.l4, -1);
    uint8_t b[sizeof te6_first_frag];
    memcpy(b, te6_first_frag, sizeof b);
    b[8] = 0x40;                            /* quoted version 4 */
    CHECK_INT(probe_parse_icmp6(b, sizeof b, &m), PROBE_PARSE_BAD);
    /* A destination-options header claiming 2 kB: parser stops, no overread. */
    memcpy(b, te6_first_frag, sizeof b);
    b[14] = 60; b[48] = 60; b[49] = 255;
    CHECK_INT(probe_parse_icmp6(b, sizeof b, &m), PROBE_PARSE_OK);
    CHECK_INT(m.q.l4, -1);
    /* A chain of destination options pointing at themselves ends after the cap. */
    uint8_t loop[8 + 40 + 8 * 12];
    memset(loop, 0, sizeof loop);
    memcpy(loop, te6_first_frag, 48);
    loop[14] = 60;
    for (int i = 0; i < 12; i++) loop[48 + 8 * i] = 60;
    CHECK_INT(probe_parse_icmp6(loop, sizeof loop, &m), PROBE_PARSE_OK);
    CHECK_INT(m.q.l4, -1);
    uint8_t echo[8] = {129, 0, 0, 0, 0, 1, 0, 1};
    CHECK_INT(probe_parse_icmp6(echo, sizeof echo, &m), PROBE_PARSE_NOT_ERROR);
}

static void test_garbage_never_crashes(void) {
    /* Deterministic pseudo-random buffers; the sanitizer build catches overreads. */
    uint32_t x = 2463534242u;
    int ok = 0;
    for (int round = 0; round < 20000; round++) {
        uint8_t b[96];
        size_t n = 0;
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        n = x % sizeof b;
        for (size_t i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; b[i] = (uint8_t)x; }
        if (n > 0 && round % 2) b[0] = 0x45;    /* often look like IPv4 */
        struct probe_icmp m;
        uint8_t *heap = malloc(n ? n : 1);     /* exact-size copy so overreads are caught */
        memcpy(heap, b, n);
        int r4 = probe_parse_icmp4(heap, n, &m);
        int r6 = probe_parse_icmp6(heap, n, &m);
        free(heap);
        ok += (r4 >= -2 && r4 <= 1) && (r6 >= -2 && r6 <= 1);
    }
    CHECK_INT(ok, 20000);
}

int main(void) {
    RUN(test_ipv4_time_exceeded_quotes_first_fragment);
    RUN(test_ipv4_non_first_fragment_has_no_ports);
    RUN(test_ipv4_frag_needed_whole_df_packet);
    RUN(test_ipv4_port_unreachable_is_unreach);
    RUN(test_ipv4_quote_cut_after_ip_header_keeps_header);
    RUN(test_ipv4_quote_cut_inside_ip_header_is_short);
    RUN(test_ipv4_outer_length_limits_the_quote);
    RUN(test_ipv4_hostile_headers_are_refused);
    RUN(test_ipv4_echo_reply_is_not_an_error);
    RUN(test_ipv6_time_exceeded_with_fragment_header);
    RUN(test_ipv6_non_first_fragment);
    RUN(test_ipv6_packet_too_big_whole_packet);
    RUN(test_ipv6_truncated_and_hostile);
    RUN(test_garbage_never_crashes);
    return check_summary();
}
