/* The discovery responder on loopback: it answers only tagged probes, never
 * with more bytes than it got (at most PROBE_PMTU_REPLY_BYTES), at most
 * PROBE_PMTU_REPLY_RATE replies a second, and stops when told. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

#include "check.h"
#include "fragprobe.h"

static volatile int stop;
static int port, replies_total;

static void *responder(void *arg) {
    (void)arg;
    char err[256];
    replies_total = probe_pmtu_respond(port, 30, &stop, err, sizeof err);
    if (replies_total < 0) fprintf(stderr, "respond: %s\n", err);
    return NULL;
}

static int client(void) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int big = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    connect(fd, (struct sockaddr *)&a, sizeof a);
    return fd;
}

/* Sends len bytes (tagged or not); returns the reply length, -1 for none in 300 ms. */
static int ask(int fd, size_t len, int tagged) {
    static uint8_t buf[9000];
    memset(buf, 0x5a, sizeof buf);
    if (tagged) {
        uint32_t m = htonl(PROBE_PMTU_MAGIC);
        memcpy(buf, &m, 4);
    }
    send(fd, buf, len, 0);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 300) <= 0) return -1;
    return (int)recv(fd, buf, sizeof buf, 0);
}

static void test_tagged_probes_get_a_short_reply(void) {
    int fd = client();
    CHECK_INT(ask(fd, 1400, 1), PROBE_PMTU_REPLY_BYTES);
    CHECK_INT(ask(fd, 8972, 1), PROBE_PMTU_REPLY_BYTES);
    close(fd);
}

static void test_reply_never_longer_than_the_request(void) {
    int fd = client();
    CHECK_INT(ask(fd, 6, 1), 6);
    close(fd);
}

static void test_untagged_datagrams_get_nothing(void) {
    int fd = client();
    CHECK_INT(ask(fd, 1400, 0), -1);
    CHECK_INT(ask(fd, 3, 1), -1); /* too short to carry the tag */
    close(fd);
}

/* Paced so neither socket drops anything: without the cap every probe would
 * be answered. The burst spans at most two one-second windows. */
static void test_replies_are_rate_capped(void) {
    int fd = client();
    uint8_t buf[64];
    uint32_t m = htonl(PROBE_PMTU_MAGIC);
    memcpy(buf, &m, 4);
    int sent = 0, got = 0, total = PROBE_PMTU_REPLY_RATE * 5 / 2;
    usleep(1100 * 1000); /* the earlier tests' replies count in their window: start a fresh one */
    double t0 = check_mono_s();
    while (sent < total) {
        for (int i = 0; i < 25 && sent < total; i++)
            if (send(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf) sent++;
        usleep(1000);
        while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) got++;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (poll(&p, 1, 300) > 0)
        if (recv(fd, buf, sizeof buf, 0) > 0) got++;
    double secs = check_mono_s() - t0;
    /* One-second windows the burst can touch. */
    int windows = (int)secs + 2;
    printf("  sent %d probes in %.2f s, %d replies (cap %d per window, %d windows)\n", sent, secs, got,
           PROBE_PMTU_REPLY_RATE, windows);
    CHECK(got <= windows * PROBE_PMTU_REPLY_RATE); /* the cap holds */
    if (windows == 2) {
        CHECK(got < sent);
        CHECK(got >= PROBE_PMTU_REPLY_RATE); /* one of the two windows got >= 2500 probes: served up to the cap */
    }
    close(fd);
}

int main(void) {
    /* A free port: bind, read it back, release. */
    int s = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6};
    socklen_t al = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || getsockname(s, (struct sockaddr *)&a, &al)) return 1;
    port = ntohs(a.sin6_port);
    close(s);
    pthread_t t;
    pthread_create(&t, NULL, responder, NULL);
    usleep(100 * 1000);
    RUN(test_tagged_probes_get_a_short_reply);
    RUN(test_reply_never_longer_than_the_request);
    RUN(test_untagged_datagrams_get_nothing);
    RUN(test_replies_are_rate_capped);
    stop = 1;
    pthread_join(t, NULL);
    printf("responder answered %d in all\n", replies_total);
    return check_summary();
}
