/* See serve_proc.h. */
#include "serve_proc.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tcp_client.h"

const char *serve_proc_bin(void) {
    const char *bin = getenv("FRAGVOTE_BIN");
    if (!bin) {
        printf("SKIP: FRAGVOTE_BIN is not set (run through ctest)\n");
        exit(77);
    }
    signal(SIGPIPE, SIG_IGN);
    return bin;
}

int serve_proc_argv(char *argv[], int cap, const char *bin, const char *db, char *const opts[], char *const extra[]) {
    char *base[] = {(char *)bin, "serve", "--db", (char *)db, "--port", "0", "--bind", "127.0.0.1", "--no-qr", NULL};
    char *const *lists[] = {base, opts, extra};
    int n = 0;
    for (int l = 0; l < 3; l++)
        for (int i = 0; lists[l] && lists[l][i]; i++) {
            if (n >= cap - 1) return -1;
            argv[n++] = lists[l][i];
        }
    argv[n] = NULL;
    return n;
}

/* In the child: stdio and limits as io says, then argv. Never returns. */
static void child_exec(char *const argv[], const char *output_path, const struct serve_proc_io *io, int in_pipe[2]) {
    int out = open(output_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = io->err_path ? open(io->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : out;
    if (io->console_in) {
        dup2(in_pipe[0], 0);
        close(in_pipe[1]);
    } else {
        dup2(open("/dev/null", O_RDONLY), 0);
    }
    dup2(out, 1);
    dup2(err, 2);
    if (io->lab_prefix) setenv("FRAGVOTE_LAB_PREFIX", io->lab_prefix, 1);
    if (io->nofile > 0) {
        struct rlimit rl = {(rlim_t)io->nofile, (rlim_t)io->nofile};
        if (setrlimit(RLIMIT_NOFILE, &rl)) _exit(126);
    }
    execv(argv[0], argv);
    _exit(127);
}

pid_t serve_proc_spawn(char *const argv[], const char *output_path, const struct serve_proc_io *io) {
    static const struct serve_proc_io none;
    int in[2] = {-1, -1};
    if (!io) io = &none;
    if (io->console_in && pipe(in)) return -1;
    pid_t pid = fork();
    if (pid == 0) child_exec(argv, output_path, io, in);
    if (io->console_in) {
        close(in[0]);
        *io->console_in = pid > 0 ? in[1] : -1;
        if (pid < 0) close(in[1]);
    }
    return pid;
}

int serve_proc_start(char *const argv[], const char *output_path, const struct serve_proc_io *io, pid_t *pid) {
    *pid = serve_proc_spawn(argv, output_path, io);
    if (*pid < 0) return -1;
    int port = serve_proc_port(output_path, pid, 60000);
    if (port > 0 && serve_proc_listening(port, pid, 20000) == 0) return port;
    fprintf(stderr, "serve did not listen:\n");
    serve_proc_dump(output_path);
    return -1;
}

int serve_proc_gone(pid_t *pid) {
    if (*pid > 0 && waitpid(*pid, NULL, WNOHANG) == *pid) {
        *pid = -1;
        return 1;
    }
    return 0;
}

int serve_proc_port(const char *output_path, pid_t *pid, int timeout_ms) {
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

int serve_proc_listening(int port, pid_t *pid, int timeout_ms) {
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

int serve_proc_output_has(const char *output_path, const char *needle) {
    FILE *f = fopen(output_path, "r");
    char line[1024];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
    if (f) fclose(f);
    return found;
}

int serve_proc_wait_output(const char *output_path, const char *needle, int timeout_ms) {
    for (int t = 0; t < timeout_ms; t += 50) {
        if (serve_proc_output_has(output_path, needle)) return 1;
        usleep(50000);
    }
    return serve_proc_output_has(output_path, needle);
}

void serve_proc_dump(const char *output_path) {
    FILE *f = fopen(output_path, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) fputs(line, stderr);
    if (f) fclose(f);
}

void serve_proc_stop(pid_t *pid, int sig) {
    if (*pid > 0) {
        kill(*pid, sig);
        waitpid(*pid, NULL, 0);
    }
    *pid = -1;
}

void serve_proc_cleanup(pid_t *pid, const char *bin, const char *lab_prefix) {
    serve_proc_stop(pid, SIGKILL);
    if (lab_prefix && lab_prefix[0]) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "'%s' lab down --prefix '%s' >/dev/null 2>&1", bin, lab_prefix);
        if (system(cmd) < 0) perror("system");
    }
}
