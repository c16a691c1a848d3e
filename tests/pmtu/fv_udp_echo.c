/* fv_udp_echo PORT SECONDS: answers every UDP datagram on PORT (IPv4 and
 * IPv6) with its first ECHO_BYTES bytes, so a reply stays small whatever
 * the probe size; exits after SECONDS so a test can never leave it behind. */
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ECHO_BYTES 32

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fv_udp_echo PORT SECONDS\n");
        return 2;
    }
    int port = atoi(argv[1]), secs = atoi(argv[2]);
    int fd = socket(AF_INET6, SOCK_DGRAM, 0), zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port), .sin6_addr = in6addr_any};
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a)) {
        perror("fv_udp_echo: bind");
        return 1;
    }
    time_t end = time(NULL) + secs;
    static unsigned char buf[65536];
    while (time(NULL) < end) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0) continue;
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
        if (n <= 0) continue;
        sendto(fd, buf, n < ECHO_BYTES ? (size_t)n : ECHO_BYTES, 0, (struct sockaddr *)&from, fl);
    }
    return 0;
}
