/* The room's one rule of what each viewer may see (room_view), over every
 * viewer x question state x serve option: nothing reaches a phone, the
 * projector or a presenter page before its secret earlier than it may. And
 * of a question that is not the current one (room_view_at: a screen that
 * follows it, /screen/?q=N): its split once its votes are in, its text
 * unless it is pending after the current question. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "hubfix.h"
#include "deck_fixture.h"
#include "check_probe.h"
#include "db.h"
#include "room_view.h"

static struct deck deck;

static const char *viewer_name[] = {"phone", "screen", "guest", "presenter"};

/* The states one question goes through, then the end of the quiz. */
enum step { S_PENDING, S_VOTING, S_CLOSED, S_MEASURED, S_REVEALED, S_ENDED, S_STEPS };
static const char *step_name[] = {"pending", "voting", "closed", "measured", "revealed", "ended"};

static void check_views(struct room *r, enum step s) {
    for (int ls = 0; ls < 2; ls++)
        for (int lb = 0; lb < 2; lb++)
            for (int w = 0; w < ROOM_VIEWERS; w++) {
                struct room_view_opts o = {.live_split = ls, .leaderboard = lb};
                struct room_view v;
                memset(&v, 0x55, sizeof v);
                room_view(r, (enum room_viewer)w, &o, &v);
                int presenter = w == ROOM_VIEWER_PRESENTER;
                /* the split while voting: the presenter, or everyone with --live-split; once the
                 * votes are in (closed and after), everyone */
                int split = presenter || ls || s == S_CLOSED || s == S_MEASURED || s == S_REVEALED;
                if (s == S_ENDED) split = presenter || ls; /* past the end: no question is current */
                char what[128];
                snprintf(what, sizeof what, "%s %s live_split=%d leaderboard=%d", viewer_name[w], step_name[s], ls, lb);
                if (v.split != split) fprintf(stderr, "split %d for %s\n", v.split, what);
                CHECK_INT(v.split, split);
                if (v.notes != presenter) fprintf(stderr, "notes %d for %s\n", v.notes, what);
                CHECK_INT(v.notes, presenter); /* speaker notes: never on the projector or a phone */
                CHECK_INT(v.questions, presenter || s == S_ENDED); /* the list only at the end */
                CHECK_INT(v.league, presenter || s == S_ENDED);
                CHECK_INT(v.nicknames, lb);
                CHECK_INT(v.hub_counts, presenter); /* screens and presenters connected: the presenter's tally */
                CHECK_INT(v.leaderboard, lb && s == S_ENDED); /* the top list: the final screen only */
            }
}

static void test_what_each_viewer_may_see_in_each_state(void) {
    char err[256];
    struct db *db;
    struct room *r = hubfix_room(check_tmp_path("view.db"), &deck, NULL, &db);
    REQUIRE(r);
    struct quiz *q = room_quiz(r);
    struct quiz_truth t;
    check_views(r, S_PENDING);
    CHECK_INT(quiz_truth(q, 0, &t), -1);
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) == 0);
    check_views(r, S_VOTING);
    CHECK_INT(quiz_truth(q, 0, &t), -1);
    REQUIRE(room_act(r, ROOM_CLOSE, err, sizeof err) == 0);
    check_views(r, S_CLOSED);
    CHECK_INT(quiz_truth(q, 0, &t), -1);
    REQUIRE(room_act(r, ROOM_MEASURE, err, sizeof err) == QUIZ_MEASURE_PROBE);
    struct probe_result res = check_probe_result(1, 1, 0, "the evidence line");
    REQUIRE(room_measured(r, 0, &res, err, sizeof err) == 0);
    check_views(r, S_MEASURED);
    CHECK_INT(quiz_truth(q, 0, &t), -1); /* measured: the truth is held, for no one yet */
    REQUIRE(room_act(r, ROOM_REVEAL, err, sizeof err) == 0);
    check_views(r, S_REVEALED);
    CHECK_INT(quiz_truth(q, 0, &t), 0);
    CHECK_INT(quiz_truth(q, 1, &t), -1); /* the same test's other question: not revealed */
    REQUIRE(room_act(r, ROOM_NEXT, err, sizeof err) == 0);
    while (!quiz_ended(q)) REQUIRE(room_act(r, ROOM_SKIP, err, sizeof err) == 0);
    check_views(r, S_ENDED);
    room_free(r);
    db_close(db);
}

/* Question 2 (position 1) seen while the room is on question 1. */
static void check_other(struct room *r, int text_reached, const char *what) {
    struct room_view_opts o = {0}, live = {.live_split = 1};
    struct room_view v;
    for (int w = 0; w < ROOM_VIEWERS; w++) {
        int presenter = w == ROOM_VIEWER_PRESENTER;
        room_view_at(r, (enum room_viewer)w, &o, 1, &v);
        if (v.text != (presenter || text_reached)) fprintf(stderr, "text %d for %s %s\n", v.text, viewer_name[w], what);
        CHECK_INT(v.text, presenter || text_reached);
        CHECK_INT(v.split, presenter); /* pending: no votes to show */
        room_view_at(r, (enum room_viewer)w, &live, 1, &v);
        CHECK_INT(v.split, 1);
    }
}

static void test_a_question_followed_out_of_turn(void) {
    char err[256];
    struct db *db;
    struct room *r = hubfix_room(check_tmp_path("view-at.db"), &deck, NULL, &db);
    REQUIRE(r);
    struct room_view_opts o = {0};
    struct room_view v;
    check_other(r, 0, "before the room reached it");
    room_view_at(r, ROOM_VIEWER_SCREEN, &o, 0, &v); /* the current one: as room_view says */
    CHECK_INT(v.text, 1);
    CHECK_INT(v.split, 0);
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_CLOSE, err, sizeof err) == 0);
    check_other(r, 0, "with question 1 closed");
    REQUIRE(room_act(r, ROOM_MEASURE, err, sizeof err) == QUIZ_MEASURE_PROBE);
    struct probe_result res = check_probe_result(1, 1, 0, "the evidence line");
    REQUIRE(room_measured(r, 0, &res, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_REVEAL, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_NEXT, err, sizeof err) == 0); /* the room on question 2 */
    for (int w = 0; w < ROOM_VIEWERS; w++) {
        room_view_at(r, (enum room_viewer)w, &o, 0, &v);
        CHECK_INT(v.split, 1); /* question 1's votes are in */
        CHECK_INT(v.text, 1);
    }
    REQUIRE(room_act(r, ROOM_SKIP, err, sizeof err) == 0);
    REQUIRE(quiz_ended(room_quiz(r)));
    for (int w = 0; w < ROOM_VIEWERS; w++) {
        room_view_at(r, (enum room_viewer)w, &o, 1, &v);
        CHECK_INT(v.text, 1); /* the end: nothing is ahead any more */
    }
    room_view_at(r, ROOM_VIEWER_SCREEN, &o, 7, &v); /* not in the deck: nothing */
    CHECK_INT(v.text, 0);
    CHECK_INT(v.split, 0);
    room_free(r);
    db_close(db);
}

int main(void) {
    deck_fixture_one(&deck, "view deck", DECK_FIXTURE_SENT | DECK_FIXTURE_DF);
    snprintf(deck.tests[0].notes, sizeof deck.tests[0].notes, "speaker notes");
    RUN(test_what_each_viewer_may_see_in_each_state);
    RUN(test_a_question_followed_out_of_turn);
    return check_summary_and_clean();
}
