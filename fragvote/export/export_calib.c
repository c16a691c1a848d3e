/* The room's calibration in the exports (see export_calib.h). */
#include "export_calib.h"

#include "calibration.h"
#include "export.h"
#include "export_text.h"

static int has_calib(const struct db_report_session *s) { return confidence_calib_votes(&s->calib) > 0; }

void export_calib_csv_session(FILE *out, const struct db_report_session *s) {
    char num[40] = "";
    if (has_calib(s)) export_fmt_double(num, sizeof num, confidence_brier(&s->calib));
    fprintf(out, ",,,,,,%s", num);
}

void export_calib_csv_empty(FILE *out) {
    for (int i = 0; i < EXPORT_CALIB_CSV_COLUMNS; i++) fputc(',', out);
}

void export_calib_csv_rows(FILE *out, const struct db_report_session *s, int before) {
    if (!has_calib(s)) return;
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS; l++) {
        char p[40], share[40] = "";
        export_fmt_double(p, sizeof p, confidence_prob((enum confidence)l));
        double sh = confidence_share_right(&s->calib, (enum confidence)l);
        if (sh >= 0) export_fmt_double(share, sizeof share, sh);
        fprintf(out, "calibration,%lld", (long long)s->row.id);
        for (int i = 2; i < before; i++) fputc(',', out);
        fprintf(out, ",%s,%s,%d,%d,%s,\n", confidence_name((enum confidence)l), p, s->calib.votes[l],
                s->calib.right[l], share);
    }
}

json_t *export_calib_json(const struct db_report_session *s) {
    json_t *c = calibration_json(&s->calib);
    return c ? c : json_null();
}

json_t *export_calib_question_json(const struct db_report_question *q) {
    json_t *c = calibration_reveal_json(&q->conf, q->round == 2 ? &q->first_conf : NULL, score_truth_parse(q->truth));
    return c ? c : json_null();
}

static void pct(FILE *out, double v) {
    if (v < 0) fputs("—", out);
    else fprintf(out, "%.0f%%", v * 100);
}

void export_calib_markdown(FILE *out, const struct db_report_session *s) {
    int lines = 0;
    if (has_calib(s)) {
        fputs("\nConfidence (revealed questions, final round; docs/SCORING.md):\n\n"
              "| Confidence | Stands for | Votes | Right | Share right |\n"
              "|------------|-----------:|------:|------:|------------:|\n", out);
        for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS; l++) {
            fprintf(out, "| %s | ", confidence_words((enum confidence)l));
            pct(out, confidence_prob((enum confidence)l));
            fprintf(out, " | %d | %d | ", s->calib.votes[l], s->calib.right[l]);
            pct(out, confidence_share_right(&s->calib, (enum confidence)l));
            fputs(" |\n", out);
        }
        fprintf(out, "\n- Brier score: %.3f over %d votes with a confidence (0 is perfect; 0.25 is \"guessing\" on "
                     "every vote); %d scored votes without one\n",
                confidence_brier(&s->calib), confidence_calib_votes(&s->calib), s->calib.votes[CONFIDENCE_NONE]);
        lines++;
    }
    for (int k = 0; k < s->nquestions; k++) { /* each question's headline, and how a re-vote moved confidence */
        const struct db_report_question *q = &s->questions[k];
        struct confidence_calib c = {{0}, {0}};
        confidence_calib_add(&c, &q->conf, score_truth_parse(q->truth));
        char head[CONFIDENCE_LINE_MAX], moved[CONFIDENCE_LINE_MAX] = "";
        confidence_headline(&c, head, sizeof head);
        if (q->round == 2) confidence_shift_line(&q->first_conf, &q->conf, moved, sizeof moved);
        if (!head[0] && !moved[0]) continue;
        fprintf(out, "%s- Q%d: %s%s%s\n", lines++ ? "" : "\n", q->position + 1, head, head[0] && moved[0] ? "; " : "",
                moved);
    }
}

void export_calib_text(const struct confidence_calib *c, char *buf, size_t len) {
    if (!len) return;
    buf[0] = '\0';
    if (confidence_calib_votes(c) <= 0) return;
    size_t at = 0;
    for (int l = CONFIDENCE_SURE; l < CONFIDENCE_LEVELS && at < len; l++) {
        double sh = confidence_share_right(c, (enum confidence)l);
        char right[24];
        if (sh >= 0) snprintf(right, sizeof right, "%.0f%% right", sh * 100);
        else snprintf(right, sizeof right, "no votes");
        at += (size_t)snprintf(buf + at, len - at, "%s %s \xc2\xb7 ", confidence_words((enum confidence)l), right);
    }
    if (at < len) snprintf(buf + at, len - at, "Brier %.2f", confidence_brier(c));
}

void export_calib_svg(FILE *out, const struct db_report_session *s, int y) {
    char line[160];
    export_calib_text(&s->calib, line, sizeof line);
    if (!line[0]) return;
    fprintf(out, "<text class=\"calibration\" x=\"60\" y=\"%d\" font-size=\"32\" fill=\"#000000\">Confidence: %s</text>\n",
            y, line);
}
