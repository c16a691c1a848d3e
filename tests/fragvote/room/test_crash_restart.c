/* Crash safety: SIGKILL of the room server in the middle of a vote burst,
 * then a restart on the same SQLite file.
 *
 *   - every vote acknowledged before the kill is in the database (and a vote
 *     in flight is either fully there or not at all);
 *   - every welcome (join) acknowledged before the kill has its voter row;
 *   - after the restart the session resumes at the same question in the same
 *     state, phones reconnect with their tokens and the welcome shows their
 *     stored votes, and voting goes on.
 *
 * Twice: with tests/fragvote/room/fv_room_server (room + hub in a process of
 * their own: room_resume() alone) and with the real `fragvote serve` and
 * `serve --resume ID`. Real processes, real sockets, real SQLite. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "db.h"
#include "fv_roles.h"
#include "room.h"
#include "serve_proc.h"
#include "wsclient.h"

#define PHONES 40
#define T_MS 5000
#define SECRET "reliability-secret"
#define BURST_MS 400            /* the kill lands this long after the burst started */
#define VOTE_POS 1              /* the question voted on (after skipping question 0) */

static pid_t server_pid = -1;
static int port;

static void kill_server(int sig) { serve_proc_stop(&server_pid, sig); }

static void cleanup(void) { kill_server(SIGKILL); }

/* Starts argv[0] with stdout on a pipe; reads "port P session S". */
static int spawn_server(char *const argv[], long long *session) {
    int fds[2];
    if (pipe(fds)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        perror("execv");
        _exit(127);
    }
    close(fds[1]);
    server_pid = pid;
    FILE *f = fdopen(fds[0], "r");
    char line[256] = "";
    int ok = f && fgets(line, sizeof line, f) && sscanf(line, "port %d session %lld", &port, session) == 2;
    if (f) fclose(f);
    if (!ok) {
        fprintf(stderr, "server did not start (read \"%s\")\n", line);
        return -1;
    }
    return 0;
}

static int start_room_server(const char *dbpath, long long resume, long long *session) {
    static char helper[1024], sid[32];
    snprintf(helper, sizeof helper, "%s/tests/fragvote/room/fv_room_server", getenv("FRAGVOTE_BUILD"));
    snprintf(sid, sizeof sid, "%lld", resume);
    char *argv[] = {helper, (char *)dbpath, resume ? sid : NULL, NULL};
    return spawn_server(argv, session);
}

static struct wsc *connect_as(const char *protocol) {
    char err[256];
    struct wsc *w = fvr_connect("127.0.0.1", port, protocol, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

static struct wsc *presenter(void) {
    char err[256];
    struct wsc *w = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "%s\n", err);
    return w;
}

static int cmd(struct wsc *p, const char *name) {
    char err[256];
    int rc = fvr_cmd(p, name, T_MS, err, sizeof err);
    if (rc) fprintf(stderr, "cmd %s: %s\n", name, err);
    return rc;
}

/* The state a fresh presenter connection is sent: cursor and state of the
 * current question. */
static int read_state(int *cursor, char *state, size_t statelen) {
    struct wsc *w = connect_as("fragvote-screen");
    if (!w) return -1;
    json_t *s = wsc_recv_type(w, "state", T_MS);
    wsc_free(w);
    if (!s) return -1;
    *cursor = (int)json_integer_value(json_object_get(s, "cursor"));
    snprintf(state, statelen, "%s", json_string_value(json_object_get(json_object_get(s, "q"), "state")));
    json_decref(s);
    return 0;
}

/* ---- phones ---- */

struct phone {
    int i;
    char token[ROOM_TOKEN_HEX + 1];
    struct wsc *w;
    int welcomed;             /* a welcome arrived (join acknowledged) */
    int acked;                /* votes acknowledged */
    int last_yes;             /* answer of the last acknowledged vote */
    int in_flight;            /* a vote was sent and not answered when the socket died */
    int refused;              /* error answers (should be none before the kill) */
    char err[200];
};
static struct phone phones[PHONES];
static atomic_int burst_go;

static int phone_join(struct phone *ph, const char *token) {
    char err[256];
    json_t *m = NULL;
    ph->w = fvr_phone("127.0.0.1", port, "CRASH2", 0, token, T_MS, &m, err, sizeof err);
    if (!ph->w) return fprintf(stderr, "phone %d: %s\n", ph->i, err), -1;
    snprintf(ph->token, sizeof ph->token, "%s", json_string_value(json_object_get(m, "token")));
    ph->welcomed = 1;
    json_decref(m);
    return 0;
}

/* The presenter skips question 0 and opens VOTE_POS; then every phone
 * joins. Returns the presenter's connection (caller frees), or NULL. */
static struct wsc *open_and_join(void) {
    struct wsc *p = presenter();
    if (!p) return NULL;
    if (cmd(p, "skip") || cmd(p, "open")) goto fail;
    for (int i = 0; i < PHONES; i++) {
        memset(&phones[i], 0, sizeof phones[i]);
        phones[i].i = i;
        if (phone_join(&phones[i], NULL)) goto fail;
    }
    return p;
fail:
    wsc_free(p);
    return NULL;
}

/* Votes alternately yes/no on VOTE_POS, one at a time (send, wait for the
 * answer), as fast as the rate cap lets it, until the server dies. Each vote
 * changes the answer, so the stored `changes` counter counts the votes
 * the store committed. */
static void *phone_burst(void *arg) {
    struct phone *ph = arg;
    while (!atomic_load(&burst_go)) usleep(1000);
    for (int id = 1;; id++) {
        int yes = id % 2;
        /* stay under the per-connection rate cap (20/s, burst 40) */
        if (id > 30) usleep(1000000 / 18);
        if (wsc_send_json(ph->w, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", id, "q", VOTE_POS, "yes", yes) < 0)
            return NULL;
        ph->in_flight = 1;
        json_t *o = NULL;
        int answer = fvr_vote_answer(ph->w, id, T_MS, &o);
        if (answer < 0) return NULL; /* the server is gone: in_flight stays */
        if (answer == 0) {
            ph->acked++;
            ph->last_yes = yes;
        } else {
            ph->refused++;
            snprintf(ph->err, sizeof ph->err, "%s", json_string_value(json_object_get(o, "message")));
        }
        ph->in_flight = 0;
        json_decref(o);
    }
}

/* ---- the database after the crash (opened read-only with plain sqlite3) ---- */

struct stored {
    int found, answer, changes;
};

static struct stored stored_vote(sqlite3 *s, long long session, const char *token) {
    struct stored r = {0, -1, -1};
    char hash[65];
    db_token_hash(token, hash);
    sqlite3_stmt *st;
    const char *sql = "SELECT v.answer, v.changes FROM votes v JOIN voters w ON w.id = v.voter_id "
                      "JOIN questions q ON q.id = v.question_id "
                      "WHERE w.session_id = ?1 AND w.token_hash = ?2 AND q.position = ?3";
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) != SQLITE_OK) return r;
    sqlite3_bind_int64(st, 1, session);
    sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, VOTE_POS);
    if (sqlite3_step(st) == SQLITE_ROW) {
        r.found = 1;
        r.answer = sqlite3_column_int(st, 0);
        r.changes = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    return r;
}

static int voter_stored(sqlite3 *s, long long session, const char *token) {
    char hash[65];
    db_token_hash(token, hash);
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(s, "SELECT 1 FROM voters WHERE session_id = ?1 AND token_hash = ?2", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        sqlite3_bind_text(st, 2, hash, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    return found;
}

/* The vote of phone ph as stored agrees with what it was told: n acked
 * alternating votes are stored as answer = last acked, changes = n - 1; a
 * vote in flight at the kill may add one more change (committed, ack lost). */
static int vote_consistent(const struct phone *ph, struct stored v, char *why, size_t whylen) {
    if (ph->acked == 0) {
        if (!v.found || (ph->in_flight && v.changes == 0)) return 1;
        snprintf(why, whylen, "phone %d: no ack but a stored vote (changes %d)", ph->i, v.changes);
        return 0;
    }
    if (!v.found) {
        snprintf(why, whylen, "phone %d: %d votes acked, none stored", ph->i, ph->acked);
        return 0;
    }
    if (v.changes == ph->acked - 1 && v.answer == ph->last_yes) return 1;
    if (ph->in_flight && v.changes == ph->acked && v.answer == !ph->last_yes) return 1;
    snprintf(why, whylen, "phone %d: acked %d (last %s, %s in flight), stored answer %d with %d changes", ph->i,
             ph->acked, ph->last_yes ? "yes" : "no", ph->in_flight ? "one" : "none", v.answer, v.changes);
    return 0;
}

/* Runs the burst against the server on `port`, kills it with SIGKILL after
 * BURST_MS, and checks the file. Returns the number of acked votes. */
static int burst_and_kill(const char *dbpath, long long session, int *consistent) {
    pthread_t th[PHONES];
    atomic_store(&burst_go, 0);
    for (int i = 0; i < PHONES; i++) pthread_create(&th[i], NULL, phone_burst, &phones[i]);
    atomic_store(&burst_go, 1);
    usleep(BURST_MS * 1000);
    long long t0 = check_mono_ms();
    kill(server_pid, SIGKILL);
    waitpid(server_pid, NULL, 0);
    server_pid = -1;
    for (int i = 0; i < PHONES; i++) pthread_join(th[i], NULL);
    printf("  killed after %d ms of burst; phones saw the close within %lld ms\n", BURST_MS, check_mono_ms() - t0);
    int acked = 0, in_flight = 0, refused = 0;
    *consistent = 1;
    sqlite3 *s;
    if (sqlite3_open_v2(dbpath, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        *consistent = 0;
        return 0;
    }
    for (int i = 0; i < PHONES; i++) {
        struct phone *ph = &phones[i];
        acked += ph->acked;
        in_flight += ph->in_flight;
        refused += ph->refused;
        if (ph->refused) fprintf(stderr, "phone %d refused: %s\n", i, ph->err);
        char why[256];
        if (!vote_consistent(ph, stored_vote(s, session, ph->token), why, sizeof why)) {
            fprintf(stderr, "%s\n", why);
            *consistent = 0;
        }
        if (ph->welcomed && !voter_stored(s, session, ph->token)) {
            fprintf(stderr, "phone %d: welcomed but no voter row\n", i);
            *consistent = 0;
        }
    }
    sqlite3_close(s);
    printf("  %d votes acked before the kill, %d in flight, %d refused\n", acked, in_flight, refused);
    if (refused) *consistent = 0;
    return acked;
}

/* After a restart on the same file: same question in the same state, every
 * phone comes back with its token and sees its stored vote, voting goes on. */
static void resumed_session_checks(const char *dbpath, long long session) {
    int cursor = -1;
    char state[32] = "";
    REQUIRE(read_state(&cursor, state, sizeof state) == 0);
    CHECK_INT(cursor, VOTE_POS);
    CHECK_STR(state, "voting");

    /* Phones come back with their tokens: the welcome carries the stored vote. */
    sqlite3 *s = NULL;
    REQUIRE(sqlite3_open_v2(dbpath, &s, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    int shown_ok = 0;
    for (int i = 0; i < PHONES; i++) {
        struct phone *ph = &phones[i];
        wsc_free(ph->w);
        char tok[ROOM_TOKEN_HEX + 1];
        snprintf(tok, sizeof tok, "%s", ph->token);
        ph->w = connect_as("fragvote-audience");
        REQUIRE(ph->w);
        json_t *wel = NULL;
        char err[256];
        if (fvr_hello(ph->w, "CRASH2", 0, tok, T_MS, &wel, err, sizeof err)) fprintf(stderr, "phone %d: %s\n", i, err);
        REQUIRE(wel);
        CHECK_STR(json_string_value(json_object_get(wel, "token")), tok);
        struct stored v = stored_vote(s, session, tok);
        int shown = (int)json_integer_value(json_array_get(json_object_get(wel, "votes"), VOTE_POS));
        if (v.found && shown == v.answer) shown_ok++;
        else fprintf(stderr, "phone %d: welcome shows %d, stored %d (found %d)\n", i, shown, v.answer, v.found);
        json_decref(wel);
    }
    sqlite3_close(s);
    CHECK_INT(shown_ok, PHONES);

    /* Voting goes on where it stopped: one more change per phone, acked. */
    int acked_after = 0;
    for (int i = 0; i < PHONES; i++) {
        wsc_send_json(phones[i].w, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 9999, "q", VOTE_POS, "yes", 1);
        json_t *a = wsc_recv_type(phones[i].w, "ack", T_MS);
        if (a) acked_after++;
        json_decref(a);
    }
    CHECK_INT(acked_after, PHONES);
    /* And the tally counts every phone once. */
    struct wsc *scr = connect_as("fragvote-screen");
    REQUIRE(scr);
    json_t *tally = wsc_recv_type(scr, "tally", T_MS);
    REQUIRE(tally);
    CHECK_INT(json_integer_value(json_object_get(tally, "votes")), PHONES);
    CHECK_INT(json_integer_value(json_object_get(tally, "joined")), PHONES);
    json_decref(tally);
    wsc_free(scr);
    for (int i = 0; i < PHONES; i++) wsc_close(phones[i].w, 1000), phones[i].w = NULL;
}

/* ---------------------------------------------------------------- tests */

static void test_kill9_mid_burst_then_resume_keeps_every_acked_vote(void) {
    char dbpath[256];
    snprintf(dbpath, sizeof dbpath, "%s/crash.db", check_tmpdir());
    long long session = 0, session2 = 0;
    REQUIRE(start_room_server(dbpath, 0, &session) == 0);
    struct wsc *p = open_and_join();
    REQUIRE(p);
    int consistent = 0;
    int acked = burst_and_kill(dbpath, session, &consistent);
    CHECK(consistent);
    CHECK(acked >= PHONES); /* the burst really happened before the kill */
    wsc_free(p);

    /* The restart: same file, same session. */
    REQUIRE(start_room_server(dbpath, session, &session2) == 0);
    CHECK_INT(session2, session);
    resumed_session_checks(dbpath, session);
    kill_server(SIGTERM);
}

/* Starts `fragvote serve` on dbpath (resuming session `resume` if > 0) on a
 * port the kernel picks (a port we picked could be taken by the time serve
 * binds it on a busy machine); reads the port from its "Join:" line. serve's
 * console reads a pipe we keep open (*console_fd). */
static int start_serve(const char *dbpath, long long resume, int *console_fd) {
    char outpath[300], sid[32];
    snprintf(outpath, sizeof outpath, "%s/serve%lld.out", check_tmpdir(), resume);
    snprintf(sid, sizeof sid, "%lld", resume);
    char *argv[32], *opts[] = {"--target", "127.0.0.1", "--no-prefetch", "--secret", SECRET,
                               resume > 0 ? "--resume" : "--room", resume > 0 ? sid : "CRASH2", NULL};
    if (serve_proc_argv(argv, 32, getenv("FRAGVOTE_BIN"), dbpath, opts, NULL) < 0) return -1;
    port = serve_proc_start(argv, outpath, &(struct serve_proc_io){.console_in = console_fd}, &server_pid);
    return port > 0 ? 0 : -1;
}

/* The real `fragvote serve`, killed mid-burst, then `serve --resume`. */
static void test_serve_kill9_mid_burst_then_resume(void) {
    char dbpath[256];
    snprintf(dbpath, sizeof dbpath, "%s/serve-crash.db", check_tmpdir());
    int console_fd = -1;
    REQUIRE(start_serve(dbpath, 0, &console_fd) == 0);
    struct wsc *p = open_and_join();
    REQUIRE(p);
    /* The session serve created is the only one in the file. */
    int consistent = 0;
    int acked = burst_and_kill(dbpath, 1, &consistent);
    close(console_fd);
    CHECK(consistent);
    CHECK(acked >= PHONES);
    wsc_free(p);

    REQUIRE(start_serve(dbpath, 1, &console_fd) == 0);
    resumed_session_checks(dbpath, 1);
    close(console_fd);
    kill_server(SIGTERM);
}

int main(void) {
    if (!getenv("FRAGVOTE_BUILD") || !getenv("FRAGVOTE_BIN")) SKIP_ALL("run through ctest (FRAGVOTE_BUILD unset)");
    signal(SIGPIPE, SIG_IGN);
    atexit(cleanup);
    RUN(test_kill9_mid_burst_then_resume_keeps_every_acked_vote);
    RUN(test_serve_kill9_mid_burst_then_resume);
    cleanup();
    return check_summary_and_clean();
}
