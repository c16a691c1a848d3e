/* A `fragvote serve` child of an e2e test: the port it listens on, read from
 * its console's "Join: ...:PORT/" line (serve runs with --port 0, so the
 * kernel picks a free port and no other program can take it meanwhile),
 * and the wait until it accepts connections. Both give up when the child
 * exits (*pid is set to -1 then) or after timeout_ms. */
#ifndef FRAGVOTE_TESTS_SERVE_PROC_H
#define FRAGVOTE_TESTS_SERVE_PROC_H

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcp_client.h"

/* 1 when the child *pid has exited (reaped; *pid becomes -1). */
static inline int serve_proc_gone(pid_t *pid) {
    if (*pid > 0 && waitpid(*pid, NULL, WNOHANG) == *pid) {
        *pid = -1;
        return 1;
    }
    return 0;
}

static inline int serve_proc_port(const char *output_path, pid_t *pid, int timeout_ms) {
    for (int t = 0; t < timeout_ms; t += 50) {
        FILE *f = fopen(output_path, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) {
            const char *p = !strncmp(line, "Join: ", 6) ? strchr(line + 6 + 8, ':') : NULL;
            int port = 0;
            if (p && sscanf(p + 1, "%d", &port) == 1 && port > 0) {
                fclose(f);
                return port;
            }
        }
        if (f) fclose(f);
        if (serve_proc_gone(pid)) return -1;
        usleep(50000);
    }
    return -1;
}

static inline int serve_proc_listening(int port, pid_t *pid, int timeout_ms) {
    for (int t = 0; t < timeout_ms; t += 50) {
        char err[256];
        int fd = tcp_connect("127.0.0.1", port, NULL, err, sizeof err);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        if (serve_proc_gone(pid)) return -1;
        usleep(50000);
    }
    return -1;
}

#endif
