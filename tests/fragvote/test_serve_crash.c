/* A crash loses nothing acknowledged, and the talk goes on (root, lab):
 *   1. serve opens the first question; 10 phones vote and get their acks;
 *   2. serve is killed with SIGKILL (no cleanup of any kind runs);
 *   3. the database holds exactly the 10 acknowledged votes;
 *   4. `serve --resume ID` continues the same session: the tally comes back,
 *      the question is closed, measured and revealed; a phone that
 *      reconnects with its token is recognised with its vote and score. */
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "db.h"
#include "fv_roles.h"
#include "serve_proc.h"
#include "wsclient.h"

#define PHONES 10
#define ROOM "CRASH2"

static const char *bin;
static char prefix[16], dir[128], dbpath[256];
static pid_t pid = -1;

static void cleanup(void) { serve_proc_cleanup(&pid, bin, prefix); }

/* serve on dbpath with the options in extra, its console into out, on the
 * lab of prefix: its port, or -1 (what it said on stderr). */
static int start_serve(const char *out, char *const extra[]) {
    char *argv[32];
    if (serve_proc_argv(argv, 32, bin, dbpath, extra, NULL) < 0) return -1;
    return serve_proc_start(argv, out, &(struct serve_proc_io){.lab_prefix = prefix}, &pid);
}

/* Receives until a message of type t (others skipped); NULL on timeout/close. */
static json_t *until(struct wsc *w, const char *t, int timeout_ms) { return wsc_recv_type(w, t, timeout_ms); }

static void test_crash_loses_nothing_acknowledged_and_resume_goes_on(void) {
    char s1[256], s2[256], out1[256], out2[256], err[256];
    snprintf(s1, sizeof s1, "%s/s1.script", dir);
    snprintf(s2, sizeof s2, "%s/s2.script", dir);
    snprintf(out1, sizeof out1, "%s/serve1.out", dir);
    snprintf(out2, sizeof out2, "%s/serve2.out", dir);
    REQUIRE(check_write_file(s1, "wait-voters 10 60000\nopen\nwait-votes 10 60000\nsleep 600000\n") == 0);
    REQUIRE(check_write_file(s2, "wait-votes 10 5000\nclose\nmeasure\nwait-measured 20000\nreveal\nsleep 600000\n") == 0);

    char *extra1[] = {"--script", s1, "--room", ROOM, NULL};
    int port = start_serve(out1, extra1);
    REQUIRE(port > 0);

    struct wsc *w[PHONES] = {0};
    char token[PHONES][64];
    for (int i = 0; i < PHONES; i++) {
        w[i] = fvr_connect("127.0.0.1", port, "fragvote-audience", 5000, err, sizeof err);
        REQUIRE(w[i]);
        json_t *m = NULL;
        REQUIRE(fvr_hello(w[i], ROOM, 0, NULL, 10000, &m, err, sizeof err) == 0);
        snprintf(token[i], sizeof token[i], "%s", json_string_value(json_object_get(m, "token")));
        json_decref(m);
    }
    int acked = 0;
    for (int i = 0; i < PHONES; i++) {
        /* Wait for the question to open, vote phone i's way, wait for the ack. */
        json_t *m;
        const char *st = NULL;
        while ((m = until(w[i], "state", 20000))) {
            st = json_string_value(json_object_get(json_object_get(m, "q"), "state"));
            int voting = st && !strcmp(st, "voting");
            json_decref(m);
            if (voting) break;
        }
        REQUIRE(m);
        REQUIRE(wsc_send_json(w[i], "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 1, "q", 0, "yes", i % 3 == 0) == 0);
        json_t *a = until(w[i], "ack", 10000);
        if (a) acked++;
        json_decref(a);
    }
    CHECK_INT(acked, PHONES);

    /* The crash: nothing of serve's own cleanup runs. */
    serve_proc_stop(&pid, SIGKILL);
    for (int i = 0; i < PHONES; i++) wsc_free(w[i]);

    sqlite3 *h;
    REQUIRE(sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *st;
    REQUIRE(sqlite3_prepare_v2(h, "SELECT vr.token_hash, v.answer FROM votes v JOIN voters vr ON vr.id = v.voter_id "
                                  "JOIN questions q ON q.id = v.question_id WHERE q.position = 0", -1, &st,
                                  NULL) == SQLITE_OK);
    int votes = 0, right = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        votes++;
        for (int i = 0; i < PHONES; i++) {
            char hh[65];
            db_token_hash(token[i], hh);
            if (!strcmp(hh, (const char *)sqlite3_column_text(st, 0)))
                right += sqlite3_column_int(st, 1) == (i % 3 == 0);
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    CHECK_INT(votes, PHONES);
    CHECK_INT(right, PHONES);

    /* Resume. */
    char extra2[] = "--resume";
    char *extra[] = {extra2, "1", "--script", s2, NULL};
    port = start_serve(out2, extra);
    REQUIRE(port > 0);
    /* Phone 0 comes back with its token and the same room code. */
    struct wsc *back = fvr_connect("127.0.0.1", port, "fragvote-audience", 5000, err, sizeof err);
    REQUIRE(back);
    json_t *wm = NULL;
    REQUIRE(fvr_hello(back, ROOM, 0, token[0], 10000, &wm, err, sizeof err) == 0);
    CHECK_STR(json_string_value(json_object_get(wm, "token")), token[0]);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(wm, "votes"), 0)), 1);
    json_decref(wm);
    /* Wait until the resumed talk has revealed question 1 (as the store says). */
    int revealed = 0;
    for (int t = 0; t < 300 && !revealed; t++) {
        sqlite3 *q;
        sqlite3_stmt *qs;
        if (sqlite3_open_v2(dbpath, &q, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(q, "SELECT state FROM questions WHERE position = 0", -1, &qs, NULL) == SQLITE_OK) {
            if (sqlite3_step(qs) == SQLITE_ROW) revealed = !strcmp((const char *)sqlite3_column_text(qs, 0), "revealed");
            sqlite3_finalize(qs);
        }
        sqlite3_close(q);
        if (!revealed) usleep(100000);
    }
    CHECK(revealed);
    wsc_free(back);
    kill(pid, SIGTERM);
    int status = -1;
    waitpid(pid, &status, 0);
    pid = -1;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status)) serve_proc_dump(out2);

    REQUIRE(sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    REQUIRE(sqlite3_prepare_v2(h, "SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM votes), "
                                  "(SELECT state FROM questions WHERE position = 0), "
                                  "(SELECT count(*) FROM measurements), "
                                  "(SELECT ended_at IS NOT NULL FROM sessions WHERE id = 1)", -1, &st,
                                  NULL) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    CHECK_INT(sqlite3_column_int(st, 0), 1);                 /* the same session, no new one */
    CHECK_INT(sqlite3_column_int(st, 1), PHONES);            /* the votes survived both runs */
    CHECK_STR((const char *)sqlite3_column_text(st, 2), "revealed");
    CHECK(sqlite3_column_int(st, 3) >= 1);
    CHECK_INT(sqlite3_column_int(st, 4), 1);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

int main(void) {
    if (geteuid() != 0) SKIP_ALL("needs root: serve builds the namespace lab");
    bin = serve_proc_bin();
    snprintf(prefix, sizeof prefix, "fvc%d", (int)(getpid() % 100000));
    snprintf(dir, sizeof dir, "%s", check_tmpdir());
    snprintf(dbpath, sizeof dbpath, "%s/crash.db", dir);
    atexit(cleanup);
    RUN(test_crash_loses_nothing_acknowledged_and_resume_goes_on);
    cleanup();
    return check_summary();
}
