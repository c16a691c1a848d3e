/* Storage faults during a live session of the real `fragvote serve`: the
 * database locked by another process (sqlite3 CLI holding BEGIN EXCLUSIVE),
 * the disk full (a small tmpfs we mount and fill), the file system read-only
 * (at a restart: see below). In each:
 *   - a vote is answered with an error ("storage"), never acked;
 *   - the console (`show` on serve's stdin) names the problem;
 *   - serve keeps running, and votes are acked again once the fault is gone;
 *   - every vote that was acked is in the file with the acked answer.
 * Needs root (mount); CI and this machine are root. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_sqlite.h"
#include "db.h"
#include "fv_roles.h"
#include "room.h"
#include "serve_proc.h"
#include "wsclient.h"

#define PHONES 20
#define T_MS 15000               /* answer deadline (the store thread waits HUB_STORE_BUSY_MS for a lock) */
#define SECRET "storage-faults-secret"
#define ROOM "STRG42"
#define TMPFS_SIZE "16m"            /* room for the WAL to grow to its 4 MB checkpoint size */

static char dir[256], base[300], mnt[300], dbpath[400], outpath[300];
static int mounted; /* 1: tmpfs at base, 2: and its bind mount at mnt */
static pid_t serve_pid = -1, holder_pid = -1;
static FILE *console_in;
static int port;

static void reap(pid_t *pid) {
    if (*pid > 0) {
        kill(*pid, SIGKILL);
        waitpid(*pid, NULL, 0);
        *pid = -1;
    }
}

static void cleanup(void) {
    reap(&holder_pid);
    reap(&serve_pid);
    if (mounted > 1) umount2(mnt, MNT_DETACH);
    if (mounted > 0) umount2(base, MNT_DETACH);
    mounted = 0;
}

/* ---- serve and its console ---- */

/* Starts serve on a port the kernel picks (a port we picked could be taken
 * by the time serve binds it on a busy machine) and waits for it to listen;
 * its console reads console_in. */
static int start_serve(void) {
    char *argv[32], *opts[] = {"--target", "127.0.0.1", "--no-prefetch", "--secret", SECRET, "--room", ROOM, NULL};
    int in = -1;
    if (serve_proc_argv(argv, 32, getenv("FRAGVOTE_BIN"), dbpath, opts, NULL) < 0) return -1;
    port = serve_proc_start(argv, outpath, &(struct serve_proc_io){.console_in = &in}, &serve_pid);
    if (in >= 0) console_in = fdopen(in, "w");
    return port > 0 && console_in ? 0 : -1;
}

static void console(const char *line) {
    fprintf(console_in, "%s\n", line);
    fflush(console_in);
}

/* Everything serve printed so far (malloc'd). */
static char *serve_output(void) {
    FILE *f = fopen(outpath, "r");
    if (!f) return strdup("");
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

/* Asks the console to show its status and returns the "Last refused:" line
 * it prints (or "" after 3 s). */
static void console_last_refused(char *out, size_t outlen) {
    out[0] = 0;
    char *before = serve_output();
    size_t skip = strlen(before);
    free(before);
    console("show");
    for (int t = 0; t < 60; t++) {
        usleep(50000);
        char *all = serve_output();
        char *line = strlen(all) > skip ? strstr(all + skip, "Last refused: ") : NULL;
        if (line) {
            size_t n = strcspn(line, "\n");
            snprintf(out, outlen, "%.*s", (int)n, line);
            free(all);
            return;
        }
        free(all);
    }
}

/* ---- phones ---- */

struct phone {
    struct wsc *w;
    char token[ROOM_TOKEN_HEX + 1];
    int id;
    int acked_yes;           /* answer of the last acked vote, -1 none */
};
static struct phone phones[PHONES];

static int phone_join(struct phone *ph) {
    char err[256];
    json_t *m = NULL;
    ph->w = fvr_connect("127.0.0.1", port, "fragvote-audience", 5000, err, sizeof err);
    if (!ph->w) return fprintf(stderr, "%s\n", err), -1;
    if (fvr_hello(ph->w, ROOM, 0, NULL, T_MS, &m, err, sizeof err)) return fprintf(stderr, "%s\n", err), -1;
    snprintf(ph->token, sizeof ph->token, "%s", json_string_value(json_object_get(m, "token")));
    json_decref(m);
    ph->acked_yes = -1;
    return 0;
}

/* One vote, waiting for its answer. Returns 1 acked, 0 refused (code in
 * `code`), -1 no answer. *ms: how long the answer took. */
static int phone_vote(struct phone *ph, int yes, char *code, size_t codelen, long long *ms) {
    int id = ++ph->id;
    long long t0 = check_mono_ms();
    code[0] = 0;
    json_t *o = NULL;
    int answer = fvr_vote(ph->w, id, 0, yes, T_MS, &o);
    if (answer == 1) {
        snprintf(code, codelen, "%s", json_string_value(json_object_get(o, "code")));
        printf("  (vote %d refused after %lld ms: %s: %s)\n", id, check_mono_ms() - t0, code,
               json_string_value(json_object_get(o, "message")));
    }
    json_decref(o);
    if (answer < 0) return -1;
    if (answer == 0) ph->acked_yes = yes;
    if (ms) *ms = check_mono_ms() - t0;
    return answer == 0 ? 1 : 0;
}

/* Every phone's stored answer is its last acked one. */
static int stored_matches_acked(void) {
    sqlite3 *s;
    if (sqlite3_open_v2(dbpath, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return 0;
    int bad = 0;
    for (int i = 0; i < PHONES; i++) {
        char hash[65];
        db_token_hash(phones[i].token, hash);
        sqlite3_stmt *st;
        int stored = -1;
        if (sqlite3_prepare_v2(s,
                               "SELECT v.answer FROM votes v JOIN voters w ON w.id = v.voter_id JOIN questions q ON "
                               "q.id = v.question_id WHERE w.token_hash = ?1 AND q.position = 0",
                               -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW) stored = sqlite3_column_int(st, 0);
            sqlite3_finalize(st);
        }
        if (stored != phones[i].acked_yes) {
            fprintf(stderr, "phone %d: acked %d, stored %d\n", i, phones[i].acked_yes, stored);
            bad++;
        }
    }
    sqlite3_close(s);
    return bad == 0;
}

static int serve_alive(void) { return serve_pid > 0 && waitpid(serve_pid, NULL, WNOHANG) == 0; }

/* ---------------------------------------------------------------- the test */

static void test_locked_full_and_readonly_database_refuse_votes_visibly(void) {
    int started = start_serve() == 0;
    if (!started) {
        char *out = serve_output();
        fprintf(stderr, "serve did not start listening:\n%s\n", out);
        free(out);
    }
    REQUIRE(started);
    console("open");
    for (int i = 0; i < PHONES; i++) REQUIRE(phone_join(&phones[i]) == 0);
    char code[64], shown[512];
    long long ms;
    for (int i = 0; i < PHONES; i++) CHECK_INT(phone_vote(&phones[i], 1, code, sizeof code, &ms), 1);

    /* 1. Locked: another process holds the write lock. */
    FILE *holder = NULL;
    holder_pid = check_sqlite_lock_hold(dbpath, &holder);
    REQUIRE(holder_pid > 0 && holder);
    usleep(500000);
    /* While the store thread waits for the lock, how long does another phone
     * wait for a pong? (The loop does not wait: measured, reported.) */
    wsc_send_json(phones[0].w, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 5000, "q", 0, "yes", 1);
    usleep(100000);
    long long p0 = check_mono_ms();
    wsc_send_json(phones[1].w, "{s:s}", "t", "ping");
    json_t *pong = wsc_recv_type(phones[1].w, "pong", T_MS);
    long long ping_ms = check_mono_ms() - p0;
    printf("  locked: another phone's ping answered after %lld ms\n", ping_ms);
    CHECK(pong != NULL);
    /* the store thread waits for a foreign lock, the room does not freeze
     * meanwhile (generous bound for a busy box). */
    CHECK(ping_ms < 1500);
    json_decref(pong);
    json_t *first = wsc_recv_type(phones[0].w, "error", T_MS);
    CHECK(first != NULL);
    json_decref(first);
    int rc = phone_vote(&phones[0], 0, code, sizeof code, &ms);
    printf("  locked: vote answered %s (%s) after %lld ms\n", rc == 1 ? "ack" : rc == 0 ? "error" : "nothing", code,
           ms);
    CHECK_INT(rc, 0);
    CHECK_STR(code, "storage");
    console_last_refused(shown, sizeof shown);
    printf("  console: %s\n", shown);
    CHECK_CONTAINS(shown, "locked");
    check_sqlite_lock_release(holder_pid, holder);
    holder_pid = -1;
    CHECK(serve_alive());
    CHECK_INT(phone_vote(&phones[0], 0, code, sizeof code, &ms), 1);
    CHECK(stored_matches_acked());

    /* 2. Disk full: fill the tmpfs, then keep voting (every vote a change,
     * new rows and pages) until the store fails. */
    char fill[400];
    snprintf(fill, sizeof fill, "%s/filler", mnt);
    int ff = open(fill, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(ff >= 0);
    static char zero[4096];
    while (write(ff, zero, sizeof zero) > 0) {}
    close(ff);
    int acked = 0, refused = 0, silent = 0;
    for (int round = 0; round < 40 && !refused; round++)
        for (int i = 0; i < PHONES; i++) {
            int r = phone_vote(&phones[i], round % 2, code, sizeof code, &ms);
            if (r == 1) acked++;
            else if (r == 0 && !strcmp(code, "storage")) refused++;
            else silent++;
        }
    printf("  disk full: %d votes acked (fitting in the existing file), then %d refused, %d unanswered\n", acked,
           refused, silent);
    CHECK(refused > 0);
    CHECK_INT(silent, 0);
    console_last_refused(shown, sizeof shown);
    printf("  console: %s\n", shown);
    CHECK(strcasestr(shown, "full") != NULL);
    CHECK(serve_alive());
    unlink(fill);
    int back = phone_vote(&phones[1], 1, code, sizeof code, &ms);
    printf("  space freed: vote %s\n", back == 1 ? "acked" : code);
    CHECK_INT(back, 1);
    CHECK(stored_matches_acked());

    /* Serve ends normally. */
    for (int i = 0; i < PHONES; i++) wsc_free(phones[i].w);
    console("quit");
    int st = 0;
    waitpid(serve_pid, &st, 0);
    serve_pid = -1;
    CHECK(WIFEXITED(st));
    if (!WIFEXITED(st)) fprintf(stderr, "serve ended by signal %d\n", WTERMSIG(st));
    char *out = serve_output();
    if (check_cur_failed_) fprintf(stderr, "--- serve output ---\n%s\n", out);
    CHECK(strstr(out, "AddressSanitizer") == NULL && strstr(out, "runtime error") == NULL);
    free(out);

    /* 3. Read-only. Linux refuses to make a mount read-only while a file on it
     * is open for writing (EBUSY), so a session cannot see its file system
     * turn ro under it here; what can happen is a restart on a read-only
     * file system: serve must refuse at once, naming the file and why. */
    REQUIRE(mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0);
    char cmdline[1024];
    snprintf(cmdline, sizeof cmdline, "'%s' serve --target 127.0.0.1 --no-prefetch --no-qr --bind 127.0.0.1 --port 0 "
             "--db '%s' </dev/null >'%s' 2>&1", getenv("FRAGVOTE_BIN"), dbpath, outpath);
    int ro = system(cmdline);
    out = serve_output();
    printf("  read-only file system at start: exit %d: %s", WIFEXITED(ro) ? WEXITSTATUS(ro) : -1, out);
    CHECK(WIFEXITED(ro) && WEXITSTATUS(ro) == 7);
    CHECK_CONTAINS(out, dbpath);
    CHECK(strcasestr(out, "read") != NULL);
    free(out);
    CHECK(mount(NULL, mnt, NULL, MS_REMOUNT | MS_BIND, NULL) == 0);
    CHECK(stored_matches_acked());
}

int main(void) {
    if (!getenv("FRAGVOTE_BIN")) SKIP_ALL("run through ctest (FRAGVOTE_BIN unset)");
    if (geteuid() != 0) SKIP_ALL("needs root to mount a small tmpfs (disk full, read-only)");
    if (system("command -v sqlite3 >/dev/null")) SKIP_ALL("the sqlite3 CLI is not installed (scripts/apt-packages.txt)");
    signal(SIGPIPE, SIG_IGN);
    check_cleanup_on_signals(cleanup);
    atexit(cleanup);
    snprintf(dir, sizeof dir, "%s", check_tmpdir());
    snprintf(base, sizeof base, "%s/tmpfs", dir);
    snprintf(mnt, sizeof mnt, "%s/mnt", dir);
    snprintf(dbpath, sizeof dbpath, "%s/live.db", mnt);
    snprintf(outpath, sizeof outpath, "%s/serve.out", dir);
    if (mkdir(base, 0700) || mkdir(mnt, 0700) || mount("tmpfs", base, "tmpfs", 0, "size=" TMPFS_SIZE ",mode=0700")) {
        perror("mount tmpfs");
        return 1;
    }
    mounted = 1;
    if (mount(base, mnt, NULL, MS_BIND, NULL)) {
        perror("bind mount");
        cleanup();
        return 1;
    }
    mounted = 2;
    RUN(test_locked_full_and_readonly_database_refuse_votes_visibly);
    cleanup();
    int rc = check_summary();
    if (rc == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd)) rc = 1;
    }
    return rc;
}
