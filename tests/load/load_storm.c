/* The join storm (--storm): the QR code appears and every phone loads the
 * phone page as a browser does -- the page, then every resource it names
 * (load_html_resources) -- over HTTP, then opens its websocket and joins.
 * With keep-alive (the default, as browsers do) a phone's requests share one
 * connection; --storm-no-keepalive makes each request a connection of its
 * own ("Connection: close").
 *
 * A thread of its own does the HTTP (epoll, non-blocking sockets, at most
 * --inflight page loads at once, from the phone's own source address); a
 * phone whose page is loaded goes into a queue that the lws thread's
 * connect phase takes phones from (its 1 ms ticker wakes it). The thread
 * touches no lws and none of the run's counters: it keeps its own, read
 * after it has been joined.
 *
 * Measured: per phone, its page load (first connect -> last resource
 * received) and the moment the storm began (everyone scanned at once) ->
 * its welcome; pages completed per second; requests, 304s and bytes. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "load_internal.h"

#define LOAD_HTTP_RESP_MAX (256 * 1024) /* one response; larger: that phone's page load fails */
#define LOAD_PAGE_RES_MAX 16            /* resources a page may name */
#define LOAD_STORM_WAIT_MS 100          /* epoll wait while nothing happens (checks the stop flag) */

enum slot_st { S_FREE, S_CONNECTING, S_SENDING, S_READING };

struct slot {
    enum slot_st st;
    int fd, phone;
    int req;                            /* 0: the page, k: resource k-1 */
    int nres;
    char res[LOAD_PAGE_RES_MAX][LOAD_PATH_MAX];
    char out[LOAD_PATH_MAX + 256];
    size_t out_len, out_off;
    char *buf;                          /* LOAD_HTTP_RESP_MAX */
    size_t len;
};

struct load_storm {
    struct lrun *r;
    pthread_t thread;
    int started;
    atomic_int stop;
    int epfd;
    struct slot *slots;
    int nslots;
    int next;                           /* next phone to start */
    int done;                           /* phones finished (loaded or failed) */
    pthread_mutex_t lock;               /* the ready queue */
    int *ready, rhead, rtail;
    /* the thread's own counters */
    long long requests, not_modified, bytes;
    int errors, failed;
    char first_error[256];
};

static void storm_fail(struct load_storm *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void storm_fail(struct load_storm *s, const char *fmt, ...) {
    s->errors++;
    if (s->first_error[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->first_error, sizeof s->first_error, fmt, ap);
    va_end(ap);
}

static void slot_close(struct load_storm *s, struct slot *sl) {
    if (sl->fd >= 0 && !s->r->cfg->storm_keepalive) {
        /* The server closed first ("Connection: close"), so its side would sit
         * in TIME_WAIT; on loopback the phone's websocket from the same source
         * address can pick the same port and its SYN is then answered only
         * after a 1 s retransmit. A reset leaves no TIME_WAIT (real phones,
         * each an address of its own, do not meet this). */
        struct linger lg = {1, 0};
        setsockopt(sl->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    if (sl->fd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, sl->fd, NULL);
        close(sl->fd);
    }
    sl->fd = -1;
}

/* Phone of sl is done (ok: its page and resources all arrived). */
static void phone_done(struct load_storm *s, struct slot *sl, int ok) {
    struct conn *c = &s->r->c[sl->phone];
    slot_close(s, sl);
    sl->st = S_FREE;
    s->done++;
    if (!ok) {
        s->failed++;
        return;
    }
    c->t_page = fv_clock_ms_frac();
    pthread_mutex_lock(&s->lock);
    s->ready[s->rtail++] = sl->phone;
    pthread_mutex_unlock(&s->lock);
}

static const char *req_path(const struct slot *sl) { return sl->req == 0 ? "/" : sl->res[sl->req - 1]; }

static void prepare_request(struct load_storm *s, struct slot *sl) {
    const struct load_config *cfg = s->r->cfg;
    int n = snprintf(sl->out, sizeof sl->out,
                     /* what a phone's browser says it takes (Chromium: gzip, deflate, br) */
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: fv_load\r\nAccept: */*\r\n"
                     "Accept-Encoding: gzip, deflate, br\r\n%s\r\n",
                     req_path(sl),
                     cfg->host, cfg->port, cfg->storm_keepalive ? "" : "Connection: close\r\n");
    sl->out_len = (size_t)n;
    sl->out_off = 0;
    sl->len = 0;
}

/* A new connection for sl's next request, from its phone's source address. */
static int slot_connect(struct load_storm *s, struct slot *sl) {
    struct lrun *r = s->r;
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
    inet_pton(AF_INET, r->src[sl->phone % r->cfg->sources], &src.sin_addr);
    inet_pton(AF_INET, r->cfg->host, &dst.sin_addr);
    dst.sin_port = htons((uint16_t)r->cfg->port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return storm_fail(s, "phone %d: socket: %s", sl->phone, strerror(errno)), -1;
    if (bind(fd, (struct sockaddr *)&src, sizeof src) < 0 ||
        (connect(fd, (struct sockaddr *)&dst, sizeof dst) < 0 && errno != EINPROGRESS)) {
        storm_fail(s, "phone %d: connect: %s", sl->phone, strerror(errno));
        close(fd);
        return -1;
    }
    struct epoll_event ev = {.events = EPOLLOUT, .data.ptr = sl};
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        close(fd);
        return storm_fail(s, "epoll_ctl: %s", strerror(errno)), -1;
    }
    sl->fd = fd;
    sl->st = S_CONNECTING;
    prepare_request(s, sl);
    return 0;
}

static void start_phone(struct load_storm *s, struct slot *sl) {
    sl->phone = s->next++;
    sl->req = 0;
    sl->nres = 0;
    s->r->c[sl->phone].t_http0 = fv_clock_ms_frac();
    if (slot_connect(s, sl) < 0) phone_done(s, sl, 0);
}

static void want(struct load_storm *s, struct slot *sl, unsigned events) {
    struct epoll_event ev = {.events = events, .data.ptr = sl};
    epoll_ctl(s->epfd, EPOLL_CTL_MOD, sl->fd, &ev);
}

/* The response to sl's request is whole: the next request, or the phone is done. */
static void response_done(struct load_storm *s, struct slot *sl, int status, size_t hl, int keep_alive) {
    s->requests++;
    s->bytes += (long long)sl->len;
    if (status == 304) s->not_modified++;
    else if (status != 200) {
        storm_fail(s, "phone %d: GET %s: HTTP %d", sl->phone, req_path(sl), status);
        phone_done(s, sl, 0);
        return;
    }
    if (sl->req == 0) {
        /* the page as the browser reads it: inflated if it came in gzip */
        size_t ulen = 0;
        int gz = load_http_gzip(sl->buf, hl);
        char *u = gz ? load_gunzip(sl->buf + hl, sl->len - hl, LOAD_HTTP_RESP_MAX, &ulen) : NULL;
        if (gz && !u) {
            storm_fail(s, "phone %d: the page says gzip but does not inflate", sl->phone);
            phone_done(s, sl, 0);
            return;
        }
        sl->nres = u ? load_html_resources(u, ulen, sl->res, LOAD_PAGE_RES_MAX)
                     : load_html_resources(sl->buf + hl, sl->len - hl, sl->res, LOAD_PAGE_RES_MAX);
        free(u);
        if (!sl->nres) storm_fail(s, "phone %d: the page names no resource (not the phone page?)", sl->phone);
    }
    if (++sl->req > sl->nres) {
        phone_done(s, sl, 1);
        return;
    }
    if (s->r->cfg->storm_keepalive && keep_alive) {
        prepare_request(s, sl);
        sl->st = S_SENDING;
        want(s, sl, EPOLLOUT);
        return;
    }
    slot_close(s, sl);
    if (slot_connect(s, sl) < 0) phone_done(s, sl, 0);
}

static void on_event(struct load_storm *s, struct slot *sl, unsigned events) {
    if (sl->st == S_CONNECTING) {
        int e = 0;
        socklen_t el = sizeof e;
        getsockopt(sl->fd, SOL_SOCKET, SO_ERROR, &e, &el);
        if (e) {
            storm_fail(s, "phone %d: connect: %s", sl->phone, strerror(e));
            phone_done(s, sl, 0);
            return;
        }
        sl->st = S_SENDING;
    }
    if (sl->st == S_SENDING && (events & EPOLLOUT)) {
        ssize_t n = send(sl->fd, sl->out + sl->out_off, sl->out_len - sl->out_off, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN) {
            storm_fail(s, "phone %d: send: %s", sl->phone, strerror(errno));
            phone_done(s, sl, 0);
            return;
        }
        if (n > 0) sl->out_off += (size_t)n;
        if (sl->out_off == sl->out_len) {
            sl->st = S_READING;
            want(s, sl, EPOLLIN);
        }
        return;
    }
    if (sl->st != S_READING) return;
    for (;;) {
        if (sl->len == LOAD_HTTP_RESP_MAX) {
            storm_fail(s, "phone %d: GET %s: response larger than %d bytes", sl->phone, req_path(sl), LOAD_HTTP_RESP_MAX);
            phone_done(s, sl, 0);
            return;
        }
        ssize_t n = recv(sl->fd, sl->buf + sl->len, LOAD_HTTP_RESP_MAX - sl->len, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        int status = 0, ka = 0;
        size_t hl = 0;
        long long bl = 0;
        if (n <= 0) { /* closed: whole only if the body ran to the close */
            if (load_http_response(sl->buf, sl->len, &status, &hl, &bl, &ka) == 0 && bl < 0 && hl) {
                response_done(s, sl, status, hl, 0);
                return;
            }
            storm_fail(s, "phone %d: GET %s: connection %s before the whole response", sl->phone, req_path(sl),
                       n == 0 ? "closed" : strerror(errno));
            phone_done(s, sl, 0);
            return;
        }
        sl->len += (size_t)n;
        int rc = load_http_response(sl->buf, sl->len, &status, &hl, &bl, &ka);
        if (rc < 0) {
            storm_fail(s, "phone %d: GET %s: malformed response", sl->phone, req_path(sl));
            phone_done(s, sl, 0);
            return;
        }
        if (rc == 1) {
            response_done(s, sl, status, hl, ka);
            return;
        }
    }
}

static void *storm_main(void *arg) {
    struct load_storm *s = arg;
    struct epoll_event evs[64];
    while (!atomic_load(&s->stop) && s->done < s->r->n) {
        for (int i = 0; i < s->nslots && s->next < s->r->n; i++)
            if (s->slots[i].st == S_FREE) start_phone(s, &s->slots[i]);
        int n = epoll_wait(s->epfd, evs, 64, LOAD_STORM_WAIT_MS);
        for (int i = 0; i < n; i++) on_event(s, evs[i].data.ptr, evs[i].events);
    }
    return NULL;
}

int load_storm_start(struct lrun *r, char *err, size_t errlen) {
    struct load_storm *s = calloc(1, sizeof *s);
    if (!s) return snprintf(err, errlen, "out of memory"), -1;
    s->r = r;
    s->nslots = r->cfg->connect_inflight < r->n ? r->cfg->connect_inflight : r->n;
    s->slots = calloc((size_t)s->nslots, sizeof *s->slots);
    s->ready = calloc((size_t)r->n, sizeof *s->ready);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    pthread_mutex_init(&s->lock, NULL);
    r->storm = s;
    if (!s->slots || !s->ready || s->epfd < 0) return snprintf(err, errlen, "out of memory or epoll"), -1;
    for (int i = 0; i < s->nslots; i++) {
        s->slots[i].fd = -1;
        if (!(s->slots[i].buf = malloc(LOAD_HTTP_RESP_MAX))) return snprintf(err, errlen, "out of memory"), -1;
    }
    r->res->storm.ran = 1;
    if (pthread_create(&s->thread, NULL, storm_main, s)) return snprintf(err, errlen, "cannot start the storm thread"), -1;
    s->started = 1;
    return 0;
}

int load_storm_next_ready(struct lrun *r) {
    struct load_storm *s = r->storm;
    int i = -1;
    pthread_mutex_lock(&s->lock);
    if (s->rhead < s->rtail) i = s->ready[s->rhead++];
    pthread_mutex_unlock(&s->lock);
    return i;
}

void load_storm_finish(struct lrun *r) {
    struct load_storm *s = r->storm;
    if (!s) return;
    atomic_store(&s->stop, 1);
    if (s->started) pthread_join(s->thread, NULL);
    struct load_storm_result *o = &r->res->storm;
    o->requests = s->requests;
    o->not_modified = s->not_modified;
    o->bytes = s->bytes;
    o->failed = s->failed + (r->n - s->done);
    o->errors = s->errors;
    if (s->errors) load_failf(r, "join storm: %d errors; first: %s", s->errors, s->first_error);
    size_t sz = sizeof(double) * (size_t)(r->n + 1);
    double *page = malloc(sz), *wel = malloc(sz), last_page = 0, last_wel = 0;
    size_t np = 0, nw = 0;
    for (int i = 0; page && wel && i < r->n; i++) {
        const struct conn *c = &r->c[i];
        if (c->t_page > 0) {
            page[np++] = c->t_page - c->t_http0;
            if (c->t_page > last_page) last_page = c->t_page;
        }
        if (c->t_page > 0 && c->t_welcome > 0) {
            wel[nw++] = c->t_welcome - r->t0;
            if (c->t_welcome > last_wel) last_wel = c->t_welcome;
        }
    }
    o->pages = (int)np;
    o->pages_s = np && last_page > r->t0 ? (double)np / ((last_page - r->t0) / 1e3) : 0;
    o->all_joined_s = nw == (size_t)r->n ? (last_wel - r->t0) / 1e3 : -1;
    load_lat_summarize(page, np, &o->page);
    load_lat_summarize(wel, nw, &o->welcome);
    free(page);
    free(wel);
    for (int i = 0; i < s->nslots; i++) {
        if (s->slots[i].fd >= 0) close(s->slots[i].fd);
        free(s->slots[i].buf);
    }
    if (s->epfd >= 0) close(s->epfd);
    pthread_mutex_destroy(&s->lock);
    free(s->slots);
    free(s->ready);
    free(s);
    r->storm = NULL;
}
