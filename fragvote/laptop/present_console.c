/* The console's backend for a hub on another host (see present_console.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fv_clock.h"
#include "present_console.h"

struct present_console {
    int (*send)(void *ctx, const char *text);
    void *send_ctx;
    pthread_mutex_t mu;
    struct console_status st;   /* as the hub's frames said */
    double closes_at_ms;        /* when the voting timer runs out (monotonic), 0 none */
    int have_state, up;
    int cmds_waiting;           /* cmd frames sent and not answered on this connection */
    char room[16], title[512], join_url[PRESENT_URL_MAX];
};

/* A refusal the console shows (last_error) and counts (refused_total). */
static void refused_locked(struct present_console *r, const char *why) {
    snprintf(r->st.hub.last_error, sizeof r->st.hub.last_error, "%s", why);
    r->st.hub.refused_total++;
}

static int be_post(void *ctx, enum hub_cmd_kind k, int seconds) {
    struct present_console *r = ctx;
    if (k == HUB_CMD_QUIT) return 0; /* ends the laptop's run (the caller sees it), never the hosted room */
    char *text = present_frame_cmd(k, seconds);
    if (!text) return -1;
    pthread_mutex_lock(&r->mu);
    if (!r->up || r->send(r->send_ctx, text) < 0)
        refused_locked(r, "the hub is unreachable (reconnecting): nothing was sent");
    else
        r->cmds_waiting++;
    pthread_mutex_unlock(&r->mu);
    free(text);
    return 0;
}

static void be_status(void *ctx, struct console_status *out) {
    struct present_console *r = ctx;
    pthread_mutex_lock(&r->mu);
    *out = r->st;
    if (r->closes_at_ms > 0) {
        double left = r->closes_at_ms - fv_clock_ms_frac();
        out->hub.closes_in_ms = left >= 1 ? (long long)left : 1;
    }
    pthread_mutex_unlock(&r->mu);
}

struct console_backend present_console_backend(struct present_console *r) {
    return (struct console_backend){be_post, be_status, r};
}

struct present_console *present_console_new(int (*send)(void *ctx, const char *text), void *send_ctx) {
    struct present_console *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->send = send;
    r->send_ctx = send_ctx;
    r->st.hub.collective = -1;
    r->st.correct = -1;
    r->st.correct_votes = -1;
    snprintf(r->st.link, sizeof r->st.link, "connecting to the hub...");
    pthread_mutex_init(&r->mu, NULL);
    return r;
}

void present_console_free(struct present_console *r) {
    if (!r) return;
    pthread_mutex_destroy(&r->mu);
    free(r);
}

void present_console_link(struct present_console *r, int up, const char *why, int next_ms) {
    pthread_mutex_lock(&r->mu);
    int was = r->up;
    r->up = up;
    if (up) {
        r->st.link[0] = 0;
    } else {
        if (r->cmds_waiting) refused_locked(r, "the connection to the hub was lost before it answered");
        r->cmds_waiting = 0;
        snprintf(r->st.link, sizeof r->st.link, "hub unreachable (%s): %s in %.1f s", why,
                 was || !r->have_state ? "reconnecting" : "trying again", next_ms / 1000.0);
    }
    pthread_mutex_unlock(&r->mu);
}

void present_console_note(struct present_console *r, const char *note) {
    pthread_mutex_lock(&r->mu);
    snprintf(r->st.link, sizeof r->st.link, "%s", note);
    pthread_mutex_unlock(&r->mu);
}

static void set_timer_locked(struct present_console *r) {
    r->closes_at_ms = r->st.hub.closes_in_ms > 0 ? fv_clock_ms_frac() + (double)r->st.hub.closes_in_ms : 0;
}

int present_console_state(struct present_console *r, const char *text, size_t len, char *err, size_t errlen) {
    struct present_frame f;
    if (present_frame_parse(text, len, &f, err, errlen) < 0) return -1;
    pthread_mutex_lock(&r->mu);
    int rc = present_frame_state(text, len, &r->st, err, errlen);
    if (rc == 0) {
        set_timer_locked(r);
        r->have_state = 1;
        snprintf(r->room, sizeof r->room, "%s", f.room);
        snprintf(r->title, sizeof r->title, "%s", f.title);
        snprintf(r->join_url, sizeof r->join_url, "%s", f.join_url);
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int present_console_tally(struct present_console *r, const char *text, size_t len, char *err, size_t errlen) {
    pthread_mutex_lock(&r->mu);
    int rc = present_frame_tally(text, len, &r->st, err, errlen);
    if (rc == 0) set_timer_locked(r);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void present_console_answer(struct present_console *r, const struct present_frame *f) {
    pthread_mutex_lock(&r->mu);
    if (r->cmds_waiting > 0) r->cmds_waiting--;
    if (f->type == PF_ERROR) {
        char why[sizeof r->st.hub.last_error];
        snprintf(why, sizeof why, "%s", f->message[0] ? f->message : f->code);
        refused_locked(r, why);
    } else if (!strcmp(f->cmd, "measure") || !strcmp(f->cmd, "rerun")) {
        r->st.measure_requests++; /* taken: the console's act_taken sees it even before the state */
    }
    pthread_mutex_unlock(&r->mu);
}

int present_console_facts(struct present_console *r, char *room, size_t roomlen, char *title, size_t titlelen, char *url,
                         size_t urllen) {
    pthread_mutex_lock(&r->mu);
    int have = r->have_state;
    snprintf(room, roomlen, "%s", r->room);
    snprintf(title, titlelen, "%s", r->title);
    snprintf(url, urllen, "%s", r->join_url);
    pthread_mutex_unlock(&r->mu);
    return have ? 0 : -1;
}
