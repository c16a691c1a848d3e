/* The scoring rule (see score.h). */
#include "score.h"

#include <stddef.h>
#include <string.h>

enum score_truth score_truth_parse(const char *name) {
    if (!name) return SCORE_TRUTH_NONE;
    if (!strcmp(name, "yes")) return SCORE_TRUTH_YES;
    if (!strcmp(name, "no")) return SCORE_TRUTH_NO;
    return SCORE_TRUTH_NONE;
}

enum score_majority score_majority(int yes, int no) {
    if (yes + no <= 0) return SCORE_MAJ_NONE;
    return yes > no ? SCORE_MAJ_YES : no > yes ? SCORE_MAJ_NO : SCORE_MAJ_TIE;
}

const char *score_majority_name(enum score_majority m) {
    switch (m) {
    case SCORE_MAJ_YES: return "yes";
    case SCORE_MAJ_NO: return "no";
    case SCORE_MAJ_TIE: return "tie";
    case SCORE_MAJ_NONE: break;
    }
    return "";
}

static int truth_known(enum score_truth t) { return t == SCORE_TRUTH_YES || t == SCORE_TRUTH_NO; }

double score_correct(int yes, int no, enum score_truth truth) {
    enum score_majority m = score_majority(yes, no);
    if (m == SCORE_MAJ_NONE || !truth_known(truth)) return -1;
    if (m == SCORE_MAJ_TIE) return 0.5;
    return (m == SCORE_MAJ_YES) == (truth == SCORE_TRUTH_YES) ? 1 : 0;
}

int score_correct_votes(int yes, int no, enum score_truth truth) {
    if (!truth_known(truth)) return -1;
    return truth == SCORE_TRUTH_YES ? yes : no;
}

double score_right_share(int yes, int no, enum score_truth truth) {
    if (yes + no <= 0 || !truth_known(truth)) return -1;
    return (double)score_correct_votes(yes, no, truth) / (yes + no);
}

int score_vote(int answer, enum score_truth truth) {
    if ((answer != 0 && answer != 1) || !truth_known(truth)) return -1;
    return (answer == 1) == (truth == SCORE_TRUTH_YES);
}

void score_sum_add(struct score_sum *s, int yes, int no, enum score_truth truth) {
    double c = score_correct(yes, no, truth);
    if (c >= 0) {
        s->scored++;
        s->sum += c;
    }
    if (truth_known(truth)) {
        s->votes_scored += yes + no;
        s->votes_correct += score_correct_votes(yes, no, truth);
    }
}

double score_collective(const struct score_sum *s) { return s->scored ? s->sum / s->scored : -1; }

double score_vote_accuracy(const struct score_sum *s) {
    return s->votes_scored ? (double)s->votes_correct / s->votes_scored : -1;
}
