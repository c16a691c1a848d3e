/* The final screen's lessons (finale.h). */
#include "finale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "score.h"

/* Question pos's truth as scoring sees it, NONE unless revealed. */
static enum score_truth truth_of(const struct quiz *q, int pos, struct quiz_truth *t) {
    return quiz_truth(q, pos, t) ? SCORE_TRUTH_NONE : quiz_score_truth(t);
}

int finale_missed(const struct quiz *q, struct finale_missed out[FINALE_MISSED]) {
    int n = 0;
    for (int pos = 0; pos < quiz_count(q); pos++) {
        struct quiz_qinfo i;
        struct quiz_truth t;
        quiz_get(q, pos, &i);
        enum score_truth truth = truth_of(q, pos, &t);
        double right = score_right_share(i.yes, i.no, truth);
        if (right < 0 || right >= 0.5) continue; /* unscored, or the majority was not wrong */
        struct finale_missed m = {.pos = pos, .wrong = 1.0 - right, .votes = i.yes + i.no};
        snprintf(m.text, sizeof m.text, "%s", i.text);
        snprintf(m.lesson, sizeof m.lesson, "%s", t.explain_key);
        if (t.nexplain) m.lesson_msg = t.explain_msg[t.nexplain - 1];
        int at = n < FINALE_MISSED ? n : FINALE_MISSED; /* insertion, most missed first, earlier first on ties */
        while (at > 0 && out[at - 1].wrong < m.wrong) {
            if (at < FINALE_MISSED) out[at] = out[at - 1];
            at--;
        }
        if (at < FINALE_MISSED) {
            out[at] = m;
            if (n < FINALE_MISSED) n++;
        }
    }
    return n;
}

void finale_shift(const struct quiz *q, struct finale_shift *out) {
    *out = (struct finale_shift){.pos = -1};
    double best = 0;
    for (int pos = 0; pos < quiz_count(q); pos++) {
        struct quiz_qinfo i;
        struct quiz_truth t;
        quiz_get(q, pos, &i);
        if (i.round != 2) continue;
        enum score_truth truth = truth_of(q, pos, &t);
        double before = score_right_share(i.first_yes, i.first_no, truth), after = score_right_share(i.yes, i.no, truth);
        if (before < 0 || after < 0 || fabs(after - before) <= best) continue;
        best = fabs(after - before);
        *out = (struct finale_shift){.pos = pos, .before = before, .after = after};
    }
}
