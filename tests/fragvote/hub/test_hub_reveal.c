/* What each role sees on the live hub (hubroom.h): no frame carries the
 * truth before its reveal, each reveal shows only its own fact, the
 * presenter's actions need the secret, an unauthenticated presenter sees
 * what a screen sees, and the presenter's tally counts screens and
 * presenters. */
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
#include "msg_json.h"
#include "tcp_client.h"

static void test_truth_is_in_no_frame_before_reveal(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *w, *s, *p;
    REQUIRE(hubroom_cast(&w, &s, &p) == 0);
    REQUIRE(hubroom_measured(p, w, 1, hubroom_result(1, 0, 1)) == 0);
    /* everything each client has been sent until now */
    usleep(300000);
    json_t *x;
    while ((x = wsc_recv_type(w, "never", 200))) json_decref(x);
    while ((x = wsc_recv_type(s, "never", 200))) json_decref(x);
    while ((x = wsc_recv_type(p, "never", 200))) json_decref(x);
    CHECK(strstr(wsc_transcript(w), "\"measured\"") != NULL); /* it did reach the measured state */
    CHECK(!strstr(wsc_transcript(w), MARKER));
    CHECK(!strstr(wsc_transcript(s), MARKER));
    CHECK(!strstr(wsc_transcript(p), MARKER));
    CHECK(!strstr(wsc_transcript(w), "\"truth\""));
    CHECK(!strstr(wsc_transcript(s), "\"truth\""));
    CHECK(!strstr(wsc_transcript(p), "\"truth\""));
    /* after the reveal everyone gets it */
    REQUIRE(hubroom_do(p, "reveal") == 0);
    json_t *st = fvr_state_with(w, "reveal", 10, T_MS);
    REQUIRE(st);
    json_t *rv = json_object_get(st, "reveal");
    CHECK_STR(json_string_value(json_object_get(rv, "truth")), "yes");
    CHECK_STR(json_string_value(json_object_get(rv, "why")), WHY_SENT);
    CHECK_INT(json_integer_value(json_object_get(rv, "yes")), 1);
    json_decref(st);
    wsc_close_all(w, s, p);
    hubroom_stop();
}

/* Reads w's messages until a state whose current question pos is revealed. */
static json_t *revealed_state(struct wsc *w, int pos) {
    for (int i = 0; i < 20; i++) {
        json_t *st = wsc_recv_type(w, "state", T_MS);
        if (!st) return NULL;
        json_t *q = json_object_get(st, "q");
        if (json_object_get(st, "reveal") && json_integer_value(json_object_get(q, "pos")) == pos) return st;
        json_decref(st);
    }
    return NULL;
}

/* Opens, closes, measures (answering the probe when the hub asks) and
 * reveals the current question; 0 or -1 with the step in err. */
static int play_to_reveal(struct wsc *p, int answer_probe, char *err, size_t errlen) {
    if (hubroom_cmd(p, "open", err, errlen) || hubroom_cmd(p, "close", err, errlen) || hubroom_cmd(p, "measure", err, errlen)) return -1;
    if (answer_probe && hubroom_answer(hubroom_result(1, 0, 1))) return snprintf(err, errlen, "no probe asked"), -1;
    if (hubroom_wait_state(QUIZ_MEASURED)) return snprintf(err, errlen, "never measured"), -1;
    return hubroom_cmd(p, "reveal", err, errlen);
}

/* A reveal's explanation as messages (explain_msg, docs/PROTOCOL.md) says in
 * English exactly its "explain", and its surprise_msg its "surprise": the
 * pages word the same steps in their language. */
static void check_reveal_msgs(json_t *rv) {
    char joined[PROBE_PREDICT_TEXT_MAX] = "";
    json_t *steps = json_object_get(rv, "explain_msg"), *e;
    size_t i;
    json_array_foreach(steps, i, e) {
        struct fv_msg m;
        CHECK_INT(msg_json_read(e, &m), 0);
        if (i) strcat(joined, "; ");
        fv_msg_append(&m, joined, sizeof joined);
    }
    const char *explain = json_string_value(json_object_get(rv, "explain"));
    CHECK_STR(joined, explain ? explain : "");
    CHECK(explain == NULL || json_array_size(steps) > 0);
    /* the fact's why: its message (where it has one) says its English */
    struct fv_msg wm;
    char why[160] = "";
    json_t *why_msg = json_object_get(rv, "why_msg");
    if (why_msg) {
        CHECK_INT(msg_json_read(why_msg, &wm), 0);
        fv_msg_text(&wm, why, sizeof why);
        CHECK_STR(why, json_string_value(json_object_get(rv, "why")));
    }
    /* the surprise's why argument is that message, or the English why */
    struct fv_msg sm;
    char surprise[300] = "";
    json_t *said = json_object_get(json_object_get(json_object_get(rv, "surprise_msg"), "args"), "why");
    CHECK(!said || json_is_string(said) || json_equal(said, why_msg));
    if (!msg_json_read(json_object_get(rv, "surprise_msg"), &sm)) {
        for (int k = 0; k < sm.nargs && json_is_object(said); k++)
            if (!strcmp(sm.arg[k].name, "why")) sm.arg[k].type = FV_MSG_STR, snprintf(sm.arg[k].s, sizeof sm.arg[k].s, "%s", why);
        fv_msg_text(&sm, surprise, sizeof surprise);
    }
    const char *want = json_string_value(json_object_get(rv, "surprise"));
    CHECK_STR(surprise, want ? want : "");
}

/* A fact's why worded by the judge as a message (why_msg, docs/PROTOCOL.md
 * "Texts as messages") reaches every role's reveal beside its English, and,
 * when the measurement differs from the rules, as the surprise's why. */
static void test_a_why_as_a_message_reaches_the_reveal(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *w, *s, *p;
    REQUIRE(hubroom_cast(&w, &s, &p) == 0);
    struct wsc *pv = hubroom_presenter(); /* watches: p's answers are read by cmd */
    REQUIRE(pv);
    char err[256];
    REQUIRE(hubroom_cmd(p, "open", err, sizeof err) == 0 && hubroom_cmd(p, "close", err, sizeof err) == 0 &&
            hubroom_cmd(p, "measure", err, sizeof err) == 0);
    struct probe_result r = hubroom_result(0, 0, 0); /* "sent?" no: the rules said yes */
    fv_msg_set(&r.sent.msg[0], "why.send_failed_mtu", "@error=%s mtu=%d", "errno.emsgsize", 1280);
    r.sent.nmsg = 1;
    fv_msg_text(&r.sent.msg[0], r.sent.why, sizeof r.sent.why);
    REQUIRE(hubroom_answer(r) == 0);
    REQUIRE(hubroom_wait_state(QUIZ_MEASURED) == 0);
    REQUIRE(hubroom_cmd(p, "reveal", err, sizeof err) == 0);
    struct wsc *all[3] = {w, s, pv};
    for (int k = 0; k < 3; k++) {
        json_t *st = revealed_state(all[k], 0);
        REQUIRE(st);
        json_t *rv = json_object_get(st, "reveal");
        CHECK_STR(json_string_value(json_object_get(rv, "why")), "send() failed: Message too long (kernel MTU 1280)");
        CHECK_STR(json_string_value(json_object_get(json_object_get(rv, "why_msg"), "key")), "why.send_failed_mtu");
        /* the error as its catalog key, which the pages word in their language */
        json_t *error = json_object_get(json_object_get(json_object_get(rv, "why_msg"), "args"), "error");
        CHECK_STR(json_string_value(json_object_get(error, "key")), "errno.emsgsize");
        json_t *said = json_object_get(json_object_get(json_object_get(rv, "surprise_msg"), "args"), "why");
        CHECK_STR(json_string_value(json_object_get(said, "key")), "why.send_failed_mtu");
        check_reveal_msgs(rv);
        json_decref(st);
    }
    wsc_close_all(w, s, p, pv);
    hubroom_stop();
}

/* Issue 15: the three questions of one test share one probe result, but the
 * reveal of one question explains only its own fact: no frame to anyone
 * carries a sibling's explanation or the test's evidence (which speaks of
 * every fact) before the test's last question is revealed. */
static void test_each_reveal_shows_only_its_own_fact(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *w, *s, *p;
    REQUIRE(hubroom_cast(&w, &s, &p) == 0);
    struct wsc *pv = hubroom_presenter(); /* a second presenter page that only watches (p's answers are read by cmd) */
    REQUIRE(pv);
    struct wsc *all[3] = {w, s, pv};
    char err[256];
    static const char *const why[3] = {WHY_SENT, WHY_DF, WHY_FRAG};
    for (int pos = 0; pos < 3; pos++) {
        if (pos) REQUIRE(hubroom_do(p, "next") == 0);
        /* the probe runs once, for the test's first question */
        REQUIRE(play_to_reveal(p, pos == 0, err, sizeof err) == 0);
        for (int k = 0; k < 3; k++) {
            json_t *st = revealed_state(all[k], pos);
            REQUIRE(st);
            json_t *rv = json_object_get(st, "reveal");
            CHECK_STR(json_string_value(json_object_get(rv, "why")), why[pos]);
            check_reveal_msgs(rv);
            if (pos < 2) CHECK(json_object_get(rv, "evidence") == NULL);
            else CHECK_STR(json_string_value(json_object_get(rv, "evidence")), MARKER);
            /* issue 20: the path picture draws only the facts that may be shown */
            json_t *path = json_object_get(rv, "path");
            CHECK(path != NULL);
            unsigned open = 0;
            for (int later = pos + 1; later < 3; later++) open |= 1u << later;
            const char *leak = check_path_leak(path, open);
            if (leak) fprintf(stderr, "question %d's reveal.path shows %s\n", pos, leak);
            CHECK(leak == NULL);
            if (pos == 2) CHECK_STR(json_string_value(json_object_get(path, "view")), "full");
            json_decref(st);
            const char *tr = wsc_transcript(all[k]);
            for (int later = pos + 1; later < 3; later++) CHECK(!strstr(tr, why[later]));
            if (pos < 2) CHECK(!strstr(tr, MARKER));
            if (pos < 2) CHECK(!strstr(tr, "\"pieces\"") && !strstr(tr, "time_exceeded") && !strstr(tr, "\"quote\""));
            if (pos == 2) CHECK(strstr(tr, "time_exceeded") != NULL);
        }
    }
    wsc_close_all(w, s, p, pv);
    hubroom_stop();
}

static void test_presenter_actions_need_the_secret(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *a = hubroom_phone(NULL, NULL, NULL);
    struct wsc *p = hubroom_connect("fragvote-presenter");
    REQUIRE(a && p);
    char err[256];
    /* audience can never do it, secret or not */
    wsc_send_json(a, "{s:s, s:s}", "t", "auth", "secret", SECRET);
    json_t *e = wsc_recv_type(a, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "forbidden");
    json_decref(e);
    CHECK_INT(hubroom_cmd(a, "open", err, sizeof err), -1);
    /* presenter connection without auth */
    CHECK_INT(hubroom_cmd(p, "open", err, sizeof err), -1);
    CHECK_CONTAINS(err, "secret");
    /* wrong secret, then throttled */
    wsc_send_json(p, "{s:s, s:s}", "t", "auth", "secret", "correct-horse-43");
    e = wsc_recv_type(p, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "bad_secret");
    json_decref(e);
    wsc_send_json(p, "{s:s, s:s}", "t", "auth", "secret", SECRET);
    e = wsc_recv_type(p, "error", T_MS);
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "code")), "throttled");
    json_decref(e);
    CHECK_INT(hubroom_cmd(p, "open", err, sizeof err), -1);
    struct hub_status st;
    hub_snapshot(hubroom.fx.hub, &st);
    CHECK_INT(st.current.state, QUIZ_PENDING); /* nothing happened */
    /* after the throttle delay the right secret works */
    usleep((HUB_SECRET_DELAY_MS + 100) * 1000);
    wsc_send_json(p, "{s:s, s:s}", "t", "auth", "secret", SECRET);
    e = wsc_recv_type(p, "auth_ok", T_MS);
    CHECK(e != NULL);
    json_decref(e);
    CHECK_INT(hubroom_cmd(p, "open", err, sizeof err), 0);
    /* repeated wrong secrets close that connection */
    struct wsc *bad = hubroom_connect("fragvote-presenter");
    REQUIRE(bad);
    for (int i = 0; i < 3 * HUB_SECRET_FAILS && !wsc_closed(bad); i++) {
        usleep((HUB_SECRET_DELAY_MS + 50) * 1000);
        wsc_send_json(bad, "{s:s, s:s}", "t", "auth", "secret", "guess");
        json_decref(wsc_recv_type(bad, "error", T_MS));
    }
    CHECK(wsc_closed(bad));
    CHECK_INT(wsc_close_code(bad), 1008);
    wsc_free(bad);
    wsc_close_all(a, p);
    hubroom_stop();
}

/* Whether a transcript holds a message of type t that carries key (or, for
 * key "questions", a questions[] list) while the question is voting. */
static int voting_message_with(const char *tr, const char *type, const char *key) {
    char want[32];
    snprintf(want, sizeof want, "\"t\":\"%s\"", type);
    for (const char *line = tr; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        json_t *m = json_loadb(line, n, 0, NULL);
        int hit = 0;
        if (m && memmem(line, n, want, strlen(want))) {
            const char *st = json_string_value(json_object_get(json_object_get(m, "q"), "state"));
            if (!st) st = json_string_value(json_object_get(m, "state")); /* a tally's */
            hit = st && !strcmp(st, "voting") && json_object_get(m, key) != NULL;
        }
        json_decref(m);
        if (hit) return 1;
        line = eol ? eol + 1 : NULL;
    }
    return 0;
}

/* Issue 15: a connection that asks for the presenter's subprotocol and never
 * sends the secret gets what a screen gets: no live split while voting, no
 * questions[] list -- until auth_ok. */
static void test_presenter_without_auth_sees_what_a_screen_sees(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    json_t *st;
    struct wsc *lurker = hubroom_connect_state("fragvote-presenter", &st);
    REQUIRE(lurker);
    CHECK(json_object_get(st, "questions") == NULL);
    CHECK(json_object_get(st, "split") == NULL);
    json_decref(st);
    wsc_send_json(lurker, "{s:s}", "t", "hello"); /* a hello answers with the state too */
    struct wsc *p = hubroom_presenter();
    struct wsc *w = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(p && w);
    char err[256];
    REQUIRE(hubroom_do(p, "open") == 0);
    REQUIRE(hubroom_vote(w, 1, 0, 1, NULL) == 0);
    usleep(400000); /* a few tallies */
    json_t *x;
    while ((x = wsc_recv_type(lurker, "never", 300))) json_decref(x);
    const char *tr = wsc_transcript(lurker);
    CHECK_CONTAINS(tr, "\"voting\"");
    CHECK(!voting_message_with(tr, "tally", "yes"));
    CHECK(!voting_message_with(tr, "state", "split"));
    CHECK(!strstr(tr, "\"questions\""));
    /* the secret turns it into the presenter's view */
    REQUIRE(fvr_auth(lurker, SECRET, T_MS, err, sizeof err) == 0);
    st = wsc_recv_type(lurker, "state", T_MS);
    REQUIRE(st);
    CHECK(json_object_get(st, "questions") != NULL);
    CHECK(json_object_get(st, "split") != NULL);
    json_decref(st);
    json_t *t = wsc_recv_type(lurker, "tally", T_MS); /* the newest tally again, with the split */
    REQUIRE(t);
    CHECK_INT(json_integer_value(json_object_get(t, "yes")), 1);
    json_decref(t);
    wsc_close_all(lurker, w, p);
    hubroom_stop();
}

/* Waits for a tally on w that counts screens and presenters as given. */
static int tally_counts(struct wsc *w, int screens, int presenters) {
    json_t *t;
    while ((t = wsc_recv_type(w, "tally", T_MS))) {
        int ok = json_integer_value(json_object_get(t, "screens")) == screens &&
                 json_integer_value(json_object_get(t, "presenters")) == presenters;
        json_decref(t);
        if (ok) return 1;
    }
    fprintf(stderr, "no tally counted %d screens and %d presenters\n", screens, presenters);
    return 0;
}

/* The presenter's tally carries the screens and presenters connected (the
 * console line of a laptop that runs `fragvote present` is made from it);
 * no phone, screen or unauthed presenter is told. */
static void test_the_presenters_tally_counts_screens_and_presenters(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *p = hubroom_presenter();
    REQUIRE(p);
    struct wsc *s1 = hubroom_connect("fragvote-screen"), *s2 = hubroom_connect("fragvote-screen");
    struct wsc *lurker = hubroom_connect("fragvote-presenter");
    struct wsc *w = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(s1 && s2 && lurker && w);
    CHECK(tally_counts(p, 2, 2)); /* the lurker is a presenter connection too, as on serve's console */
    wsc_close(s2, 1000);
    CHECK(tally_counts(p, 1, 2));
    REQUIRE(hubroom_do(p, "open") == 0);
    REQUIRE(hubroom_vote(w, 1, 0, 1, NULL) == 0);
    usleep(300000);
    json_t *x;
    for (struct wsc **c = (struct wsc *[]){s1, lurker, w, NULL}; *c; c++) {
        while ((x = wsc_recv_type(*c, "never", 300))) json_decref(x);
        CHECK_CONTAINS(wsc_transcript(*c), "\"tally\"");
        CHECK(!strstr(wsc_transcript(*c), "\"screens\""));
        CHECK(!strstr(wsc_transcript(*c), "\"presenters\""));
    }
    wsc_close_all(s1, lurker, w, p);
    hubroom_stop();
}

/* Sends one raw message on w; returns the first ack or error that comes back
 * (caller json_decref's), NULL if none. */

int main(void) {
    RUN(test_truth_is_in_no_frame_before_reveal);
    RUN(test_each_reveal_shows_only_its_own_fact);
    RUN(test_a_why_as_a_message_reaches_the_reveal);
    RUN(test_presenter_actions_need_the_secret);
    RUN(test_presenter_without_auth_sees_what_a_screen_sees);
    RUN(test_the_presenters_tally_counts_screens_and_presenters);
    return check_summary();
}
