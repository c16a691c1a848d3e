/* The end of the talk should pay off (issue 37, item 6): beside the room's
 * score, the questions the room missed most, each with its lesson (the
 * rules' conclusion, quiz_truth's explain_key), and the biggest shift a
 * re-vote made after discussion. Pure: reads the quiz. */
#ifndef FRAGVOTE_FINALE_H
#define FRAGVOTE_FINALE_H

#include "quiz.h"

#define FINALE_MISSED 3 /* most-missed questions shown */

struct finale_missed {
    int pos;
    double wrong;                       /* share of the votes that were wrong: above 0.5 */
    int votes;
    char text[QUIZ_TEXT_MAX];           /* the question as the room read it */
    char lesson[PROBE_PREDICT_STEP_MAX]; /* the rules' conclusion, "" when the rules cannot say */
    struct fv_msg lesson_msg;           /* the same as a message (fv_msg.h), key "" with no lesson */
};

struct finale_shift {
    int pos;                            /* -1: no re-vote moved the room */
    double before, after;               /* share right, first round and final */
};

/* The revealed questions most of whose votes were wrong (the majority
 * missed), most missed first (ties: the earlier question), at most
 * FINALE_MISSED; returns how many. Questions without a yes/no truth or
 * without votes are left out. */
int finale_missed(const struct quiz *q, struct finale_missed out[FINALE_MISSED]);
/* The revealed re-voted question whose share of right votes moved most
 * (either way; ties: the earlier). */
void finale_shift(const struct quiz *q, struct finale_shift *out);

#endif
