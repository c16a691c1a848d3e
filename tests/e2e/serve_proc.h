/* A `fragvote serve` child of an e2e test: the port it listens on, read from
 * its console's "Join: ...:PORT/" line (serve runs with --port 0, so the
 * kernel picks a free port and no other program can take it meanwhile),
 * and the wait until it accepts connections. Both give up when the child
 * exits (*pid is set to -1 then) or after timeout_ms. And the end of a test
 * that ran one on the lab: the child killed, the lab's namespaces gone. */
#ifndef FRAGVOTE_TESTS_SERVE_PROC_H
#define FRAGVOTE_TESTS_SERVE_PROC_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

/* 1 when a line of serve's output (output_path) contains needle. */
static inline int serve_proc_output_has(const char *output_path, const char *needle) {
    FILE *f = fopen(output_path, "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
    if (f) fclose(f);
    return found;
}

/* Starts argv (argv[0] the fragvote binary, then "serve" and its options;
 * NULL-terminated) with stdin from /dev/null and its console into
 * output_path, and waits until it listens (its Join line names the port):
 * the port, or -1 with serve's output on stderr (*pid is the child, or -1
 * once it exited). */
static inline int serve_proc_start(char *const argv[], const char *output_path, pid_t *pid) {
    *pid = fork();
    if (*pid < 0) return -1;
    if (*pid == 0) {
        int out = open(output_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), in = open("/dev/null", O_RDONLY);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int port = serve_proc_port(output_path, pid, 60000);
    if (port > 0 && serve_proc_listening(port, pid, 20000) == 0) return port;
    FILE *f = fopen(output_path, "r");
    char line[512];
    fprintf(stderr, "serve did not listen:\n");
    while (f && fgets(line, sizeof line, f)) fputs(line, stderr);
    if (f) fclose(f);
    return -1;
}

/* Whatever happened: the child *pid killed and reaped (*pid becomes -1),
 * and with a lab prefix (not "") no namespace of `bin lab up --prefix`
 * left behind. */
static inline void serve_proc_cleanup(pid_t *pid, const char *bin, const char *lab_prefix) {
    if (*pid > 0) {
        kill(*pid, SIGKILL);
        waitpid(*pid, NULL, 0);
        *pid = -1;
    }
    if (lab_prefix && lab_prefix[0]) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "'%s' lab down --prefix '%s' >/dev/null 2>&1", bin, lab_prefix);
        if (system(cmd) < 0) perror("system");
    }
}

#endif
