/* The far end of HOST:PORT path-MTU discovery: a UDP responder that echoes
 * the tag of each probe. It serves the network, so it is built not to be a
 * reflector: a reply is never longer than the datagram it answers (and at
 * most PROBE_PMTU_REPLY_BYTES), only datagrams carrying the probe magic are
 * answered, and replies are capped at PROBE_PMTU_REPLY_RATE per second. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "fragprobe.h"

/* Bytes read of each datagram: the tag is at the start, the rest is filler. */
#define RESPOND_READ_MAX 64

int probe_pmtu_respond(int port, int seconds, volatile int *stop, char *err, size_t errlen) {
    if (port < 1 || port > 65535) {
        snprintf(err, errlen, "port %d out of range 1..65535", port);
        return PROBE_E_FAIL;
    }
    int v6 = 1, fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        v6 = 0;
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot open a UDP socket: %s", strerror(errno));
        return PROBE_E_FAIL;
    }
    int zero = 0;
    if (v6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); /* both families on one socket */
    if (probe_sockaddr_bind_any(fd, v6 ? AF_INET6 : AF_INET, port) < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot listen on UDP port %d: %s%s", port, strerror(e),
                 e == EACCES ? " (ports below 1024 need CAP_NET_BIND_SERVICE)" : "");
        close(fd);
        return e == EACCES ? PROBE_E_PERM : PROBE_E_FAIL;
    }
    double end = seconds > 0 ? probe_clock_s() + seconds : 0, window = probe_clock_s();
    int in_window = 0, replies = 0;
    while (!(stop && *stop) && (!end || probe_clock_s() < end)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0) continue;
        uint8_t buf[RESPOND_READ_MAX];
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fd, buf, sizeof buf, MSG_TRUNC | MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
        if (n < 4) continue;
        uint32_t magic;
        memcpy(&magic, buf, 4);
        if (ntohl(magic) != PROBE_PMTU_MAGIC) continue;
        double now = probe_clock_s();
        if (now - window >= 1.0) {
            window = now;
            in_window = 0;
        }
        if (in_window >= PROBE_PMTU_REPLY_RATE) continue;
        size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf;
        if (len > PROBE_PMTU_REPLY_BYTES) len = PROBE_PMTU_REPLY_BYTES;
        if (sendto(fd, buf, len, 0, (struct sockaddr *)&from, fl) == (ssize_t)len) {
            in_window++;
            replies++;
        }
    }
    close(fd);
    return replies;
}
