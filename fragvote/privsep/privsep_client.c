/* Asking the privileged helper (see privsep_client.h). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fv_clock.h"
#include "fv_err.h"
#include "privsep_client.h"
#include "privsep_wire.h"
#include "prober.h"

#define PRIVSEP_WATCH_MS 200 /* how often the watch looks whether the helper still runs */

struct privsep_client {
    struct privsep_client_config cfg;
    pthread_t watch;
    int watching;
    int stop;                  /* atomic: the watch thread ends */
    int gone;                  /* atomic: the helper exited (reaped by the watch) */
    int gone_status;           /* gone: its wait status */
    int broken;                /* the worker's: the helper is not asked again */
    char why[PRIVSEP_WHY_MAX]; /* broken: why (the worker's thread) */
    long seq;
    char *buf;                 /* PRIVSEP_REPLY_MAX + 1 */
    struct privsep_reply reply;
};

/* "fragvote CMD: " and fmt (a %ld for the helper's pid, then a %s for what) as one line for the console. */
static void client_note(struct privsep_client *c, const char *fmt, const char *what) {
    char line[400];
    int n = snprintf(line, sizeof line, "fragvote %s: ", c->cfg.cmd ? c->cfg.cmd : "serve");
    snprintf(line + n, sizeof line - (size_t)n, fmt, c->cfg.pid, what);
    if (c->cfg.note) c->cfg.note(c->cfg.ctx, line);
}

/* "exited with status N" / "was killed by signal N" into buf. */
static void client_status_text(int st, char *buf, size_t len) {
    if (WIFSIGNALED(st)) snprintf(buf, len, "was killed by signal %d", WTERMSIG(st));
    else snprintf(buf, len, "exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void *client_watch(void *arg) {
    struct privsep_client *c = arg;
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        int st;
        if (waitpid((pid_t)c->cfg.pid, &st, WNOHANG) == (pid_t)c->cfg.pid) {
            char how[64], what[160];
            client_status_text(st, how, sizeof how);
            c->gone_status = st;
            __atomic_store_n(&c->gone, 1, __ATOMIC_RELEASE);
            snprintf(what, sizeof what, "%s: every measurement from now on answers \"unknown\" (restart %s to measure again)",
                     how, c->cfg.cmd ? c->cfg.cmd : "serve");
            client_note(c, "the privileged helper (pid %ld) %s", what);
            return NULL;
        }
        poll(NULL, 0, PRIVSEP_WATCH_MS);
    }
    return NULL;
}

struct privsep_client *privsep_client_new(const struct privsep_client_config *cfg, char *err, size_t errlen) {
    struct privsep_client *c = fv_zalloc(sizeof *c, err, errlen);
    if (!c) return NULL;
    c->cfg = *cfg;
    if (!c->cfg.run_ms) c->cfg.run_ms = PRIVSEP_RUN_MS;
    c->buf = malloc(PRIVSEP_REPLY_MAX + 1);
    if (!c->buf) {
        free(c);
        fv_seterr(err, errlen, "out of memory");
        return NULL;
    }
    return c;
}

long privsep_client_pid(const struct privsep_client *c) { return c->cfg.pid; }

/* The helper is not asked again: its end of the socket sees EOF (it takes
 * the lab down and exits), and the console hears why. */
static int client_break(struct privsep_client *c, const char *why, char *err, size_t errlen) {
    if (!c->broken) {
        c->broken = 1;
        snprintf(c->why, sizeof c->why, "%s", why);
        shutdown(c->cfg.fd, SHUT_RDWR);
        if (!__atomic_load_n(&c->gone, __ATOMIC_ACQUIRE))
            client_note(c, "the privileged helper (pid %ld) %s: it is told to stop; every measurement "
                           "from now on answers \"unknown\"", why);
    }
    return fv_fail(err, errlen, "the privileged helper %s", c->why);
}

/* Receives one reply within the deadline `until` (fv_clock ms) into c->reply. */
static int client_recv(struct privsep_client *c, long long until, char *err, size_t errlen) {
    for (;;) {
        long long left = until - fv_clock_ms();
        if (left <= 0) {
            char why[80];
            snprintf(why, sizeof why, "did not answer within %d s", c->cfg.run_ms / 1000);
            return client_break(c, why, err, errlen);
        }
        struct pollfd p = {.fd = c->cfg.fd, .events = POLLIN};
        int pr = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (pr < 0 && errno != EINTR) return client_break(c, "cannot be polled", err, errlen);
        if (pr <= 0) continue;
        ssize_t n = recv(c->cfg.fd, c->buf, PRIVSEP_REPLY_MAX + 1, MSG_TRUNC | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return client_break(c, "has gone (its socket closed)", err, errlen);
        char perr[200];
        free(c->reply.lab);
        if (privsep_reply_parse(c->buf, (size_t)n, &c->reply, perr, sizeof perr) < 0) {
            char why[260];
            snprintf(why, sizeof why, "sent a malformed reply (%s)", perr);
            return client_break(c, why, err, errlen);
        }
        return 0;
    }
}

int privsep_client_ready(struct privsep_client *c, int ms, char **lab, char *err, size_t errlen) {
    *lab = NULL;
    if (client_recv(c, fv_clock_ms() + ms, err, errlen) < 0) return -1;
    if (c->reply.kind == PRIVSEP_READY) {
        if (pthread_create(&c->watch, NULL, client_watch, c) != 0)
            return client_break(c, "cannot be watched (no thread)", err, errlen);
        c->watching = 1;
        *lab = c->reply.lab;
        c->reply.lab = NULL;
        return 0;
    }
    if (c->reply.kind == PRIVSEP_FAIL) return fv_fail(err, errlen, "%s", c->reply.why);
    return client_break(c, "did not start with \"ready\"", err, errlen);
}

int privsep_client_run(struct privsep_client *c, int test, const struct probe_spec *spec, struct probe_result *out,
                       char *err, size_t errlen) {
    if (c->broken) return fv_fail(err, errlen, "the privileged helper %s", c->why);
    if (__atomic_load_n(&c->gone, __ATOMIC_ACQUIRE)) return client_break(c, "has exited", err, errlen);
    struct privsep_req req = {.kind = PRIVSEP_RUN, .seq = ++c->seq, .test = test};
    if (c->seq >= PRIVSEP_SEQ_MAX) c->seq = 0;
    char msg[PRIVSEP_REQ_MAX + 1];
    int n = privsep_req_format(&req, msg, sizeof msg);
    if (n < 0) return fv_fail(err, errlen, "test %d cannot be asked of the privileged helper", test);
    ssize_t w;
    while ((w = send(c->cfg.fd, msg, (size_t)n, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    if (w != n) return client_break(c, "cannot be written to (it has gone)", err, errlen);
    if (client_recv(c, fv_clock_ms() + c->cfg.run_ms, err, errlen) < 0) return -1;
    if (c->reply.kind == PRIVSEP_ERR && c->reply.seq == req.seq)
        return fv_fail(err, errlen, "the privileged helper refused the test: %s", c->reply.why);
    if (c->reply.kind != PRIVSEP_OK || c->reply.seq != req.seq)
        return client_break(c, "answered another request", err, errlen);
    if (!prober_result_matches(spec, &c->reply.result))
        return client_break(c, "answered with another test's result", err, errlen);
    *out = c->reply.result;
    return 0;
}

int privsep_client_free(struct privsep_client *c) {
    if (!c) return -1;
    if (c->watching) {
        __atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
        pthread_join(c->watch, NULL);
    }
    if (!c->broken) send(c->cfg.fd, "quit", 4, MSG_NOSIGNAL);
    close(c->cfg.fd); /* EOF too, should "quit" not reach it */
    long long until = fv_clock_ms() + PRIVSEP_QUIT_MS;
    int st = c->gone_status, done = __atomic_load_n(&c->gone, __ATOMIC_ACQUIRE);
    while (!done && fv_clock_ms() < until) {
        pid_t r = waitpid((pid_t)c->cfg.pid, &st, WNOHANG);
        done = r == (pid_t)c->cfg.pid ? 1 : r < 0 && errno == ECHILD ? -1 : 0;
        if (!done) poll(NULL, 0, 20);
    }
    if (!done)
        client_note(c, "the privileged helper (pid %ld) %s: the lab may still be up (fragvote lab down)",
                    "did not exit");
    free(c->reply.lab);
    free(c->buf);
    free(c);
    return done == 1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
