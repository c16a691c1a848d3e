/* The re-vote's shift line (see revote.h). */
#include "revote.h"

#include <stdio.h>
#include <string.h>

int revote_truth_yes(const char *truth) {
    return !truth ? -1 : !strcmp(truth, "yes") ? 1 : !strcmp(truth, "no") ? 0 : -1;
}

double revote_right_share(int yes, int no, int truth_yes) {
    if (yes + no <= 0 || (truth_yes != 0 && truth_yes != 1)) return -1;
    return (double)(truth_yes ? yes : no) / (yes + no);
}

static void pct(char *buf, size_t len, double share) {
    if (share < 0) snprintf(buf, len, "no votes");
    else snprintf(buf, len, "%.0f %%", share * 100);
}

void revote_shift_line(int first_yes, int first_no, int yes, int no, int truth_yes, char *buf, size_t len) {
    if (!len) return;
    buf[0] = '\0';
    if (truth_yes != 0 && truth_yes != 1) return;
    char a[16], b[16];
    pct(a, sizeof a, revote_right_share(first_yes, first_no, truth_yes));
    pct(b, sizeof b, revote_right_share(yes, no, truth_yes));
    snprintf(buf, len, "first round %s%s \xe2\x86\x92 after discussion %s", a,
             first_yes + first_no > 0 ? " right" : "", b);
}
