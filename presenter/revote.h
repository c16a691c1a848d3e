/* The re-vote's shift (peer instruction: vote, discuss with your neighbour,
 * vote again): how the share of right votes moved from the first round to
 * the final one, in the words the reveal, the console, replay and the
 * exports use. Pure: no I/O. */
#ifndef FRAGVOTE_REVOTE_H
#define FRAGVOTE_REVOTE_H

#include <stddef.h>

#define REVOTE_SHIFT_MAX 96

/* Share of right votes: votes equal to the truth / votes, or -1 when there
 * are no votes or no yes/no truth (truth_yes: 1 yes, 0 no, -1 unknown). */
double revote_right_share(int yes, int no, int truth_yes);

/* 1 for "yes", 0 for "no", -1 for anything else (a stored truth). */
int revote_truth_yes(const char *truth);

/* "first round 45 % right → after discussion 72 %" (whole percents; "no
 * votes" for a round without any); "" when the truth is not yes or no. */
void revote_shift_line(int first_yes, int first_no, int yes, int no, int truth_yes, char *buf, size_t len);

#endif
