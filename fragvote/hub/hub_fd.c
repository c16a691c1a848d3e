/* The hub's open-files budget (see HUB_FD_SPARE in hub.h): the limit, the
 * caps derived from it, shedding connections when descriptors run out, and
 * libwebsockets' log, rate-limited. lws thread, except hub_fd_lws_log.
 *
 * lws does its own accept(). When accept fails (EMFILE: no descriptor
 * left) lws logs "accept: errno 24" and returns; the listening socket stays
 * readable, so the loop spins on it (97 % CPU and ~380,000 log lines a
 * second, measured before this file existed). Two layers keep that away:
 *   1. Connections never take the last HUB_FD_SPARE descriptors: every
 *      accepted socket whose number reaches the ceiling is closed at once
 *      (LWS_CALLBACK_FILTER_NETWORK_CONNECTION; descriptors are allocated
 *      lowest first, so a number that high means that many are open). The
 *      accept succeeded, so the queue drains and nothing spins.
 *   2. If something else ate the spare anyway (or the limit was lowered
 *      under the running process), lws's failed accept reaches the log
 *      emitter here, which raises a flag; after that loop turn the hub
 *      closes its reserve descriptor, accepts and closes everything
 *      waiting, and opens the reserve again -- the accept-and-close of
 *      mature servers -- so the socket is no longer readable.
 * Both are reported at most once per HUB_LOG_INTERVAL_S, like lws's own
 * lines beyond HUB_LOG_LINES per interval. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hub.h"
#include "fv_clock.h"
#include "hub_fd.h"

#define HUB_SHED_MAX 4096 /* connections accepted and closed per loop turn at most */

/* Raised by the log emitter (any thread lws logs from), taken by
 * hub_fd_shed on the lws thread: a flag, like a signal's. */
static atomic_int accept_failed;

static struct {
    pthread_mutex_t lock;
    long long window_ms;
    int lines;
    unsigned long dropped;
} lwslog = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};

unsigned long long hub_fd_nofile_target(unsigned long long hard) {
    return hard < HUB_NOFILE_MAX ? hard : HUB_NOFILE_MAX;
}

void hub_fd_init(struct hub_fd *f, int conn_max) {
    struct rlimit rl;
    f->listen_fd = f->reserve_fd = -1;
    f->nofile = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t want = (rlim_t)hub_fd_nofile_target(rl.rlim_max); /* raised or lowered */
        if (rl.rlim_cur != want) {
            rl.rlim_cur = want;
            if (setrlimit(RLIMIT_NOFILE, &rl)) getrlimit(RLIMIT_NOFILE, &rl);
        }
        f->nofile = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > INT_MAX / 2 ? INT_MAX / 2 : (long)rl.rlim_cur;
    }
    /* The descriptors open now (stdio, the database, the worker's, lws's
     * own once it runs) are about as many as the lowest free number. */
    int base = fcntl(0, F_DUPFD_CLOEXEC, 0);
    if (base >= 0) close(base);
    else base = 16;
    base += 4; /* lws: the listening socket, its cancel pipe, libev's epoll and eventfd */
    long ceiling = f->nofile - HUB_FD_SPARE;
    if (ceiling < base + 2) ceiling = base + 2;
    f->fd_budget = (int)ceiling;
    long cap = ceiling - HUB_FD_HTTP_ROOM - base;
    int want = conn_max > 0 ? conn_max : HUB_CONN_MAX;
    f->conn_cap = cap < want ? (int)(cap > 1 ? cap : 1) : want;
}

/* Finds lws's listening socket on our port and opens the reserve. */
void hub_fd_listening(struct hub_fd *f, int port) {
    for (int fd = 0; fd < 1024 && fd < f->nofile; fd++) {
        int on = 0;
        socklen_t ol = sizeof on;
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &ol) || !on) continue;
        if (getsockname(fd, (struct sockaddr *)&ss, &sl)) continue;
        int got = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                   : ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                             : -1;
        if (got != port) continue;
        f->listen_fd = fd;
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0 && !(fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        break;
    }
    f->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

void hub_fd_close(struct hub_fd *f) {
    if (f->reserve_fd >= 0) close(f->reserve_fd);
    f->reserve_fd = -1;
}

/* Reports the connections refused since the last report, at most once per
 * HUB_LOG_INTERVAL_S. */
static void shed_report(struct hub_fd *f) {
    long long now = fv_clock_ms();
    if (!f->shed || now - f->shed_report_ms < HUB_LOG_INTERVAL_S * 1000LL) return;
    fprintf(stderr,
            "fragvote serve: out of file descriptors (open-files limit %ld): %lu connections refused in the "
            "last %d s; raise the limit (ulimit -n) if these are real phones\n",
            f->nofile, f->shed, HUB_LOG_INTERVAL_S);
    f->shed = 0;
    f->shed_report_ms = now;
}

/* LWS_CALLBACK_FILTER_NETWORK_CONNECTION: 1 to refuse the accepted fd. */
int hub_fd_filter(struct hub_fd *f, int fd) {
    if (fd < f->fd_budget) return 0;
    f->shed++;
    shed_report(f);
    return 1;
}

void hub_fd_shed(struct hub_fd *f) {
    if (!atomic_exchange(&accept_failed, 0)) {
        shed_report(f);
        return;
    }
    if (f->listen_fd < 0) return;
    if (f->reserve_fd >= 0) close(f->reserve_fd);
    f->reserve_fd = -1;
    for (int i = 0; i < HUB_SHED_MAX; i++) {
        int fd = accept4(f->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        close(fd);
        f->shed++;
    }
    f->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    shed_report(f);
}

void hub_fd_lws_log(int level, const char *line) {
    (void)level;
    if (strstr(line, "accept: errno")) atomic_store(&accept_failed, 1);
    pthread_mutex_lock(&lwslog.lock);
    long long now = fv_clock_coarse_ms();
    if (now - lwslog.window_ms >= HUB_LOG_INTERVAL_S * 1000LL) {
        if (lwslog.dropped)
            fprintf(stderr, "libwebsockets: %lu more messages in the last %d s not shown\n", lwslog.dropped,
                    HUB_LOG_INTERVAL_S);
        lwslog.window_ms = now;
        lwslog.lines = 0;
        lwslog.dropped = 0;
    }
    if (lwslog.lines < HUB_LOG_LINES) {
        lwslog.lines++;
        fprintf(stderr, "libwebsockets: %s", line);
        if (!*line || line[strlen(line) - 1] != '\n') fputc('\n', stderr);
    } else {
        lwslog.dropped++;
    }
    pthread_mutex_unlock(&lwslog.lock);
}
