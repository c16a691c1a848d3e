/* The real pages (phone and screen JavaScript, real HTML ids) run in Node
 * against the real hub: join from the QR link, vote, "counted" only after the
 * ack, reconnect and reload keep the voter, reveal, final share grid copied
 * without a secure context. The script is tests/fragvote/hub/pages_sim.js; this
 * harness starts the hub and answers the measurement like serve's worker.
 * Then a hosted room's hub (--prober remote): the presenter page while the
 * laptop that measures comes and goes (pages_sim.js ... laptop DECKFILE). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "db.h"
#include "hub.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "room.h"

#define SECRET "pages-secret"
#define MARKER "EVIDENCE-pages-7c1d"     /* the test's evidence: shown with its last question */
#define WHY_SENT "WHY-pages-sent-3b9e"   /* "sent?"'s own fact: shown with its reveal */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static uint64_t asked;
static struct probe_spec asked_spec;
static int done;
static struct hub *hub;

static int measure_hook(void *ctx, const struct prober_ask *a) {
    (void)ctx;
    pthread_mutex_lock(&mu);
    asked = a->rid;
    asked_spec = *a->spec;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    return 0;
}

/* serve's probe worker, in miniature: answers every measurement asked. */
static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!done) {
        if (!asked) {
            pthread_cond_wait(&cv, &mu);
            continue;
        }
        struct hub_cmd c = {.kind = HUB_CMD_MEASURED, .rid = asked};
        c.result.spec = asked_spec;
        asked = 0;
        c.result.sent.answer = PROBE_ANS_YES;
        c.result.df.answer = PROBE_ANS_NO;
        c.result.fragmented.answer = PROBE_ANS_YES;
        snprintf(c.result.evidence, sizeof c.result.evidence, "%s", MARKER);
        snprintf(c.result.sent.why, sizeof c.result.sent.why, "%s", WHY_SENT);
        snprintf(c.result.egress.observer, sizeof c.result.egress.observer, "raw");
        pthread_mutex_unlock(&mu);
        hub_post(hub, &c);
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* How node gets a browser-like WebSocket: its own (Node >= 22, or 20.10+ with
 * the flag, which Node 18 rejects as a bad option) or Debian's node-ws, which
 * Debian 12's Node 18 finds by require('ws'). pages_sim.js takes either. */
static const char *node_flags;

static int node_has_websocket(void) {
    static const char *const tries[][2] = {
        {"", "typeof WebSocket === \"function\""},
        {"--experimental-websocket", "typeof WebSocket === \"function\""},
        {"", "typeof require(\"ws\") === \"function\""},
    };
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "node %s -e 'process.exit(%s ? 0 : 1)' >/dev/null 2>&1", tries[i][0], tries[i][1]);
        if (system(cmd) == 0) {
            node_flags = tries[i][0];
            return 1;
        }
    }
    return 0;
}

/* pages_sim.js against the hub on port, with args after its own (or ""): its exit status is 0 when every check held. */
static int run_sim(const char *src, const char *web, int port, const char *args) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "node %s %s/tests/fragvote/hub/pages_sim.js %d %s %s %s 2>&1", node_flags, src, port, SECRET, web,
             args);
    return system(cmd);
}

static void test_pages_in_node_against_the_hub(void) {
    const char *src = getenv("FRAGVOTE_SRC");
    REQUIRE(src);
    char err[512], path[512], web[1024];
    snprintf(web, sizeof web, "%s/audience-web", src);
    snprintf(path, sizeof path, "%s/pages.db", check_tmpdir());
    static struct deck d;
    deck_fixture_one(&d, "pages deck", DECK_FIXTURE_ALL);
    deck_fixture_test(&d, PROBE_UDP6, PROBE_MODE_WANT, 3000, DECK_FIXTURE_SENT);
    /* with the nickname leaderboard on: pages_sim checks its phone field and final list */
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .web_root = web, .secret = SECRET, .leaderboard = 1};
    struct hubfix fx;
    if (hubfix_start_probed(&fx, path, &d, "TEST42", 0, &cfg, &(struct prober){measure_hook, NULL}, err, sizeof err))
        fprintf(stderr, "hubfix_start_probed: %s\n", err);
    REQUIRE(fx.hub);
    hub = fx.hub;
    pthread_t t_worker;
    pthread_create(&t_worker, NULL, worker, NULL);
    CHECK(run_sim(src, web, fx.port, "") == 0);
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t_worker, NULL);
    hubfix_stop(&fx);
}

static void test_presenter_page_shows_whether_the_laptop_is_connected(void) {
    const char *src = getenv("FRAGVOTE_SRC");
    REQUIRE(src);
    char err[512], path[512], deckpath[512], web[1024], args[600];
    snprintf(web, sizeof web, "%s/audience-web", src);
    snprintf(path, sizeof path, "%s/laptop.db", check_tmpdir());
    snprintf(deckpath, sizeof deckpath, "%s/laptop-deck.json", check_tmpdir());
    struct deck d;
    REQUIRE(deck_load_builtin(&d, err, sizeof err) == 0);
    FILE *f = fopen(deckpath, "w");
    REQUIRE(f);
    fputs(d.json, f); /* what the laptop says in its prober hello */
    REQUIRE(fclose(f) == 0);
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .web_root = web, .secret = SECRET, .prober_remote = 1};
    struct hubfix fx;
    if (hubfix_start(&fx, path, &d, "RMT3PR", 0, &cfg, err, sizeof err)) fprintf(stderr, "hubfix_start: %s\n", err);
    REQUIRE(fx.hub);
    snprintf(args, sizeof args, "laptop %s", deckpath);
    CHECK(run_sim(src, web, fx.port, args) == 0);
    hubfix_stop(&fx);
    deck_free(&d);
}

int main(void) {
    if (!node_has_websocket())
        SKIP_ALL("needs Node.js with a WebSocket: its own (>= 20.10) or Debian's node-ws (apt-get install node-ws)");
    RUN(test_pages_in_node_against_the_hub);
    RUN(test_presenter_page_shows_whether_the_laptop_is_connected);
    return check_summary();
}
