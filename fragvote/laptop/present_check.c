/* The venue check's websocket through a hosted hub (present_check.h): held
 * open with pings (--hub), or as the presenter waiting for a phone (--phone). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fv_clock.h"
#include "fv_err.h"
#include "present_check.h"
#include "present_frame.h"
#include "present_link.h"

#define CHECK_PING_MS 1000
#define CHECK_TALLY_LAG_MS 1000 /* --phone: a round trip came; the tally counting its phone may come this much later */

struct trial {
    struct check_hub *h;   /* --hub, or NULL */
    struct check_phone *p; /* --phone, or NULL */
    const char *secret;
    struct console_status *st; /* --phone: the tally as the console reads it (only the loop's thread) */
    struct present_link *link;
    pthread_mutex_t mu;
    double t0, ping_at, open_ms; /* ms: the start; the ping in flight (0: none); open after t0 */
    double rtt_at;               /* --phone: when the phone's round trip came, after t0 */
    int up, down;
    char why[200];
};

static void on_up(void *ctx) {
    struct trial *t = ctx;
    pthread_mutex_lock(&t->mu);
    t->up = 1;
    t->open_ms = fv_clock_ms_frac() - t->t0;
    pthread_mutex_unlock(&t->mu);
    if (t->p) {
        char *auth = present_frame_auth(t->secret);
        if (auth) present_link_send(t->link, auth);
        free(auth);
    }
}

static void on_pong(struct trial *t) {
    struct check_hub *h = t->h;
    if (t->ping_at <= 0) return;
    double rtt = fv_clock_ms_frac() - t->ping_at;
    if (!h->pongs || rtt < h->rtt_min_ms) h->rtt_min_ms = rtt;
    if (rtt > h->rtt_max_ms) h->rtt_max_ms = rtt;
    h->pongs++;
    t->ping_at = 0;
}

/* The presenter's frames: auth_ok, an error (the secret refused), the
 * state's join URL, the tally's phones joined, a phone's round trip. */
static void on_presenter_frame(struct trial *t, const struct present_frame *f, const char *text, size_t len) {
    struct check_phone *p = t->p;
    if (f->type == PF_AUTH_OK) p->authed = 1;
    if (f->type == PF_ERROR && !p->authed) {
        snprintf(t->why, sizeof t->why, "the hub refused: %s", f->code);
        t->down = 1;
    }
    if (f->type == PF_STATE && !p->join_url[0] && f->join_url[0])
        check_phone_url(f->join_url, p->join_url, sizeof p->join_url);
    if (f->type == PF_PHONE_RTT && p->shown_ms > 0 && !p->rtt_n) {
        p->rtt_n = f->rtt_n;
        p->rtt_median_ms = f->rtt_median_ms;
        p->rtt_max_ms = f->rtt_max_ms;
        t->rtt_at = fv_clock_ms_frac() - t->t0;
        if (p->joined <= p->joined0) p->joined_ms = t->rtt_at;
    }
    if (f->type == PF_TALLY) {
        char err[128];
        if (present_frame_tally(text, len, t->st, err, sizeof err) == 0) {
            if (t->st->hub.voters > p->joined && p->shown_ms > 0 && p->joined <= p->joined0)
                p->joined_ms = fv_clock_ms_frac() - t->t0;
            p->joined = t->st->hub.voters;
        }
    }
}

static void on_frame(void *ctx, const char *text, size_t len) {
    struct trial *t = ctx;
    struct present_frame f;
    char err[128];
    if (present_frame_parse(text, len, &f, err, sizeof err)) {
        if (t->p && f.type == PF_PHONE_RTT) { /* figures that cannot be true: said, not printed */
            pthread_mutex_lock(&t->mu);
            if (t->p->shown_ms > 0) snprintf(t->p->rtt_refused, sizeof t->p->rtt_refused, "%s", err);
            pthread_mutex_unlock(&t->mu);
        }
        return;
    }
    pthread_mutex_lock(&t->mu);
    if (t->h && f.type == PF_PONG) on_pong(t);
    if (t->p) on_presenter_frame(t, &f, text, len);
    int stop = t->down;
    pthread_mutex_unlock(&t->mu);
    if (stop) present_link_stop(t->link);
}

static void on_down(void *ctx, const char *why, int next_ms) {
    struct trial *t = ctx;
    (void)next_ms;
    pthread_mutex_lock(&t->mu);
    if (!t->down) snprintf(t->why, sizeof t->why, "%s", why);
    t->down = 1;
    pthread_mutex_unlock(&t->mu);
    present_link_stop(t->link); /* one attempt: the check reports, it does not retry */
}

static void *run(void *p) {
    present_link_run(((struct trial *)p)->link);
    return NULL;
}

static void nap(void) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

/* Every nap, step(t, now, arg) until it says stop (1). */
static void every_nap(struct trial *t, int (*step)(struct trial *t, double now, void *arg), void *arg) {
    do nap();
    while (!step(t, fv_clock_ms_frac(), arg));
}

/* One look of hold: a ping due is sent; 1 when the hold is over. */
static int hold_step(struct trial *t, double now, void *arg) {
    (void)arg;
    const double connect_ms = PRESENT_CONNECT_S * 1000.0 + 1000;
    struct check_hub *h = t->h;
    pthread_mutex_lock(&t->mu);
    int up = t->up, down = t->down;
    double opened = t->t0 + t->open_ms;
    int send = up && !down && t->ping_at == 0 && now - opened >= (double)h->pings * CHECK_PING_MS;
    if (send) t->ping_at = now;
    pthread_mutex_unlock(&t->mu);
    if (down || (!up && now - t->t0 > connect_ms)) return 1;
    if (up && now - opened >= h->hold_ms) return 1;
    if (send && present_link_send(t->link, "{\"t\":\"ping\"}") == 0) h->pings++;
    return 0;
}

/* --hub: a ping a second while open, until hold_ms or the link is down (or
 * never opened within the connection's limit). */
static void hold(struct trial *t) {
    struct check_hub *h = t->h;
    every_nap(t, hold_step, NULL);
    pthread_mutex_lock(&t->mu);
    h->connected = t->up;
    h->open_ms = t->open_ms;
    if (t->up) h->held_ms = fv_clock_ms_frac() - t->t0 - t->open_ms;
    h->dropped = t->up && t->down;
    if (!t->up && !t->down) snprintf(t->why, sizeof t->why, "no connection within %d s", PRESENT_CONNECT_S);
    snprintf(h->why, sizeof h->why, "%s", t->why);
    pthread_mutex_unlock(&t->mu);
}

struct phone_show {
    void (*show)(void *ctx, const char *join_url);
    void *ctx;
};

/* One look of wait_phone: the join URL shown once it is known; 1 when the
 * wait is over. */
static int phone_step(struct trial *t, double now, void *arg) {
    const struct phone_show *ps = arg;
    const double ready_ms = PRESENT_CONNECT_S * 1000.0 + 3000;
    struct check_phone *p = t->p;
    pthread_mutex_lock(&t->mu);
    int ready = p->authed && p->join_url[0] && p->shown_ms == 0, down = t->down;
    int rtt = p->shown_ms > 0 && p->rtt_n > 0 &&
              (p->joined > p->joined0 || now - t->t0 - t->rtt_at >= CHECK_TALLY_LAG_MS);
    double joined_for = p->shown_ms > 0 && p->joined > p->joined0 ? now - t->t0 - p->joined_ms : -1;
    if (ready) {
        p->shown_ms = now - t->t0;
        p->joined0 = p->joined;
    }
    pthread_mutex_unlock(&t->mu);
    if (ready) ps->show(ps->ctx, p->join_url);
    if (down || rtt || joined_for >= CHECK_PHONE_RTT_WAIT_S * 1000.0) return 1;
    if (p->shown_ms == 0 && now - t->t0 > ready_ms) return 1;
    return p->shown_ms > 0 && now - t->t0 - p->shown_ms >= p->wait_ms && joined_for < 0;
}

/* --phone: authenticated and the join URL known, show it; then until a
 * phone's round trip came, CHECK_PHONE_RTT_WAIT_S after a phone joined
 * without one, wait_ms passed or the link is down. */
static void wait_phone(struct trial *t, void (*show)(void *ctx, const char *join_url), void *ctx) {
    struct check_phone *p = t->p;
    every_nap(t, phone_step, &(struct phone_show){show, ctx});
    pthread_mutex_lock(&t->mu);
    p->connected = t->up;
    if (!t->why[0] && !p->authed) snprintf(t->why, sizeof t->why, "no answer to the presenter's auth");
    snprintf(p->why, sizeof p->why, "%s", t->why);
    pthread_mutex_unlock(&t->mu);
}

/* One link to url for the trial t (its callbacks above), run on a thread
 * while fn waits on this one. 0, or -1 with err. */
static int with_link(struct trial *t, const char *url, const char *ca_file, void (*fn)(struct trial *, void *),
                     void *arg, char *err, size_t errlen) {
    struct present_link_config cfg = {.ca_file = ca_file, .on_up = on_up, .on_frame = on_frame, .on_down = on_down,
                                      .ctx = t};
    if (present_url_parse(url, &cfg.url, err, errlen)) return -1;
    if (!(t->link = present_link_new(&cfg, err, errlen))) return -1;
    pthread_mutex_init(&t->mu, NULL);
    pthread_t th;
    t->t0 = fv_clock_ms_frac();
    int rc = pthread_create(&th, NULL, run, t) ? -1 : 0;
    if (rc == 0) {
        fn(t, arg);
        present_link_stop(t->link);
        pthread_join(th, NULL);
    } else {
        snprintf(err, errlen, "cannot start the link's thread");
    }
    present_link_free(t->link);
    pthread_mutex_destroy(&t->mu);
    return rc;
}

static void do_hold(struct trial *t, void *arg) {
    (void)arg;
    hold(t);
}

int present_check_hub(struct check_hub *h, const char *ca_file, char *err, size_t errlen) {
    struct trial t = {.h = h};
    return with_link(&t, h->url, ca_file, do_hold, NULL, err, errlen);
}

struct shower {
    void (*show)(void *ctx, const char *join_url);
    void *ctx;
};

static void do_wait_phone(struct trial *t, void *arg) {
    struct shower *s = arg;
    wait_phone(t, s->show, s->ctx);
}

int present_check_phone(struct check_phone *p, const char *ca_file, const char *secret,
                        void (*show)(void *ctx, const char *join_url), void *ctx, char *err, size_t errlen) {
    struct trial t = {.p = p, .secret = secret};
    struct shower s = {show, ctx};
    if (!(t.st = fv_zalloc(sizeof *t.st, err, errlen))) return -1;
    int rc = with_link(&t, p->url, ca_file, do_wait_phone, &s, err, errlen);
    free(t.st);
    return rc;
}
