/* ICMP echo tests (icmp4/icmp6) on canned bytes: a router's answer quoting an
 * echo request names its identifier and sequence (how both observers tie it
 * to the test), anything else ICMP in a quote does not; an Echo Reply is read
 * for its own family only; the echo request the sender builds has the right
 * type, identifier, sequence and checksum. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

#include "check.h"
#include "check_wire.h"
#include "fragprobe.h"
#include "send.h"

/* IPv4 Time Exceeded from 198.51.100.2 quoting the first fragment of an echo
 * request 192.0.2.1 -> 203.0.113.2, 1276 bytes, MF=1, identifier 0x1f2e,
 * sequence 7. */
static const uint8_t te4_echo[] = {
    0x45, 0xc0, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
    0xc6, 0x33, 0x64, 0x02, 0xc0, 0x00, 0x02, 0x01,             /* outer IPv4 */
    0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* ICMP 11/0 */
    0x45, 0x00, 0x04, 0xfc, 0x12, 0x34, 0x20, 0x00, 0x01, 0x01, 0x00, 0x00,
    0xc0, 0x00, 0x02, 0x01, 0xcb, 0x00, 0x71, 0x02,             /* quoted IPv4, proto 1 */
    0x08, 0x00, 0xab, 0xcd, 0x1f, 0x2e, 0x00, 0x07,             /* quoted echo request */
};

/* ICMPv6 Packet Too Big (MTU 1280) quoting a whole 1400-byte echo request
 * 2001:db8:1::1 -> 2001:db8:3::2, identifier 0x0102, sequence 0x0304. */
static const uint8_t ptb6_echo[] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,
    0x60, 0x00, 0x00, 0x00, 0x05, 0x50, 0x3a, 0x02,             /* plen 1360, nh ICMPv6 */
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
    0x80, 0x00, 0x12, 0x34, 0x01, 0x02, 0x03, 0x04,             /* echo request 128/0 */
};

static void test_ipv4_time_exceeded_quoting_an_echo_request_names_id_and_seq(void) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(te4_echo, sizeof te4_echo, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"kind", PROBE_ICMP_TIME_EXCEEDED}, {"l4", IPPROTO_ICMP}, {"sport", 0x1f2e}, {"dport", 7},
                      {"total_len", 1276}, {"mf", 1}, {"fragment", 1});
}

static void test_ipv6_packet_too_big_quoting_an_echo_request_names_id_and_seq(void) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp6(ptb6_echo, sizeof ptb6_echo, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"kind", PROBE_ICMP_FRAG_NEEDED}, {"mtu", 1280}, {"l4", IPPROTO_ICMPV6}, {"sport", 0x0102},
                      {"dport", 0x0304}, {"total_len", 1400});
}

static void test_quoted_icmp_that_is_not_an_echo_request_has_no_id(void) {
    uint8_t pkt[sizeof te4_echo];
    memcpy(pkt, te4_echo, sizeof pkt);
    pkt[48] = 0; /* echo reply: never ours */
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(pkt, sizeof pkt, &m), PROBE_PARSE_OK);
    CHECK_ICMP_FIELDS(&m, {"l4", IPPROTO_ICMP}, {"sport", -1}, {"dport", -1});
    /* ICMPv6 type numbers in an IPv4 quote mean nothing either. */
    uint8_t q6[sizeof ptb6_echo];
    memcpy(q6, ptb6_echo, sizeof q6);
    q6[48] = 8;
    CHECK_INT(probe_parse_icmp6(q6, sizeof q6, &m), PROBE_PARSE_OK);
    CHECK_INT(m.q.sport, -1);
    /* Cut inside the echo header: no identifier. */
    CHECK_INT(probe_parse_icmp4(te4_echo, sizeof te4_echo - 3, &m), PROBE_PARSE_OK);
    CHECK_INT(m.q.sport, -1);
}

static void test_echo_reply_is_read_only_for_its_family(void) {
    static const uint8_t rep4[] = {0x00, 0x00, 0x12, 0x34, 0xbe, 0xef, 0x00, 0x2a, 'f'};
    static const uint8_t rep6[] = {0x81, 0x00, 0x12, 0x34, 0x01, 0x02, 0x00, 0x03};
    int id = -1, seq = -1;
    CHECK_INT(probe_parse_echo_reply(rep4, sizeof rep4, AF_INET, &id, &seq), 1);
    CHECK_INT(id, 0xbeef);
    CHECK_INT(seq, 42);
    CHECK_INT(probe_parse_echo_reply(rep6, sizeof rep6, AF_INET6, &id, &seq), 1);
    CHECK_INT(id, 0x0102);
    CHECK_INT(seq, 3);
    CHECK_INT(probe_parse_echo_reply(rep6, sizeof rep6, AF_INET, &id, &seq), 0);  /* 129 is not IPv4's */
    CHECK_INT(probe_parse_echo_reply(rep4, sizeof rep4, AF_INET6, &id, &seq), 0); /* 0 is not ICMPv6's */
    CHECK_INT(probe_parse_echo_reply(rep4, 7, AF_INET, &id, &seq), 0);            /* short */
    CHECK_INT(probe_parse_echo_reply(te4_echo + 20, sizeof te4_echo - 20, AF_INET, &id, &seq), 0); /* an error */
    CHECK_INT(probe_parse_echo_reply(NULL, 8, AF_INET, &id, &seq), 0);
}

static void test_checksum_matches_rfc1071_example(void) {
    /* RFC 1071 section 3: the sum of these bytes is 0xddf2. */
    static const uint8_t v[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    CHECK_INT(probe_icmp_checksum(v, sizeof v), 0xffff & ~0xddf2);
    static const uint8_t odd[] = {0x01};
    CHECK_INT(probe_icmp_checksum(odd, 1), 0xffff & ~0x0100);
}

static void test_raw_ipv4_echo_request_is_complete_and_checksummed(void) {
    uint8_t pkt[1380];
    probe_icmp_echo_build(pkt, 1372, 0, 1, 0xbeef, 42); /* ping -s 1364 */
    CHECK_INT(pkt[0], 8);
    CHECK_INT(pkt[1], 0);
    CHECK_INT(pkt[4] << 8 | pkt[5], 0xbeef);
    CHECK_INT(pkt[6] << 8 | pkt[7], 42);
    CHECK_INT(probe_icmp_checksum(pkt, 1372), 0); /* a valid checksum sums to zero */
    CHECK_INT(pkt[1371], 'f');
    /* Odd length too (ping -s 1371). */
    probe_icmp_echo_build(pkt, 1379, 0, 1, 1, 1);
    CHECK_INT(probe_icmp_checksum(pkt, 1379), 0);
}

static void test_ping_socket_and_icmpv6_requests_leave_the_checksum_to_the_kernel(void) {
    uint8_t pkt[64];
    probe_icmp_echo_build(pkt, sizeof pkt, 0, 0, 7, 9);
    CHECK_INT(pkt[0], 8);
    CHECK_INT(pkt[2] | pkt[3], 0);
    probe_icmp_echo_build(pkt, sizeof pkt, 1, 1, 7, 9);
    CHECK_INT(pkt[0], 128);
    CHECK_INT(pkt[2] | pkt[3], 0);
    CHECK_INT(pkt[4] << 8 | pkt[5], 7);
}

static void test_icmp_names_parse_and_size_floor(void) {
    enum probe_proto p;
    CHECK_INT(probe_proto_parse("icmp4", &p), 0);
    CHECK_INT(p, PROBE_ICMP4);
    CHECK_INT(probe_proto_parse("ICMP6", &p), 0);
    CHECK_INT(p, PROBE_ICMP6);
    CHECK_STR(probe_proto_name(PROBE_ICMP6), "icmp6");
    CHECK(probe_proto_is_v6(PROBE_ICMP6) && !probe_proto_is_v6(PROBE_ICMP4));
    CHECK(probe_proto_is_icmp(PROBE_ICMP4) && !probe_proto_is_tcp(PROBE_ICMP4));
    CHECK(probe_proto_parse("icmp", &p) < 0);
    struct probe_spec s = {.proto = PROBE_ICMP4, .mode = PROBE_MODE_DO, .size = 28, .ttl = 2};
    char err[256];
    CHECK_INT(probe_spec_check(&s, err, sizeof err), 0); /* ping -s 0 */
    s.size = 27;
    CHECK(probe_spec_check(&s, err, sizeof err) < 0);
    s.proto = PROBE_ICMP6;
    s.size = 47;
    CHECK(probe_spec_check(&s, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "icmp6 packets are 48..");
    s.proto = (enum probe_proto)PROBE_PROTO_COUNT;
    s.size = 100;
    CHECK(probe_spec_check(&s, err, sizeof err) < 0);
}

int main(void) {
    RUN(test_ipv4_time_exceeded_quoting_an_echo_request_names_id_and_seq);
    RUN(test_ipv6_packet_too_big_quoting_an_echo_request_names_id_and_seq);
    RUN(test_quoted_icmp_that_is_not_an_echo_request_has_no_id);
    RUN(test_echo_reply_is_read_only_for_its_family);
    RUN(test_checksum_matches_rfc1071_example);
    RUN(test_raw_ipv4_echo_request_is_complete_and_checksummed);
    RUN(test_ping_socket_and_icmpv6_requests_leave_the_checksum_to_the_kernel);
    RUN(test_icmp_names_parse_and_size_floor);
    return check_summary();
}
