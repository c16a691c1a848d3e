/* fragvote replay ID --serve: a session recorded through the real room (quiz +
 * store) is served by the real program; a real websocket screen sees each
 * question with exactly the stored split and truth while stdin steps
 * next/back; phones cannot change anything in the file; quit and SIGTERM
 * both end it and leave no temporary copy behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_probe.h"
#include "db.h"
#include "deck.h"
#include "room.h"
#include "fv_roles.h"
#include "wsclient.h"

#define T_MS 5000
#define EVIDENCE "replay-serve-test evidence"

static const char deck_json[] =
    "{\"title\":\"Replay on the projector\",\"target\":\"lab\",\"tests\":["
    "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ask\":[\"sent\",\"df\"]},"
    "{\"proto\":\"udp4\",\"mode\":\"dont\",\"size\":1400,\"ask\":[\"fragmented\"]}]}";

/* Expected, by hand: Q1 sent Y Y N truth yes; Q2 df N N N truth yes; Q3 fragmented Y Y Y truth no. */
static const int want_yes[3] = {2, 0, 3}, want_no[3] = {1, 3, 0};
static const char *const want_truth[3] = {"yes", "yes", "no"};

static char dbfile[256];
static int64_t session;

static struct probe_result result(int sent, int df, int frag) { return check_probe_result(sent, df, frag, EVIDENCE); }

/* One question of the talk: open, three votes, close, measure, reveal, next. */
static int play(struct room *room, int pos, const int votes[3], const struct probe_result *res) {
    char err[256];
    static char tokens[3][ROOM_TOKEN_HEX + 1]; /* the same three voters on every question */
    for (int i = 0; i < 3 && !tokens[i][0]; i++)
        if (room_token_new(room, tokens[i], err, sizeof err)) goto fail;
    if (room_act(room, ROOM_OPEN, err, sizeof err)) goto fail;
    struct room_write w[3];
    for (int i = 0; i < 3; i++)
        if (room_write_plan(room, &w[i], -1, tokens[i], pos, votes[i], CONFIDENCE_NONE, i, err, sizeof err)) goto fail;
    if (room_write_commit(room, w, 3, err, sizeof err)) goto fail;
    if (room_act(room, ROOM_CLOSE, err, sizeof err)) goto fail;
    int m = room_act(room, ROOM_MEASURE, err, sizeof err);
    if (m < 0) goto fail;
    if (m == QUIZ_MEASURE_PROBE && room_measured(room, pos, res, err, sizeof err)) goto fail;
    if (room_act(room, ROOM_REVEAL, err, sizeof err)) goto fail;
    if (pos < 2 && room_act(room, ROOM_NEXT, err, sizeof err)) goto fail;
    return 0;
fail:
    fprintf(stderr, "play Q%d: %s\n", pos + 1, err);
    return -1;
}

static int record(void) {
    char err[512];
    struct deck d;
    if (deck_load_string(deck_json, "test deck", &d, err, sizeof err) < 0) {
        fprintf(stderr, "deck: %s\n", err);
        return -1;
    }
    struct db *db = db_open(dbfile, err, sizeof err);
    struct room *room = db ? room_create(db, &d, &(struct room_info){.code = "RPLY42"}, err, sizeof err) : NULL;
    int rc = -1;
    if (!room) {
        fprintf(stderr, "room: %s\n", err);
        goto out;
    }
    session = room_session_id(room);
    struct probe_result r1 = result(PROBE_ANS_YES, PROBE_ANS_YES, PROBE_ANS_NO);
    struct probe_result r2 = result(PROBE_ANS_YES, PROBE_ANS_NO, PROBE_ANS_NO);
    static const int v1[3] = {1, 1, 0}, v2[3] = {0, 0, 0}, v3[3] = {1, 1, 1};
    if (play(room, 0, v1, &r1) || play(room, 1, v2, &r1) || play(room, 2, v3, &r2)) goto out;
    if (room_end(room, err, sizeof err)) goto out;
    rc = 0;
out:
    room_free(room);
    db_close(db);
    deck_free(&d);
    return rc;
}

/* ---- the program under test ---- */

struct child {
    pid_t pid;
    int in, out;          /* its stdin (we write), its stdout (we read) */
    char buf[8192];
    size_t n;
};

/* loop: NULL, "--libev" or "--poll" (the event loop option given to replay). */
static int spawn_loop(struct child *c, const char *tmpdir, const char *loop) {
    int pin[2], pout[2];
    if (pipe(pin) || pipe(pout)) return -1;
    c->n = 0;
    c->pid = fork();
    if (c->pid < 0) return -1;
    if (c->pid == 0) {
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        close(pin[1]);
        close(pout[0]);
        setenv("TMPDIR", tmpdir, 1);
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)session);
        execl(getenv("FRAGVOTE_BIN"), "fragvote", "replay", id, "--serve", "--port", "0", "--bind", "127.0.0.1",
              "--secret", "replay-secret", "--db", dbfile, loop, (char *)NULL);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    c->in = pin[1];
    c->out = pout[0];
    return 0;
}

static int spawn(struct child *c, const char *tmpdir) { return spawn_loop(c, tmpdir, NULL); }

/* Reads the child's stdout until it contains needle; returns 0 or -1 on timeout/EOF. */
static int wait_output(struct child *c, const char *needle, int timeout_ms) {
    long long t0 = check_mono_ms();
    for (;;) {
        c->buf[c->n] = '\0';
        if (strstr(c->buf, needle)) return 0;
        long left = (long)(timeout_ms - (check_mono_ms() - t0));
        if (left <= 0) return -1;
        struct pollfd p = {.fd = c->out, .events = POLLIN};
        if (poll(&p, 1, (int)left) <= 0) return -1;
        ssize_t got = read(c->out, c->buf + c->n, sizeof c->buf - 1 - c->n);
        if (got <= 0) return -1;
        c->n += (size_t)got;
    }
}

static int child_exit(struct child *c, int timeout_ms) {
    for (int waited = 0; waited < timeout_ms; waited += 20) {
        int st;
        pid_t p = waitpid(c->pid, &st, WNOHANG);
        if (p == c->pid) {
            close(c->in);
            close(c->out);
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        usleep(20000);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    close(c->in);
    close(c->out);
    return -1;
}

static int leftover_copies(const char *tmpdir) {
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "fragvote-replay-", 16)) n++;
    if (d) closedir(d);
    return n;
}

/* Waits for a "state" at cursor (the hub may repeat a state: snapshots, not
 * events), then checks the shown split and truth against the hand numbers. */
static void expect_state(struct wsc *w, int cursor) {
    json_t *st = NULL;
    for (int i = 0; i < 20; i++) {
        st = wsc_recv_type(w, "state", T_MS);
        if (!st || json_integer_value(json_object_get(st, "cursor")) == cursor) break;
        json_decref(st);
        st = NULL;
    }
    CHECK(st != NULL);
    if (!st) return;
    CHECK_INT(json_integer_value(json_object_get(st, "n")), 3);
    json_t *split = json_object_get(st, "split");
    CHECK_INT(json_integer_value(json_object_get(split, "yes")), want_yes[cursor]);
    CHECK_INT(json_integer_value(json_object_get(split, "no")), want_no[cursor]);
    json_t *rv = json_object_get(st, "reveal");
    CHECK_STR(json_string_value(json_object_get(rv, "truth")), want_truth[cursor]);
    CHECK_STR(json_string_value(json_object_get(rv, "evidence")), EVIDENCE);
    CHECK_STR(json_string_value(json_object_get(json_object_get(st, "q"), "state")), "revealed");
    json_decref(st);
}

/* From the original file: voters who joined, votes on scored questions. */
static long long count(const char *table) {
    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    if (!db) return -1;
    struct db_sscore sc;
    long long v = -1;
    if (!strcmp(table, "voters") && db_session_score(db, session, &sc, err, sizeof err) == 0) v = sc.voters;
    if (!strcmp(table, "votes") && db_session_score(db, session, &sc, err, sizeof err) == 0) v = sc.votes_scored;
    db_close(db);
    return v;
}

/* Spawns the replay and reads its port from what it prints: the port, or
 * -1 (the child killed and reaped) when it prints none. */
static int spawn_port(struct child *c, const char *tmp) {
    if (spawn(c, tmp)) return -1;
    int port = -1;
    if (wait_output(c, "commands", T_MS) == 0) {
        const char *p = strstr(c->buf, "  port ");
        if (p) port = atoi(p + 7);
    }
    if (port <= 0) {
        fprintf(stderr, "no port in the output: %s\n", c->buf);
        kill(c->pid, SIGKILL);
        child_exit(c, 1000);
    }
    return port;
}

/* A screen on the replay at port sees questions 1, 2 and 3 as stored while
 * the console steps next (the word) and n (the key): the screen, or NULL. */
static struct wsc *screen_steps(struct child *c, int port) {
    char err[256];
    struct wsc *w = wsc_connect("127.0.0.1", port, "/", "fragvote-screen", NULL, T_MS, err, sizeof err);
    CHECK(w != NULL);
    if (!w) {
        fprintf(stderr, "connect: %s\n", err);
        return NULL;
    }
    wsc_send_json(w, "{s:s, s:i}", "t", "hello", "v", 1);
    expect_state(w, 0);
    CHECK(write(c->in, "next\n", 5) == 5);
    expect_state(w, 1);
    CHECK(write(c->in, "n\n", 2) == 2);
    expect_state(w, 2);
    return w;
}

static void test_screen_steps_through_the_stored_session(void) {
    const char *tmp = check_tmpdir();
    struct child c;
    int port = spawn_port(&c, tmp);
    REQUIRE(port > 0);
    CHECK_CONTAINS(c.buf, "Replaying session 1: Replay on the projector");
    CHECK_CONTAINS(c.buf, "/presenter#secret=replay-secret");
    CHECK_INT(leftover_copies(tmp), 1); /* the private copy exists while serving */
    char err[256];
    struct wsc *w = screen_steps(&c, port);
    if (w) {
        CHECK(write(c.in, "back\n", 5) == 5);
        expect_state(w, 1);
        /* Only stepping is allowed from the console of a replay. */
        CHECK(write(c.in, "open\n", 5) == 5);
        CHECK(wait_output(&c, "read-only replay: only next, back and quit", T_MS) == 0);

        /* A phone joins and votes: refused (the question is revealed) and,
         * whatever happens, only the copy could change. */
        struct wsc *ph = wsc_connect("127.0.0.1", port, "/", "fragvote-audience", NULL, T_MS, err, sizeof err);
        CHECK(ph != NULL);
        if (ph) {
            CHECK(fvr_hello(ph, "RPLY42", 1, NULL, T_MS, NULL, err, sizeof err) == 0);
            wsc_send_json(ph, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 1, "q", 1, "yes", 1);
            json_t *e = wsc_recv_type(ph, "error", T_MS);
            CHECK_STR(json_string_value(json_object_get(e, "code")), "refused");
            json_decref(e);
            /* The self-paced replay is open at once (docs/SERVE.md "After the
             * talk"): the three revealed questions; an answer is acked, and
             * reaches only the copy. */
            CHECK(strstr(wsc_transcript(ph), "\"replay\":true") != NULL);
            wsc_send_json(ph, "{s:s}", "t", "replay");
            json_t *r = wsc_recv_type(ph, "replay", T_MS);
            CHECK_INT(json_array_size(json_object_get(r, "questions")), 3);
            json_decref(r);
            wsc_send_json(ph, "{s:s, s:i, s:i, s:b}", "t", "replay_vote", "id", 2, "q", 0, "yes", 1);
            json_t *a = wsc_recv_type(ph, "replay_ack", T_MS);
            CHECK(a && json_is_true(json_object_get(a, "yes")));
            json_decref(a);
            wsc_close(ph, 1000);
        }
        wsc_close(w, 1000);
    }
    CHECK(write(c.in, "quit\n", 5) == 5);
    CHECK_INT(child_exit(&c, T_MS), 0);
    CHECK_INT(leftover_copies(tmp), 0);
    /* The file is as recorded: three voters, nine votes, no replay answer. */
    CHECK_INT(count("voters"), 3);
    CHECK_INT(count("votes"), 9);
    char err2[256];
    struct db *db = db_open(dbfile, err2, sizeof err2);
    CHECK(db && db_replay_count(db, session, err2, sizeof err2) == 0);
    db_close(db);
}

static void test_sigterm_ends_the_replay_cleanly(void) {
    const char *tmp = check_tmpdir();
    struct child c;
    REQUIRE(spawn(&c, tmp) == 0);
    CHECK(wait_output(&c, "commands", T_MS) == 0);
    kill(c.pid, SIGTERM);
    CHECK_INT(child_exit(&c, T_MS), 0);
    CHECK_INT(leftover_copies(tmp), 0);
}

/* --poll and --libev switch the served replay's loop, and it says which it runs
 * (the hub reads hub_config.use_poll; libev is the default when installed, as
 * the hub tests' _libev variants assume). */
static void test_event_loop_option(void) {
    const char *tmp = check_tmpdir();
    const char *opt[] = {"--poll", "--libev", NULL};
    const char *want[] = {"  event loop poll\n", "  event loop libev (epoll)\n", "  event loop libev (epoll)\n"};
    for (int i = 0; i < 3; i++) {
        struct child c;
        REQUIRE(spawn_loop(&c, tmp, opt[i]) == 0);
        CHECK(wait_output(&c, "commands", T_MS) == 0);
        CHECK_CONTAINS(c.buf, want[i]);
        CHECK(write(c.in, "quit\n", 5) == 5);
        CHECK_INT(child_exit(&c, T_MS), 0);
    }
}

static void test_serve_misuse(void) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' replay 1 --port 9 --db '%s' 2>/dev/null", getenv("FRAGVOTE_BIN"), dbfile);
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2); /* --port without --serve */
    snprintf(cmd, sizeof cmd, "'%s' replay 1 --poll --db '%s' 2>/dev/null", getenv("FRAGVOTE_BIN"), dbfile);
    st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2); /* --poll without --serve */
    snprintf(cmd, sizeof cmd, "'%s' replay 1 --serve --port 70000 --db '%s' 2>/dev/null", getenv("FRAGVOTE_BIN"),
             dbfile);
    st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(cmd, sizeof cmd, "'%s' replay 9 --serve --port 0 --db '%s' 2>/dev/null </dev/null",
             getenv("FRAGVOTE_BIN"), dbfile);
    st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1); /* no such session */
}

/* After `fragvote sessions --purge` no vote of the session has a voter
 * (docs/PRIVACY.md): the projector still shows each question's stored
 * split and truth. */
static void test_purged_session_replays_the_same(void) {
    char cmd[1024], err[256];
    snprintf(cmd, sizeof cmd, "'%s' sessions --purge --session %lld --db '%s' >/dev/null", getenv("FRAGVOTE_BIN"),
             (long long)session, dbfile);
    int st = system(cmd);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    struct db *db = db_open(dbfile, err, sizeof err);
    struct db_vscore vs;
    CHECK(db && db_voter_score(db, 1, &vs, err, sizeof err) < 0); /* the voters are gone */
    db_close(db);
    struct child c;
    int port = spawn_port(&c, check_tmpdir());
    REQUIRE(port > 0);
    struct wsc *w = screen_steps(&c, port);
    if (w) wsc_close(w, 1000);
    CHECK(write(c.in, "quit\n", 5) == 5);
    CHECK_INT(child_exit(&c, T_MS), 0);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    snprintf(dbfile, sizeof dbfile, "%s/talk.db", check_tmpdir());
    if (record()) return 1;
    RUN(test_screen_steps_through_the_stored_session);
    RUN(test_sigterm_ends_the_replay_cleanly);
    RUN(test_event_loop_option);
    RUN(test_serve_misuse);
    RUN(test_purged_session_replays_the_same); /* last: it purges the file's voters */
    return check_summary_and_clean();
}
