/* A vote's confidence and the room's calibration (see confidence.h). */
#include "confidence.h"

#include <stdio.h>
#include <string.h>

static const char *const names[CONFIDENCE_LEVELS] = {NULL, "sure", "think_so", "guessing"};
static const char *const words[CONFIDENCE_LEVELS] = {"no confidence", "sure", "think so", "guessing"};
static const double probs[CONFIDENCE_LEVELS] = {-1, 0.9, 0.7, 0.5};

static int level_ok(enum confidence c) { return (int)c >= 0 && (int)c < CONFIDENCE_LEVELS; }

const char *confidence_name(enum confidence c) { return level_ok(c) ? names[c] : NULL; }
const char *confidence_words(enum confidence c) { return level_ok(c) ? words[c] : words[0]; }
double confidence_prob(enum confidence c) { return level_ok(c) ? probs[c] : -1; }

int confidence_parse(const char *name, enum confidence *out) {
    for (int c = CONFIDENCE_SURE; name && c < CONFIDENCE_LEVELS; c++)
        if (!strcmp(name, names[c])) {
            *out = (enum confidence)c;
            return 0;
        }
    return -1;
}

void confidence_split_apply(struct confidence_split *s, int old_answer, enum confidence old_conf, int answer,
                            enum confidence conf) {
    if (!level_ok(old_conf)) old_conf = CONFIDENCE_NONE;
    if (!level_ok(conf)) conf = CONFIDENCE_NONE;
    if (old_answer == 1) s->yes[old_conf]--;
    if (old_answer == 0) s->no[old_conf]--;
    if (answer) s->yes[conf]++;
    else s->no[conf]++;
}

int confidence_split_any(const struct confidence_split *s) {
    for (int c = CONFIDENCE_SURE; c < CONFIDENCE_LEVELS; c++)
        if (s->yes[c] + s->no[c] > 0) return 1;
    return 0;
}

void confidence_calib_add(struct confidence_calib *c, const struct confidence_split *s, enum score_truth truth) {
    if (truth != SCORE_TRUTH_YES && truth != SCORE_TRUTH_NO) return;
    for (int l = 0; l < CONFIDENCE_LEVELS; l++) {
        c->votes[l] += s->yes[l] + s->no[l];
        c->right[l] += truth == SCORE_TRUTH_YES ? s->yes[l] : s->no[l];
    }
}

int confidence_calib_votes(const struct confidence_calib *c) {
    int n = 0;
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS; l++) n += c->votes[l];
    return n;
}

double confidence_share_right(const struct confidence_calib *c, enum confidence level) {
    if (!level_ok(level) || c->votes[level] <= 0) return -1;
    return (double)c->right[level] / c->votes[level];
}

double confidence_brier(const struct confidence_calib *c) {
    int n = confidence_calib_votes(c);
    if (n <= 0) return -1;
    double sum = 0;
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS; l++) {
        double p = probs[l];
        sum += c->right[l] * (1 - p) * (1 - p) + (c->votes[l] - c->right[l]) * p * p;
    }
    return sum / n;
}

void confidence_headline_msg(const struct confidence_calib *c, struct fv_msg *m) {
    memset(m, 0, sizeof *m);
    int sure = c->votes[CONFIDENCE_SURE], wrong = sure - c->right[CONFIDENCE_SURE];
    if (sure < CONFIDENCE_HEADLINE_MIN_SURE || wrong < CONFIDENCE_HEADLINE_WRONG * sure) return;
    if (wrong == sure) fv_msg_set(m, "headline.all_wrong", "n=%d", sure);
    else if (sure >= 10) {
        int tenths = (wrong * 20 + sure) / (2 * sure); /* rounded; 9 at most while one of them was right */
        fv_msg_set(m, "headline.tenths", "n=%d", tenths > 9 ? 9 : tenths);
    } else
        fv_msg_set(m, "headline.of", "wrong=%d sure=%d", wrong, sure);
}

void confidence_headline(const struct confidence_calib *c, char *buf, size_t len) {
    struct fv_msg m;
    confidence_headline_msg(c, &m);
    fv_msg_text(&m, buf, len);
}

void confidence_shift_line(const struct confidence_split *first, const struct confidence_split *final, char *buf,
                           size_t len) {
    if (!len) return;
    buf[0] = '\0';
    if (!confidence_split_any(first) && !confidence_split_any(final)) return;
    size_t at = (size_t)snprintf(buf, len, "confidence after discussion:");
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS && at < len; l++)
        at += (size_t)snprintf(buf + at, len - at, "%s %s %d \xe2\x86\x92 %d", l == CONFIDENCE_SURE ? "" : " \xc2\xb7",
                               words[l], first->yes[l] + first->no[l], final->yes[l] + final->no[l]);
}
