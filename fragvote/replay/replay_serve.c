/* fragvote replay ID --serve: the projector steps through a recorded session.
 *
 * Read-only by construction: the session is copied (SQLite backup) into a
 * private temporary file, a room is resumed from that copy and served by the
 * ordinary hub, so whatever phones or the presenter page do in the replay
 * touches only the copy, which is deleted at the end. No probe is configured:
 * "measure" is refused by the hub.
 *
 * Threads: the calling thread runs the hub loop; an input thread turns lines
 * on the input fd (next / back / quit, or n / b / q) into hub_post(); a
 * signal thread turns SIGINT/SIGTERM into hub_stop(). Both poll a done flag
 * so that they end with the hub. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "db_hub.h"
#include "deck.h"
#include "hub.h"
#include "replay.h"
#include "room.h"
#include "fv_err.h"

#define REPLAY_INPUT_LINE_MAX CONSOLE_LINE_MAX /* bytes per command line; longer lines are dropped */
#define REPLAY_POLL_MS 200                     /* how often the helper threads look at the done flag */

struct replay_srv {
    struct hub *hub;
    int in_fd;
    FILE *out;
    volatile int done;
    sigset_t sigs;
};

/* yes and no votes without a voter on question pos, with the confidence
 * named ("" none), into the quiz's tally. */
static int add_anonymous(int pos, const char *confidence, int yes, int no, void *quiz) {
    enum confidence conf = CONFIDENCE_NONE;
    confidence_parse(confidence, &conf);
    for (int i = 0; i < yes; i++) quiz_vote_apply(quiz, pos, -1, CONFIDENCE_NONE, 1, conf);
    for (int i = 0; i < no; i++) quiz_vote_apply(quiz, pos, -1, CONFIDENCE_NONE, 0, conf);
    return 0;
}

static void handle_line(struct replay_srv *s, const char *line) {
    struct console_cmd cmd;
    char err[256];
    if (console_parse_line(line, &cmd, err, sizeof err) < 0) {
        /* single keys, as on the serve console */
        if (strlen(line) != 1 || console_parse_key((unsigned char)line[0], &cmd) < 0) {
            fprintf(s->out, "replay: %s (next, back or quit)\n", err);
            fflush(s->out);
            return;
        }
    }
    if (cmd.verb == CONSOLE_NOTHING) return;
    if (cmd.verb != CONSOLE_ACT ||
        (cmd.act != HUB_CMD_NEXT && cmd.act != HUB_CMD_BACK && cmd.act != HUB_CMD_QUIT)) {
        fprintf(s->out, "replay: read-only replay: only next, back and quit\n");
        fflush(s->out);
        return;
    }
    struct hub_cmd c = {.kind = cmd.act};
    if (hub_post(s->hub, &c) < 0) {
        fprintf(s->out, "replay: the hub is busy, try again\n");
        fflush(s->out);
    }
}

static void *input_main(void *arg) {
    struct replay_srv *s = arg;
    char line[REPLAY_INPUT_LINE_MAX + 1];
    size_t n = 0;
    int overlong = 0;
    while (!s->done) {
        struct pollfd p = {.fd = s->in_fd, .events = POLLIN};
        int pr = poll(&p, 1, REPLAY_POLL_MS);
        if (pr < 0 && errno != EINTR) break;
        if (pr <= 0) continue;
        char c;
        ssize_t got = read(s->in_fd, &c, 1);
        if (got <= 0) break; /* end of input: keep serving until quit or a signal */
        if (c != '\n') {
            if (n < REPLAY_INPUT_LINE_MAX) line[n++] = c;
            else overlong = 1;
            continue;
        }
        line[n] = '\0';
        if (n && line[n - 1] == '\r') line[n - 1] = '\0';
        if (!overlong) handle_line(s, line);
        n = 0;
        overlong = 0;
    }
    return NULL;
}

static void *signal_main(void *arg) {
    struct replay_srv *s = arg;
    struct timespec ts = {0, REPLAY_POLL_MS * 1000000L};
    while (!s->done) {
        int sig = sigtimedwait(&s->sigs, NULL, &ts);
        if (sig > 0) {
            hub_stop(s->hub);
            break;
        }
    }
    return NULL;
}

/* Removes the temporary copy and its WAL/SHM files, then the directory. */
static void remove_copy(const char *dir, const char *file) {
    char p[512];
    snprintf(p, sizeof p, "%s-wal", file);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", file);
    unlink(p);
    unlink(file);
    rmdir(dir);
}

int replay_serve(struct db *db, struct db_report *r, int64_t session_id, const struct replay_serve_opts *o,
                 char *err, size_t errlen) {
    int rc = -1;
    struct db_session_row row;
    memset(&row, 0, sizeof row);
    struct deck deck;
    memset(&deck, 0, sizeof deck);
    int have_deck = 0, threads = 0;
    struct db *copy = NULL;
    struct room *room = NULL;
    struct replay_srv s;
    memset(&s, 0, sizeof s);
    pthread_t in_thread, sig_thread;
    sigset_t old;

    /* Signals go to the signal thread only (blocked from here, inherited by
     * threads; one that arrives before that thread runs stays pending). */
    sigemptyset(&s.sigs);
    sigaddset(&s.sigs, SIGINT);
    sigaddset(&s.sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s.sigs, &old);
    if (db_session_get(db, session_id, &row, err, errlen)) goto out_mask;
    const char *tmp = getenv("TMPDIR");
    char dir[256], file[300];
    snprintf(dir, sizeof dir, "%s/fragvote-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fv_seterr(err, errlen, "cannot create a temporary directory for the replay copy: %s", strerror(errno));
        goto out_row;
    }
    snprintf(file, sizeof file, "%s/replay.db", dir);
    if (db_report_snapshot(r, file, err, errlen)) goto out;
    if (!(copy = db_open(file, err, errlen))) goto out;
    char derr[512];
    if (deck_load_string(row.deck_json, "the session's deck", &deck, derr, sizeof derr) < 0) {
        fv_seterr(err, errlen, "session %lld: its stored deck does not load: %s", (long long)session_id, derr);
        goto out;
    }
    have_deck = 1;
    if (!(room = room_resume(copy, session_id, &deck, err, errlen))) goto out;
    /* A purged session's votes have no voter (docs/PRIVACY.md), so the room
     * resumed none of them: its tallies take them here. */
    if (db_hub_anonymous_votes_each(copy, session_id, add_anonymous, room_quiz(room), err, errlen)) goto out;
    /* Start at the first question, as the talk did. */
    quiz_restore_cursor(room_quiz(room), 0, 0);
    /* A recorded session: phones may play its replay from the start (docs/SERVE.md "After the talk"). */
    room_set_recorded(room);

    struct hub_config cfg = {.bind_addr = o->bind_addr, .port = o->port, .web_root = o->web_root,
                             .public_url = o->public_url, .secret = o->secret, .use_poll = o->use_poll};
    if (!(s.hub = hub_new(&cfg, room, err, errlen))) goto out;
    s.in_fd = o->in_fd;
    s.out = o->out ? o->out : stdout;

    char base[320];
    snprintf(base, sizeof base, "%s", hub_join_url(s.hub));
    char *q = strchr(base, '?');
    if (q) *q = '\0';
    size_t bl = strlen(base);
    if (bl && base[bl - 1] == '/') base[bl - 1] = '\0';
    fprintf(s.out,
            "Replaying session %lld: %s\n"
            "  read-only: the projector shows a private copy; %s is not written\n"
            "  port %d\n"
            "  event loop %s\n"
            "  projector  %s/screen\n"
            "  presenter  %s/presenter#secret=%s\n"
            "  commands   next (n), back (b), quit (q), one per line; Ctrl-C quits\n",
            (long long)session_id, row.title, db_path(db), hub_port(s.hub),
            hub_event_loop_is_libev(s.hub) ? "libev (epoll)" : "poll", base, base, hub_secret(s.hub));
    fflush(s.out);

    if (pthread_create(&sig_thread, NULL, signal_main, &s)) {
        fv_seterr(err, errlen, "cannot start the signal thread");
        goto out;
    }
    threads = 1;
    if (s.in_fd >= 0 && pthread_create(&in_thread, NULL, input_main, &s) == 0) threads = 2;
    rc = hub_run(s.hub);
    if (rc) fv_seterr(err, errlen, "the replay server's loop failed");
    s.done = 1;
    if (threads == 2) pthread_join(in_thread, NULL);
    pthread_join(sig_thread, NULL);
out:
    if (s.hub) hub_free(s.hub);
    room_free(room);
    if (have_deck) deck_free(&deck);
    db_close(copy);
    remove_copy(dir, file);
out_row:
    db_session_row_free(&row);
out_mask:
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
