/* A room's confidence split and calibration as JSON (see calibration.h). */
#include "calibration.h"

#include "msg_json.h"

void calibration_of_quiz(const struct quiz *q, struct confidence_calib *out) {
    *out = (struct confidence_calib){{0}, {0}};
    for (int pos = 0; pos < quiz_count(q); pos++) {
        struct quiz_truth t;
        struct quiz_qinfo i;
        if (quiz_truth(q, pos, &t) || quiz_get(q, pos, &i)) continue; /* not revealed */
        confidence_calib_add(out, &i.conf, quiz_score_truth(&t));
    }
}

static json_t *num_or_null(double v) { return v >= 0 ? json_real(v) : json_null(); }

json_t *calibration_split_json(const struct confidence_split *s, enum score_truth truth) {
    struct confidence_calib c = {{0}, {0}};
    confidence_calib_add(&c, s, truth);
    int known = truth == SCORE_TRUTH_YES || truth == SCORE_TRUTH_NO;
    json_t *levels = json_array();
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS; l++) {
        int votes = s->yes[l] + s->no[l];
        json_array_append_new(levels, json_pack("{s:s, s:i, s:i, s:i, s:o, s:o}", "level",
                                                confidence_name((enum confidence)l), "yes", s->yes[l], "no", s->no[l],
                                                "votes", votes, "right", known ? json_integer(c.right[l]) : json_null(),
                                                "share_right",
                                                num_or_null(confidence_share_right(&c, (enum confidence)l))));
    }
    return json_pack("{s:o, s:{s:i, s:i}}", "levels", levels, "none", "yes", s->yes[CONFIDENCE_NONE], "no",
                     s->no[CONFIDENCE_NONE]);
}

json_t *calibration_reveal_json(const struct confidence_split *final, const struct confidence_split *first,
                                enum score_truth truth) {
    if (!confidence_split_any(final) && !(first && confidence_split_any(first))) return NULL;
    json_t *o = calibration_split_json(final, truth);
    if (!o) return NULL;
    struct confidence_calib c = {{0}, {0}};
    confidence_calib_add(&c, final, truth);
    char line[CONFIDENCE_LINE_MAX];
    struct fv_msg head;
    confidence_headline_msg(&c, &head);
    fv_msg_text(&head, line, sizeof line);
    if (line[0]) json_object_set_new(o, "headline", json_string(line));
    if (line[0]) json_object_set_new(o, "headline_msg", msg_json(&head));
    if (first) {
        json_object_set_new(o, "first_round", calibration_split_json(first, truth));
        confidence_shift_line(first, final, line, sizeof line);
        if (line[0]) json_object_set_new(o, "moved", json_string(line));
    }
    return o;
}

json_t *calibration_json(const struct confidence_calib *c) {
    if (confidence_calib_votes(c) <= 0) return NULL;
    json_t *levels = json_array();
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS; l++)
        json_array_append_new(levels, json_pack("{s:s, s:f, s:i, s:i, s:o}", "level",
                                                confidence_name((enum confidence)l), "p",
                                                confidence_prob((enum confidence)l), "votes", c->votes[l], "right",
                                                c->right[l], "share_right",
                                                num_or_null(confidence_share_right(c, (enum confidence)l))));
    return json_pack("{s:o, s:i, s:f, s:i}", "levels", levels, "votes", confidence_calib_votes(c), "brier",
                     confidence_brier(c), "without", c->votes[CONFIDENCE_NONE]);
}
