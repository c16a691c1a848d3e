/* Raw TCP connections and a one-shot HTTP GET for tests (see tcp_client.h). */
#include "tcp_client.h"
#include "fv_clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int tcp_connect(const char *host, int port, const char *src_addr, char *err, size_t errlen) {
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    int gai = getaddrinfo(host, portstr, &hints, &ai);
    if (gai) {
        snprintf(err, errlen, "resolving %s: %s", host, gai_strerror(gai));
        return -1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        goto fail;
    }
    if (src_addr && ai->ai_family == AF_INET) {
        int one = 1;
        struct sockaddr_in sa = {.sin_family = AF_INET};
        inet_pton(AF_INET, src_addr, &sa.sin_addr);
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&sa, sizeof sa)) {
            snprintf(err, errlen, "bind %s: %s", src_addr, strerror(errno));
            goto fail;
        }
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
        snprintf(err, errlen, "connect %s:%d: %s", host, port, strerror(errno));
        goto fail;
    }
    freeaddrinfo(ai);
    return fd;
fail:
    if (fd >= 0) close(fd);
    freeaddrinfo(ai);
    return -1;
}

/* 1 when buf (NUL-terminated, got bytes) holds the headers and a body as
 * long as their Content-Length says. */
static int http_complete(const char *buf, size_t got) {
    const char *hdr_end = strstr(buf, "\r\n\r\n");
    const char *cl = strcasestr(buf, "content-length:");
    return hdr_end && cl && cl < hdr_end && got >= (size_t)(hdr_end + 4 - buf) + strtoul(cl + 15, NULL, 10);
}

char *tcp_http_get(const char *host, int port, const char *path, int timeout_ms, size_t *len, char *err,
                   size_t errlen) {
    int fd = tcp_connect(host, port, NULL, err, errlen);
    if (fd < 0) return NULL;
    char req[1024];
    int v6 = strchr(host, ':') != NULL;
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s%s%s\r\nConnection: close\r\n\r\n", path,
                     v6 ? "[" : "", host, v6 ? "]" : "");
    if (n < 0 || (size_t)n >= sizeof req) {
        snprintf(err, errlen, "GET %.200s: request too long", path);
        close(fd);
        return NULL;
    }
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        snprintf(err, errlen, "sending GET %.200s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char *buf = malloc(TCP_HTTP_MAX + 1);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        close(fd);
        return NULL;
    }
    size_t got = 0;
    ssize_t r;
    buf[0] = 0;
    while (got < TCP_HTTP_MAX && (r = read(fd, buf + got, TCP_HTTP_MAX - got)) > 0) {
        got += (size_t)r;
        buf[got] = 0;
        if (http_complete(buf, got)) break;
    }
    close(fd);
    if (len) *len = got;
    return buf;
}

int tcp_dribble(int *fds, int n, int timeout_ms) {
    long long t0 = fv_clock_ms();
    int open_left = n;
    while (open_left && fv_clock_ms() - t0 < timeout_ms) {
        open_left = 0;
        for (int i = 0; i < n; i++) {
            if (fds[i] < 0) continue;
            char b;
            ssize_t r = recv(fds[i], &b, 1, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
                send(fds[i], "x", 1, MSG_NOSIGNAL) < 0) {
                close(fds[i]);
                fds[i] = -1;
                continue;
            }
            open_left++;
        }
        if (open_left) usleep(1000000);
    }
    return open_left;
}
