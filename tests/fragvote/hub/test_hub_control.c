/* The quiz driven on the live hub (hubroom.h): the console's commands
 * through hub_post, the voting timer closing a question by itself, and the
 * largest deck in the messages. */
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

static void test_console_commands_through_hub_post(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct hub_cmd c = {.kind = HUB_CMD_OPEN};
    REQUIRE(hub_post(hubroom.fx.hub, &c) == 0);
    CHECK(hubroom_wait_state(QUIZ_VOTING) == 0);
    c.kind = HUB_CMD_REVEAL; /* refused: must close and measure first */
    hub_post(hubroom.fx.hub, &c);
    struct hub_status st;
    WAIT_STATUS(st, st.refused_total >= 1);
    CHECK_INT(st.current.state, QUIZ_VOTING);
    CHECK(st.refused_total >= 1);
    CHECK_CONTAINS(st.last_error, "reveal");
    c.kind = HUB_CMD_CLOSE;
    hub_post(hubroom.fx.hub, &c);
    c.kind = HUB_CMD_MEASURE;
    hub_post(hubroom.fx.hub, &c);
    REQUIRE(hubroom_answer(hubroom_result(0, -1, -1)) == 0); /* not sent */
    CHECK(hubroom_wait_state(QUIZ_MEASURED) == 0);
    c.kind = HUB_CMD_REVEAL;
    hub_post(hubroom.fx.hub, &c);
    CHECK(hubroom_wait_state(QUIZ_REVEALED) == 0);
    c.kind = HUB_CMD_NEXT;
    hub_post(hubroom.fx.hub, &c);
    WAIT_STATUS(st, st.cursor == 3);
    CHECK_INT(st.cursor, 3); /* df and fragmented of that test were skipped */
    c.kind = HUB_CMD_QUIT;
    hub_post(hubroom.fx.hub, &c);
    hubfix_join(&hubroom.fx); /* QUIT ends hub_run */
    hub_free(hubroom.fx.hub);
    hubroom.fx.hub = NULL;
    hubroom_stop();
}

static void test_voting_timer_closes_the_question_by_itself(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *w = hubroom_phone(NULL, NULL, NULL);
    struct wsc *p = hubroom_presenter();
    REQUIRE(w && p);
    wsc_send_json(p, "{s:s, s:s, s:i}", "t", "cmd", "cmd", "open", "seconds", 4000);
    json_t *e = wsc_recv_type(p, "error", T_MS);
    REQUIRE(e); /* longer than HUB_COUNTDOWN_MAX_S */
    json_decref(e);
    wsc_send_json(p, "{s:s, s:s, s:i}", "t", "cmd", "cmd", "open", "seconds", 1);
    json_t *ok = wsc_recv_type(p, "cmd_ok", T_MS);
    REQUIRE(ok);
    json_decref(ok);
    /* the phones learn the time left */
    json_t *st = fvr_state_with(w, "closes_in_ms", 10, T_MS);
    REQUIRE(st);
    long long left = json_integer_value(json_object_get(st, "closes_in_ms"));
    CHECK(left > 0 && left <= 1000);
    json_decref(st);
    REQUIRE(hubroom_vote(w, 1, 0, 1, NULL) == 0);
    CHECK(hubroom_wait_state(QUIZ_CLOSED) == 0); /* nobody pressed close */
    json_t *r = NULL;
    CHECK_INT(hubroom_vote(w, 2, 0, 0, &r), 1);
    json_decref(r);
    /* a timer does not outlive its question: open the next one by hand, no timer */
    struct hub_cmd c = {.kind = HUB_CMD_OPEN, .seconds = 1};
    REQUIRE(hubroom_do(p, "measure") == 0);
    REQUIRE(hubroom_answer(hubroom_result(1, 1, 0)) == 0);
    REQUIRE(hubroom_wait_state(QUIZ_MEASURED) == 0);
    REQUIRE(hubroom_do(p, "reveal") == 0);
    REQUIRE(hubroom_do(p, "next") == 0);
    REQUIRE(hub_post(hubroom.fx.hub, &c) == 0); /* the console's way, with a timer */
    CHECK(hubroom_wait_state(QUIZ_VOTING) == 0);
    CHECK(hubroom_wait_state(QUIZ_CLOSED) == 0);
    wsc_close_all(w, p);
    hubroom_stop();
}

static void test_the_largest_deck_fits_in_the_messages(void) {
    REQUIRE(hubroom_start_with(&hubroom_opts.big_deck, 1) == 0);
    json_t *st;
    struct wsc *w = hubroom_connect_state("fragvote-screen", &st);
    REQUIRE(w);
    CHECK_INT(json_integer_value(json_object_get(st, "n")), QUIZ_QUESTIONS_MAX);
    /* phones and screens get the list of questions only once the quiz has
     * ended: the state goes to every phone on every change */
    CHECK(json_object_get(st, "questions") == NULL);
    json_decref(st);
    struct wsc *pr = hubroom_presenter();
    REQUIRE(pr);
    st = wsc_recv_type(pr, "state", T_MS);
    REQUIRE(st);
    CHECK_INT(json_array_size(json_object_get(st, "questions")), QUIZ_QUESTIONS_MAX);
    json_decref(st);
    wsc_close(pr, 1000);
    json_t *wel = NULL;
    struct wsc *p = hubroom_phone(NULL, NULL, &wel);
    REQUIRE(p);
    CHECK_INT(json_array_size(json_object_get(wel, "votes")), QUIZ_QUESTIONS_MAX);
    json_decref(wel);
    wsc_close_all(w, p);
    hubroom_stop();
}

int main(void) {
    RUN(test_console_commands_through_hub_post);
    RUN(test_voting_timer_closes_the_question_by_itself);
    RUN(test_the_largest_deck_fits_in_the_messages);
    return check_summary();
}
