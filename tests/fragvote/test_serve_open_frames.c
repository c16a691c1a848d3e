/* The measurement made while a question votes tells nobody anything
 * (issue 36 item 1, docs/SECURITY.md): against the real `fragvote serve` on
 * the namespace lab, as root, a deck of four tests whose questions read
 * alike (same protocol and mode, sizes of four digits) and whose
 * measurements differ in outcome and duration: refused by the host
 * (EMSGSIZE, at once), answered by a router's Frag Needed (fast ICMP), lost
 * behind a router that drops the ICMP errors it forwards (silent: the probe
 * waits for the far end's witness, ~1 s), arrived (the witness heard it).
 * While each question votes (OPEN_MS, long enough for the silent one to
 * finish in the background: serve prefetches it) a phone, a screen and an
 * unauthenticated presenter page record every frame with its arrival time.
 * The sequence of frames each receives from the open to the close (their
 * types and sizes, and their content but for the question's own position)
 * is the same for all four outcomes. Then each question is measured (its
 * held result: at once), revealed (the four outcomes did differ) and left. */
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
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

#define ROOM "PNFRMS"
#define SECRET "open-frames-presenter-secret"
#define NTESTS 4
#define OPEN_MS 2500  /* voting time per question: the silent measurement (~1.1 s) ends within it */
#define FRAMES_MAX 4096
#define STEP_MS 20000 /* each presenter step, each wait */

/* The deck: one "sent?" question per test, all on the same three-router lab
 * (1500 / 1500 / 1280 / 1500), so switching between them changes rules only. */
static const char deck_json[] =
    "{\"title\": \"open frames\", \"lab\": {\"routers\": 3, \"mtu\": [1500, 1500, 1280, 1500]},\n"
    " \"tests\": [\n"
    "  {\"proto\": \"udp4\", \"mode\": \"do\", \"size\": 3000, \"ask\": [\"sent\"]},\n"
    "  {\"proto\": \"udp4\", \"mode\": \"do\", \"size\": 1400, \"ask\": [\"sent\"]},\n"
    "  {\"proto\": \"udp4\", \"mode\": \"do\", \"size\": 1400, \"ask\": [\"sent\"],\n"
    "   \"lab\": {\"routers\": 3, \"mtu\": [1500, 1500, 1280, 1500], \"blackhole\": [\"r1\"]}},\n"
    "  {\"proto\": \"udp4\", \"mode\": \"do\", \"size\": 1200, \"ask\": [\"sent\"]}\n"
    " ]}\n";
/* What each test's evidence says (the outcomes differ), and its name. */
static const char *const outcome_needle[NTESTS] = {"EMSGSIZE", "Frag Needed", "did not see it", "arrived at dst"};
static const char *const outcome_name[NTESTS] = {"EMSGSIZE", "fast ICMP", "silent", "arrived"};

static const char *bin;
static char prefix[16], dbpath[256], outpath[256], deckpath[256], scriptpath[256];
static pid_t serve_pid = -1;
static int port;

static void cleanup(void) { serve_proc_cleanup(&serve_pid, bin, prefix); }

/* ---- the viewers: every frame, when it came ---- */

struct frame {
    long long at;  /* check_mono_ms() */
    char *text;
};

struct viewer {
    const char *name, *protocol;
    struct wsc *w;
    pthread_t th;
    struct frame f[FRAMES_MAX];
    int n;
    char err[256];
};

static void *viewer_main(void *arg) {
    struct viewer *v = arg;
    for (;;) {
        char *text = NULL;
        long n = wsc_recv(v->w, &text, 600000);
        long long at = check_mono_ms();
        if (n <= 0) {
            if (n < 0 && !wsc_closed(v->w)) snprintf(v->err, sizeof v->err, "recv: %s", wsc_error(v->w));
            free(text);
            return NULL;
        }
        if (v->n == FRAMES_MAX) {
            free(text);
            continue;
        }
        v->f[v->n++] = (struct frame){at, text};
    }
}

static int viewer_start(struct viewer *v) {
    char err[256];
    v->w = !strcmp(v->protocol, "fragvote-audience")
               ? fvr_phone("127.0.0.1", port, ROOM, 0, NULL, STEP_MS, NULL, err, sizeof err)
               : fvr_connect("127.0.0.1", port, v->protocol, STEP_MS, err, sizeof err);
    if (!v->w) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        return -1;
    }
    if (strcmp(v->protocol, "fragvote-audience") && wsc_send_json(v->w, "{s:s}", "t", "hello") < 0) return -1;
    return pthread_create(&v->th, NULL, viewer_main, v) ? -1 : 0;
}

/* The frame's "q" position or "pos" of its question, and its state ("" if none). */
static int frame_question(const char *text, char *state, size_t len) {
    json_t *o = json_loads(text, 0, NULL);
    const char *t = json_string_value(json_object_get(o, "t"));
    json_t *q = json_object_get(o, "q");
    int pos = -1;
    state[0] = 0;
    if (t && !strcmp(t, "state")) {
        pos = (int)json_integer_value(json_object_get(q, "pos"));
        snprintf(state, len, "%s", json_string_value(json_object_get(q, "state")) ?: "");
    }
    json_decref(o);
    return pos;
}

/* The frames of question pos's voting: from its state "voting" up to (not
 * including) its state "closed". [*from, *to); -1 when not found. */
static int voting_frames(const struct viewer *v, int pos, int *from, int *to) {
    *from = *to = -1;
    for (int i = 0; i < v->n; i++) {
        char st[32];
        int p = frame_question(v->f[i].text, st, sizeof st);
        if (p == pos && !strcmp(st, "voting") && *from < 0) *from = i;
        if (p == pos && !strcmp(st, "closed") && *from >= 0) {
            *to = i;
            return 0;
        }
    }
    return -1;
}

/* A frame as compared across questions: what is the question's own (its
 * position, the tally's version, the question's text and summary and their
 * parts, "ask", whose size digits differ) set to one value. The sizes are
 * compared raw. */
static char *frame_norm(const char *text) {
    json_t *o = json_loads(text, 0, NULL);
    if (!o) return strdup(text);
    json_t *q = json_object_get(o, "q");
    if (json_is_object(q)) {
        json_object_set_new(q, "pos", json_integer(0));
        json_object_set_new(q, "test", json_integer(0));
        json_object_set_new(q, "text", json_string(""));
        json_object_set_new(q, "summary", json_string(""));
        if (json_object_get(q, "ask")) json_object_set_new(q, "ask", json_object());
    } else if (q) {
        json_object_set_new(o, "q", json_integer(0));
    }
    if (json_object_get(o, "cursor")) json_object_set_new(o, "cursor", json_integer(0));
    if (json_object_get(o, "ver")) json_object_set_new(o, "ver", json_integer(0));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return s;
}

/* The raw size of a frame but for its question's text, summary and "ask"
 * (the deck's words and their parts, the same whatever the measurement: the
 * silent test's text names its lab) and its tally version's digits (they
 * grow with the session). */
static long frame_size(const char *text) {
    long n = (long)strlen(text);
    const char *v = strstr(text, "\"ver\":");
    if (v)
        for (v += 6; *v >= '0' && *v <= '9'; v++) n--;
    json_t *o = json_loads(text, 0, NULL), *q = json_object_get(o, "q");
    n -= (long)json_string_length(json_object_get(q, "text")) + (long)json_string_length(json_object_get(q, "summary"));
    char *ask = json_object_get(q, "ask") ? json_dumps(json_object_get(q, "ask"), JSON_COMPACT) : NULL;
    if (ask) n -= (long)strlen(ask);
    free(ask);
    json_decref(o);
    return n;
}

/* ---- the presenter ---- */

/* Sends cmd and reads until its cmd_ok and a state whose current question
 * is in want (NULL: any); 0, or -1 with a line on stderr. */
static int step(struct wsc *p, const char *cmd, const char *want) {
    char err[256];
    if (wsc_send_json(p, "{s:s, s:s}", "t", "cmd", "cmd", cmd) < 0) return -1;
    int ok = 0, seen = !want;
    while (!ok || !seen) {
        char *m = NULL;
        if (wsc_recv(p, &m, STEP_MS) <= 0) {
            fprintf(stderr, "%s: no answer (%s)\n", cmd, wsc_error(p));
            free(m);
            return -1;
        }
        json_t *o = json_loads(m, 0, NULL);
        free(m);
        const char *t = json_string_value(json_object_get(o, "t"));
        const char *st = json_string_value(json_object_get(json_object_get(o, "q"), "state"));
        if (t && !strcmp(t, "cmd_ok")) ok = 1;
        if (t && !strcmp(t, "state") && want && st && !strcmp(st, want)) seen = 1;
        if (t && !strcmp(t, "error")) {
            snprintf(err, sizeof err, "%s", json_string_value(json_object_get(o, "message")) ?: "?");
            fprintf(stderr, "%s: %s\n", cmd, err);
            json_decref(o);
            return -1;
        }
        json_decref(o);
    }
    return 0;
}

static int start_serve(void) {
    const char *dir = check_tmpdir();
    snprintf(dbpath, sizeof dbpath, "%s/open.db", dir);
    snprintf(outpath, sizeof outpath, "%s/open.out", dir);
    snprintf(deckpath, sizeof deckpath, "%s/deck.json", dir);
    snprintf(scriptpath, sizeof scriptpath, "%s/talk.script", dir);
    FILE *f = fopen(deckpath, "w");
    if (!f) return -1;
    fputs(deck_json, f);
    fclose(f);
    if (!(f = fopen(scriptpath, "w"))) return -1;
    fputs("sleep 600000\n", f);
    fclose(f);
    setenv("FRAGVOTE_LAB_PREFIX", prefix, 1);
    char *argv[] = {(char *)bin, "serve", "--deck", deckpath, "--db", dbpath, "--port", "0", "--bind", "127.0.0.1",
                    "--script", scriptpath, "--secret", SECRET, "--room", ROOM, "--no-qr", NULL};
    port = serve_proc_start(argv, outpath, NULL, &serve_pid);
    return port > 0 ? 0 : -1;
}

/* The question's reveal as the presenter got it: its evidence (malloc'd). */
static char *reveal_step(struct wsc *p) {
    if (wsc_send_json(p, "{s:s, s:s}", "t", "cmd", "cmd", "reveal") < 0) return NULL;
    for (;;) {
        json_t *o = wsc_recv_type(p, "state", STEP_MS);
        if (!o) return NULL;
        json_t *rv = json_object_get(o, "reveal");
        const char *ev = json_string_value(json_object_get(rv, "evidence"));
        char *s = rv ? strdup(ev ? ev : "") : NULL;
        json_decref(o);
        if (s) return s;
    }
}

static void test_frames_while_voting_do_not_depend_on_the_measurement(void) {
    REQUIRE(start_serve() == 0);
    struct viewer vw[3] = {{.name = "phone", .protocol = "fragvote-audience"},
                           {.name = "screen", .protocol = "fragvote-screen"},
                           {.name = "presenter page without its secret", .protocol = "fragvote-presenter"}};
    for (int i = 0; i < 3; i++) REQUIRE(viewer_start(&vw[i]) == 0);
    char err[256];
    struct wsc *p = fvr_presenter("127.0.0.1", port, SECRET, STEP_MS, err, sizeof err);
    if (!p) fprintf(stderr, "presenter: %s\n", err);
    REQUIRE(p);
    usleep(300000); /* the joins' tallies are out before the first open */
    long long measured_ms[NTESTS];
    char *evidence[NTESTS] = {0};
    for (int t = 0; t < NTESTS; t++) {
        REQUIRE(step(p, "open", "voting") == 0);
        usleep(OPEN_MS * 1000);
        REQUIRE(step(p, "close", "closed") == 0);
        long long m0 = check_mono_ms();
        REQUIRE(step(p, "measure", "measured") == 0);
        measured_ms[t] = check_mono_ms() - m0;
        evidence[t] = reveal_step(p);
        REQUIRE(evidence[t]);
        REQUIRE(step(p, "next", NULL) == 0);
    }
    usleep(300000);
    wsc_close(p, 1000);
    kill(serve_pid, SIGTERM);
    for (int i = 0; i < 3; i++) pthread_join(vw[i].th, NULL);
    waitpid(serve_pid, NULL, 0);
    serve_pid = -1;

    /* The four measurements differ, and each was done while its question voted. */
    for (int t = 0; t < NTESTS; t++) {
        printf("test %d (%s): measure -> measured in %lld ms; evidence: %s\n", t, outcome_name[t], measured_ms[t],
               evidence[t]);
        CHECK_CONTAINS(evidence[t], outcome_needle[t]);
        CHECK(measured_ms[t] < 700); /* held: the silent one alone takes over a second */
        free(evidence[t]);
    }
    /* What each viewer got while each question voted. */
    for (int i = 0; i < 3; i++) {
        struct viewer *v = &vw[i];
        if (v->err[0]) fprintf(stderr, "%s: %s\n", v->name, v->err);
        CHECK(!v->err[0]);
        int from[NTESTS], to[NTESTS];
        for (int t = 0; t < NTESTS; t++) {
            CHECK(voting_frames(v, t, &from[t], &to[t]) == 0);
            if (from[t] < 0 || to[t] < 0) continue;
            printf("%s, question %d (%s): %d frames:", v->name, t + 1, outcome_name[t], to[t] - from[t]);
            for (int k = from[t]; k < to[t]; k++) {
                json_t *o = json_loads(v->f[k].text, 0, NULL);
                printf(" %s %ld B at +%lld ms;", json_string_value(json_object_get(o, "t")) ?: "?",
                       frame_size(v->f[k].text), v->f[k].at - v->f[from[t]].at);
                json_decref(o);
            }
            printf("\n");
        }
        for (int t = 1; t < NTESTS; t++) {
            if (from[t] < 0 || to[t] < 0 || from[0] < 0 || to[0] < 0) continue;
            int n0 = to[0] - from[0], n = to[t] - from[t];
            if (n != n0)
                fprintf(stderr, "%s: %d frames while question %d (%s) voted, %d while question 1 (%s) did\n", v->name,
                        n, t + 1, outcome_name[t], n0, outcome_name[0]);
            CHECK_INT(n, n0);
            for (int k = 0; k < n && k < n0; k++) {
                const char *a = v->f[from[0] + k].text, *b = v->f[from[t] + k].text;
                CHECK_INT(frame_size(b), frame_size(a));
                char *na = frame_norm(a), *nb = frame_norm(b);
                CHECK_STR(nb, na);
                free(na);
                free(nb);
            }
        }
        for (int k = 0; k < v->n; k++) free(v->f[k].text);
        wsc_close(v->w, 1000); /* (serve is gone: this frees the client) */
    }
}

int main(void) {
    bin = serve_proc_bin();
    snprintf(prefix, sizeof prefix, "fvof%d", (int)getpid() % 100000);
    check_root_begin("needs root (the lab)", "ip nft", cleanup);
    RUN(test_frames_while_voting_do_not_depend_on_the_measurement);
    cleanup();
    return check_summary_and_clean();
}
