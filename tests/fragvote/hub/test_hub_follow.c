/* A screen that follows one question (hello "q": the projector's view for
 * a slide deck's iframe, /screen/?q=N, docs/SLIDES.md; issue 39, item 5):
 * its states are that question's, as the room sees it, whatever the
 * presenter's cursor is on -- nothing of a question before its reveal,
 * nothing of a sibling still open (quiz_truth's rule), no text of a
 * question the room has not reached, its result kept once revealed; a
 * question not in the deck is refused. The real hub on a free loopback
 * port, real websockets, a real SQLite file. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "follow-test-secret"
#define ROOM "FOLLOW"
#define EVIDENCE "DF=1 seen on the wire" /* hubfix_measure_yes_yes_no's: it answers every question of its test */

static struct hubfix F;
static struct deck D;

/* Two tests: the first asks sent?, DF?, fragmented? (positions 0, 1, 2),
 * the second DF? (position 3). */
static int start(void) {
    char db[300];
    deck_fixture_one(&D, "follow test", DECK_FIXTURE_ALL);
    deck_fixture_test(&D, PROBE_UDP4, PROBE_MODE_DONT, 1000, DECK_FIXTURE_DF);
    snprintf(db, sizeof db, "%s/follow.db", check_tmpdir());
    return hubfix_start_yes_yes_no(&F, db, &D, ROOM, 0, SECRET, NULL);
}

/* A screen following position pos (-1: none): connected, its hello sent. */
static struct wsc *screen(int pos) {
    char err[256];
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    if (!s) fprintf(stderr, "screen: %s\n", err);
    if (s && pos >= 0) wsc_send_json(s, "{s:s, s:i}", "t", "hello", "q", pos);
    return s;
}

/* The newest state w was sent, after reading all it has now (NULL: none). */
static json_t *newest_state(struct wsc *w) {
    json_t *last = NULL, *m;
    while ((m = wsc_recv_type(w, "state", 300))) json_decref(last), last = m;
    return last;
}

static int pos_of(const json_t *st) {
    return (int)json_integer_value(json_object_get(json_object_get(st, "q"), "pos"));
}
static const char *str_in(const json_t *o, const char *obj, const char *key) {
    return json_string_value(json_object_get(obj ? json_object_get(o, obj) : o, key));
}

static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

/* Open, one yes vote, close, measure, reveal: the current question revealed. */
static int play(struct wsc *p, struct wsc *phone, int pos) {
    if (step(p, "open") || fvr_vote(phone, 100 + pos, pos, 1, T_MS, NULL) || step(p, "close") || step(p, "measure"))
        return -1;
    if (hubfix_wait_state(&F, QUIZ_MEASURED)) return -1;
    return step(p, "reveal");
}

static void test_a_question_not_in_the_deck_is_refused(void) {
    static const char *const bad[] = {"{\"t\":\"hello\",\"q\":4}", "{\"t\":\"hello\",\"q\":-1}",
                                      "{\"t\":\"hello\",\"q\":\"2\"}", "{\"t\":\"hello\",\"q\":1.5}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct wsc *s = screen(-1);
        REQUIRE(s);
        wsc_send_text(s, bad[i]);
        json_t *e = wsc_recv_type(s, "error", T_MS);
        CHECK_STR(str_in(e, NULL, "code"), "bad_question");
        json_decref(e);
        wsc_close(s, 1000);
    }
}

static void test_each_question_as_the_room_sees_it(void) {
    char err[256];
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    struct wsc *phone = fvr_phone("127.0.0.1", F.port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *plain = screen(-1), *df = screen(1), *frag = screen(2), *later = screen(3);
    REQUIRE(p && phone && plain && df && frag && later);

    /* before anything: each its own question, pending; the room has seen
     * only the first, so the others come without their text */
    json_t *st = newest_state(later);
    REQUIRE(st);
    CHECK_INT(pos_of(st), 3);
    CHECK_STR(str_in(st, "q", "state"), "pending");
    CHECK_STR(str_in(st, "q", "text"), "");
    CHECK_STR(str_in(st, "q", "summary"), "");
    CHECK(!json_object_get(json_object_get(st, "q"), "ask")); /* nor its parts (docs/LANGUAGES.md) */
    CHECK_INT(json_integer_value(json_object_get(st, "cursor")), 0);
    CHECK(!json_object_get(st, "split"));
    json_decref(st);
    st = newest_state(plain);
    CHECK(st && pos_of(st) == 0 && strlen(str_in(st, "q", "text")) > 10);
    CHECK(st && json_is_object(json_object_get(json_object_get(st, "q"), "ask")));
    json_decref(st);

    /* question 1 (sent?) revealed: the followers of DF? and fragmented?
     * are told nothing of it that answers theirs */
    REQUIRE(play(p, phone, 0) == 0);
    st = newest_state(df);
    REQUIRE(st);
    CHECK_INT(pos_of(st), 1);
    CHECK_STR(str_in(st, "q", "state"), "pending");
    json_decref(st);
    CHECK(!strstr(wsc_transcript(df), "\"reveal\""));
    json_decref(newest_state(plain));
    CHECK(strstr(wsc_transcript(plain), "\"reveal\"") != NULL); /* the projector did show it */
    /* the room moves on to DF?: its follower's state is now the projector's */
    REQUIRE(step(p, "next") == 0);
    REQUIRE(play(p, phone, 1) == 0);
    st = newest_state(df);
    REQUIRE(st);
    CHECK_INT(pos_of(st), 1);
    CHECK(strlen(str_in(st, "q", "text")) > 10);
    CHECK_STR(str_in(st, "reveal", "truth"), "yes");
    CHECK(!json_object_get(json_object_get(st, "reveal"), "evidence")); /* fragmented? is still open */
    CHECK_INT(json_integer_value(json_object_get(json_object_get(st, "split"), "yes")), 1);
    json_decref(st);

    /* the room on fragmented?, voting with a timer: DF?'s follower keeps
     * DF?'s result, with its count and without the other's timer */
    REQUIRE(step(p, "next") == 0);
    REQUIRE(wsc_send_json(p, "{s:s, s:s, s:i}", "t", "cmd", "cmd", "open", "seconds", 60) == 0);
    REQUIRE(hubfix_wait_state(&F, QUIZ_VOTING) == 0);
    st = newest_state(df);
    REQUIRE(st);
    CHECK_INT(pos_of(st), 1);
    CHECK_INT(json_integer_value(json_object_get(st, "cursor")), 2);
    CHECK_STR(str_in(st, "q", "state"), "revealed");
    CHECK_STR(str_in(st, "reveal", "truth"), "yes");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(st, "q"), "votes")), 1);
    CHECK(!json_object_get(st, "closes_in_ms"));
    json_decref(st);
    st = newest_state(frag);
    CHECK(st && pos_of(st) == 2 && json_object_get(st, "closes_in_ms"));
    json_decref(st);
    /* a screen that comes later for DF? gets its result at once */
    struct wsc *late = screen(1);
    REQUIRE(late);
    st = newest_state(late);
    CHECK(st && pos_of(st) == 1);
    CHECK_STR(str_in(st, "reveal", "truth"), "yes");
    json_decref(st);
    wsc_close(late, 1000);

    /* fragmented? revealed: the test's evidence comes, to its followers */
    REQUIRE(step(p, "close") == 0 && step(p, "measure") == 0 && hubfix_wait_state(&F, QUIZ_MEASURED) == 0);
    json_decref(newest_state(df));
    json_decref(newest_state(later));
    /* nothing of the test's measurement has reached a follower before the
     * test's last reveal: no evidence, no truth of fragmented? */
    CHECK(!strstr(wsc_transcript(df), EVIDENCE));
    CHECK(!strstr(wsc_transcript(frag), EVIDENCE));
    CHECK(!strstr(wsc_transcript(frag), "\"reveal\""));
    REQUIRE(step(p, "reveal") == 0);
    st = newest_state(frag);
    REQUIRE(st);
    CHECK_STR(str_in(st, "reveal", "truth"), "no");
    CHECK_STR(str_in(st, "reveal", "evidence"), EVIDENCE);
    json_decref(st);
    st = newest_state(df);
    CHECK(st && pos_of(st) == 1);
    CHECK_STR(str_in(st, "reveal", "evidence"), EVIDENCE);
    json_decref(st);
    /* the second test's follower: never a reveal, still no text */
    CHECK(!strstr(wsc_transcript(later), "\"reveal\""));
    st = newest_state(later);
    CHECK(!st || (pos_of(st) == 3 && !strcmp(str_in(st, "q", "text"), "") && !json_object_get(json_object_get(st, "q"), "ask")));
    json_decref(st);
    /* once the room reaches it, its text */
    REQUIRE(step(p, "next") == 0);
    st = newest_state(later);
    CHECK(st && pos_of(st) == 3 && strlen(str_in(st, "q", "text")) > 10);
    json_decref(st);

    wsc_close_all(p, phone, plain, df, frag, later);
}

int main(void) {
    if (start()) return 1;
    RUN(test_a_question_not_in_the_deck_is_refused);
    RUN(test_each_question_as_the_room_sees_it);
    hubfix_stop(&F);
    return check_summary_and_clean();
}
