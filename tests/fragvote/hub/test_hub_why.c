/* The projectors' two views of a revealed question (issue 37, item 6): the
 * presenter's "why" (cmd "why", the console's why / w) toggles the current
 * revealed question between "what happened" and "why"; the state carries it
 * as reveal.view to screens and presenters, never to phones (whose view is
 * unchanged and who get no frame for it). Refused before the reveal, after
 * the end, and from anyone but an authenticated presenter; every move of
 * the quiz (next, back, a new reveal) starts again at "what happened". (The
 * console's word and key: tests/fragvote/console/test_console.c.) The
 * real hub on a free loopback port, real websocket clients, a real SQLite
 * file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "deck_fixture.h"
#include "fv_roles.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "why-view-test-secret"

static struct hubfix F;
static struct deck D;

static int start(void) {
    char dbpath[256];
    static int files;
    deck_fixture_one(&D, "why view test", DECK_FIXTURE_SENT | DECK_FIXTURE_DF);
    snprintf(dbpath, sizeof dbpath, "%s/why-%d.db", check_tmpdir(), ++files);
    return hubfix_start_yes_yes_no(&F, dbpath, &D, "WHYVEW", 0, SECRET, NULL);
}

static int cmd(struct wsc *p, const char *name, char *err, size_t errlen) { return fvr_cmd(p, name, T_MS, err, errlen); }
static int step(struct wsc *p, const char *name) { return fvr_step(p, name, T_MS); }

/* The console's view of it (hub_status why_view), once it is want or after
 * 2 s (a state frame may reach a client before the status is updated). */
static int status_why_is(int want) {
    struct hub_status st;
    for (int i = 0; i < 200; i++) {
        hub_snapshot(F.hub, &st);
        if (st.why_view == want) break;
        usleep(10000);
    }
    return st.why_view == want;
}

/* Reads w's states until one about question pos whose reveal.view is want
 * (NULL: a state of pos with no reveal.view at all); 1 when it came. */
static int view_comes(struct wsc *w, int pos, const char *want) {
    for (int i = 0; i < 20; i++) {
        json_t *st = wsc_recv_type(w, "state", T_MS);
        if (!st) return 0;
        json_t *view = json_object_get(json_object_get(st, "reveal"), "view");
        int at = json_integer_value(json_object_get(json_object_get(st, "q"), "pos")) == pos;
        int hit = at && (want ? json_is_string(view) && !strcmp(json_string_value(view), want) : view == NULL);
        json_decref(st);
        if (hit) return 1;
    }
    return 0;
}

/* Everything w has been sent so far, read (its transcript complete). */
static void drain(struct wsc *w) {
    json_t *x;
    while ((x = wsc_recv_type(w, "never", 300))) json_decref(x);
}

static int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle)) n++;
    return n;
}

static void test_why_toggles_the_projectors_view_of_a_revealed_question(void) {
    REQUIRE(start() == 0);
    char err[256];
    struct wsc *phone = fvr_phone("127.0.0.1", F.port, "WHYVEW", 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *screen = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *guest = fvr_connect("127.0.0.1", F.port, "fragvote-presenter", T_MS, err, sizeof err);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    REQUIRE(phone && screen && guest && p);

    /* before the reveal, at every step: refused, and nothing changes */
    static const char *const steps[] = {"open", "close", "measure"};
    CHECK(cmd(p, "why", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "only a revealed question");
    for (int i = 0; i < 3; i++) {
        REQUIRE(step(p, steps[i]) == 0);
        if (i == 2) REQUIRE(hubfix_wait_state(&F, QUIZ_MEASURED) == 0);
        CHECK(cmd(p, "why", err, sizeof err) < 0);
        CHECK_CONTAINS(err, "reveal it first");
        CHECK(status_why_is(0));
    }
    /* nobody but an authenticated presenter */
    CHECK(cmd(guest, "why", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "secret");
    CHECK(cmd(screen, "why", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "cannot control the quiz");
    CHECK(cmd(phone, "why", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "cannot control the quiz");
    drain(screen);
    CHECK(!strstr(wsc_transcript(screen), "\"view\"")); /* no word of a view before the reveal */

    /* the reveal: "what happened" first, on screens and presenters; phones as ever */
    REQUIRE(step(p, "reveal") == 0);
    CHECK(view_comes(screen, 0, "what"));
    CHECK(view_comes(guest, 0, "what"));
    drain(phone);
    CHECK_CONTAINS(wsc_transcript(phone), "\"reveal\"");
    CHECK(!strstr(wsc_transcript(phone), "\"view\""));
    int phone_states = count_of(wsc_transcript(phone), "\"t\":\"state\"");

    /* the guest (no secret) still cannot, after the reveal either */
    CHECK(cmd(guest, "why", err, sizeof err) < 0);
    CHECK(status_why_is(0));

    /* why, and back: screens and presenters get each; phones get nothing */
    REQUIRE(step(p, "why") == 0);
    CHECK(view_comes(screen, 0, "why"));
    CHECK(view_comes(guest, 0, "why"));
    drain(p); /* its cmd_ok wait read past the state: the transcript has it */
    CHECK_CONTAINS(wsc_transcript(p), "\"view\":\"why\"");
    CHECK(status_why_is(1));
    REQUIRE(step(p, "why") == 0);
    CHECK(view_comes(screen, 0, "what"));
    CHECK(status_why_is(0));
    REQUIRE(step(p, "why") == 0);
    CHECK(view_comes(screen, 0, "why"));
    drain(phone);
    CHECK_INT(count_of(wsc_transcript(phone), "\"t\":\"state\""), phone_states);
    CHECK(!strstr(wsc_transcript(phone), "\"view\""));

    /* next: a pending question, no view; back: revealed again, "what happened" first */
    REQUIRE(step(p, "next") == 0);
    CHECK(view_comes(screen, 1, NULL));
    CHECK(status_why_is(0));
    CHECK(cmd(p, "why", err, sizeof err) < 0);
    REQUIRE(step(p, "back") == 0);
    CHECK(view_comes(screen, 0, "what"));
    CHECK(status_why_is(0));

    /* the console's why (hub_post) toggles the same view */
    struct hub_cmd c = {.kind = HUB_CMD_WHY};
    REQUIRE(hub_post(F.hub, &c) == 0);
    CHECK(view_comes(screen, 0, "why"));
    CHECK(status_why_is(1));

    /* a new reveal starts at "what happened" */
    REQUIRE(step(p, "next") == 0);
    REQUIRE(step(p, "open") == 0);
    REQUIRE(step(p, "close") == 0);
    REQUIRE(step(p, "measure") == 0);
    REQUIRE(hubfix_wait_state(&F, QUIZ_MEASURED) == 0);
    CHECK(cmd(p, "why", err, sizeof err) < 0);
    REQUIRE(step(p, "reveal") == 0);
    CHECK(view_comes(screen, 1, "what"));
    CHECK(status_why_is(0));
    REQUIRE(step(p, "why") == 0);
    CHECK(view_comes(screen, 1, "why"));

    /* the end: no question on the projector, nothing to toggle */
    REQUIRE(step(p, "end") == 0);
    CHECK(status_why_is(0));
    CHECK(cmd(p, "why", err, sizeof err) < 0);

    wsc_close_all(phone, screen, guest, p);
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_why_toggles_the_projectors_view_of_a_revealed_question);
    return check_summary_and_clean();
}
