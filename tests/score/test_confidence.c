/* The confidence rule (score/confidence.c) with canned inputs: names,
 * the probability of each level, a question's split as votes change, the
 * share right per level, the Brier score worked out by hand, the reveal's
 * headline on both sides of its threshold and the re-vote's line. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "confidence.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

static void test_names_and_probabilities(void) {
    enum confidence c = CONFIDENCE_NONE;
    CHECK_INT(confidence_parse("sure", &c), 0);
    CHECK_INT(c, CONFIDENCE_SURE);
    CHECK_INT(confidence_parse("think_so", &c), 0);
    CHECK_INT(c, CONFIDENCE_THINK_SO);
    CHECK_INT(confidence_parse("guessing", &c), 0);
    CHECK_INT(c, CONFIDENCE_GUESSING);
    c = CONFIDENCE_SURE;
    CHECK_INT(confidence_parse("think so", &c), -1); /* the words are not the name */
    CHECK_INT(confidence_parse("Sure", &c), -1);
    CHECK_INT(confidence_parse("", &c), -1);
    CHECK_INT(confidence_parse(NULL, &c), -1);
    CHECK_INT(c, CONFIDENCE_SURE); /* untouched on refusal */
    CHECK(confidence_name(CONFIDENCE_NONE) == NULL);
    CHECK_STR(confidence_name(CONFIDENCE_THINK_SO), "think_so");
    CHECK_STR(confidence_words(CONFIDENCE_THINK_SO), "think so");
    CHECK_STR(confidence_words(CONFIDENCE_NONE), "no confidence");
    CHECK(confidence_prob(CONFIDENCE_SURE) == 0.9);
    CHECK(confidence_prob(CONFIDENCE_THINK_SO) == 0.7);
    CHECK(confidence_prob(CONFIDENCE_GUESSING) == 0.5);
    CHECK(confidence_prob(CONFIDENCE_NONE) < 0);
}

static void test_split_follows_changed_votes(void) {
    struct confidence_split s = {{0}, {0}};
    confidence_split_apply(&s, -1, CONFIDENCE_NONE, 1, CONFIDENCE_NONE);       /* yes, no confidence */
    confidence_split_apply(&s, 1, CONFIDENCE_NONE, 1, CONFIDENCE_SURE);        /* ... then "sure" */
    confidence_split_apply(&s, -1, CONFIDENCE_NONE, 0, CONFIDENCE_GUESSING);   /* another: no, guessing */
    confidence_split_apply(&s, 0, CONFIDENCE_GUESSING, 1, CONFIDENCE_GUESSING); /* changes to yes */
    CHECK_INT(s.yes[CONFIDENCE_NONE], 0);
    CHECK_INT(s.yes[CONFIDENCE_SURE], 1);
    CHECK_INT(s.yes[CONFIDENCE_GUESSING], 1);
    CHECK_INT(s.no[CONFIDENCE_GUESSING], 0);
    CHECK(confidence_split_any(&s));
    struct confidence_split none = {{0}, {0}};
    confidence_split_apply(&none, -1, CONFIDENCE_NONE, 0, CONFIDENCE_NONE);
    CHECK(!confidence_split_any(&none));
}

/* sure: 10 votes, 3 right; think so: 4, 3 right; guessing: 6, 3 right;
 * and 5 votes without a confidence, 5 right.
 * Brier = (3*0.1^2 + 7*0.9^2 + 3*0.3^2 + 1*0.7^2 + 6*0.5^2) / 20
 *       = (0.03 + 5.67 + 0.27 + 0.49 + 1.5) / 20 = 7.96 / 20 = 0.398 */
static void test_calibration_and_brier_by_hand(void) {
    struct confidence_split s = {{0}, {0}};
    s.yes[CONFIDENCE_SURE] = 3, s.no[CONFIDENCE_SURE] = 7;
    s.yes[CONFIDENCE_THINK_SO] = 3, s.no[CONFIDENCE_THINK_SO] = 1;
    s.yes[CONFIDENCE_GUESSING] = 3, s.no[CONFIDENCE_GUESSING] = 3;
    s.yes[CONFIDENCE_NONE] = 5;
    struct confidence_calib c = {{0}, {0}};
    CHECK(confidence_brier(&c) < 0); /* nothing yet */
    confidence_calib_add(&c, &s, SCORE_TRUTH_NONE); /* unknown truth: adds nothing */
    CHECK_INT(confidence_calib_votes(&c), 0);
    confidence_calib_add(&c, &s, SCORE_TRUTH_YES);
    CHECK_INT(confidence_calib_votes(&c), 20);
    CHECK_INT(c.votes[CONFIDENCE_NONE], 5);
    CHECK_INT(c.right[CONFIDENCE_SURE], 3);
    CHECK(NEAR(confidence_share_right(&c, CONFIDENCE_SURE), 0.3));
    CHECK(NEAR(confidence_share_right(&c, CONFIDENCE_THINK_SO), 0.75));
    CHECK(NEAR(confidence_share_right(&c, CONFIDENCE_GUESSING), 0.5));
    CHECK(NEAR(confidence_brier(&c), 0.398));
    /* the same votes under truth no: right and wrong swap */
    struct confidence_calib n = {{0}, {0}};
    confidence_calib_add(&n, &s, SCORE_TRUTH_NO);
    CHECK_INT(n.right[CONFIDENCE_SURE], 7);
    CHECK(NEAR(confidence_brier(&n), (7 * 0.01 + 3 * 0.81 + 1 * 0.09 + 3 * 0.49 + 6 * 0.25) / 20));
    /* everyone guessing scores 0.25 whatever happens */
    struct confidence_calib g = {{0}, {0}};
    g.votes[CONFIDENCE_GUESSING] = 9, g.right[CONFIDENCE_GUESSING] = 2;
    CHECK(NEAR(confidence_brier(&g), 0.25));
    CHECK(confidence_share_right(&g, CONFIDENCE_SURE) < 0);
}

/* The headline into buf; its message (docs/LANGUAGES.md "Texts worded in
 * C") says the same in English, and is empty exactly when the headline is. */
static void headline(int sure, int right, char *buf) {
    struct confidence_calib c = {{0}, {0}};
    c.votes[CONFIDENCE_SURE] = sure, c.right[CONFIDENCE_SURE] = right;
    confidence_headline(&c, buf, CONFIDENCE_LINE_MAX);
    struct fv_msg m;
    char en[CONFIDENCE_LINE_MAX];
    confidence_headline_msg(&c, &m);
    fv_msg_text(&m, en, sizeof en);
    CHECK_STR(en, buf);
    CHECK(!buf[0] || (!strncmp(m.key, "headline.", 9) && fv_msg_en(m.key)));
}

static void test_headline_when_it_bites(void) {
    char buf[CONFIDENCE_LINE_MAX];
    headline(10, 3, buf);
    CHECK_STR(buf, "7 in 10 of those who were sure were wrong");
    headline(20, 7, buf); /* 13 of 20: 6.5 tenths, rounded */
    CHECK_STR(buf, "7 in 10 of those who were sure were wrong");
    headline(20, 1, buf); /* 19 of 20 rounds to 10, but one was right */
    CHECK_STR(buf, "9 in 10 of those who were sure were wrong");
    headline(6, 2, buf);
    CHECK_STR(buf, "4 of the 6 who were sure were wrong");
    headline(12, 0, buf);
    CHECK_STR(buf, "All 12 who were sure were wrong");
    headline(10, 5, buf); /* exactly half wrong: the threshold */
    CHECK_STR(buf, "5 in 10 of those who were sure were wrong");
    headline(10, 6, buf); /* fewer than half wrong */
    CHECK_STR(buf, "");
    headline(CONFIDENCE_HEADLINE_MIN_SURE - 1, 0, buf); /* too few sure votes */
    CHECK_STR(buf, "");
}

static void test_shift_line(void) {
    struct confidence_split a = {{0}, {0}}, b = {{0}, {0}};
    char buf[CONFIDENCE_LINE_MAX];
    confidence_shift_line(&a, &b, buf, sizeof buf);
    CHECK_STR(buf, "");
    a.yes[CONFIDENCE_SURE] = 2, a.no[CONFIDENCE_SURE] = 10, a.no[CONFIDENCE_GUESSING] = 15, a.yes[CONFIDENCE_NONE] = 4;
    b.yes[CONFIDENCE_SURE] = 20, b.yes[CONFIDENCE_THINK_SO] = 8, b.no[CONFIDENCE_GUESSING] = 6;
    confidence_shift_line(&a, &b, buf, sizeof buf);
    CHECK_STR(buf, "confidence after discussion: sure 12 \xe2\x86\x92 20 \xc2\xb7 think so 0 \xe2\x86\x92 8 \xc2\xb7 "
                   "guessing 15 \xe2\x86\x92 6");
}

int main(void) {
    RUN(test_names_and_probabilities);
    RUN(test_split_follows_changed_votes);
    RUN(test_calibration_and_brier_by_hand);
    RUN(test_headline_when_it_bites);
    RUN(test_shift_line);
    return check_summary();
}
