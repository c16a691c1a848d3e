/* The venue check's websocket through a hosted hub (present_check.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fv_clock.h"
#include "present_check.h"
#include "present_frame.h"
#include "present_link.h"

#define CHECK_PING_MS 1000

struct trial {
    struct check_hub *h;
    struct present_link *link;
    pthread_mutex_t mu;
    double t0, ping_at; /* ms: the start; the ping in flight (0: none) */
    int up, down;
};

static void on_up(void *ctx) {
    struct trial *t = ctx;
    pthread_mutex_lock(&t->mu);
    t->up = 1;
    t->h->connected = 1;
    t->h->open_ms = fv_clock_ms_frac() - t->t0;
    pthread_mutex_unlock(&t->mu);
}

static void on_frame(void *ctx, const char *text, size_t len) {
    struct trial *t = ctx;
    struct present_frame f;
    char err[128];
    if (present_frame_parse(text, len, &f, err, sizeof err) || f.type != PF_PONG) return;
    pthread_mutex_lock(&t->mu);
    if (t->ping_at > 0) {
        double rtt = fv_clock_ms_frac() - t->ping_at;
        if (!t->h->pongs || rtt < t->h->rtt_min_ms) t->h->rtt_min_ms = rtt;
        if (rtt > t->h->rtt_max_ms) t->h->rtt_max_ms = rtt;
        t->h->pongs++;
        t->ping_at = 0;
    }
    pthread_mutex_unlock(&t->mu);
}

static void on_down(void *ctx, const char *why, int next_ms) {
    struct trial *t = ctx;
    (void)next_ms;
    pthread_mutex_lock(&t->mu);
    if (!t->down) snprintf(t->h->why, sizeof t->h->why, "%s", why);
    t->down = 1;
    pthread_mutex_unlock(&t->mu);
    present_link_stop(t->link); /* one attempt: the check reports, it does not retry */
}

static void *run(void *p) {
    present_link_run(((struct trial *)p)->link);
    return NULL;
}

/* The hold: a ping a second while open, until hold_ms or the link is down
 * (or never opened within the connection's limit). */
static void hold(struct trial *t) {
    const double connect_ms = PRESENT_CONNECT_S * 1000.0 + 1000;
    for (;;) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double now = fv_clock_ms_frac();
        pthread_mutex_lock(&t->mu);
        int up = t->up, down = t->down;
        double opened = t->t0 + t->h->open_ms;
        int send = up && !down && t->ping_at == 0 && now - opened >= (double)t->h->pings * CHECK_PING_MS;
        if (send) t->ping_at = now;
        pthread_mutex_unlock(&t->mu);
        if (down || (!up && now - t->t0 > connect_ms)) break;
        if (up && now - opened >= t->h->hold_ms) break;
        if (send && present_link_send(t->link, "{\"t\":\"ping\"}") == 0) t->h->pings++;
    }
    pthread_mutex_lock(&t->mu);
    if (t->up) {
        t->h->held_ms = fv_clock_ms_frac() - t->t0 - t->h->open_ms;
        t->h->dropped = t->down;
    } else if (!t->down) {
        snprintf(t->h->why, sizeof t->h->why, "no connection within %d s", PRESENT_CONNECT_S);
    }
    pthread_mutex_unlock(&t->mu);
}

int present_check_hub(struct check_hub *h, const char *ca_file, char *err, size_t errlen) {
    struct trial t = {.h = h};
    struct present_link_config cfg = {.ca_file = ca_file, .on_up = on_up, .on_frame = on_frame, .on_down = on_down,
                                      .ctx = &t};
    if (present_url_parse(h->url, &cfg.url, err, errlen)) return -1;
    if (!(t.link = present_link_new(&cfg, err, errlen))) return -1;
    pthread_mutex_init(&t.mu, NULL);
    pthread_t th;
    t.t0 = fv_clock_ms_frac();
    if (pthread_create(&th, NULL, run, &t)) {
        present_link_free(t.link);
        pthread_mutex_destroy(&t.mu);
        snprintf(err, errlen, "cannot start the link's thread");
        return -1;
    }
    hold(&t);
    present_link_stop(t.link);
    pthread_join(th, NULL);
    present_link_free(t.link);
    pthread_mutex_destroy(&t.mu);
    return 0;
}
