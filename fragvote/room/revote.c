/* The re-vote's shift line (see revote.h). */
#include "revote.h"

#include <stdio.h>

static void pct(char *buf, size_t len, double share) {
    if (share < 0) snprintf(buf, len, "no votes");
    else snprintf(buf, len, "%.0f %%", share * 100);
}

void revote_shift_line(int first_yes, int first_no, int yes, int no, enum score_truth truth, char *buf, size_t len) {
    if (!len) return;
    buf[0] = '\0';
    if (truth == SCORE_TRUTH_NONE) return;
    char a[16], b[16];
    pct(a, sizeof a, score_right_share(first_yes, first_no, truth));
    pct(b, sizeof b, score_right_share(yes, no, truth));
    snprintf(buf, len, "first round %s%s \xe2\x86\x92 after discussion %s", a,
             first_yes + first_no > 0 ? " right" : "", b);
}
