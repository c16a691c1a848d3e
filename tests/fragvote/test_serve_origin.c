/* Websocket upgrades from another site's page are refused (issue 36, item
 * 7, docs/SECURITY.md "Origin"): against the real `fragvote serve` (no lab:
 * --target 127.0.0.1, --public-url https://vote.example.org/), a phone, a
 * screen and a presenter page whose Origin is http://evil.example get 403
 * and no connection -- so a web page cannot make its visitors' browsers
 * mint voters or spend the presenter-secret guess budget; 200 of them in a
 * row leave the room as it was (no voter, a presenter still logs in at
 * once, the console says how many were refused). Accepted: no Origin
 * (command-line clients), the page serve served (the request's own host and
 * port), the public URL's origin. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "serve_proc.h"
#include "fv_roles.h"
#include "wsclient.h"

#define SECRET "origin-e2e-presenter-secret"
#define ROOM "PRGN23"
#define T_MS 5000
#define EVIL "http://evil.example"

static const char *bin;
static pid_t serve_pid = -1;
static char outpath[300], dbpath[300];
static int port, console_in = -1; /* serve's stdin: a pipe kept open, so its console logs as it goes */

static void cleanup(void) { serve_proc_cleanup(&serve_pid, bin, NULL); }

static int start_serve(void) {
    const char *dir = check_tmpdir();
    snprintf(outpath, sizeof outpath, "%s/serve.out", dir);
    snprintf(dbpath, sizeof dbpath, "%s/origin.db", dir);
    char *argv[] = {(char *)bin, "serve", "--db", dbpath, "--port", "0", "--bind", "127.0.0.1", "--target", "127.0.0.1",
                    "--no-prefetch", "--public-url", "https://vote.example.org/", "--secret", SECRET, "--room", ROOM,
                    "--no-qr", NULL};
    serve_pid = serve_proc_spawn(argv, outpath, &(struct serve_proc_io){.console_in = &console_in});
    if (serve_pid < 0) return -1;
    /* behind --public-url the Join line names no port: ask the kernel which one serve listens on */
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ss -Hltnp 2>/dev/null | grep 'pid=%d,' | awk '{n=split($4,a,\":\"); print a[n]; exit}'",
             (int)serve_pid);
    for (int t = 0; t < 20000 && port <= 0 && !serve_proc_gone(&serve_pid); t += 100) {
        FILE *p = popen(cmd, "r");
        if (p && fscanf(p, "%d", &port) != 1) port = 0;
        if (p) pclose(p);
        if (port <= 0) usleep(100000);
    }
    return port > 0 && serve_proc_listening(port, &serve_pid, 20000) == 0 ? 0 : -1;
}

/* An upgrade as role with origin (NULL none, "" the server's own): the
 * connection, or NULL with the refusal in err. */
static struct wsc *upgrade(const char *role, const char *origin, char *err, size_t errlen) {
    return wsc_connect_origin("127.0.0.1", port, "/", role, NULL, origin, T_MS, err, errlen);
}

static int voters_in_db(void) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'SELECT count(*) FROM voters' 2>/dev/null", dbpath);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
}

static void test_other_sites_pages_are_refused(void) {
    REQUIRE(start_serve() == 0);
    char err[256];
    static const char *const roles[] = {"fragvote-audience", "fragvote-screen", "fragvote-presenter"};
    for (int i = 0; i < 3; i++) {
        struct wsc *w = upgrade(roles[i], EVIL, err, sizeof err);
        if (w) wsc_free(w);
        CHECK(w == NULL);
        printf("%s with Origin %s: %s\n", roles[i], EVIL, w ? "accepted" : err);
        CHECK_CONTAINS(err, "403");
    }
    /* a page hammering the room: 200 phones and 200 presenter logins */
    long long t0 = check_mono_ms();
    for (int i = 0; i < 200; i++) {
        struct wsc *a = upgrade("fragvote-audience", EVIL, err, sizeof err);
        struct wsc *p = upgrade("fragvote-presenter", "https://evil.example:8443", err, sizeof err);
        CHECK(!a && !p);
        wsc_free(a);
        wsc_free(p);
    }
    printf("400 upgrades from another site refused in %lld ms\n", check_mono_ms() - t0);
    /* the room as it was: a presenter logs in at once, no voter was made */
    struct wsc *pres = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    if (!pres) fprintf(stderr, "presenter: %s\n", err);
    CHECK(pres != NULL);
    wsc_close(pres, 1000);

    /* accepted: no Origin, the page's own, the public URL's */
    static const char *const good[] = {NULL, "", "https://vote.example.org"};
    for (int i = 0; i < 3; i++) {
        struct wsc *w = upgrade("fragvote-audience", good[i], err, sizeof err);
        if (!w) fprintf(stderr, "Origin %s: %s\n", good[i] ? good[i] : "(none)", err);
        CHECK(w != NULL);
        if (w) {
            CHECK_INT(fvr_hello(w, ROOM, 1, NULL, T_MS, NULL, err, sizeof err), 0);
            wsc_close(w, 1000);
        }
    }
    /* the console was told, counted */
    size_t len;
    int said = 0;
    for (int t = 0; t < 3000 && !said; t += 100) {
        char *log = check_read_file(outpath, &len);
        said = log && strstr(log, "warning: refused ") &&
               strstr(log, " from another site's page (Origin: ");
        free(log);
        if (!said) usleep(100000);
    }
    CHECK(said);
    kill(serve_pid, SIGTERM);
    waitpid(serve_pid, NULL, 0);
    serve_pid = -1;
    CHECK_INT(voters_in_db(), 0); /* the three good phones joined but never voted */
}

int main(void) {
    bin = serve_proc_bin();
    atexit(cleanup);
    RUN(test_other_sites_pages_are_refused);
    cleanup();
    return check_summary_and_clean();
}
