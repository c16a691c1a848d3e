/* A room's confidence split and calibration as JSON (issue 37, item 5;
 * docs/PROTOCOL.md "reveal.confidence" and "calibration", docs/EXPORT.md):
 * one writer for the live room's messages (hub/hub_msg.c) and the exports
 * (export/), over the pure rule of score/confidence.h. What may be shown
 * is the caller's to decide: a question's split only once it is revealed,
 * the room's calibration only from revealed questions. */
#ifndef FRAGVOTE_CALIBRATION_H
#define FRAGVOTE_CALIBRATION_H

#include <jansson.h>

#include "confidence.h"
#include "quiz.h"

/* The room's calibration over every revealed question's final round under
 * its truth (questions without a yes/no truth add nothing). */
void calibration_of_quiz(const struct quiz *q, struct confidence_calib *out);

/* One round's split by confidence under truth: {"levels":[{"level":"sure",
 * "yes":3,"no":7,"votes":10,"right":3,"share_right":0.3}, ... one per level],
 * "none":{"yes":Y,"no":N}} (right and share_right null without a yes/no
 * truth, share_right null without votes at the level). */
json_t *calibration_split_json(const struct confidence_split *s, enum score_truth truth);

/* What a revealed question's reveal (and its row in the JSON export)
 * carries: its final round's split, the headline when it bites
 * (confidence_headline) and, after a re-vote (first: the first round's
 * split; NULL for a question of one round), "first_round" and how
 * confidence moved, "moved" (confidence_shift_line); NULL when no vote of
 * either round carries a confidence. */
json_t *calibration_reveal_json(const struct confidence_split *final, const struct confidence_split *first,
                                enum score_truth truth);

/* The calibration: {"levels":[{"level":"sure","p":0.9,"votes":40,"right":25,
 * "share_right":0.625}, ...],"votes":N,"brier":0.21,"without":M} (votes: with a
 * confidence; without: scored votes without one); NULL when no scored vote
 * carries a confidence. */
json_t *calibration_json(const struct confidence_calib *c);

#endif
