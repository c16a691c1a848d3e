/* A measurement serve cannot settle ends as an honest "unknown" with its
 * reason, on the console, the projector and in the database (issue 34:
 * "a measurement never ends without an answer"). The path is one serve has
 * never seen: two routers that send no Time Exceeded, a 1280-byte link
 * between them, serve run in the path's first namespace with --target (not
 * the lab: no known link MTUs), the unprivileged observer (recverr: the
 * wire is not visible) and no witness. The test: a 1500-byte UDP datagram
 * with IP_PMTUDISC_DONT. It leaves (the far end's port unreachable quotes
 * it), DF is 0 by the kernel's rule, and whether a router cut it nobody
 * here can see: "fragmented?" must be unknown, with the reason, and never a
 * guess. The presenter's page opens the first question once a screen is
 * connected; then the console's script closes, measures, reveals and shows
 * each question; the screen's revealed frames, the console's log and the
 * database are read. */
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "serve_proc.h"
#include "fv_roles.h"
#include "wsclient.h"

#define ROOM "UNKNWN"
#define SECRET "unknown-path-presenter-secret"
#define TARGET "203.0.113.2" /* the lab's dst (docs/LAB.md) */
#define STEP_MS 30000        /* each presenter step: a silent path's discovery takes seconds */
#define NQ 3

static const char deck_json[] = "{\"title\": \"an unknown path\", \"tests\": [\n"
                                "  {\"proto\": \"udp4\", \"mode\": \"dont\", \"size\": 1500,"
                                " \"ask\": [\"sent\", \"df\", \"fragmented\"]}\n"
                                " ]}\n";
/* Per question (sent, df, fragmented): the truth revealed, and its basis. */
static const char *const want_truth[NQ] = {"yes", "no", "unknown"};
static const char *const want_basis[NQ] = {"observed", "inferred", "unknown"};
static const char *const kind_name[NQ] = {"sent", "df", "fragmented"};

static const char *bin;
static char prefix[16], dbpath[256], outpath[256], deckpath[256], scriptpath[256];
static pid_t serve_pid = -1;
static int port;

static void cleanup(void) { serve_proc_cleanup(&serve_pid, bin, prefix); }

static int run(const char *cmd) {
    int rc = system(cmd);
    return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

/* This process (and so serve, its child) moves into the path's first
 * namespace, where 127.0.0.1 is that namespace's own loopback. */
static int enter_src(void) {
    char path[128];
    snprintf(path, sizeof path, "/run/netns/%s-src", prefix);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = setns(fd, CLONE_NEWNET);
    close(fd);
    if (rc == 0) run("ip link set lo up");
    return rc;
}

static int start_serve(void) {
    const char *dir = check_tmpdir();
    snprintf(dbpath, sizeof dbpath, "%s/unknown.db", dir);
    snprintf(outpath, sizeof outpath, "%s/unknown.out", dir);
    snprintf(deckpath, sizeof deckpath, "%s/deck.json", dir);
    snprintf(scriptpath, sizeof scriptpath, "%s/talk.script", dir);
    /* the first question opened by the test's presenter, once the screen is there */
    char script[1024] = "wait-state voting 60000\n";
    for (int q = 0; q < NQ; q++) {
        if (q) strcat(script, "next\nopen\n");
        strcat(script, "close\nmeasure\nwait-measured 60000\nreveal\nshow\n");
    }
    strcat(script, "sleep 600000\n");
    if (check_write_file(deckpath, deck_json) || check_write_file(scriptpath, script)) return -1;
    char *argv[] = {(char *)bin, "serve", "--deck", deckpath, "--db", dbpath, "--port", "0", "--bind", "127.0.0.1",
                    "--target", TARGET, "--observer", "recverr", "--no-witness", "--keep-root", "--script",
                    scriptpath, "--secret", SECRET, "--room", ROOM, "--no-qr", NULL};
    port = serve_proc_start(argv, outpath, NULL, &serve_pid);
    return port > 0 ? 0 : -1;
}

/* The screen's last state frame whose current question is pos and revealed. */
static json_t *screen_reveal(struct wsc *s, int pos) {
    for (;;) {
        json_t *o = wsc_recv_type(s, "state", STEP_MS);
        if (!o) return NULL;
        json_t *q = json_object_get(o, "q");
        const char *st = json_string_value(json_object_get(q, "state"));
        if (json_integer_value(json_object_get(q, "pos")) == pos && st && !strcmp(st, "revealed") &&
            json_object_get(o, "reveal"))
            return o;
        json_decref(o);
    }
}

/* The "fragmented" fact of the test's live measurement, as the database
 * keeps it: answer, basis, why (malloc'd "answer|basis|why"), NULL if none. */
static char *db_fact(const char *fact) {
    sqlite3 *db;
    sqlite3_stmt *st;
    char *out = NULL;
    if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return NULL;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT json_extract(m.observation, '$.%s.answer') || '|' || json_extract(m.observation, '$.%s.basis')"
             " || '|' || json_extract(m.observation, '$.%s.why') FROM measurements m"
             " JOIN questions q ON q.id = m.question_id WHERE q.test_index = 0 ORDER BY m.id DESC LIMIT 1",
             fact, fact, fact);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0))
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static void test_an_unsettled_measurement_is_unknown_with_its_reason_everywhere(void) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "'%s' lab up --prefix '%s' --routers 2 --mtu 1500,1280,1500 --silent r1 --silent r2 >/dev/null", bin,
             prefix);
    REQUIRE(run(cmd) == 0);
    REQUIRE(enter_src() == 0);
    REQUIRE(start_serve() == 0);
    char err[256];
    struct wsc *screen = fvr_connect("127.0.0.1", port, "fragvote-screen", STEP_MS, err, sizeof err);
    if (!screen) fprintf(stderr, "screen: %s\n", err);
    REQUIRE(screen);
    REQUIRE(wsc_send_json(screen, "{s:s}", "t", "hello") == 0);
    struct wsc *p = fvr_presenter("127.0.0.1", port, SECRET, STEP_MS, err, sizeof err);
    if (!p) fprintf(stderr, "presenter: %s\n", err);
    REQUIRE(p);
    REQUIRE(wsc_send_json(p, "{s:s, s:s}", "t", "cmd", "cmd", "open") == 0);
    char whys[NQ][512];
    long long t0 = check_mono_ms();
    for (int q = 0; q < NQ; q++) {
        /* What the projector shows at each reveal: the truth, its basis and why. */
        json_t *st = screen_reveal(screen, q);
        REQUIRE(st);
        json_t *rv = json_object_get(st, "reveal");
        const char *truth = json_string_value(json_object_get(rv, "truth"));
        const char *basis = json_string_value(json_object_get(rv, "basis"));
        const char *why = json_string_value(json_object_get(rv, "why"));
        printf("question %d (%s), revealed on the screen %lld ms after the first open: %s (%s) - %s\n", q + 1,
               kind_name[q], check_mono_ms() - t0, truth ? truth : "?", basis ? basis : "?", why ? why : "?");
        CHECK_STR(truth, want_truth[q]);
        CHECK_STR(basis, want_basis[q]);
        CHECK(why && strlen(why) > 10); /* every answer, "unknown" above all, says why */
        snprintf(whys[q], sizeof whys[q], "%s", why ? why : "");
        /* The rules' side (issue 37): a chain for each fact, no surprise; on
         * a path whose links are unknown they cannot say what routers did. */
        const char *explain = json_string_value(json_object_get(rv, "explain"));
        CHECK(explain && strlen(explain) > 10);
        CHECK(!json_object_get(rv, "surprise"));
        if (q == NQ - 1) CHECK_CONTAINS(explain, "this path's links are not known before the send");
        json_decref(st);
    }
    /* "fragmented?": the reason is that no one here could see the wire. */
    CHECK_CONTAINS(whys[2], "a router may have fragmented it");
    wsc_close_all(p, screen);
    kill(serve_pid, SIGTERM);
    waitpid(serve_pid, NULL, 0);
    serve_pid = -1;

    /* The database keeps the same unknown with the same reason. */
    char want[600];
    char *f = db_fact("fragmented");
    snprintf(want, sizeof want, "unknown|unknown|%s", whys[2]);
    printf("database: fragmented = %s\n", f ? f : "(none)");
    CHECK_STR(f, want);
    free(f);
    /* And the console: under each revealed truth its basis and reason. */
    size_t len;
    char *log = check_read_file(outpath, &len);
    REQUIRE(log);
    for (int q = 0; q < NQ; q++) {
        char line[700];
        snprintf(line, sizeof line, "Truth: %s ", want_truth[q]);
        const char *at = strstr(log, line);
        snprintf(line, sizeof line, "\nWhy: %s: %s\n", want_basis[q], whys[q]);
        CHECK(at && strstr(at, line));
        const char *end = at ? strchr(at, '\n') : NULL; /* the truth's line and the next */
        if (q == NQ - 1 && end && (end = strchr(end + 1, '\n'))) printf("console:\n%.*s\n", (int)(end - at), at);
    }
    free(log);
}

int main(void) {
    bin = serve_proc_bin();
    snprintf(prefix, sizeof prefix, "fvun%d", (int)getpid() % 100000);
    check_root_begin("needs root (a namespace path)", "ip nft", cleanup);
    RUN(test_an_unsettled_measurement_is_unknown_with_its_reason_everywhere);
    cleanup();
    return check_summary_and_clean();
}
