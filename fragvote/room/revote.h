/* The re-vote's shift (peer instruction: vote, discuss with your neighbour,
 * vote again): how the share of right votes moved from the first round to
 * the final one, in the words the reveal, the console, replay and the
 * exports use. Pure: no I/O. */
#ifndef FRAGVOTE_REVOTE_H
#define FRAGVOTE_REVOTE_H

#include <stddef.h>

#include "score.h"

#define REVOTE_SHIFT_MAX 96

/* The share of right votes is score_right_share() (score.h). */

/* "first round 45 % right → after discussion 72 %" (whole percents; "no
 * votes" for a round without any); "" when the truth is not yes or no. */
void revote_shift_line(int first_yes, int first_no, int yes, int no, enum score_truth truth, char *buf, size_t len);

#endif
