/* wsc_hold: opens N phone connections to a fragvote hub, joins each (hello
 * -> welcome), optionally votes once on question Q, holds them for S
 * seconds, then prints one line of numbers. For memory and capacity
 * measurements by hand and by the load tests.
 *
 *   wsc_hold HOST PORT N [HOLD_S [ROOM [VOTE_Q]]]
 * Connections come from 127.0.0.2..127.0.0.201 when HOST is loopback.
 * Exit 0 when all joined (and voted), 1 otherwise, 2 on misuse. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fv_clock.h"
#include "wsclient.h"

static double now_s(void) { return fv_clock_ms_frac() / 1e3; }

int main(int argc, char **argv) {
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: wsc_hold HOST PORT N [HOLD_S [ROOM [VOTE_Q]]]\n");
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: wsc_hold HOST PORT N [HOLD_S [ROOM [VOTE_Q]]]\n");
        return 2;
    }
    const char *host = argv[1];
    int port = atoi(argv[2]), n = atoi(argv[3]), hold = argc > 4 ? atoi(argv[4]) : 0;
    const char *room = argc > 5 ? argv[5] : "";
    int vote_q = argc > 6 ? atoi(argv[6]) : -1;
    if (port <= 0 || n <= 0) {
        fprintf(stderr, "wsc_hold: bad port or count\n");
        return 2;
    }
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    int loop = !strncmp(host, "127.", 4);
    struct wsc **w = calloc((size_t)n, sizeof *w);
    char err[256];
    double t0 = now_s();
    int opened = 0, joined = 0, acked = 0;
    for (int i = 0; i < n; i++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.0.%d", 2 + i % 200);
        w[i] = wsc_connect(host, port, "/", "fragvote-audience", loop ? src : NULL, 10000, err, sizeof err);
        if (!w[i]) {
            fprintf(stderr, "wsc_hold: connection %d: %s\n", i, err);
            break;
        }
        opened++;
        wsc_send_json(w[i], "{s:s, s:i, s:s}", "t", "hello", "v", 1, "room", room);
    }
    for (int i = 0; i < opened; i++) {
        json_t *m = wsc_recv_type(w[i], "welcome", 10000);
        if (m) joined++;
        json_decref(m);
    }
    double t_join = now_s() - t0;
    if (vote_q >= 0) {
        for (int i = 0; i < opened; i++)
            wsc_send_json(w[i], "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 1, "q", vote_q, "yes", i % 2);
        for (int i = 0; i < opened; i++) {
            json_t *m = wsc_recv_type(w[i], "ack", 10000);
            if (m) acked++;
            json_decref(m);
        }
    }
    printf("opened %d joined %d acked %d join_s %.2f\n", opened, joined, acked, t_join);
    fflush(stdout);
    /* Hold: keep answering pings. */
    double end = now_s() + hold;
    while (now_s() < end) {
        for (int i = 0; i < opened; i++) {
            char *m;
            while (wsc_recv(w[i], &m, 0) > 0) free(m);
        }
        usleep(200000);
    }
    for (int i = 0; i < opened; i++) wsc_free(w[i]);
    free(w);
    return joined == n && (vote_q < 0 || acked == n) ? 0 : 1;
}
