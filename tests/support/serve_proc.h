/* A `fragvote serve` child of a test: started with its console into a file,
 * the port it listens on read from its console's "Join: ...:PORT/" line
 * (serve runs with --port 0, so the kernel picks a free port and no other
 * program can take it meanwhile), the wait until it accepts connections,
 * the words its console printed, and its end (killed, reaped, and the lab's
 * namespaces gone when it ran on one). The waits give up when the child
 * exits (*pid is set to -1 then) or after their timeout. */
#ifndef FRAGVOTE_TESTS_SERVE_PROC_H
#define FRAGVOTE_TESTS_SERVE_PROC_H

#include <sys/types.h>

/* How the child starts beyond its argv; a zeroed one (or NULL) is the
 * default: stdin /dev/null, stdout and stderr both into the output file. */
struct serve_proc_io {
    const char *err_path;   /* stderr into this file instead */
    int *console_in;        /* stdin a pipe; its write end is left here for the test */
    const char *lab_prefix; /* FRAGVOTE_LAB_PREFIX for the child */
    long nofile;            /* > 0: the child's open-files limit, soft and hard */
};

/* The fragvote under test ($FRAGVOTE_BIN), with SIGPIPE ignored (a
 * connection the child closed is an error to read, not a signal): how a
 * test of the real program starts. Without it the test is skipped: "SKIP:
 * ..." and exit 77, as check.h's SKIP_ALL. */
const char *serve_proc_bin(void);

/* argv: `bin serve --db db --port 0 --bind 127.0.0.1 --no-qr`, then the
 * options in opts and those in extra (each NULL-terminated, or NULL: none),
 * then NULL, into argv[cap]. Returns argv's count, or -1 when it does not fit. */
int serve_proc_argv(char *argv[], int cap, const char *bin, const char *db, char *const opts[], char *const extra[]);

/* Forks and execs argv (argv[0] the fragvote binary, then "serve" and its
 * options; NULL-terminated), its console into output_path. The child's pid,
 * or -1. */
pid_t serve_proc_spawn(char *const argv[], const char *output_path, const struct serve_proc_io *io);

/* serve_proc_spawn, then the waits for its Join line's port (60 s) and for
 * the port to accept (20 s): the port, or -1 with serve's output on stderr
 * (*pid is the child, or -1 once it exited). */
int serve_proc_start(char *const argv[], const char *output_path, const struct serve_proc_io *io, pid_t *pid);

/* 1 when the child *pid has exited (reaped; *pid becomes -1). */
int serve_proc_gone(pid_t *pid);

/* The port of the first "Join: SCHEME://HOST:PORT/" line of output_path,
 * waiting for it up to timeout_ms; -1 when none came or the child exited. */
int serve_proc_port(const char *output_path, pid_t *pid, int timeout_ms);

/* Waits until 127.0.0.1:port accepts a connection: 0, or -1. */
int serve_proc_listening(int port, pid_t *pid, int timeout_ms);

/* 1 when a line of serve's output (output_path) contains needle. */
int serve_proc_output_has(const char *output_path, const char *needle);

/* Waits up to timeout_ms until serve_proc_output_has: 1, or 0. */
int serve_proc_wait_output(const char *output_path, const char *needle, int timeout_ms);

/* Copies output_path to stderr (what serve said, for a failing test). */
void serve_proc_dump(const char *output_path);

/* The child *pid sent sig (SIGKILL, SIGTERM ...) and reaped; *pid becomes -1. */
void serve_proc_stop(pid_t *pid, int sig);

/* Whatever happened: the child *pid killed and reaped (*pid becomes -1),
 * and with a lab prefix (not "") no namespace of `bin lab up --prefix`
 * left behind. */
void serve_proc_cleanup(pid_t *pid, const char *bin, const char *lab_prefix);

#endif
