/* The witness on loopback is no reflector: only a well-formed probe tagged
 * with the key and with a new nonce gets a report; the report is never
 * longer than the probe (and at most PROBE_WITNESS_REPLY_MAX); a flood from
 * one source gets at most PROBE_WITNESS_RATE_SOURCE replies a second; a
 * probe replayed under a spoofed source address (raw socket, root only) gets
 * nothing, while a fresh one from that spoofed address shows the path works.
 * Plus the TCP side: one connection, one report with the segment count. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "check.h"
#include "fragprobe.h"

static uint8_t key[16];
static volatile int stop, bound;
static struct probe_witness_stats stats;
static int wrc;

static void *witness_thread(void *arg) {
    (void)arg;
    struct probe_witness_opts o;
    memset(&o, 0, sizeof o);
    memcpy(o.key, key, sizeof key);
    o.raw = -1;
    o.stop = &stop;
    o.bound_port = &bound;
    o.stats = &stats;
    char err[256];
    wrc = probe_witness_run(&o, err, sizeof err);
    if (wrc < 0) fprintf(stderr, "witness: %s\n", err);
    return NULL;
}

static int udp_client(const char *bind_addr, int bind_port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int big = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    if (bind_addr) {
        struct sockaddr_in b = {.sin_family = AF_INET, .sin_port = htons((uint16_t)bind_port)};
        inet_pton(AF_INET, bind_addr, &b.sin_addr);
        if (bind(fd, (struct sockaddr *)&b, sizeof b) < 0) perror("bind");
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)bound),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    connect(fd, (struct sockaddr *)&a, sizeof a);
    return fd;
}

/* A probe payload of len bytes with a fresh nonce (returned in nonce). */
static size_t make_probe(uint8_t *buf, size_t len, int proto, const uint8_t *k, uint8_t *nonce) {
    struct probe_witness_probe p = {.proto = proto, .payload_len = (uint32_t)len};
    char err[128];
    probe_witness_random(p.nonce, sizeof p.nonce, err, sizeof err);
    memcpy(nonce, p.nonce, 16);
    memset(buf, 'f', len);
    uint8_t hdr[PROBE_WITNESS_PROBE_BYTES];
    probe_witness_probe_encode(k, &p, hdr, sizeof hdr);
    memcpy(buf, hdr, len < sizeof hdr ? len : sizeof hdr);
    return len;
}

/* The reply's length, or -1 for none within ms. */
static int reply(int fd, uint8_t *buf, size_t cap, int ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0) return -1;
    return (int)recv(fd, buf, cap, MSG_DONTWAIT);
}

static void test_a_tagged_probe_gets_one_report_of_what_arrived(void) {
    int fd = udp_client(NULL, 0);
    static uint8_t buf[1400];
    uint8_t nonce[16], in[256];
    size_t n = make_probe(buf, sizeof buf, PROBE_UDP4, key, nonce);
    send(fd, buf, n, 0);
    int got = reply(fd, in, sizeof in, 1000);
    CHECK_INT(got, PROBE_WITNESS_REPORT_BYTES);
    struct probe_witness_report r;
    REQUIRE(got > 0 && probe_witness_report_decode(key, in, (size_t)got, nonce, &r) == 0);
    CHECK_INT(r.payload_bytes, 1400);
    CHECK_INT(r.fragments, 0); /* loopback's MTU is 65536: whole */
    CHECK_INT(r.frag_max, 0);
    CHECK_INT(r.ttl, 64);
    CHECK_INT(r.raw, geteuid() == 0 ? 1 : 0);
    if (geteuid() == 0) CHECK_INT(r.df, 1); /* Linux sets DF on UDP by default (PMTUD want) */
    close(fd);
}

static void test_untagged_nonceless_or_foreign_datagrams_get_nothing(void) {
    int fd = udp_client(NULL, 0);
    static uint8_t buf[1400], in[256];
    uint8_t nonce[16];
    memset(buf, 'f', sizeof buf);
    send(fd, buf, sizeof buf, 0);          /* no header at all */
    memcpy(buf, "FVWP\x01\x00\x00\x00", 8); /* the magic but no nonce / tag */
    send(fd, buf, sizeof buf, 0);
    uint8_t other[16];
    memset(other, 0x33, 16);
    make_probe(buf, sizeof buf, PROBE_UDP4, other, nonce); /* tagged with another key */
    send(fd, buf, sizeof buf, 0);
    make_probe(buf, 47, PROBE_UDP4, key, nonce); /* cut short of a whole header */
    send(fd, buf, 47, 0);
    CHECK_INT(reply(fd, in, sizeof in, 300), -1);
    close(fd);
}

static void test_a_replayed_probe_gets_nothing(void) {
    int fd = udp_client(NULL, 0);
    static uint8_t buf[600], in[256];
    uint8_t nonce[16];
    size_t n = make_probe(buf, sizeof buf, PROBE_UDP4, key, nonce);
    send(fd, buf, n, 0);
    CHECK_INT(reply(fd, in, sizeof in, 1000), PROBE_WITNESS_REPORT_BYTES);
    send(fd, buf, n, 0);
    CHECK_INT(reply(fd, in, sizeof in, 300), -1);
    close(fd);
}

static void test_a_reply_is_never_longer_than_the_probe(void) {
    int fd = udp_client(NULL, 0);
    uint8_t buf[PROBE_WITNESS_PROBE_BYTES], in[256], nonce[16];
    /* The smallest probe there is: the report is exactly as long, not longer. */
    size_t n = make_probe(buf, sizeof buf, PROBE_UDP4, key, nonce);
    send(fd, buf, n, 0);
    int got = reply(fd, in, sizeof in, 1000);
    CHECK_INT(got, PROBE_WITNESS_REPORT_BYTES);
    CHECK(got <= (int)n);
    CHECK(got <= PROBE_WITNESS_REPLY_MAX);
    close(fd);
}

/* A flood of valid probes from one source, as fast as loopback takes them:
 * the replies stay within the per-source cap for every window it touches. */
static void test_a_flood_gets_at_most_the_documented_rate(void) {
    usleep(1100 * 1000); /* the earlier tests' replies count in their window */
    int fd = udp_client(NULL, 0);
    uint8_t buf[100], in[256], nonce[16];
    int total = PROBE_WITNESS_RATE_SOURCE * 3, sent = 0, got = 0;
    long long t0 = check_mono_ms();
    while (sent < total) {
        for (int i = 0; i < 20 && sent < total; i++) {
            make_probe(buf, sizeof buf, PROBE_UDP4, key, nonce);
            if (send(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf) sent++;
        }
        usleep(500);
        while (recv(fd, in, sizeof in, MSG_DONTWAIT) > 0) got++;
    }
    while (reply(fd, in, sizeof in, 300) > 0) got++;
    double secs = (double)(check_mono_ms() - t0) / 1000.0;
    int windows = (int)secs + 2;
    printf("  sent %d probes in %.2f s from one source, %d replies (cap %d a second, %d windows)\n", sent, secs, got,
           PROBE_WITNESS_RATE_SOURCE, windows);
    CHECK(got <= windows * PROBE_WITNESS_RATE_SOURCE);
    CHECK(got >= PROBE_WITNESS_RATE_SOURCE); /* served up to the cap, not refused outright */
    if (secs < 1.0) CHECK(got <= 2 * PROBE_WITNESS_RATE_SOURCE);
    CHECK(got < sent);
    close(fd);
}

/* A UDP datagram from a forged source address (IP_HDRINCL), UDP checksum 0. */
static int send_spoofed(const char *src, int sport, const uint8_t *payload, size_t n) {
    int rs = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
    if (rs < 0) return -1;
    static uint8_t pkt[2048];
    memset(pkt, 0, sizeof pkt);
    struct iphdr *ip = (struct iphdr *)pkt;
    struct udphdr *u = (struct udphdr *)(pkt + 20);
    ip->version = 4;
    ip->ihl = 5;
    ip->ttl = 64;
    ip->protocol = IPPROTO_UDP;
    ip->tot_len = htons((uint16_t)(20 + 8 + n));
    inet_pton(AF_INET, src, &ip->saddr);
    ip->daddr = htonl(INADDR_LOOPBACK);
    u->source = htons((uint16_t)sport);
    u->dest = htons((uint16_t)bound);
    u->len = htons((uint16_t)(8 + n));
    memcpy(pkt + 28, payload, n);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ssize_t w = sendto(rs, pkt, 28 + n, 0, (struct sockaddr *)&a, sizeof a);
    close(rs);
    return w == (ssize_t)(28 + n) ? 0 : -1;
}

static void test_a_probe_replayed_under_a_spoofed_source_gets_nothing(void) {
    if (geteuid() != 0) {
        printf("  (skipped: forging a source address needs a raw socket, i.e. root)\n");
        return;
    }
    usleep(1100 * 1000); /* out of the flood's window */
    /* The victim: a socket at the forged address, where a reflected report would land. */
    int victim = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in v = {.sin_family = AF_INET, .sin_port = htons(47001)};
    inet_pton(AF_INET, "127.0.0.2", &v.sin_addr);
    REQUIRE(bind(victim, (struct sockaddr *)&v, sizeof v) == 0);
    int fd = udp_client(NULL, 0);
    uint8_t buf[200], in[256], nonce[16];
    size_t n = make_probe(buf, sizeof buf, PROBE_UDP4, key, nonce);
    send(fd, buf, n, 0);
    CHECK_INT(reply(fd, in, sizeof in, 1000), PROBE_WITNESS_REPORT_BYTES); /* the real prober's answer */
    REQUIRE(send_spoofed("127.0.0.2", 47001, buf, n) == 0);              /* the same bytes, forged source */
    uint8_t other[16];
    memset(other, 0x55, 16);
    n = make_probe(buf, sizeof buf, PROBE_UDP4, other, nonce);            /* forged without the key */
    REQUIRE(send_spoofed("127.0.0.2", 47001, buf, n) == 0);
    CHECK_INT(reply(victim, in, sizeof in, 300), -1);
    /* Control: a fresh probe with the key from that address is answered there,
     * so the silence above is the witness refusing, not a broken path. */
    n = make_probe(buf, sizeof buf, PROBE_UDP4, key, nonce);
    REQUIRE(send_spoofed("127.0.0.2", 47001, buf, n) == 0);
    CHECK_INT(reply(victim, in, sizeof in, 1000), PROBE_WITNESS_REPORT_BYTES);
    close(fd);
    close(victim);
}

static void test_a_tcp_probe_gets_its_report_on_the_connection(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)bound),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    REQUIRE(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    static uint8_t buf[3000];
    uint8_t in[256], nonce[16];
    size_t n = make_probe(buf, sizeof buf, PROBE_TCP4, key, nonce);
    CHECK_INT(send(fd, buf, n, 0), (long long)n);
    int got = reply(fd, in, sizeof in, 2000);
    CHECK_INT(got, PROBE_WITNESS_REPORT_BYTES);
    struct probe_witness_report r;
    REQUIRE(got > 0 && probe_witness_report_decode(key, in, (size_t)got, nonce, &r) == 0);
    CHECK_INT(r.payload_bytes, 3000);
    CHECK(r.segments >= 1);
    close(fd);
    /* A connection that sends garbage gets nothing and is closed. */
    fd = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    memset(buf, 'x', 100);
    send(fd, buf, 100, 0);
    got = reply(fd, in, sizeof in, 1000);
    CHECK(got <= 0);
    close(fd);
}

static void test_the_witness_counted_what_it_refused(void) {
    printf("  witness: received %ld, replied %ld, malformed %ld, replayed %ld, over the rate %ld\n", stats.received,
           stats.replied, stats.bad, stats.replayed, stats.rate_capped);
    CHECK_INT(wrc, stats.replied);
    CHECK(stats.replayed >= (geteuid() == 0 ? 2 : 1));
    CHECK(stats.bad >= 4);
    CHECK(stats.rate_capped > 0);
}

int main(void) {
    char err[128];
    if (probe_witness_random(key, sizeof key, err, sizeof err) < 0) return 1;
    pthread_t t;
    pthread_create(&t, NULL, witness_thread, NULL);
    for (int i = 0; i < 200 && !bound && !wrc; i++) usleep(10 * 1000);
    if (!bound) {
        fprintf(stderr, "the witness did not start\n");
        return 1;
    }
    RUN(test_a_tagged_probe_gets_one_report_of_what_arrived);
    RUN(test_untagged_nonceless_or_foreign_datagrams_get_nothing);
    RUN(test_a_replayed_probe_gets_nothing);
    RUN(test_a_reply_is_never_longer_than_the_probe);
    RUN(test_a_tcp_probe_gets_its_report_on_the_connection);
    RUN(test_a_flood_gets_at_most_the_documented_rate);
    RUN(test_a_probe_replayed_under_a_spoofed_source_gets_nothing);
    stop = 1;
    pthread_join(t, NULL);
    RUN(test_the_witness_counted_what_it_refused);
    return check_summary();
}
