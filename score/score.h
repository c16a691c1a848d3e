/* The scoring rule (docs/SCORING.md), written once: majority, correct, tie
 * and unscored for a question, the collective score of a session, whether
 * one vote is right. Pure: no I/O, no SQLite, no libwebsockets, so the store's
 * reports (db/), the live room, the hub's messages and the console all call
 * the same code. The SQL views in db/schema.sql are the durable twin of this
 * rule; tests/score/test_score_views checks they agree on generated sessions. */
#ifndef FRAGVOTE_SCORE_H
#define FRAGVOTE_SCORE_H

/* A question's truth as scoring sees it: yes, no, or none (never measured
 * or measured "unknown": such a question is unscored). */
enum score_truth { SCORE_TRUTH_NONE = -1, SCORE_TRUTH_NO = 0, SCORE_TRUTH_YES = 1 };
/* "yes" -> YES, "no" -> NO, anything else (NULL, "", "unknown") -> NONE. */
enum score_truth score_truth_parse(const char *name);

enum score_majority { SCORE_MAJ_NONE, SCORE_MAJ_YES, SCORE_MAJ_NO, SCORE_MAJ_TIE };
enum score_majority score_majority(int yes, int no);
/* "yes" / "no" / "tie", or "" without votes (the store's and the wire's spelling). */
const char *score_majority_name(enum score_majority m);

/* 1 when the majority equals the truth, 0 when it does not, 0.5 for a tie;
 * -1 unscored (no votes, or no yes/no truth). */
double score_correct(int yes, int no, enum score_truth truth);
/* The votes equal to the truth, or -1 without a yes/no truth. */
int score_correct_votes(int yes, int no, enum score_truth truth);
/* The share of votes equal to the truth, or -1 (no votes or no yes/no truth). */
double score_right_share(int yes, int no, enum score_truth truth);
/* One vote (1 yes, 0 no): 1 right, 0 wrong, -1 unscored (no vote or no truth). */
int score_vote(int answer, enum score_truth truth);

/* A session's collective score, summed one question at a time. */
struct score_sum {
    int scored;      /* questions with a correct >= 0 */
    double sum;      /* of their correct */
    int votes_scored;  /* votes on questions with a yes/no truth */
    int votes_correct; /* of those, equal to the truth */
};
void score_sum_add(struct score_sum *s, int yes, int no, enum score_truth truth);
/* The mean of correct over the scored questions, or -1 when none is. */
double score_collective(const struct score_sum *s);
/* votes_correct / votes_scored, or -1 when no vote is scored. */
double score_vote_accuracy(const struct score_sum *s);

#endif
