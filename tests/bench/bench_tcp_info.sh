#!/usr/bin/env bash
# Benchmark (not a ctest test): what the hub's keepalive sweep pays per
# connection to read the socket's received bytes (getsockopt TCP_INFO,
# fragvote/hub/hub_conn.c rx_bytes), on N accepted loopback connections.
# Usage: tests/bench/bench_tcp_info.sh [N]   (default 2000; needs 2N+16 open files)
set -euo pipefail
n=${1:-2000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/b.c" <<'C'
#include <arpa/inet.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
int main(int argc, char **argv) {
    int n = atoi(argv[1]), rounds = 50;
    int l = socket(AF_INET, SOCK_STREAM, 0), *s = calloc((size_t)n, sizeof *s);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(l, (void *)&a, sizeof a) || getsockname(l, (void *)&a, &al) || listen(l, 4096)) return perror("listen"), 1;
    for (int i = 0; i < n; i++) {
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (c < 0 || connect(c, (void *)&a, sizeof a) || (s[i] = accept(l, NULL, NULL)) < 0) return perror("connect"), 1;
    }
    struct timespec t0, t1;
    unsigned long long sum = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            struct tcp_info ti;
            socklen_t len = sizeof ti;
            if (getsockopt(s[i], IPPROTO_TCP, TCP_INFO, &ti, &len) == 0) sum += ti.tcpi_bytes_received;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / rounds / n;
    printf("TCP_INFO: %.2f us per connection (%d connections x %d sweeps); a sweep of 19,900 phones: %.1f ms\n", us, n,
           rounds, us * 19900 / 1000);
    return sum == (unsigned long long)-1;
}
C
cc -O2 -o "$tmp/b" "$tmp/b.c"
ulimit -n $((2 * n + 16)) 2>/dev/null || true
"$tmp/b" "$n"
