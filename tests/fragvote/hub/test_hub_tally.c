/* Tallies on the live hub (hubroom.h): versions that increase, the split
 * hidden until the close (or shown with live_split), a screen's tally after
 * every commit, a phone's at most 10 a second. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "db_ckpt.h"
#include "hub_fd.h"
#include "hubroom.h"
#include "tcp_client.h"

static void test_tally_versions_increase_and_split_is_hidden_until_close(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *s, *p;
    REQUIRE(hubroom_cast(NULL, &s, &p) == 0 && hubroom_do(p, "open") == 0);
    struct wsc *phones[5];
    for (int i = 0; i < 5; i++) {
        phones[i] = hubroom_phone(NULL, NULL, NULL);
        REQUIRE(phones[i]);
        REQUIRE(hubroom_vote(phones[i], 1, 0, i < 3, NULL) == 0);
    }
    usleep(300000);
    REQUIRE(hubroom_do(p, "close") == 0);
    usleep(300000);
    /* Read everything the screen got, in order. */
    long long last = -1;
    int tallies = 0, split_before_close = 0, saw_final = 0, monotonic = 1;
    json_t *t;
    while ((t = fvr_next_tally(s, 1500, &last, &monotonic, &tallies))) {
        const char *state = json_string_value(json_object_get(t, "state"));
        int has_split = json_object_get(t, "yes") != NULL;
        if (state && !strcmp(state, "voting") && has_split) split_before_close = 1;
        if (state && !strcmp(state, "closed") && has_split &&
            json_integer_value(json_object_get(t, "yes")) == 3 && json_integer_value(json_object_get(t, "no")) == 2 &&
            json_integer_value(json_object_get(t, "votes")) == 5)
            saw_final = 1;
        json_decref(t);
    }
    CHECK(tallies >= 2);
    CHECK(monotonic);
    CHECK(!split_before_close);
    CHECK(saw_final);
    /* no state message carried the split while voting either */
    const char *tr = wsc_transcript(s);
    const char *pos = tr;
    int leak = 0;
    while ((pos = strstr(pos, "\"t\":\"state\""))) {
        const char *eol = strchr(pos, '\n');
        char line[8192];
        size_t n = eol ? (size_t)(eol - pos) : strlen(pos);
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, pos, n);
        line[n] = 0;
        if (strstr(line, "\"state\":\"voting\"") && strstr(line, "\"split\"")) leak = 1;
        pos += n;
    }
    CHECK(!leak);
    /* phones get tallies too (the public one: no split while voting) */
    json_t *pt = wsc_recv_type(phones[4], "tally", 1000);
    CHECK(pt != NULL);
    json_decref(pt);
    pt = wsc_recv_type(phones[0], "tally", 1000);
    CHECK(pt != NULL);
    json_decref(pt);
    for (int i = 0; i < 5; i++) wsc_close(phones[i], 1000);
    wsc_close_all(s, p);
    hubroom_stop();
}

/* The projector does not wait for a tick: every commit that changes the
 * count is followed by a tally to the screens and the authed presenter.
 * Votes one after another (each waits for its ack, so each is its own
 * commit): the screen must see every intermediate count 1..N, in order.
 * On a fixed 100 ms tick most of them were skipped (no timing bound here:
 * the count of distinct tallies is what is checked). */
#define COMMITS_SEEN_N 6
static int tallies_count_every_vote(struct wsc *w, const char *who) {
    int seen[COMMITS_SEEN_N + 1] = {0}, last = -1, in_order = 1;
    json_t *t;
    while ((t = wsc_recv_type(w, "tally", 500))) {
        const char *state = json_string_value(json_object_get(t, "state"));
        int v = (int)json_integer_value(json_object_get(t, "votes"));
        if (state && !strcmp(state, "voting") && v >= 0 && v <= COMMITS_SEEN_N) {
            if (v < last) in_order = 0;
            last = v;
            seen[v] = 1;
        }
        json_decref(t);
    }
    int all = in_order;
    for (int v = 1; v <= COMMITS_SEEN_N; v++)
        if (!seen[v]) {
            fprintf(stderr, "%s: no tally counted %d votes\n", who, v);
            all = 0;
        }
    return all;
}

static void test_screen_gets_a_tally_after_every_commit(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *s, *p;
    REQUIRE(hubroom_cast(NULL, &s, &p) == 0 && hubroom_do(p, "open") == 0);
    struct wsc *phones[COMMITS_SEEN_N];
    for (int i = 0; i < COMMITS_SEEN_N; i++) REQUIRE((phones[i] = hubroom_phone(NULL, NULL, NULL)));
    for (int i = 0; i < COMMITS_SEEN_N; i++) REQUIRE(hubroom_vote(phones[i], 1, 0, i % 2, NULL) == 0);
    CHECK(tallies_count_every_vote(s, "screen"));
    CHECK(tallies_count_every_vote(p, "presenter"));
    for (int i = 0; i < COMMITS_SEEN_N; i++) wsc_close(phones[i], 1000);
    wsc_close_all(s, p);
    hubroom_stop();
}

/* A small room's phone is not flooded: while the count changes with every
 * commit (a phone re-voting every ~25 ms), another phone gets the newest
 * tally at most HUB_PHONE_TALLY_HZ times a second, yet keeps getting it. */
static void drain(struct wsc *w, int quiet_ms) {
    char *m = NULL;
    while (wsc_recv(w, &m, quiet_ms) > 0) {
        free(m);
        m = NULL;
    }
    free(m);
}

static void test_a_phone_gets_at_most_10_tallies_a_second(void) {
    REQUIRE(hubroom_start(1, 0) == 0); /* live split: every re-vote changes the public tally */
    struct wsc *p = hubroom_presenter(), *voter = hubroom_phone(NULL, NULL, NULL), *watcher = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(p && voter && watcher);
    REQUIRE(hubroom_do(p, "open") == 0);
    drain(watcher, 200); /* what came before */
    const char *tr0 = wsc_transcript(watcher);
    size_t skip = strlen(tr0);
    double a = check_mono_s();
    for (int i = 0; i < 30; i++) { /* under HUB_MSG_BURST */
        REQUIRE(hubroom_vote(voter, i + 1, 0, i % 2, NULL) == 0);
        usleep(20000);
    }
    drain(watcher, 300);
    double secs = check_mono_s() - a;
    int got = 0;
    for (const char *q = wsc_transcript(watcher) + skip; (q = strstr(q, "\"t\":\"tally\"")); q++) got++;
    printf("watcher got %d tallies in %.2f s (cap %d/s)\n", got, secs, HUB_PHONE_TALLY_HZ);
    CHECK(got >= 2);
    CHECK(got <= (int)(secs * HUB_PHONE_TALLY_HZ) + 1);
    wsc_close_all(voter, watcher, p);
    hubroom_stop();
}

static void test_live_split_shows_the_split_while_voting(void) {
    REQUIRE(hubroom_start(1, 0) == 0);
    struct wsc *w, *s, *p;
    REQUIRE(hubroom_cast(&w, &s, &p) == 0);
    REQUIRE(hubroom_do(p, "open") == 0);
    REQUIRE(hubroom_vote(w, 1, 0, 0, NULL) == 0);
    int seen = 0;
    json_t *t;
    while (!seen && (t = wsc_recv_type(s, "tally", 1000))) {
        if (json_integer_value(json_object_get(t, "no")) == 1 &&
            !strcmp(json_string_value(json_object_get(t, "state")), "voting"))
            seen = 1;
        json_decref(t);
    }
    CHECK(seen);
    wsc_close_all(s, p, w);
    hubroom_stop();
}

int main(void) {
    RUN(test_tally_versions_increase_and_split_is_hidden_until_close);
    RUN(test_screen_gets_a_tally_after_every_commit);
    RUN(test_a_phone_gets_at_most_10_tallies_a_second);
    RUN(test_live_split_shows_the_split_while_voting);
    return check_summary();
}
