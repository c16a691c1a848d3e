/* The optional nickname leaderboard (serve --leaderboard): nicknames are
 * cleaned (controls and bidi marks dropped, cut to LEADERBOARD_NICK_MAX
 * bytes on a character boundary), never required, changed at most
 * LEADERBOARD_NICK_SETS_MAX times, shown only in the final state (top
 * LEADERBOARD_TOP by personal score) -- and with the leaderboard off they
 * are refused and appear in no frame sent to anyone. The real hub on a free
 * loopback port, real phones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fv_roles.h"
#include "hub_parse.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "leaderboard.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "leaderboard-test-secret"
#define NPHONES 13 /* 12 with a nickname, one without */

static struct hubfix F;
static struct deck D;

static void test_nick_clean_is_pure(void) {
    char out[LEADERBOARD_NICK_MAX + 1];
    CHECK_INT(leaderboard_nick_clean("  Ann  ", out, sizeof out), 3);
    CHECK_STR(out, "Ann");
    leaderboard_nick_clean("\x07" "bell\x1b[31mred", out, sizeof out);
    CHECK_STR(out, "bell[31mred");
    leaderboard_nick_clean("a\xe2\x80\xae" "b\xe2\x81\xa6" "c", out, sizeof out); /* RLO, LRI */
    CHECK_STR(out, "abc");
    leaderboard_nick_clean("x\xc2\x85y\x7f", out, sizeof out); /* C1 NEL, DEL */
    CHECK_STR(out, "xy");
    leaderboard_nick_clean("\xff\xfe" "ok\xc3", out, sizeof out); /* invalid UTF-8 */
    CHECK_STR(out, "ok");
    char many[64] = "";
    for (int i = 0; i < 30; i++) strcat(many, "\xc3\xa9"); /* é, 2 bytes each */
    CHECK_INT(leaderboard_nick_clean(many, out, sizeof out), 24);
    CHECK_INT(strlen(out), 24);
    leaderboard_nick_clean("abcdefghijklmnopqrstuvw\xc3\xa9z", out, sizeof out); /* é would end at byte 25 */
    CHECK_STR(out, "abcdefghijklmnopqrstuvw");
    CHECK_INT(leaderboard_nick_clean("\x01\x02 \xe2\x80\x8b", out, sizeof out), -1);
    CHECK_STR(out, "");
}

static void test_nick_message_decodes(void) {
    struct hub_client_msg m;
    char err[96];
    static const char msg[] = "{\"t\":\"nick\",\"nick\":\"Ann\"}";
    REQUIRE(hub_parse_client(msg, sizeof msg - 1, 60, &m, err, sizeof err) == 0);
    CHECK_INT(m.type, HUB_C_NICK);
    CHECK_INT(m.has_nick, 1);
    CHECK_STR(m.nick, "Ann");
    static const char none[] = "{\"t\":\"nick\",\"nick\":7}";
    REQUIRE(hub_parse_client(none, sizeof none - 1, 60, &m, err, sizeof err) == 0);
    CHECK_INT(m.has_nick, 0);
}

static int start(int leaderboard) {
    char path[256];
    static int files;
    deck_fixture_one(&D, "leaderboard test", DECK_FIXTURE_DF | DECK_FIXTURE_FRAG); /* truths: yes, no */
    snprintf(path, sizeof path, "%s/board-%d.db", check_tmpdir(), ++files);
    struct hub_config cfg = hubfix_config(SECRET);
    cfg.leaderboard = leaderboard;
    return hubfix_start_yes_yes_no(&F, path, &D, "BOARDS", 0, SECRET, &cfg);
}

static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

/* Sends a nick message (raw JSON string literal) and returns its answer. */
static json_t *nick(struct wsc *w, const char *json_string_literal) {
    char msg[512];
    snprintf(msg, sizeof msg, "{\"t\":\"nick\",\"nick\":%s}", json_string_literal);
    return fvr_answer(w, msg, "nick_ok", 20, T_MS);
}

/* Plays the deck's two questions: phone i votes q0 answers0[i], q1 answers1[i] (1 yes, 0 no). */
static int play(struct wsc *p, struct wsc **ph, int n, const int *answers0, const int *answers1) {
    const int *answers[2] = {answers0, answers1};
    for (int q = 0; q < 2; q++) {
        if (step(p, "open")) return -1;
        for (int i = 0; i < n; i++)
            if (fvr_vote(ph[i], 100 + q, q, answers[q][i], T_MS, NULL)) return -1;
        if (step(p, "close") || step(p, "measure")) return -1;
        hubfix_wait_state(&F, QUIZ_MEASURED);
        if (step(p, "reveal") || step(p, "next")) return -1;
    }
    return 0;
}

static void drain(struct wsc *w) {
    json_t *x;
    while ((x = wsc_recv_type(w, "never", 200))) json_decref(x);
}

static void test_off_nicknames_are_refused_and_in_no_frame(void) {
    REQUIRE(start(0) == 0);
    char err[256];
    struct wsc *a, *b, *s, *p;
    REQUIRE(fvr_cast("127.0.0.1", F.port, "BOARDS", SECRET, T_MS, &a, &b, &s, &p, err, sizeof err) == 0);
    json_t *r = nick(a, "\"ZZNICKOFF\"");
    REQUIRE(r);
    CHECK_STR(json_string_value(json_object_get(r, "code")), "leaderboard_off");
    json_decref(r);
    struct wsc *ph[2] = {a, b};
    static const int yes[2] = {1, 1}, no[2] = {0, 0};
    REQUIRE(play(p, ph, 2, yes, no) == 0);
    json_t *fin = fvr_final_state(s, T_MS);
    REQUIRE(fin);
    CHECK(!json_object_get(fin, "leaderboard"));
    json_decref(fin);
    struct wsc *all[4] = {a, b, s, p};
    for (int i = 0; i < 4; i++) {
        drain(all[i]);
        CHECK(!strstr(wsc_transcript(all[i]), "ZZNICKOFF"));
        CHECK(!strstr(wsc_transcript(all[i]), "\"nicknames\""));
        CHECK(!strstr(wsc_transcript(all[i]), "\"leaderboard\""));
        wsc_close(all[i], 1000);
    }
    hubfix_stop(&F);
}

static void test_on_top_ten_by_score_cleaned_and_capped(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    struct wsc *ph[NPHONES];
    for (int i = 0; i < NPHONES; i++) {
        ph[i] = fvr_phone("127.0.0.1", F.port, "BOARDS", 1, NULL, T_MS, NULL, err, sizeof err);
        REQUIRE(ph[i]);
    }
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(s && p);
    /* phone 0: a long UTF-8 nickname, cut to 24 bytes on a character boundary */
    json_t *r = nick(ph[0], "\"\\u03a9mega-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"");
    REQUIRE(r);
    CHECK_STR(json_string_value(json_object_get(r, "nick")), "\xce\xa9mega-xxxxxxxxxxxxxxxxx");
    CHECK_INT(strlen(json_string_value(json_object_get(r, "nick"))), 24);
    json_decref(r);
    /* phone 1: control characters dropped */
    r = nick(ph[1], "\"\\u001b[31mred\\u0007\\u202e\"");
    CHECK_STR(json_string_value(json_object_get(r, "nick")), "[31mred");
    json_decref(r);
    /* phone 2: nothing visible is refused, then a real one */
    r = nick(ph[2], "\"\\u0001\\u0002 \"");
    CHECK_STR(json_string_value(json_object_get(r, "code")), "bad_nick");
    json_decref(r);
    for (int i = 2; i < NPHONES - 1; i++) {
        char lit[32];
        snprintf(lit, sizeof lit, "\"P%02d\"", i);
        r = nick(ph[i], lit);
        CHECK_STR(json_string_value(json_object_get(r, "t")), "nick_ok");
        json_decref(r);
    }
    /* phone 3 changes it until the cap (it set it once above) */
    for (int k = 1; k < LEADERBOARD_NICK_SETS_MAX; k++) json_decref(nick(ph[3], "\"P03\""));
    r = nick(ph[3], "\"P03-again\"");
    CHECK_STR(json_string_value(json_object_get(r, "code")), "bad_nick");
    json_decref(r);
    /* No one else sees a nickname while the quiz runs. */
    drain(s);
    drain(ph[NPHONES - 1]);
    CHECK(!strstr(wsc_transcript(s), "P02") && !strstr(wsc_transcript(ph[NPHONES - 1]), "P02"));
    CHECK(strstr(wsc_transcript(s), "\"nicknames\":true") != NULL);
    /* Scores: phones 0-3 and the one without a nickname 2/2, 4-7 1/2, 8-11 0/2. */
    int a0[NPHONES], a1[NPHONES];
    for (int i = 0; i < NPHONES; i++) {
        int right = i == NPHONES - 1 ? 2 : i < 4 ? 2 : i < 8 ? 1 : 0;
        a0[i] = right >= 1;  /* truth yes */
        a1[i] = !(right >= 2); /* truth no */
    }
    REQUIRE(play(p, ph, NPHONES, a0, a1) == 0);
    json_t *fin = fvr_final_state(s, T_MS);
    REQUIRE(fin);
    json_t *lb = json_object_get(fin, "leaderboard");
    CHECK_INT(json_array_size(lb), LEADERBOARD_TOP);
    static const char *const want[] = {"\xce\xa9mega-xxxxxxxxxxxxxxxxx", "[31mred", "P02", "P03", "P04",
                                       "P05", "P06", "P07", "P08", "P09"};
    static const int want_correct[] = {2, 2, 2, 2, 1, 1, 1, 1, 0, 0};
    for (size_t i = 0; i < json_array_size(lb) && i < 10; i++) {
        json_t *row = json_array_get(lb, i);
        CHECK_STR(json_string_value(json_object_get(row, "nick")), want[i]);
        CHECK_INT(json_integer_value(json_object_get(row, "correct")), want_correct[i]);
        CHECK_INT(json_integer_value(json_object_get(row, "scored")), 2);
    }
    char *dumped = json_dumps(lb, 0);
    CHECK(dumped && !strstr(dumped, "P10") && !strstr(dumped, "P11"));
    free(dumped);
    json_decref(fin);
    for (int i = 0; i < NPHONES; i++) wsc_close(ph[i], 1000);
    wsc_close_all(s, p);
    hubfix_stop(&F);
}

/* After the end, a burst of nickname changes (issue 36, item 8: 10 voters x
 * 10 changes re-sent the whole state to every phone 100 times) reaches the
 * phones as a few states, the last of which lists the newest nicknames. */
static void test_nickname_burst_after_the_end_is_one_state(void) {
    REQUIRE(start(1) == 0);
    char err[256];
    enum { N = 10, CHANGES = LEADERBOARD_NICK_SETS_MAX - 1 };
    struct wsc *ph[N + 1];
    for (int i = 0; i <= N; i++) {
        ph[i] = fvr_phone("127.0.0.1", F.port, "BOARDS", 1, NULL, T_MS, NULL, err, sizeof err);
        REQUIRE(ph[i]);
    }
    struct wsc *watcher = ph[N]; /* joined, never votes, reads everything */
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(p);
    int yes[N], no[N];
    for (int i = 0; i < N; i++) yes[i] = 1, no[i] = 0;
    REQUIRE(play(p, ph, N, yes, no) == 0);
    json_t *fin = fvr_final_state(watcher, T_MS);
    REQUIRE(fin);
    json_decref(fin);
    drain(watcher);
    size_t before = strlen(wsc_transcript(watcher));
    for (int k = 0; k < CHANGES; k++)
        for (int i = 0; i < N; i++) {
            char msg[64];
            snprintf(msg, sizeof msg, "{\"t\":\"nick\",\"nick\":\"V%d-%d\"}", i, k);
            REQUIRE(wsc_send_text(ph[i], msg) == 0);
        }
    long long t0 = check_mono_ms();
    int states = 0;
    json_t *last = NULL, *x;
    while (check_mono_ms() - t0 < 2500 && (x = wsc_recv_type(watcher, "state", 2600 - (int)(check_mono_ms() - t0)))) {
        states++;
        json_decref(last);
        last = x;
    }
    printf("%d nickname changes after the end: the watcher got %d states (%zu bytes)\n", N * CHANGES, states,
           strlen(wsc_transcript(watcher)) - before);
    CHECK(states >= 1 && states <= 3);
    REQUIRE(last);
    char *lb = json_dumps(json_object_get(last, "leaderboard"), 0);
    for (int i = 0; i < N; i++) {
        char want[32];
        snprintf(want, sizeof want, "\"V%d-%d\"", i, CHANGES - 1);
        CHECK_CONTAINS(lb, want);
    }
    free(lb);
    json_decref(last);
    for (int i = 0; i <= N; i++) wsc_close(ph[i], 1000);
    wsc_close(p, 1000);
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_nick_clean_is_pure);
    RUN(test_nick_message_decodes);
    RUN(test_off_nicknames_are_refused_and_in_no_frame);
    RUN(test_on_top_ten_by_score_cleaned_and_capped);
    RUN(test_nickname_burst_after_the_end_is_one_state);
    return check_summary();
}
