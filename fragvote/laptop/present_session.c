/* `fragvote present`'s session with a hosted hub (present_session.h). */
#include "present_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "hub_control.h"

int present_session_init(struct present_session *s, const struct present_opts *o, char *err, size_t errlen) {
    *s = (struct present_session){.o = o};
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        snprintf(err, errlen, "getrandom failed");
        return -1;
    }
    for (int i = 0; i < 16; i++) snprintf(s->instance + 2 * i, 3, "%02x", rnd[i]);
    for (int i = 0; i < PRESENT_EXPORTS_MAX; i++) s->export_fd[i] = -1;
    pthread_mutex_init(&s->lock, NULL);
    present_export_init(&s->export);
    return 0;
}

void present_session_destroy(struct present_session *s) {
    for (int i = 0; i < PRESENT_EXPORTS_MAX; i++)
        if (s->export_fd[i] >= 0) close(s->export_fd[i]);
    if (s->script) fclose(s->script);
    s->script = NULL;
    pthread_mutex_destroy(&s->lock);
    present_export_destroy(&s->export);
    free(s->last_state);
    s->last_state = NULL;
}

/* ---- the link's side: frames in, frames out (on the loop's thread) ---- */

int present_session_send(void *ctx, const char *text) {
    struct present_session *s = ctx;
    return present_link_send(s->link, text);
}

static void fatal(struct present_session *s, const char *fmt, const char *a, const char *b) {
    pthread_mutex_lock(&s->lock);
    if (!s->fatal) {
        s->fatal = 1;
        /* A cut message is fine; using the count keeps -Wformat-truncation
         * quiet whatever GCC decides to inline here. */
        if (snprintf(s->fatal_msg, sizeof s->fatal_msg, fmt, a, b) < 0) s->fatal_msg[0] = '\0';
    }
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    present_link_stop(s->link);
}

static void on_up(void *ctx) {
    struct present_session *s = ctx;
    s->authed = 0;
    s->took_over = 0;
    char *auth = present_frame_auth(s->o->secret);
    if (!auth || present_link_send(s->link, auth) < 0) present_link_drop(s->link, "could not send auth");
    free(auth);
}

static void on_down(void *ctx, const char *why, int next_ms) {
    struct present_session *s = ctx;
    s->authed = 0;
    s->downs++;
    present_prober_lost(s->prober);
    present_console_link(s->remote, 0, why, next_ms);
    /* On a terminal the console's screen says it; a log (or no console yet) gets a line. */
    if (!s->con_started || !isatty(STDOUT_FILENO)) {
        printf("Hub: hub unreachable (%s): trying again in %.1f s\n", why, next_ms / 1000.0);
        fflush(stdout);
    }
}

static void *console_main(void *arg);

static void start_console(struct present_session *s) {
    present_console_facts(s->remote, s->room, sizeof s->room, s->title, sizeof s->title, s->join_url,
                         sizeof s->join_url);
    s->con = (struct console){
        .be = present_console_backend(s->remote),
        .view = {s->title, s->join_url, s->room, s->o->secret, s->facts.target, !s->o->no_qr,
                 console_page_url(s->join_url, "screen/", s->screen_url, sizeof s->screen_url) ? NULL : s->screen_url,
                 console_page_url(s->join_url, "presenter/", s->presenter_url, sizeof s->presenter_url)
                     ? NULL
                     : s->presenter_url},
        .out = stdout,
        .timer_s = s->o->timer_s,
        .stop = (volatile int *)&s->stop,
    };
    if (pthread_create(&s->con_thread, NULL, console_main, s) == 0) s->con_started = 1;
    else fatal(s, "cannot start the console thread%s%s", "", "");
}

static int fatal_code(const char *code) {
    static const char *const codes[] = {"bad_secret", "prober_busy", "bad_deck", "deck_mismatch", "not_remote",
                                        "forbidden"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(code, codes[i])) return 1;
    return 0;
}

static void send_prober(struct present_session *s, int take_over) {
    char *hello = present_frame_prober(s->deck_json, &s->facts, take_over, s->instance);
    if (hello && strlen(hello) > HUB_PROBER_MSG_MAX) {
        char n[32], max[32];
        snprintf(n, sizeof n, "%zu", strlen(hello));
        snprintf(max, sizeof max, "%d", HUB_PROBER_MSG_MAX);
        fatal(s, "the deck is too large for the hub: its prober hello is %s bytes, the hub takes %s at most", n, max);
    } else if (!hello || present_link_send(s->link, hello) < 0) {
        present_link_drop(s->link, "could not send the prober hello");
    }
    free(hello);
}

static void on_error(struct present_session *s, const struct present_frame *f) {
    if (f->rid >= 0) { /* the hub did not take a result: nothing to send again */
        fprintf(stderr, "fragvote present: the hub refused the result of measurement %lld: %s\n", f->rid,
                f->message[0] ? f->message : f->code);
        present_prober_done(s->prober, f->rid);
        return;
    }
    if (!s->authed && !strcmp(f->code, "throttled")) {
        present_link_drop(s->link, "the hub throttled the secret; waiting");
        return;
    }
    if (present_export_waiting(&s->export)) { /* the console is done: this answers the export */
        present_export_answer(&s->export, 0, f->message[0] ? f->message : f->code);
        return;
    }
    if (!strcmp(f->code, "prober_busy") && s->was_prober && !s->displaced && !s->took_over) {
        /* After a cut link the hub may still hold this laptop's old connection as the prober. */
        fprintf(stderr, "fragvote present: the hub still holds this laptop's previous connection as the prober; "
                        "taking the role over from it\n");
        s->took_over = 1;
        send_prober(s, 1);
        return;
    }
    if (fatal_code(f->code)) {
        fatal(s, "the hub refused: %s (%s)", f->message[0] ? f->message : f->code, f->code);
        return;
    }
    present_console_answer(s->remote, f); /* a refused command: the console shows why */
}

static void on_frame(void *ctx, const char *text, size_t len) {
    struct present_session *s = ctx;
    struct present_frame f;
    char err[300];
    if (present_frame_parse(text, len, &f, err, sizeof err) < 0) {
        char why[360];
        snprintf(why, sizeof why, "the hub sent a malformed frame: %s", err);
        present_link_drop(s->link, why);
        return;
    }
    switch (f.type) {
    case PF_AUTH_OK: {
        s->authed = 1;
        if (!s->displaced) send_prober(s, s->o->take_over);
        present_console_link(s->remote, 1, "", 0);
        if (s->displaced) present_console_note(s->remote, "another laptop measures for the room now; this one only presents");
        if (s->downs && (!s->con_started || !isatty(STDOUT_FILENO))) {
            printf("Hub: connected to the hub again\n");
            fflush(stdout);
        }
        break;
    }
    case PF_STATE:
        if (!s->authed) break; /* the public view before auth_ok: the full one follows */
        if (present_console_state(s->remote, text, len, err, sizeof err) < 0) {
            present_link_drop(s->link, err);
            break;
        }
        free(s->last_state);
        s->last_state = strndup(text, len);
        if (!s->con_started) start_console(s);
        break;
    case PF_TALLY:
        if (s->authed && present_console_tally(s->remote, text, len, err, sizeof err) < 0) present_link_drop(s->link, err);
        break;
    case PF_CMD_OK: present_console_answer(s->remote, &f); break;
    case PF_ERROR: on_error(s, &f); break;
    case PF_PROBER_OK:
        if (!s->was_prober || s->downs)
            fprintf(stderr, "fragvote present: measuring for session %lld, room %s (deck %s; %d measurement%s waiting)\n",
                    f.session, f.room, f.deck[0] ? f.deck : "?", f.pending, f.pending == 1 ? "" : "s");
        s->was_prober = 1;
        present_prober_ready(s->prober, f.epoch);
        break;
    case PF_PROBER_GONE:
        s->displaced = 1;
        present_prober_lost(s->prober);
        fprintf(stderr, "fragvote present: another connection measures for the room now (%s); this console "
                        "still presents\n", f.message[0] ? f.message : f.reason);
        present_console_note(s->remote, "another laptop measures for the room now; this one only presents");
        break;
    case PF_EXPORT_OK: present_export_received(&s->export, text, len); break;
    case PF_MEASURE:
        if (present_prober_measure(s->prober, &f, err, sizeof err) < 0)
            fprintf(stderr, "fragvote present: %s (answered unknown)\n", err);
        break;
    case PF_RESULT_OK: present_prober_done(s->prober, f.rid); break;
    default: break;
    }
}

/* ---- the console thread ---- */

static void *console_main(void *arg) {
    struct present_session *s = arg;
    char err[512] = "";
    int rc;
    if (s->script) {
        FILE *f = s->script;
        s->script = NULL; /* console_run_open closes it */
        rc = console_run_open(&s->con, f, s->o->script, err, sizeof err);
        if (rc < 0) s->script_failed = 1;
    } else {
        rc = console_run_interactive(&s->con, STDIN_FILENO, err, sizeof err);
    }
    if (rc < 0) fprintf(stderr, "fragvote present: %s\n", err);
    for (int i = 0; i < s->o->nexports && !s->signal_no && !s->fatal; i++) {
        if (present_export_one(&s->export, s->link, s->o->export_file[i], s->export_fd[i], s->o->export_format[i]) < 0)
            s->export_failed = 1;
        s->export_fd[i] = -1; /* the export wrote or closed it */
    }
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    present_link_stop(s->link);
    return NULL;
}

/* ---- signals (cli_signals: one thread sigwait()s) ---- */

void present_session_signal(void *ctx, int sig) {
    struct present_session *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    s->signal_no = sig;
    pthread_mutex_unlock(&s->lock);
    if (s->link) present_link_stop(s->link);
}

void present_session_link(struct present_session *s, struct present_link_config *lc) {
    lc->on_up = on_up;
    lc->on_frame = on_frame;
    lc->on_down = on_down;
    lc->ctx = s;
}

void present_session_stop(struct present_session *s) {
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    if (s->con_started) pthread_join(s->con_thread, NULL);
}
