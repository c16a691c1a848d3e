/* Which packet of a test a router's quote is about (issue 34), on canned
 * ICMP bytes through the real decoder: TCP by the first data segment's
 * sequence number and length (a fragment by the IP ID it left with), UDP by
 * ports and checksum, ICMP echo by identifier and sequence. Plus the UDP
 * checksum the sender computes, against values worked out by hand. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

#include "check.h"
#include "fragprobe.h"
#include "quote_about.h"
#include "send.h"

#define SEQ0 0x10000000u

/* The sender of a test 192.0.2.1:40000 -> 203.0.113.2:33434 (IPv4). */
static void sender(struct probe_sendinfo *si, int l4) {
    memset(si, 0, sizeof *si);
    si->family = AF_INET;
    si->l4 = l4;
    struct sockaddr_in *l = (struct sockaddr_in *)&si->local, *r = (struct sockaddr_in *)&si->remote;
    l->sin_family = r->sin_family = AF_INET;
    inet_pton(AF_INET, "192.0.2.1", &l->sin_addr);
    inet_pton(AF_INET, "203.0.113.2", &r->sin_addr);
    si->sport = 40000;
    si->dport = 33434;
    si->udp_check = si->udp_check_partial = -1;
    si->tcp_seq0 = -1;
}

/* A Time Exceeded from 198.51.100.2 quoting an IPv4 packet of total bytes,
 * IP ID id, flags/offset word fo, protocol l4, and (when fo's offset is 0)
 * the first 20 bytes of its transport header: ports, then w1 (TCP: the
 * sequence number; UDP: length and checksum) and for TCP a 32-byte header. */
static size_t time_exceeded(uint8_t *b, int total, int id, unsigned fo, int l4, uint32_t w1) {
    memset(b, 0, 76);
    const uint8_t outer[20] = {0x45, 0xc0, 0, 76, 0, 0, 0, 0, 64, 1, 0, 0, 198, 51, 100, 2, 192, 0, 2, 1};
    memcpy(b, outer, 20);
    b[20] = 11; /* Time Exceeded, code 0 */
    uint8_t *q = b + 28;
    q[0] = 0x45;
    q[2] = (uint8_t)(total >> 8), q[3] = (uint8_t)total;
    q[4] = (uint8_t)(id >> 8), q[5] = (uint8_t)id;
    q[6] = (uint8_t)(fo >> 8), q[7] = (uint8_t)fo;
    q[8] = 1;
    q[9] = (uint8_t)l4;
    const uint8_t addrs[8] = {192, 0, 2, 1, 203, 0, 113, 2};
    memcpy(q + 12, addrs, 8);
    uint8_t *t = q + 20;
    t[0] = 40000 >> 8, t[1] = 40000 & 0xff, t[2] = 33434 >> 8, t[3] = 33434 & 0xff;
    t[4] = (uint8_t)(w1 >> 24), t[5] = (uint8_t)(w1 >> 16), t[6] = (uint8_t)(w1 >> 8), t[7] = (uint8_t)w1;
    if (l4 == IPPROTO_TCP) t[12] = 8 << 4; /* 32-byte header (timestamps) */
    return 76;
}

/* One test's sender, what its tap saw leave, and the last quote read. */
struct qcase {
    struct probe_sendinfo si;
    struct probe_packet_seen pkt;
    uint8_t b[80]; /* the ICMP message */
    size_t n;
    char what[128]; /* what the quote was about, when not this packet */
};

/* A case of a sender of l4 whose tap saw nothing leave. */
static void qcase_init(struct qcase *c, int l4) {
    sender(&c->si, l4);
    probe_packet_seen_init(&c->pkt);
}

/* What the quote in c->b is about, through the real decoder. */
static enum probe_about about(struct qcase *c) {
    struct probe_icmp m;
    CHECK_INT(probe_parse_icmp4(c->b, c->n, &m), PROBE_PARSE_OK);
    struct fv_msg said;
    enum probe_about a = probe_quote_about(&c->si, &c->pkt, &m.q, c->what, sizeof c->what, &said);
    char en[sizeof c->what]; /* what it is about is a message (ev.quote_*) saying the same */
    fv_msg_text(&said, en, sizeof en);
    CHECK_STR(en, c->what);
    if (a != PROBE_ABOUT_THIS) CHECK(!strncmp(said.key, "ev.quote_", 9) && fv_msg_en(said.key) != NULL);
    return a;
}

/* A Time Exceeded quoting such a packet (see time_exceeded): what it is about. */
static enum probe_about quote(struct qcase *c, int total, int id, unsigned fo, int l4, uint32_t w1) {
    c->n = time_exceeded(c->b, total, id, fo, l4, w1);
    return about(c);
}

/* A TCP test whose first data segment left at SEQ0, 1500 bytes, IP ID 7. */
static void first_segment(struct qcase *c) {
    qcase_init(c, IPPROTO_TCP);
    c->pkt.tcp_seq = SEQ0;
    c->pkt.len = 1500;
    probe_packet_seen_add_id(&c->pkt, 7);
}

static void test_a_later_tcp_segment_is_another_packet(void) {
    struct qcase c;
    first_segment(&c);
    CHECK_INT(quote(&c, 104, 9, 0, IPPROTO_TCP, SEQ0 + 2896), PROBE_ABOUT_OTHER);
    CHECK_STR(c.what, "a quote of another segment (seq +2896, 104 bytes)");
}

static void test_the_first_segment_whole_or_its_first_fragment_is_this_packet(void) {
    struct qcase c;
    first_segment(&c);
    CHECK_INT(quote(&c, 1500, 7, 0, IPPROTO_TCP, SEQ0), PROBE_ABOUT_THIS);
    c.pkt.len = -1; /* a GSO packet at the tap: the first segment's wire length unseen, its sequence number ties */
    CHECK_INT(about(&c), PROBE_ABOUT_THIS);
    c.pkt.len = 1500;
    CHECK_INT(quote(&c, 1276, 7, 0x2000, IPPROTO_TCP, SEQ0), PROBE_ABOUT_THIS); /* MF, offset 0 */
    CHECK_INT(quote(&c, 244, 7, 0x2000 | 157, IPPROTO_TCP, 0), PROBE_ABOUT_THIS); /* a later fragment of it: its ID */
}

static void test_a_resend_of_the_first_segment_is_another_packet(void) {
    struct qcase c;
    first_segment(&c);
    /* Smaller, after a Frag Needed lowered the MSS. */
    CHECK_INT(quote(&c, 1280, 11, 0, IPPROTO_TCP, SEQ0), PROBE_ABOUT_OTHER);
    CHECK_CONTAINS(c.what, "resend of the first segment in 1280 bytes");
    /* Its first fragment, under another IP ID. */
    CHECK_INT(quote(&c, 1276, 12, 0x2000, IPPROTO_TCP, SEQ0), PROBE_ABOUT_OTHER);
    /* A later fragment of a packet this one is not. */
    CHECK_INT(quote(&c, 244, 12, 0x2000 | 157, IPPROTO_TCP, 0), PROBE_ABOUT_OTHER);
    CHECK_CONTAINS(c.what, "IP ID 12");
}

static void test_without_the_first_segments_sequence_number_a_tcp_quote_is_unsure(void) {
    struct qcase c;
    qcase_init(&c, IPPROTO_TCP); /* the tap saw nothing leave */
    CHECK_INT(quote(&c, 1500, 7, 0, IPPROTO_TCP, SEQ0), PROBE_ABOUT_UNSURE);
    CHECK_CONTAINS(c.what, "not seen leaving");
}

static void test_udp_is_tied_by_ports_and_checksum(void) {
    struct qcase c;
    qcase_init(&c, IPPROTO_UDP);
    c.si.udp_check = 0xe236;
    CHECK_INT(quote(&c, 128, 5, 0, IPPROTO_UDP, 108u << 16 | 0xe236), PROBE_ABOUT_THIS);
    CHECK_INT(quote(&c, 128, 5, 0, IPPROTO_UDP, 108u << 16 | 0x1234), PROBE_ABOUT_OTHER);
    CHECK_CONTAINS(c.what, "another datagram (UDP checksum 0x1234, not 0xe236");
    c.si.udp_check_partial = 0xfe81; /* a local answer quoting it before the device completed the checksum */
    CHECK_INT(quote(&c, 128, 5, 0, IPPROTO_UDP, 108u << 16 | 0xfe81), PROBE_ABOUT_THIS);
    c.si.sport = 40001; /* another socket's datagram */
    CHECK_INT(quote(&c, 128, 5, 0, IPPROTO_UDP, 108u << 16 | 0xe236), PROBE_ABOUT_OTHER);
}

static void test_icmp_echo_is_tied_by_identifier_and_sequence(void) {
    struct qcase c;
    qcase_init(&c, IPPROTO_ICMP);
    c.si.sport = 0x1234; /* identifier */
    c.si.dport = 7;      /* sequence */
    c.n = time_exceeded(c.b, 1400, 5, 0, IPPROTO_ICMP, 0);
    uint8_t *e = c.b + 48; /* the quoted echo request */
    e[0] = 8, e[1] = 0, e[2] = e[3] = 0, e[4] = 0x12, e[5] = 0x34, e[6] = 0, e[7] = 7;
    CHECK_INT(about(&c), PROBE_ABOUT_THIS);
    e[7] = 8; /* another request of the same identifier */
    CHECK_INT(about(&c), PROBE_ABOUT_OTHER);
}

static void test_the_udp_checksum_is_the_wires(void) {
    struct probe_sendinfo si;
    sender(&si, IPPROTO_UDP);
    uint8_t payload[101];
    memset(payload, 'f', sizeof payload);
    /* Worked out by hand (RFC 768 pseudo header): 100 bytes of 'f' over IPv4;
     * the partial sum: 0xc000 + 0x0201 + 0xcb00 + 0x7102 + 17 + 108, folded. */
    int partial;
    CHECK_INT(probe_udp_checksum(&si, payload, 100, &partial), 0xe236);
    CHECK_INT(partial, 0xfe81);
    /* IPv6, 101 bytes (an odd length), 2001:db8:1::1 -> 2001:db8:3::2 (RFC 8200's pseudo header). */
    struct sockaddr_in6 *l = (struct sockaddr_in6 *)&si.local, *r = (struct sockaddr_in6 *)&si.remote;
    memset(&si.local, 0, sizeof si.local);
    memset(&si.remote, 0, sizeof si.remote);
    si.family = l->sin6_family = r->sin6_family = AF_INET6;
    inet_pton(AF_INET6, "2001:db8:1::1", &l->sin6_addr);
    inet_pton(AF_INET6, "2001:db8:3::2", &r->sin6_addr);
    CHECK_INT(probe_udp_checksum(&si, payload, 101, &partial), 0x1ec0);
}

int main(void) {
    RUN(test_a_later_tcp_segment_is_another_packet);
    RUN(test_the_first_segment_whole_or_its_first_fragment_is_this_packet);
    RUN(test_a_resend_of_the_first_segment_is_another_packet);
    RUN(test_without_the_first_segments_sequence_number_a_tcp_quote_is_unsure);
    RUN(test_udp_is_tied_by_ports_and_checksum);
    RUN(test_icmp_echo_is_tied_by_identifier_and_sequence);
    RUN(test_the_udp_checksum_is_the_wires);
    return check_summary();
}
