/* A vote's confidence and the room's calibration (issue 37, item 5:
 * "confidently wrong, measured"; docs/SCORING.md "Confidence"), written
 * once: the levels and their names, the probability each level stands
 * for, a question's votes split by level, the share right per level, the
 * Brier score, the reveal's headline ("7 in 10 of those who were sure were
 * wrong") and the re-vote's line of how confidence moved. Pure: libc only,
 * like score.h, so the store's reports, the live room, the hub and the
 * exports compute the same numbers. */
#ifndef FRAGVOTE_CONFIDENCE_H
#define FRAGVOTE_CONFIDENCE_H

#include <stddef.h>

#include "fv_msg.h"
#include "score.h"

/* NONE: the vote carries no confidence (never asked for: the extra tap is
 * optional, and clients older than it send none). */
enum confidence { CONFIDENCE_NONE, CONFIDENCE_SURE, CONFIDENCE_THINK_SO, CONFIDENCE_GUESSING };
#define CONFIDENCE_LEVELS 4 /* the enum's values, NONE included: arrays indexed by enum confidence */

/* The wire's and the store's name: "sure" "think_so" "guessing"; NULL for NONE. */
const char *confidence_name(enum confidence c);
/* The words the pages and exports show: "sure" "think so" "guessing"; "no confidence" for NONE. */
const char *confidence_words(enum confidence c);
/* A name as confidence_name spells it into *out: 0, or -1 (anything else; NULL or "" too). */
int confidence_parse(const char *name, enum confidence *out);
/* The probability of being right a level stands for, the forecast the Brier
 * score reads: sure 0.9, think so 0.7, guessing 0.5; -1 for NONE. */
double confidence_prob(enum confidence c);

/* One round's votes on a question split by confidence: yes[c] and no[c]
 * votes with confidence c (CONFIDENCE_NONE: those without). The sums over
 * c are the round's yes and no. */
struct confidence_split {
    int yes[CONFIDENCE_LEVELS], no[CONFIDENCE_LEVELS];
};
/* A committed vote replaced the voter's previous one: old_answer -1 none,
 * 0 no, 1 yes, with old_conf; answer 0/1 with conf. */
void confidence_split_apply(struct confidence_split *s, int old_answer, enum confidence old_conf, int answer,
                            enum confidence conf);
/* Whether any vote of s carries a confidence. */
int confidence_split_any(const struct confidence_split *s);

/* Calibration: per level, the votes with a yes/no truth and how many of
 * them were right (CONFIDENCE_NONE: the scored votes without a confidence,
 * which no Brier term reads). */
struct confidence_calib {
    int votes[CONFIDENCE_LEVELS], right[CONFIDENCE_LEVELS];
};
/* Adds a question's split under its truth (SCORE_TRUTH_NONE: adds nothing). */
void confidence_calib_add(struct confidence_calib *c, const struct confidence_split *s, enum score_truth truth);
/* Votes with a confidence (NONE left out). */
int confidence_calib_votes(const struct confidence_calib *c);
/* right / votes at a level, or -1 without votes there. */
double confidence_share_right(const struct confidence_calib *c, enum confidence level);
/* The Brier score of the votes with a confidence: the mean of (p - o)^2,
 * p the level's confidence_prob, o 1 right / 0 wrong. 0 is perfect, 0.25
 * what "guessing" on every vote scores whatever happens; lower is better.
 * -1 when no vote carries a confidence. */
double confidence_brier(const struct confidence_calib *c);

/* The reveal's headline "when it bites": at least
 * CONFIDENCE_HEADLINE_MIN_SURE votes were "sure" and at least
 * CONFIDENCE_HEADLINE_WRONG of them were wrong. "7 in 10 of those who were
 * sure were wrong" (wrong share in tenths, rounded) with 10 or more sure
 * votes, "4 of the 6 who were sure were wrong" with fewer, "All 12 who were
 * sure were wrong"; "" when it does not bite. */
#define CONFIDENCE_HEADLINE_MIN_SURE 5
#define CONFIDENCE_HEADLINE_WRONG 0.5
#define CONFIDENCE_LINE_MAX 128
void confidence_headline(const struct confidence_calib *c, char *buf, size_t len);
/* The same as a message (msg/fv_msg.h: headline.all_wrong, headline.tenths,
 * headline.of), whose English is the headline; key "" when it does not bite. */
void confidence_headline_msg(const struct confidence_calib *c, struct fv_msg *m);

/* A re-vote's "confidence after discussion: sure 12 → 20 · think so 10 → 8
 * · guessing 15 → 6" (votes at each level, first round → final); "" when
 * neither round has a vote with a confidence. */
void confidence_shift_line(const struct confidence_split *first, const struct confidence_split *final, char *buf,
                           size_t len);

#endif
