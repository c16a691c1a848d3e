/* Running the lab's helper programs with their output captured for errors,
 * and writing sysctls in the calling thread's network namespace. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fragprobe.h"
#include "lab_internal.h"

/* Where the lab's tools are looked for, and the only PATH they see: never
 * the caller's PATH (serve's privileged helper runs them with capabilities). */
#define LAB_TOOL_DIRS "/usr/sbin:/usr/bin:/sbin:/bin"
static char *const lab_env[] = {"PATH=" LAB_TOOL_DIRS, "LC_ALL=C", NULL};

static const char *const lab_tools[] = {"ip", "ethtool", "nft"};
#define LAB_TOOLS (int)(sizeof lab_tools / sizeof *lab_tools)
static char lab_tool_path[LAB_TOOLS][64];
static pthread_once_t lab_tool_once = PTHREAD_ONCE_INIT;

/* Each tool's absolute path: the first LAB_TOOL_DIRS entry holding an
 * executable file of its name, else the first entry's (running it then
 * fails with ENOENT, said as "is it installed?"). */
static void lab_tool_find(void) {
    for (int t = 0; t < LAB_TOOLS; t++) {
        const char *dirs = LAB_TOOL_DIRS;
        snprintf(lab_tool_path[t], sizeof lab_tool_path[t], "/usr/sbin/%s", lab_tools[t]);
        while (*dirs) {
            size_t n = strcspn(dirs, ":");
            char cand[64];
            snprintf(cand, sizeof cand, "%.*s/%s", (int)n, dirs, lab_tools[t]);
            struct stat st;
            if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
                snprintf(lab_tool_path[t], sizeof lab_tool_path[t], "%s", cand);
                break;
            }
            dirs += n + (dirs[n] == ':');
        }
    }
}

const char *lab_tool(const char *name) {
    pthread_once(&lab_tool_once, lab_tool_find);
    for (int t = 0; t < LAB_TOOLS; t++)
        if (!strcmp(name, lab_tools[t])) return lab_tool_path[t];
    return "/nonexistent/tool"; /* a programming error: every tool is in lab_tools */
}

static void argv_join(char *const argv[], char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; argv[i] && n + 1 < len; i++) {
        int w = snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
        if (w < 0) break;
        n += (size_t)w;
    }
}

/* Runs argv with input on its stdin; its output (stdout and stderr) into
 * outbuf (always NUL-terminated, trailing blanks cut). */
static int lab_run(char *const argv[], const char *input, char *outbuf, size_t outlen, char *err, size_t errlen) {
    outbuf[0] = 0;
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    int rc = -1;
    pid_t pid = -1;
    char cmd[256];
    argv_join(argv, cmd, sizeof cmd);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
        snprintf(err, errlen, "%s: pipe: %s", cmd, strerror(errno));
        goto cleanup;
    }
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    int e = argv[0][0] == '/' ? posix_spawn(&pid, argv[0], &fa, NULL, argv, lab_env) : ENOENT;
    if (e) {
        snprintf(err, errlen, "cannot run %s: %s (is it installed? see scripts/apt-packages.txt)",
                 argv[0], strerror(e));
        pid = -1;
        goto cleanup;
    }
    close(in[0]);
    close(out[1]);
    in[0] = out[1] = -1;
    if (input) {
        /* Inputs are a few hundred bytes, far below the pipe buffer. */
        void (*old)(int) = signal(SIGPIPE, SIG_IGN);
        ssize_t w = write(in[1], input, strlen(input));
        signal(SIGPIPE, old);
        (void)w;
    }
    close(in[1]);
    in[1] = -1;
    size_t got = 0;
    for (;;) {
        char tmp[512];
        ssize_t r = read(out[0], tmp, sizeof tmp);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        size_t take = (size_t)r;
        if (got + take >= outlen) take = outlen - 1 - got;
        memcpy(outbuf + got, tmp, take);
        got += take;
    }
    outbuf[got] = 0;
    while (got && (outbuf[got - 1] == '\n' || outbuf[got - 1] == ' ')) outbuf[--got] = 0;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    pid = -1;
    if (WIFEXITED(status)) rc = WEXITSTATUS(status);
    if (rc != 0) snprintf(err, errlen, "`%s` failed%s%s", cmd, got ? ": " : "", outbuf);
cleanup:
    posix_spawn_file_actions_destroy(&fa);
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0) close(in[i]);
        if (out[i] >= 0) close(out[i]);
    }
    return rc;
}

int lab_exec(char *const argv[], const char *input, char *err, size_t errlen) {
    char out[LAB_EXEC_OUT_MAX];
    return lab_run(argv, input, out, sizeof out, err, errlen);
}

int lab_exec_output(char *const argv[], char *out, size_t outlen, char *err, size_t errlen) {
    return lab_run(argv, NULL, out, outlen, err, errlen);
}

int lab_sysctl_write(const char *path, const char *value, char *err, size_t errlen) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return PROBE_E_FAIL;
    }
    ssize_t w = write(fd, value, strlen(value));
    int e = errno;
    close(fd);
    if (w != (ssize_t)strlen(value)) {
        snprintf(err, errlen, "cannot write %s to %s: %s", value, path, strerror(e));
        return PROBE_E_FAIL;
    }
    return 0;
}
