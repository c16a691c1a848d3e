/* A tiny assertion kit for fragvote's C tests.
 * CHECK(cond) records a failure and goes on; REQUIRE(cond) stops the test.
 * Each test is a function `static void test_NAME(void)` run by RUN(test_NAME);
 * main() ends with `return check_summary();` which prints
 * "N passed, N failed" and returns 0 only if nothing failed.
 * SKIP_ALL(why) exits 77 (ctest: skipped) with the reason on stdout.
 * CHECK_ONLY=SUBSTRING in the environment runs only the tests whose name
 * contains it (to repeat one flaky test: the others are not run, not counted). */
#ifndef FRAGVOTE_CHECK_H
#define FRAGVOTE_CHECK_H
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fv_clock.h" /* the program's one monotonic clock (clock/) */

/* Monotonic time, for the latencies and deadlines tests measure: whole
 * milliseconds, and seconds with their fraction. */
static inline long long check_mono_ms(void) { return fv_clock_ms(); }
static inline double check_mono_s(void) { return fv_clock_ms_frac() / 1e3; }

static int check_passed_, check_failed_, check_cur_failed_;
static const char *check_cur_name_ = "";

#define CHECK(cond) do { if (!(cond)) { check_cur_failed_ = 1; \
    fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__, check_cur_name_, #cond); } } while (0)
#define REQUIRE(cond) do { if (!(cond)) { check_cur_failed_ = 1; \
    fprintf(stderr, "%s:%d: %s: REQUIRE failed: %s\n", __FILE__, __LINE__, check_cur_name_, #cond); return; } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { check_cur_failed_ = 1; \
    fprintf(stderr, "%s:%d: %s: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, check_cur_name_, #a, a_, #b, b_); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); if (!a_ || !b_ || strcmp(a_, b_)) { check_cur_failed_ = 1; \
    fprintf(stderr, "%s:%d: %s: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, check_cur_name_, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } } while (0)
#define CHECK_CONTAINS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); if (!h_ || !strstr(h_, n_)) { check_cur_failed_ = 1; \
    fprintf(stderr, "%s:%d: %s: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, check_cur_name_, h_ ? h_ : "(null)", n_); } } while (0)

/* Every value first..last of the enum type survives its name (name_fn) and
 * that name's parse (parse_fn(name, &value) == 0). */
#define CHECK_NAMES_ROUND_TRIP(type, first, last, name_fn, parse_fn) do { \
    for (int v_ = (first); v_ <= (last); v_++) { type back_; \
        CHECK_INT(parse_fn(name_fn((type)v_), &back_), 0); CHECK_INT(back_, v_); } } while (0)

#define RUN(fn) do { const char *only_ = getenv("CHECK_ONLY"); \
    if (only_ && *only_ && !strstr(#fn, only_)) break; \
    check_cur_name_ = #fn; check_cur_failed_ = 0; fn(); \
    if (check_cur_failed_) { check_failed_++; printf("FAIL %s\n", #fn); } \
    else { check_passed_++; printf("ok   %s\n", #fn); } fflush(stdout); } while (0)

#define SKIP_ALL(why) do { printf("SKIP: %s\n", why); exit(77); } while (0)

static inline int check_summary(void) {
    printf("%d passed, %d failed\n", check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}

/* A test's cleanup (lab down, children killed) on SIGINT and SIGTERM: fn
 * runs, then the test dies of the signal as it would have. */
static void (*check_cleanup_fn_)(void);
static inline void check_on_signal_(int sig) {
    if (check_cleanup_fn_) check_cleanup_fn_();
    signal(sig, SIG_DFL);
    raise(sig);
}
static inline void check_cleanup_on_signals(void (*fn)(void)) {
    check_cleanup_fn_ = fn;
    signal(SIGINT, check_on_signal_);
    signal(SIGTERM, check_on_signal_);
}

/* Starts argv (argv[0] searched in PATH) with its stdin on a pipe (*in, for
 * the test to write commands to) and its stdout and stderr into out_path
 * (NULL: /dev/null). Returns its pid, or -1. */
static inline pid_t check_spawn_fed(char *const argv[], const char *out_path, FILE **in) {
    int p[2];
    if (pipe(p)) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(p[0], 0);
        close(p[0]);
        close(p[1]);
        int out = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : open("/dev/null", O_WRONLY);
        if (out >= 0) dup2(out, 1), dup2(out, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[0]);
    *in = fdopen(p[1], "w");
    return pid;
}

/* The start of a test that needs root and some programs: skips (exit 77)
 * saying why_root when the process is not root, or naming the first of tools
 * (space-separated program names) not in PATH; then cleanup (may be NULL)
 * runs at exit and on SIGINT/SIGTERM. */
static inline void check_root_begin(const char *why_root, const char *tools, void (*cleanup)(void)) {
    if (geteuid() != 0) SKIP_ALL(why_root);
    char tool[64], cmd[128], why[128];
    for (const char *t = tools; t && *t;) {
        size_t n = strcspn(t, " ");
        if (n > 0 && n < sizeof tool) {
            memcpy(tool, t, n);
            tool[n] = 0;
            snprintf(cmd, sizeof cmd, "command -v %s >/dev/null", tool);
            snprintf(why, sizeof why, "needs %s (scripts/apt-packages.txt)", tool);
            if (system(cmd) != 0) SKIP_ALL(why);
        }
        t += n + (t[n] == ' ');
    }
    if (cleanup) {
        atexit(cleanup);
        check_cleanup_on_signals(cleanup);
    }
}

/* Reads exactly n bytes from fd (a pipe to a test's child): 0, or -1 on EOF / error. */
static inline int check_read_full(int fd, void *buf, size_t n) {
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* Writes text as the whole file at path: 0, or -1. */
static inline int check_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* The whole file at path, malloc'd and NUL-terminated (*len bytes); NULL if unreadable. */
static inline char *check_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, k;
    char *buf = malloc(cap + 1);
    while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) { free(buf); buf = NULL; break; }
            buf = b, cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[n] = 0, *len = n;
    return buf;
}

/* A fresh temporary directory for this test's files (owned by the caller, not removed). */
static inline const char *check_tmpdir(void) {
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fragvote-test-XXXXXX");
        if (!mkdtemp(dir)) { perror("mkdtemp"); exit(1); }
    }
    return dir;
}
/* check_tmpdir()/name, in one of four buffers used in turn (a test may hold
 * a few such paths at once). */
static inline const char *check_tmp_path(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", check_tmpdir(), name);
    return buf[k];
}
/* check_summary(), and when every test passed the removal of check_tmpdir()
 * (kept after a failure, to look at); a directory that will not go fails. */
static inline int check_summary_and_clean(void) {
    int rc = check_summary();
    if (rc == 0) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", check_tmpdir());
        if (system(cmd) != 0) {
            fprintf(stderr, "could not remove %s\n", check_tmpdir());
            rc = 1;
        }
    }
    return rc;
}

#endif
