/* The quiz state machine, driven by calls (no sockets, no database). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_path.h"
#include "check_probe.h"
#include "deck_fixture.h"
#include "path_json.h"
#include "finale.h"
#include "quiz.h"

/* Two tests: 0 asks sent+df+fragmented, 1 asks sent+fragmented; 2 asks nothing. */
static void make_deck(struct deck *d) {
    deck_fixture(d, "test deck");
    deck_fixture_test(d, PROBE_UDP4, PROBE_MODE_DO, 1400, DECK_FIXTURE_ALL);
    deck_fixture_test(d, PROBE_TCP6, PROBE_MODE_WANT, 3000, DECK_FIXTURE_SENT | DECK_FIXTURE_FRAG);
    deck_fixture_test(d, PROBE_UDP6, PROBE_MODE_DONT, 500, 0);
}

static struct probe_result result(int sent, int df, int frag, const char *evidence) {
    struct probe_result r = check_probe_result(sent, df, frag, evidence);
    r.egress.observer[0] = '\0';
    r.sent.basis = r.df.basis = r.fragmented.basis = PROBE_BASIS_OBSERVED;
    snprintf(r.sent.why, sizeof r.sent.why, "why-sent");
    snprintf(r.df.why, sizeof r.df.why, "why-df");
    snprintf(r.fragmented.why, sizeof r.fragmented.why, "why-fragmented");
    return r;
}

static struct deck deck;
static char err[256]; /* the last refusal's reason */

/* A new quiz on the test deck. */
static struct quiz *fresh(void) { return quiz_new(&deck, err, sizeof err); }

#define NEXT(q) CHECK_INT(quiz_next(q, err, sizeof err), 0)

static void test_questions_follow_deck_order_and_ask_lists(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    CHECK_INT(quiz_count(q), 5);
    struct quiz_qinfo i;
    int want_test[] = {0, 0, 0, 1, 1};
    enum qkind want_kind[] = {QKIND_SENT, QKIND_DF, QKIND_FRAGMENTED, QKIND_SENT, QKIND_FRAGMENTED};
    for (int p = 0; p < 5; p++) {
        REQUIRE(quiz_get(q, p, &i) == 0);
        CHECK_INT(i.position, p);
        CHECK_INT(i.test_index, want_test[p]);
        CHECK_INT(i.kind, want_kind[p]);
        CHECK_INT(i.state, QUIZ_PENDING);
        CHECK(i.text[0] != 0);
        CHECK(i.summary[0] != 0);
    }
    CHECK(quiz_get(q, 5, &i) == -1);
    CHECK(quiz_get(q, -1, &i) == -1);
    CHECK_INT(quiz_cursor(q), 0);
    quiz_free(q);
}

static void test_deck_without_questions_is_refused(void) {
    struct deck d = deck;
    for (int t = 0; t < d.ntests; t++) memset(d.tests[t].ask, 0, sizeof d.tests[t].ask);
    err[0] = 0;
    CHECK(quiz_new(&d, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "no question");
}

static void test_full_walk_of_one_question(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct quiz_qinfo i;
    CHECK_INT(quiz_open(q, err, sizeof err), 0);
    quiz_get(q, 0, &i);
    CHECK_INT(i.state, QUIZ_VOTING);
    CHECK_INT(quiz_close(q, err, sizeof err), 0);
    quiz_get(q, 0, &i);
    CHECK_INT(i.state, QUIZ_CLOSED);
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), QUIZ_MEASURE_PROBE);
    quiz_get(q, 0, &i);
    CHECK_INT(i.measuring, 1);
    struct probe_result r = result(1, 1, 0, "observed on the wire");
    CHECK_INT(quiz_measured(q, 0, &r, err, sizeof err), 0);
    quiz_get(q, 0, &i);
    CHECK_INT(i.state, QUIZ_MEASURED);
    CHECK_INT(i.measuring, 0);
    CHECK_INT(quiz_reveal(q, err, sizeof err), 0);
    quiz_get(q, 0, &i);
    CHECK_INT(i.state, QUIZ_REVEALED);
    struct quiz_truth t;
    REQUIRE(quiz_truth(q, 0, &t) == 0);
    CHECK_INT(t.answer, PROBE_ANS_YES);
    CHECK_STR(t.evidence, ""); /* df and fragmented of that test are still to come */
    CHECK_STR(t.why, "why-sent");
    NEXT(q);
    CHECK_INT(quiz_cursor(q), 1);
    quiz_free(q);
}

static void test_truth_is_hidden_until_reveal(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct quiz_truth t;
    CHECK(quiz_truth(q, 0, &t) == -1);
    quiz_open(q, err, sizeof err);
    CHECK(quiz_truth(q, 0, &t) == -1);
    quiz_close(q, err, sizeof err);
    CHECK(quiz_truth(q, 0, &t) == -1);
    quiz_measure(q, 0, err, sizeof err);
    struct probe_result r = result(1, 0, 1, "secret evidence");
    quiz_measured(q, 0, &r, err, sizeof err);
    CHECK(quiz_truth(q, 0, &t) == -1); /* measured, not revealed */
    /* Nothing public carries it either. */
    struct quiz_qinfo i;
    quiz_get(q, 0, &i);
    CHECK(!memmem(&i, sizeof i, "secret evidence", 15));
    quiz_reveal(q, err, sizeof err);
    CHECK(quiz_truth(q, 0, &t) == 0);
    CHECK(quiz_truth(q, 1, &t) == -1);
    quiz_free(q);
}

/* Walks the current question to revealed (the test measured already, or r). */
static void reveal_current(struct quiz *q, const struct probe_result *r) {
    quiz_open(q, err, sizeof err);
    quiz_close(q, err, sizeof err);
    if (quiz_measure(q, 0, err, sizeof err) == QUIZ_MEASURE_PROBE) quiz_measured(q, quiz_cursor(q), r, err, sizeof err);
    CHECK_INT(quiz_reveal(q, err, sizeof err), 0);
}

/* Issue 15: one probe result answers the three questions of a test; the
 * reveal of one may not answer the others. */
static void test_a_reveal_shows_its_own_fact_and_the_evidence_last(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 0, 1, "kernel fragmented locally: 1400 > device MTU 1280");
    struct quiz_truth t;
    static const char *const why[3] = {"why-sent", "why-df", "why-fragmented"};
    for (int pos = 0; pos < 3; pos++) {
        if (pos) NEXT(q);
        reveal_current(q, &r);
        REQUIRE(quiz_truth(q, pos, &t) == 0);
        CHECK_STR(t.why, why[pos]);
        CHECK_STR(t.evidence, pos < 2 ? "" : "kernel fragmented locally: 1400 > device MTU 1280");
    }
    /* once the test is done, every question of it may show the evidence */
    REQUIRE(quiz_truth(q, 0, &t) == 0);
    CHECK_STR(t.evidence, "kernel fragmented locally: 1400 > device MTU 1280");
    quiz_free(q);
}

/* A result with a path: r1 drops the DF=1 1400-byte packet with Frag Needed
 * (an ICMP, a quote, an MTU learned from it, text lines), built by the real
 * builder on the lab's plan. */
static struct probe_result result_with_path(void) {
    struct probe_result r = result(1, 1, 0, "r1 dropped it with Frag Needed, MTU 1280");
    check_path_dropped_at_r1(&r);
    return r;
}

/* The reveal's path, as JSON, or NULL when quiz_path gives none. */
static json_t *path_of(struct quiz *q, int pos) {
    struct probe_path p;
    if (quiz_path(q, pos, &p)) return NULL;
    return path_json_from(&p);
}

/* Issue 20: the path picture follows the same rule as the truth: each
 * reveal draws only its own fact, the whole picture once the test is done. */
static void test_a_reveals_path_shows_only_its_own_fact(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result_with_path();
    REQUIRE(r.path.v == 1 && r.path.nevents == 1);
    CHECK(path_of(q, 0) == NULL); /* nothing before the reveal */
    static const char *const view[3] = {"sent", "df", "full"};
    for (int pos = 0; pos < 3; pos++) {
        if (pos) NEXT(q);
        if (pos < 2) CHECK(path_of(q, pos) == NULL);
        reveal_current(q, &r);
        json_t *p = path_of(q, pos);
        REQUIRE(p);
        CHECK_STR(json_string_value(json_object_get(p, "view")), view[pos]);
        unsigned open = 0;
        for (int later = pos + 1; later < 3; later++) open |= 1u << later;
        const char *leak = check_path_leak(p, open);
        CHECK(leak == NULL);
        if (leak) fprintf(stderr, "question %d's path shows %s\n", pos, leak);
        CHECK_INT(json_array_size(json_object_get(p, "nodes")), 4);
        json_t *sent = json_object_get(p, "sent");
        CHECK(json_is_true(json_object_get(sent, "left")));
        if (pos >= 1) CHECK(json_is_true(json_object_get(sent, "df")));
        if (pos == 2) {
            json_t *e = json_array_get(json_object_get(p, "events"), 0);
            CHECK_STR(json_string_value(json_object_get(e, "icmp")), "frag_needed");
            CHECK_INT(json_integer_value(json_object_get(e, "mtu")), 1280);
        }
        json_decref(p);
    }
    /* the leak check itself fails on a full picture while DF? is open */
    json_t *full = path_of(q, 0);
    CHECK(check_path_leak(full, 1u << QKIND_DF) != NULL);
    CHECK(check_path_leak(full, 1u << QKIND_FRAGMENTED) != NULL);
    json_decref(full);
    quiz_free(q);
}

/* fragmented? revealed while sent? and DF? are still pending: nodes and
 * links only. Then sent? and DF?: the whole picture. */
static void test_out_of_order_reveal_draws_only_the_topology(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result_with_path();
    NEXT(q);
    NEXT(q);
    reveal_current(q, &r);
    json_t *p = path_of(q, 2);
    REQUIRE(p);
    CHECK_STR(json_string_value(json_object_get(p, "view")), "topology");
    CHECK(check_path_leak(p, 1u << QKIND_SENT | 1u << QKIND_DF) == NULL);
    CHECK(check_path_leak(p, 1u << QKIND_FRAGMENTED) == NULL); /* not even its own fact */
    CHECK_INT(json_array_size(json_object_get(p, "events")), 0);
    json_decref(p);
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    reveal_current(q, &r);
    p = path_of(q, 0);
    CHECK_STR(json_string_value(json_object_get(p, "view")), "sent");
    CHECK(check_path_leak(p, 1u << QKIND_DF) == NULL);
    json_decref(p);
    NEXT(q);
    reveal_current(q, &r);
    p = path_of(q, 1);
    CHECK_STR(json_string_value(json_object_get(p, "view")), "full");
    json_decref(p);
    /* a measurement without a path (an old row): no picture */
    struct quiz *q2 = quiz_new(&deck, err, sizeof err);
    struct probe_result old = result(1, 1, 0, "old");
    reveal_current(q2, &old);
    CHECK(path_of(q2, 0) == NULL);
    quiz_free(q2);
    quiz_free(q);
}

static void test_skipping_the_rest_of_a_test_completes_it(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 1, 0, "went whole");
    reveal_current(q, &r);
    struct quiz_truth t;
    NEXT(q);
    CHECK_INT(quiz_skip(q, err, sizeof err), 0); /* df */
    REQUIRE(quiz_truth(q, 0, &t) == 0);
    CHECK_STR(t.evidence, ""); /* fragmented? is still to come */
    CHECK_INT(quiz_skip(q, err, sizeof err), 0); /* fragmented */
    REQUIRE(quiz_truth(q, 0, &t) == 0);
    CHECK_STR(t.evidence, "went whole");
    /* not sent: the rest is skipped by the reveal itself, so it shows everything */
    struct probe_result no = result(0, 0, 0, "send() failed with EMSGSIZE");
    reveal_current(q, &no);
    REQUIRE(quiz_truth(q, 3, &t) == 0);
    CHECK_STR(t.evidence, "send() failed with EMSGSIZE");
    quiz_free(q);
}

/* next past a pending question, reveal a later one, then back: the later
 * fact's why may speak about the earlier fact, so it stays out too. */
static void test_out_of_order_reveal_hides_the_why_of_later_facts(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 1, 0, "r1 dropped it with Frag Needed, MTU 1280");
    NEXT(q); /* past sent, pending */
    NEXT(q); /* past df, pending */
    reveal_current(q, &r);                       /* fragmented */
    struct quiz_truth t;
    REQUIRE(quiz_truth(q, 2, &t) == 0);
    CHECK_INT(t.answer, PROBE_ANS_NO);
    CHECK_STR(t.why, "");
    CHECK_STR(t.evidence, "");
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    reveal_current(q, &r); /* sent */
    REQUIRE(quiz_truth(q, 2, &t) == 0);
    CHECK_STR(t.why, ""); /* df is still open */
    NEXT(q);
    reveal_current(q, &r); /* df */
    REQUIRE(quiz_truth(q, 2, &t) == 0);
    CHECK_STR(t.why, "why-fragmented");
    CHECK_STR(t.evidence, "r1 dropped it with Frag Needed, MTU 1280");
    quiz_free(q);
}

/* Issue 37: each reveal explains its own fact by the rules (probe_predict
 * on the result's lab path), without a step that tells a sibling still
 * open; a measurement that differs from the rules leads with a surprise. */
static void test_a_reveal_explains_its_fact_by_the_rules(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result_with_path(); /* udp4 DO 1400, TTL 2; r1's next link is 1280 */
    struct quiz_truth t;
    reveal_current(q, &r); /* sent */
    REQUIRE(quiz_truth(q, 0, &t) == 0);
    CHECK_CONTAINS(t.explain, "IP_PMTUDISC_DO refuses a datagram larger than the route's MTU: 1400 <= 1500");
    CHECK(!strstr(t.explain, "DF"));
    CHECK_STR(t.surprise, "");
    NEXT(q);
    reveal_current(q, &r); /* df */
    REQUIRE(quiz_truth(q, 1, &t) == 0);
    CHECK_CONTAINS(t.explain, "IP_PMTUDISC_DO always sets DF");
    NEXT(q);
    reveal_current(q, &r); /* fragmented */
    REQUIRE(quiz_truth(q, 2, &t) == 0);
    CHECK_CONTAINS(t.explain, "with DF=1 no router may fragment it");
    CHECK_STR(t.surprise, "");
    quiz_free(q);

    /* fragmented revealed first: nothing of DF or sent in its chain */
    q = quiz_new(&deck, err, sizeof err);
    REQUIRE(q);
    NEXT(q);
    NEXT(q);
    reveal_current(q, &r);
    REQUIRE(quiz_truth(q, 2, &t) == 0);
    CHECK(!strstr(t.explain, "DF") && !strstr(t.explain, "whole") && !strstr(t.explain, "refuse"));
    CHECK_CONTAINS(t.explain, "the route's MTU is the device's 1500");
    quiz_free(q);

    /* a measurement against the rules */
    q = quiz_new(&deck, err, sizeof err);
    REQUIRE(q);
    r.fragmented.answer = PROBE_ANS_YES;
    for (int pos = 0; pos < 3; pos++) {
        if (pos) NEXT(q);
        reveal_current(q, &r);
    }
    REQUIRE(quiz_truth(q, 2, &t) == 0);
    CHECK_STR(t.surprise, "Surprise: the rules said no \xe2\x80\x94 why-fragmented");
    quiz_free(q);
}

static void test_invalid_transitions_are_refused_with_a_reason(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    err[0] = 0;
    CHECK_INT(quiz_close(q, err, sizeof err), -1);
    CHECK_CONTAINS(err, "pending");
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), -1);
    CHECK_INT(quiz_reveal(q, err, sizeof err), -1);
    CHECK_INT(quiz_back(q, err, sizeof err), -1);
    CHECK_CONTAINS(err, "first question");
    quiz_open(q, err, sizeof err);
    CHECK_INT(quiz_open(q, err, sizeof err), -1);
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), -1);
    CHECK_CONTAINS(err, "close voting first");
    CHECK_INT(quiz_next(q, err, sizeof err), -1);
    CHECK_INT(quiz_reveal(q, err, sizeof err), -1);
    quiz_close(q, err, sizeof err);
    CHECK_INT(quiz_reveal(q, err, sizeof err), -1);
    CHECK_CONTAINS(err, "measure first");
    CHECK_INT(quiz_next(q, err, sizeof err), -1);
    struct probe_result r = result(1, 1, 0, "e");
    /* A result nobody asked for is refused. */
    CHECK_INT(quiz_measured(q, 0, &r, err, sizeof err), -1);
    CHECK_INT(quiz_measured(q, 99, &r, err, sizeof err), -1);
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), QUIZ_MEASURE_PROBE);
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), -1);
    CHECK_CONTAINS(err, "being measured");
    CHECK_INT(quiz_measured(q, 0, &r, err, sizeof err), 0);
    CHECK_INT(quiz_open(q, err, sizeof err), -1);
    quiz_reveal(q, err, sizeof err);
    CHECK_INT(quiz_reveal(q, err, sizeof err), -1);
    CHECK_INT(quiz_skip(q, err, sizeof err), -1);
    CHECK_CONTAINS(err, "use next");
    quiz_free(q);
}

static void test_not_sent_skips_the_rest_of_its_test(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(0, -1, -1, "EMSGSIZE");
    reveal_current(q, &r);
    struct quiz_qinfo i;
    quiz_get(q, 1, &i);
    CHECK_INT(i.state, QUIZ_SKIPPED);
    quiz_get(q, 2, &i);
    CHECK_INT(i.state, QUIZ_SKIPPED);
    quiz_get(q, 3, &i); /* other test untouched */
    CHECK_INT(i.state, QUIZ_PENDING);
    NEXT(q);
    CHECK_INT(quiz_cursor(q), 3);
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    CHECK_INT(quiz_cursor(q), 0); /* back also jumps over skipped ones */
    quiz_free(q);
}

static void test_sent_yes_keeps_the_rest_and_a_rerun_replaces_the_truth(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 0, 1, "fragmented by host");
    reveal_current(q, &r);
    quiz_next(q, err, sizeof err);
    CHECK_INT(quiz_cursor(q), 1);
    quiz_open(q, err, sizeof err);
    quiz_close(q, err, sizeof err);
    /* Same test: the room gives it the test's result it holds (test_room,
     * test_prober); the quiz takes it like any other. */
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), QUIZ_MEASURE_PROBE);
    CHECK_INT(quiz_measured(q, 1, &r, err, sizeof err), 0);
    quiz_reveal(q, err, sizeof err);
    struct quiz_truth t;
    REQUIRE(quiz_truth(q, 1, &t) == 0);
    CHECK_INT(t.answer, PROBE_ANS_NO); /* df of that result */
    /* Re-run measures again and replaces the truth, state stays revealed. */
    CHECK_INT(quiz_measure(q, 1, err, sizeof err), QUIZ_MEASURE_PROBE);
    struct probe_result r2 = result(1, 1, 0, "second run");
    CHECK_INT(quiz_measured(q, 1, &r2, err, sizeof err), 0);
    REQUIRE(quiz_truth(q, 1, &t) == 0);
    CHECK_INT(t.answer, PROBE_ANS_YES);
    CHECK_STR(t.evidence, ""); /* fragmented? is still to come */
    CHECK_STR(t.why, "why-df");
    quiz_free(q);
}

/* (Whether a vote may count is the room's rule: tests/fragvote/room/test_room.c.) */
static void test_votes_change_the_counts(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    quiz_open(q, err, sizeof err);
    quiz_vote_apply(q, 0, -1, CONFIDENCE_NONE, 1, CONFIDENCE_NONE);
    quiz_vote_apply(q, 0, -1, CONFIDENCE_NONE, 0, CONFIDENCE_NONE);
    quiz_vote_apply(q, 0, 1, CONFIDENCE_NONE, 0, CONFIDENCE_NONE); /* first voter changes yes -> no */
    struct quiz_qinfo i;
    quiz_get(q, 0, &i);
    CHECK_INT(i.yes, 0);
    CHECK_INT(i.no, 2);
    quiz_free(q);
}

static void test_skip_next_and_end(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    /* next from a pending question leaves it pending */
    NEXT(q);
    CHECK_INT(quiz_cursor(q), 1);
    quiz_open(q, err, sizeof err);
    CHECK_INT(quiz_skip(q, err, sizeof err), 0); /* skipping a voting question */
    struct quiz_qinfo i;
    quiz_get(q, 1, &i);
    CHECK_INT(i.state, QUIZ_SKIPPED);
    CHECK_INT(quiz_cursor(q), 2);
    quiz_skip(q, err, sizeof err);
    quiz_skip(q, err, sizeof err);
    CHECK_INT(quiz_cursor(q), 4);
    CHECK_INT(quiz_ended(q), 0);
    CHECK_INT(quiz_skip(q, err, sizeof err), 0);
    CHECK_INT(quiz_ended(q), 1);
    CHECK_INT(quiz_open(q, err, sizeof err), -1);
    CHECK_CONTAINS(err, "ended");
    CHECK_INT(quiz_next(q, err, sizeof err), -1);
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    CHECK_INT(quiz_ended(q), 0);
    CHECK_INT(quiz_back(q, err, sizeof err), 0);
    CHECK_INT(quiz_cursor(q), 0); /* over the skipped 3..1 */
    quiz_free(q);
}

/* Issue 37, item 6: the talk ends where the speaker is: everything not
 * revealed is skipped (the question voting now too), the quiz ends. */
static void test_end_skips_what_is_left(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 1, 0, "went whole");
    reveal_current(q, &r); /* question 1 revealed */
    NEXT(q);
    NEXT(q); /* question 2 left pending behind */
    CHECK_INT(quiz_open(q, err, sizeof err), 0); /* question 3 voting */
    CHECK_INT(quiz_end(q, err, sizeof err), 0);
    CHECK_INT(quiz_ended(q), 1);
    struct quiz_qinfo i;
    quiz_get(q, 0, &i);
    CHECK_INT(i.state, QUIZ_REVEALED);
    for (int pos = 1; pos < quiz_count(q); pos++) {
        quiz_get(q, pos, &i);
        CHECK_INT(i.state, QUIZ_SKIPPED);
    }
    CHECK_INT(quiz_end(q, err, sizeof err), -1);
    CHECK_CONTAINS(err, "ended");
    quiz_free(q);
}

/* Plays the current question: votes (1 yes, 0 no), close, the result r,
 * a re-vote round first when revote_votes is not NULL, reveal. */
static void play_votes(struct quiz *q, const int *votes, int n, const int *revote_votes, const struct probe_result *r) {
    int pos = quiz_cursor(q);
    quiz_open(q, err, sizeof err);
    for (int i = 0; i < n; i++) quiz_vote_apply(q, pos, -1, CONFIDENCE_NONE, votes[i], CONFIDENCE_NONE);
    quiz_close(q, err, sizeof err);
    if (revote_votes) {
        REQUIRE(quiz_revote(q, err, sizeof err) == 0);
        for (int i = 0; i < n; i++) quiz_vote_apply(q, pos, -1, CONFIDENCE_NONE, revote_votes[i], CONFIDENCE_NONE);
        quiz_close(q, err, sizeof err);
    }
    if (quiz_measure(q, 0, err, sizeof err) == QUIZ_MEASURE_PROBE) quiz_measured(q, pos, r, err, sizeof err);
    REQUIRE(quiz_reveal(q, err, sizeof err) == 0);
}

/* Issue 37, item 6: the finale lists the questions the room missed most,
 * most missed first, each with its lesson, and the biggest re-vote shift. */
/* Issue 37, item 6: the answer without a vote: a pending question closes
 * with no votes, is measured and revealed, and scores nothing. */
static void test_answer_without_a_vote(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 1, 0, "went whole");
    CHECK_INT(quiz_answer_unvoted(q, err, sizeof err), 0);
    struct quiz_qinfo i;
    quiz_get(q, 0, &i);
    CHECK_INT(i.state, QUIZ_CLOSED);
    CHECK_INT(i.yes + i.no, 0);
    CHECK_INT(quiz_measure(q, 0, err, sizeof err), QUIZ_MEASURE_PROBE);
    CHECK_INT(quiz_measured(q, 0, &r, err, sizeof err), 0);
    CHECK_INT(quiz_reveal(q, err, sizeof err), 0);
    struct quiz_truth t;
    CHECK_INT(quiz_truth(q, 0, &t), 0);
    CHECK_INT(t.answer, PROBE_ANS_YES);
    int scored = -1;
    CHECK(quiz_collective(q, &scored) < 0);
    CHECK_INT(scored, 0); /* no votes: nothing scored */
    NEXT(q);
    CHECK_INT(quiz_open(q, err, sizeof err), 0);
    CHECK_INT(quiz_answer_unvoted(q, err, sizeof err), -1); /* voting: the room is answering */
    CHECK_CONTAINS(err, "before voting opens");
    quiz_free(q);
}

static void test_finale_missed_and_shift(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    struct probe_result r = result(1, 1, 0, "went whole"); /* sent yes, DF yes, fragmented no */
    static const int yes3[] = {1, 1, 1}, no3[] = {0, 0, 0}, mostly_no[] = {0, 0, 1}, mostly_yes[] = {1, 1, 0};
    play_votes(q, no3, 3, NULL, &r);             /* Q1 sent? (yes): all wrong */
    quiz_next(q, err, sizeof err);
    play_votes(q, mostly_no, 3, yes3, &r);       /* Q2 DF? (yes): 1/3 right, then 3/3 after discussion */
    quiz_next(q, err, sizeof err);
    play_votes(q, mostly_yes, 3, NULL, &r);      /* Q3 fragmented? (no): 2/3 wrong */
    struct finale_missed m[FINALE_MISSED];
    CHECK_INT(finale_missed(q, m), 2);           /* Q2's final round was right */
    CHECK_INT(m[0].pos, 0);
    CHECK(m[0].wrong > 0.99);
    CHECK_INT(m[0].votes, 3);
    CHECK_CONTAINS(m[0].text, "is it sent?");
    struct quiz_truth t;
    REQUIRE(quiz_truth(q, 0, &t) == 0);
    CHECK_STR(m[0].lesson, t.explain_key);
    CHECK_INT(m[1].pos, 2);
    CHECK(m[1].wrong > 0.66 && m[1].wrong < 0.67);
    struct finale_shift s;
    finale_shift(q, &s);
    CHECK_INT(s.pos, 1);
    CHECK(s.before > 0.33 && s.before < 0.34 && s.after > 0.99);
    quiz_free(q);
}

static void test_collective_score(void) {
    struct quiz *q = fresh();
    REQUIRE(q);
    int scored = -7;
    CHECK(quiz_collective(q, &scored) < 0);
    CHECK_INT(scored, 0);
    /* q0: majority yes, truth yes -> 1 */
    quiz_open(q, err, sizeof err);
    quiz_vote_apply(q, 0, -1, CONFIDENCE_NONE, 1, CONFIDENCE_NONE);
    quiz_vote_apply(q, 0, -1, CONFIDENCE_NONE, 1, CONFIDENCE_NONE);
    quiz_vote_apply(q, 0, -1, CONFIDENCE_NONE, 0, CONFIDENCE_NONE);
    quiz_close(q, err, sizeof err);
    quiz_measure(q, 0, err, sizeof err);
    struct probe_result r = result(1, 1, 1, "e");
    quiz_measured(q, 0, &r, err, sizeof err);
    CHECK(quiz_collective(q, &scored) < 0); /* not revealed yet: not scored */
    quiz_reveal(q, err, sizeof err);
    quiz_next(q, err, sizeof err);
    /* q1: tie -> 0.5 */
    quiz_open(q, err, sizeof err);
    quiz_vote_apply(q, 1, -1, CONFIDENCE_NONE, 1, CONFIDENCE_NONE);
    quiz_vote_apply(q, 1, -1, CONFIDENCE_NONE, 0, CONFIDENCE_NONE);
    quiz_close(q, err, sizeof err);
    quiz_measure(q, 0, err, sizeof err);
    quiz_measured(q, 1, &r, err, sizeof err); /* the test's result again (the room holds it) */
    quiz_reveal(q, err, sizeof err);
    quiz_next(q, err, sizeof err);
    /* q2: majority no, truth yes -> 0 */
    quiz_open(q, err, sizeof err);
    quiz_vote_apply(q, 2, -1, CONFIDENCE_NONE, 0, CONFIDENCE_NONE);
    quiz_close(q, err, sizeof err);
    quiz_measure(q, 0, err, sizeof err);
    quiz_measured(q, 2, &r, err, sizeof err);
    quiz_reveal(q, err, sizeof err);
    double c = quiz_collective(q, &scored);
    CHECK_INT(scored, 3);
    CHECK(c > 0.49 && c < 0.51);
    quiz_free(q);
}

static void test_state_names_round_trip(void) {
    CHECK_NAMES_ROUND_TRIP(enum quiz_state, QUIZ_PENDING, QUIZ_SKIPPED, quiz_state_name, quiz_state_parse);
    enum quiz_state x;
    CHECK_INT(quiz_state_parse("open", &x), -1);
    CHECK_INT(quiz_state_parse(NULL, &x), -1);
}

int main(void) {
    make_deck(&deck);
    RUN(test_questions_follow_deck_order_and_ask_lists);
    RUN(test_deck_without_questions_is_refused);
    RUN(test_full_walk_of_one_question);
    RUN(test_truth_is_hidden_until_reveal);
    RUN(test_a_reveal_shows_its_own_fact_and_the_evidence_last);
    RUN(test_a_reveals_path_shows_only_its_own_fact);
    RUN(test_out_of_order_reveal_draws_only_the_topology);
    RUN(test_skipping_the_rest_of_a_test_completes_it);
    RUN(test_out_of_order_reveal_hides_the_why_of_later_facts);
    RUN(test_a_reveal_explains_its_fact_by_the_rules);
    RUN(test_invalid_transitions_are_refused_with_a_reason);
    RUN(test_not_sent_skips_the_rest_of_its_test);
    RUN(test_sent_yes_keeps_the_rest_and_a_rerun_replaces_the_truth);
    RUN(test_votes_change_the_counts);
    RUN(test_skip_next_and_end);
    RUN(test_end_skips_what_is_left);
    RUN(test_answer_without_a_vote);
    RUN(test_finale_missed_and_shift);
    RUN(test_collective_score);
    RUN(test_state_names_round_trip);
    return check_summary();
}
