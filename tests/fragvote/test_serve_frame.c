/* Who may put serve's pages in a frame (issue 39, item 5; docs/SLIDES.md,
 * docs/SECURITY.md "Frames"), against the real `fragvote serve` on a free
 * port: with --frame-ancestors "'self' http://slides.example:8000" the
 * projector's page (/screen/, /screen/?q=N) carries that frame-ancestors and
 * no X-Frame-Options, while the phone's page, the presenter's page and every
 * other file still say frame-ancestors 'none' and X-Frame-Options: DENY;
 * the slide deck's site may frame the projector but opens no websocket
 * (Origin check unchanged), the framed page itself (its own origin) does and
 * follows its question. Without the option no page may be framed, and a
 * list that would let every site in, or break out of the header, is refused. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "serve_proc.h"
#include "tcp_client.h"
#include "fv_roles.h"
#include "wsclient.h"

#define T_MS 5000
#define SLIDES "http://slides.example:8000"
#define SOURCES "'self' " SLIDES
#define NONE_LINE "\r\ncontent-security-policy: frame-ancestors 'none'\r\n"
#define DENY_LINE "\r\nx-frame-options: DENY\r\n"
#define SLIDES_LINE "\r\ncontent-security-policy: frame-ancestors " SOURCES "\r\n"

static const char *bin;
static pid_t serve_pid = -1;

static void cleanup(void) { serve_proc_cleanup(&serve_pid, bin, NULL); }

/* serve with --frame-ancestors sources (NULL: without): its port, or -1. */
static int start_serve(const char *sources) {
    char out[300], db[300];
    static int runs;
    snprintf(out, sizeof out, "%s/serve-%d.out", check_tmpdir(), ++runs);
    snprintf(db, sizeof db, "%s/frame-%d.db", check_tmpdir(), runs);
    char *argv[] = {(char *)bin, "serve", "--db", db, "--port", "0", "--bind", "127.0.0.1", "--target", "127.0.0.1",
                    "--no-prefetch", "--no-qr", "--room", "FRAME2", sources ? "--frame-ancestors" : NULL,
                    (char *)sources, NULL};
    return serve_proc_start(argv, out, NULL, &serve_pid);
}

static void stop_serve(void) {
    kill(serve_pid, SIGTERM);
    waitpid(serve_pid, NULL, 0);
    serve_pid = -1;
}

/* The response to GET path, headers and body (caller frees), lower-cased
 * header names as lws writes them. */
static char *get(int port, const char *path) {
    char err[256];
    char *r = tcp_http_get("127.0.0.1", port, path, T_MS, NULL, err, sizeof err);
    if (!r) fprintf(stderr, "GET %s: %s\n", path, err);
    else if (strncmp(r, "HTTP/1.1 200", 12)) fprintf(stderr, "GET %s: %.60s\n", path, r);
    return r;
}

/* A page no other site may frame: 200, frame-ancestors 'none', DENY. */
static void check_unframeable(int port, const char *path) {
    char *r = get(port, path);
    REQUIRE(r);
    CHECK(!strncmp(r, "HTTP/1.1 200", 12));
    if (!strstr(r, NONE_LINE) || !strstr(r, DENY_LINE)) fprintf(stderr, "GET %s:\n%.900s\n", path, r);
    CHECK(strstr(r, NONE_LINE) != NULL);
    CHECK(strstr(r, DENY_LINE) != NULL);
    CHECK(!strstr(r, SOURCES));
    free(r);
}

static void test_only_the_projector_may_be_framed_by_the_slides(void) {
    int port = start_serve(SOURCES);
    REQUIRE(port > 0);
    static const char *const screens[] = {"/screen/", "/screen/?q=2", "/screen/?q=2&view=result"};
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++) {
        char *r = get(port, screens[i]);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        if (!strstr(r, SLIDES_LINE)) fprintf(stderr, "GET %s:\n%.900s\n", screens[i], r);
        CHECK(strstr(r, SLIDES_LINE) != NULL);
        CHECK(!strstr(r, "x-frame-options"));
        CHECK(!strstr(r, "frame-ancestors 'none'"));
        CHECK(strstr(r, "default-src 'self'") != NULL); /* the pages' own policy still applies */
        free(r);
    }
    check_unframeable(port, "/");
    check_unframeable(port, "/?room=FRAME2");
    check_unframeable(port, "/index.html");
    check_unframeable(port, "/presenter/");
    check_unframeable(port, "/privacy.html");
    check_unframeable(port, "/common,i18n,path,screen.js");
    check_unframeable(port, "/i18n-de.json");
    check_unframeable(port, "/screen.html"); /* the projector's file by its own name is not the mount */

    /* the slides' site frames the page but opens no websocket of its own;
     * the framed page (its own origin) does, and follows its question */
    char err[256];
    struct wsc *w = wsc_connect_origin("127.0.0.1", port, "/", "fragvote-screen", NULL, SLIDES, T_MS, err, sizeof err);
    CHECK(w == NULL);
    CHECK_CONTAINS(err, "403");
    wsc_free(w);
    w = wsc_connect_origin("127.0.0.1", port, "/", "fragvote-screen", NULL, "", T_MS, err, sizeof err);
    if (!w) fprintf(stderr, "the framed page's own websocket: %s\n", err);
    REQUIRE(w);
    CHECK(wsc_send_json(w, "{s:s, s:i}", "t", "hello", "q", 1) == 0);
    json_t *st = NULL, *m;
    for (int i = 0; i < 5 && (m = wsc_recv_type(w, "state", T_MS)); i++) {
        json_decref(st);
        st = m;
        if (json_integer_value(json_object_get(json_object_get(st, "q"), "pos")) == 1) break;
    }
    CHECK(st && json_integer_value(json_object_get(json_object_get(st, "q"), "pos")) == 1);
    json_decref(st);
    wsc_close(w, 1000);
    stop_serve();
}

static void test_by_default_no_page_may_be_framed(void) {
    int port = start_serve(NULL);
    REQUIRE(port > 0);
    check_unframeable(port, "/screen/");
    check_unframeable(port, "/screen/?q=1&view=result");
    check_unframeable(port, "/");
    check_unframeable(port, "/presenter/");
    stop_serve();
}

/* serve --frame-ancestors value: exit 2, the option named on stderr. */
static void refused(const char *value) {
    char cmd[600], out[300];
    snprintf(out, sizeof out, "%s/refused.out", check_tmpdir());
    snprintf(cmd, sizeof cmd, "'%s' serve --frame-ancestors \"%s\" --no-qr --port 0 >'%s' 2>&1", bin, value, out);
    int rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    size_t len;
    char *said = check_read_file(out, &len);
    CHECK_CONTAINS(said, "--frame-ancestors");
    free(said);
}

static void test_lists_that_open_every_site_are_refused(void) {
    refused("*");
    refused("https:");
    refused("'none'");
    refused("'self'; script-src *");
    refused("https://slides.example.org/deck/");
    refused("");
}

int main(void) {
    bin = serve_proc_bin();
    atexit(cleanup);
    RUN(test_only_the_projector_may_be_framed_by_the_slides);
    RUN(test_by_default_no_page_may_be_framed);
    RUN(test_lists_that_open_every_site_are_refused);
    cleanup();
    return check_summary_and_clean();
}
