/* A hostile audience member against the real `fragvote serve` (loopback,
 * --target 127.0.0.1, no lab; docs/SECURITY.md):
 *   - redirects never carry the request's Host header (no open redirect);
 *   - a made-up, well-formed token is not accepted as a voter: only tokens
 *     the server issued resume one;
 *   - a script minting voters (hello, welcome, reconnect) costs the room
 *     nothing durable and cannot fill it; one address gets at most the
 *     per-address burst of new voters; 1,000 phones behind one address
 *     joining and voting within 60 s all get in. */
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "db.h"
#include "serve_proc.h"
#include "fv_roles.h"
#include "hub.h"
#include "tcp_client.h"
#include "wsclient.h"

#define ROOM "HSTWZ2"
#define SECRET "hostile-audience-secret"

static const char *bin;
static char dbpath[256], outpath[256];
static pid_t pid = -1;
static int port;

static void stop_serve(void) { serve_proc_stop(&pid, SIGKILL); }

/* Starts serve on a fresh database with the console script `script`
 * (extra: more options, NULL-terminated); sets port. */
static int start_serve(const char *name, const char *script, char *const extra[]) {
    const char *dir = check_tmpdir();
    char spath[256];
    snprintf(dbpath, sizeof dbpath, "%s/%s.db", dir, name);
    snprintf(outpath, sizeof outpath, "%s/%s.out", dir, name);
    snprintf(spath, sizeof spath, "%s/%s.script", dir, name);
    FILE *f = fopen(spath, "w");
    if (!f) return -1;
    fputs(script, f);
    fclose(f);
    char *opts[] = {"--target", "127.0.0.1", "--room", ROOM, "--secret", SECRET, "--script", spath, NULL};
    char *argv[40];
    if (serve_proc_argv(argv, 40, bin, dbpath, opts, extra) < 0) return -1;
    port = serve_proc_start(argv, outpath, NULL, &pid);
    return port > 0 ? 0 : -1;
}

/* Sends a raw request and returns the response (malloc'd) as it came. */
static char *raw_http(const char *request) {
    char err[256];
    int fd = tcp_connect("127.0.0.1", port, NULL, err, sizeof err);
    if (fd < 0) return NULL;
    if (write(fd, request, strlen(request)) != (ssize_t)strlen(request)) {
        close(fd);
        return NULL;
    }
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char *buf = calloc(1, 65536);
    size_t got = 0;
    ssize_t n;
    while (buf && got < 65535 && (n = read(fd, buf + got, 65535 - got)) > 0) {
        got += (size_t)n;
        if (strstr(buf, "\r\n\r\n")) break; /* the headers are all we look at */
    }
    close(fd);
    return buf;
}

/* The value of header `name` (lower case, with colon) in a response, or "". */
static void header_of(const char *resp, const char *name, char *out, size_t outlen) {
    out[0] = 0;
    const char *h = resp ? strcasestr(resp, name) : NULL;
    if (!h) return;
    h += strlen(name);
    while (*h == ' ') h++;
    size_t n = strcspn(h, "\r\n");
    snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), h);
}

/* ---- item: the Host header never becomes a redirect's target ---- */

static void test_redirects_do_not_copy_the_host_header(void) {
    REQUIRE(start_serve("redirect", "sleep 600000\n", NULL) == 0);
    const char *paths[] = {"/screen", "/presenter"};
    for (int i = 0; i < 2; i++) {
        char req[512], loc[512], status[64];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: evil.example:666\r\nConnection: close\r\n\r\n", paths[i]);
        char *resp = raw_http(req);
        REQUIRE(resp);
        snprintf(status, sizeof status, "%.*s", (int)strcspn(resp, "\r\n"), resp);
        header_of(resp, "location:", loc, sizeof loc);
        printf("  GET %s with Host: evil.example:666 -> %s, Location: %s\n", paths[i], status, loc);
        CHECK(strstr(status, " 301") || strstr(status, " 302") || strstr(status, " 308"));
        CHECK(!strstr(loc, "evil.example"));
        CHECK(loc[0] == '/' && loc[1] != '/'); /* a path: the browser keeps the host it asked */
        /* followed, it lands on the page */
        char target[600];
        snprintf(target, sizeof target, "%s/", paths[i]);
        CHECK_STR(loc, target);
        free(resp);
        char err[256];
        size_t len = 0;
        char *page = tcp_http_get("127.0.0.1", port, target, 3000, &len, err, sizeof err);
        CHECK(page && strstr(page, " 200 ") && strcasestr(page, "<html"));
        free(page);
    }
    stop_serve();
}

/* ---- item: tokens the server never issued ---- */

/* A phone's hello with token (NULL: none); the welcome's token into out. */
static struct wsc *phone_as(const char *src, const char *token, char out[64], json_t **welcome) {
    char err[256];
    struct wsc *w = wsc_connect("127.0.0.1", port, "/", "fragvote-audience", src, 5000, err, sizeof err);
    if (!w) {
        fprintf(stderr, "connect: %s\n", err);
        return NULL;
    }
    json_t *m = NULL;
    if (fvr_hello(w, ROOM, 1, token, 5000, &m, err, sizeof err)) {
        fprintf(stderr, "hello: %s\n", err);
        wsc_free(w);
        return NULL;
    }
    snprintf(out, 64, "%s", json_string_value(json_object_get(m, "token")) ? json_string_value(json_object_get(m, "token")) : "");
    if (welcome) *welcome = m;
    else json_decref(m);
    return w;
}

/* The first column of the first row of sql on the test's database, or -1. */
static int sql_int(const char *sql) {
    sqlite3 *h;
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
    sqlite3_busy_timeout(h, 2000);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return n;
}

/* Rows of the voters table whose token_hash is sha256(token). */
static int stored_voters_with(const char *token) {
    char hash[65], sql[256];
    db_token_hash(token, hash);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM voters WHERE token_hash = '%s'", hash);
    return sql_int(sql);
}

static void test_made_up_tokens_get_a_fresh_one(void) {
    REQUIRE(start_serve("tokens", "open\nsleep 600000\n", NULL) == 0);
    char tok[64], real[64], again[64];
    /* a real phone joins and votes */
    struct wsc *v = phone_as(NULL, NULL, real, NULL);
    REQUIRE(v);
    CHECK_INT(fvr_vote(v, 1, 0, 1, 5000, NULL), 0);
    /* made up: well-formed, never issued */
    const char *made_up = "0123456789abcdef0123456789abcdef";
    struct wsc *w = phone_as(NULL, made_up, tok, NULL);
    REQUIRE(w);
    printf("  hello with %s -> welcome token %s\n", made_up, tok);
    CHECK(strcmp(tok, made_up) != 0);
    CHECK_INT(strlen(tok), 32);
    CHECK_INT(fvr_vote(w, 1, 0, 0, 5000, NULL), 0); /* it votes as the new voter it was given */
    wsc_free(w);
    CHECK_INT(stored_voters_with(made_up), 0);
    CHECK_INT(stored_voters_with(tok), 1);
    /* the real token with one digit changed is somebody else's forgery, not that voter */
    char forged[64];
    snprintf(forged, sizeof forged, "%s", real);
    forged[31] = forged[31] == '0' ? '1' : '0';
    json_t *m = NULL;
    w = phone_as(NULL, forged, tok, &m);
    REQUIRE(w);
    CHECK(strcmp(tok, forged) != 0 && strcmp(tok, real) != 0);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(m, "votes"), 0)), -1); /* not the real phone's vote */
    json_decref(m);
    wsc_free(w);
    /* the issued token resumes its voter, with its vote */
    w = phone_as(NULL, real, again, &m);
    REQUIRE(w);
    CHECK_STR(again, real);
    CHECK_INT(json_integer_value(json_array_get(json_object_get(m, "votes"), 0)), 1);
    json_decref(m);
    wsc_free(w);
    wsc_free(v);
    stop_serve();
}

/* ---- item: a script minting voters cannot lock the room out ---- */

#define MINT_ADDRS 8            /* the script's source addresses, 127.0.0.2 .. */
#define MINT_S 4                /* minting without voting, this long */
#define STUFF_ADDRS 2           /* minting and voting from this many addresses ... */
#define STUFF_TRIES 1300        /* ... this many tokens each: more than HUB_VOTER_BURST */
#define NAT_PHONES 1000         /* phones behind one address */

struct minter {
    pthread_t th;
    char src[32];
    int vote;                   /* 0: hello, welcome, gone; 1: and vote once */
    int tries;                  /* vote: this many tokens; else until deadline */
    long long deadline;
    int welcomed, acked, busy, other;
};

static void *mint_main(void *arg) {
    struct minter *m = arg;
    char err[256];
    for (int i = 0; m->vote ? i < m->tries : check_mono_ms() < m->deadline; i++) {
        struct wsc *w = wsc_connect("127.0.0.1", port, "/", "fragvote-audience", m->src, 5000, err, sizeof err);
        if (!w) continue;
        if (fvr_hello(w, ROOM, 1, NULL, 5000, NULL, err, sizeof err) == 0) {
            m->welcomed++;
            if (m->vote) {
                json_t *reply = NULL;
                int r = fvr_vote(w, 1, 0, i % 2, 5000, &reply);
                const char *code = reply ? json_string_value(json_object_get(reply, "code")) : NULL;
                if (r == 0) m->acked++;
                else if (code && !strcmp(code, "busy")) m->busy++;
                else m->other++;
                json_decref(reply);
            }
        }
        wsc_free(w);
    }
    return NULL;
}


static long rss_kb(void) {
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

static int output_has(const char *needle) { return serve_proc_output_has(outpath, needle); }

static void test_a_minting_script_cannot_fill_the_room(void) {
    /* the console shows the room once 1,000 votes are in */
    REQUIRE(start_serve("mint", "open\nwait-votes 1000 120000\nshow\nsleep 600000\n", NULL) == 0);
    long rss0 = rss_kb();
    /* 1. hello, welcome, reconnect: as fast as 8 addresses go */
    struct minter m[MINT_ADDRS];
    long long t0 = check_mono_ms();
    for (int i = 0; i < MINT_ADDRS; i++) {
        m[i] = (struct minter){.deadline = t0 + MINT_S * 1000};
        snprintf(m[i].src, sizeof m[i].src, "127.0.0.%d", 2 + i);
        REQUIRE(pthread_create(&m[i].th, NULL, mint_main, &m[i]) == 0);
    }
    int minted = 0;
    for (int i = 0; i < MINT_ADDRS; i++) {
        pthread_join(m[i].th, NULL);
        minted += m[i].welcomed;
    }
    double secs = (double)(check_mono_ms() - t0) / 1000.0;
    usleep(300000);
    int rows = sql_int("SELECT count(*) FROM voters");
    long rss1 = rss_kb();
    printf("  minting: %d tokens in %.1f s from %d addresses = %.0f/s; voter rows %d, serve RSS %ld -> %ld kB\n",
           minted, secs, MINT_ADDRS, minted / secs, rows, rss0, rss1);
    CHECK(minted > 1000);
    CHECK_INT(rows, 0); /* minting without voting stores nothing */

    /* 2. mint and vote: each address gets its burst of new voters, then the cap */
    struct minter v[STUFF_ADDRS];
    t0 = check_mono_ms();
    for (int i = 0; i < STUFF_ADDRS; i++) {
        v[i] = (struct minter){.vote = 1, .tries = STUFF_TRIES};
        snprintf(v[i].src, sizeof v[i].src, "127.0.0.%d", 2 + i);
        REQUIRE(pthread_create(&v[i].th, NULL, mint_main, &v[i]) == 0);
    }
    int acked = 0;
    for (int i = 0; i < STUFF_ADDRS; i++) pthread_join(v[i].th, NULL);
    secs = (double)(check_mono_ms() - t0) / 1000.0;
    for (int i = 0; i < STUFF_ADDRS; i++) {
        printf("  %s: %d tokens voted: %d acked, %d refused busy, %d other\n", v[i].src, v[i].welcomed, v[i].acked,
               v[i].busy, v[i].other);
        /* the burst, plus what the bucket refilled while it ran (+1 for rounding) */
        CHECK(v[i].acked <= HUB_VOTER_BURST + (int)(HUB_VOTER_RATE * secs) + 1);
        CHECK(v[i].acked >= HUB_VOTER_BURST);
        CHECK(v[i].busy >= STUFF_TRIES - HUB_VOTER_BURST - (int)(HUB_VOTER_RATE * secs) - 1);
        CHECK_INT(v[i].other, 0);
        acked += v[i].acked;
    }
    CHECK_INT(sql_int("SELECT count(*) FROM voters"), acked);
    double fill_h = (ROOM_VOTERS_MAX - (double)MINT_ADDRS * HUB_VOTER_BURST) / (MINT_ADDRS * HUB_VOTER_RATE) / 3600.0;
    printf("  => from %d addresses the script fills the room (%d voters) in %.1f hours, not minutes\n", MINT_ADDRS,
           ROOM_VOTERS_MAX, fill_h);

    /* 3. a real phone from another address still gets in and votes */
    char tok[64];
    struct wsc *w = phone_as("127.0.0.40", NULL, tok, NULL);
    REQUIRE(w);
    CHECK_INT(fvr_vote(w, 1, 0, 1, 5000, NULL), 0);
    wsc_free(w);
    /* 4. the presenter's console flags it */
    for (int t = 0; t < 100 && !output_has("Suspicious minting"); t++) usleep(50000);
    CHECK(output_has("Suspicious minting"));
    stop_serve();
}

/* n phones behind one address (src) join at once and vote: how many got
 * their first vote acked, how many were answered busy; secs gets the time. */
static int nat_phones(int n, const char *src, int *busy, double *secs) {
    static struct wsc *w[2 * NAT_PHONES];
    char err[256];
    long long t0 = check_mono_ms();
    int welcomed = 0, acked = 0;
    *busy = 0;
    for (int i = 0; i < n; i++) {
        w[i] = wsc_connect("127.0.0.1", port, "/", "fragvote-audience", src, 5000, err, sizeof err);
        if (w[i] && wsc_send_json(w[i], "{s:s, s:i, s:s}", "t", "hello", "v", 1, "room", ROOM)) {
            wsc_free(w[i]);
            w[i] = NULL;
        }
    }
    for (int i = 0; i < n; i++) {
        json_t *m = w[i] ? wsc_recv_type(w[i], "welcome", 10000) : NULL;
        welcomed += m != NULL;
        if (m) wsc_send_json(w[i], "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 1, "q", 0, "yes", i % 2);
        json_decref(m);
    }
    for (int i = 0; i < n; i++) {
        json_t *reply = NULL;
        int r = w[i] ? fvr_vote_answer(w[i], 1, 10000, &reply) : -1;
        const char *code = reply ? json_string_value(json_object_get(reply, "code")) : NULL;
        acked += r == 0;
        *busy += r == 1 && code && !strcmp(code, "busy");
        json_decref(reply);
    }
    *secs = (double)(check_mono_ms() - t0) / 1000.0;
    for (int i = 0; i < n; i++)
        if (w[i]) wsc_free(w[i]);
    printf("  %d phones from %s: %d welcomed, %d first votes acked, %d busy, in %.1f s\n", n, src, welcomed, acked,
           *busy, *secs);
    return welcomed == n ? acked : -1;
}

/* The other side of the cap: a venue's NAT. */
static void test_1000_phones_behind_one_address_all_get_in(void) {
    REQUIRE(start_serve("nat", "open\nsleep 600000\n", NULL) == 0);
    int busy;
    double secs;
    CHECK_INT(nat_phones(NAT_PHONES, "127.0.0.70", &busy, &secs), NAT_PHONES);
    CHECK(secs < 60);
    CHECK_INT(sql_int("SELECT count(*) FROM voters"), NAT_PHONES);
    stop_serve();
}

/* A bigger NAT than the burst: the cap binds (the documented trade-off),
 * and serve --voter-rate 0 lifts it. */
static void test_a_bigger_nat_needs_voter_rate_0(void) {
    int busy;
    double secs;
    REQUIRE(start_serve("bignat", "open\nsleep 600000\n", NULL) == 0);
    int acked = nat_phones(2 * NAT_PHONES, "127.0.0.71", &busy, &secs);
    CHECK(acked >= HUB_VOTER_BURST && acked <= HUB_VOTER_BURST + (int)(HUB_VOTER_RATE * secs) + 1);
    CHECK_INT(acked + busy, 2 * NAT_PHONES);
    stop_serve();
    char *off[] = {"--voter-rate", "0", NULL};
    REQUIRE(start_serve("bignat-off", "open\nsleep 600000\n", off) == 0);
    CHECK_INT(nat_phones(2 * NAT_PHONES, "127.0.0.71", &busy, &secs), 2 * NAT_PHONES);
    CHECK_INT(sql_int("SELECT count(*) FROM voters"), 2 * NAT_PHONES);
    stop_serve();
}

int main(void) {
    bin = serve_proc_bin();
    struct rlimit rl; /* NAT_PHONES connections at once */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    RUN(test_redirects_do_not_copy_the_host_header);
    RUN(test_made_up_tokens_get_a_fresh_one);
    RUN(test_a_minting_script_cannot_fill_the_room);
    RUN(test_1000_phones_behind_one_address_all_get_in);
    RUN(test_a_bigger_nat_needs_voter_rate_0);
    stop_serve();
    return check_summary();
}
