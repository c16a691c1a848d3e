/* The terminal timeline of a recorded session (see replay.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_calib.h"
#include "export_text.h"
#include "path_json.h"
#include "replay.h"
#include "revote.h"

/* Offset of t from the session start as "m:ss" ("-" when t is unset). */
static void offset(char *buf, size_t len, double start, double t) {
    if (t <= 0 || start <= 0) {
        snprintf(buf, len, "-");
        return;
    }
    long s = (long)(t - start + 0.5);
    if (s < 0) s = 0;
    if (snprintf(buf, len, "%ld:%02ld", s / 60, s % 60) >= (int)len) snprintf(buf, len, "long");
}

static void pct(char *buf, size_t len, double v) {
    if (v < 0) snprintf(buf, len, "—");
    else snprintf(buf, len, "%.0f%%", v * 100);
}

/* The path stored with the question's live measurement (issue 20) as the hop
 * table `fragvote probe` prints; nothing for a row without one (stored
 * before issue 20, or unreadable). */
static void print_path(FILE *out, const struct db_report_measure *m) {
    if (!m->observation_json) return;
    struct probe_path *p = malloc(sizeof *p); /* large: not on the stack */
    char *text = malloc(PROBE_PATH_TEXT_MAX);
    json_t *o = json_loads(m->observation_json, 0, NULL);
    char err[160];
    if (p && text && path_json_read(json_object_get(o, "path"), p, err, sizeof err) == 1 &&
        probe_path_text(p, "      ", text, PROBE_PATH_TEXT_MAX))
        fprintf(out, "    path\n%s", text);
    json_decref(o);
    free(text);
    free(p);
}

static void print_question(FILE *out, const struct db_report_session *s, const struct db_report_question *q) {
    char test[EXPORT_TEST_SUMMARY_MAX], a[16], b[16], c[16];
    export_test_summary(q->spec_json, test, sizeof test);
    fprintf(out, "\nQ%d  %s · %s · %s\n", q->position + 1, test, q->kind, q->state);
    fprintf(out, "    %s\n", q->text);
    if (!strcmp(q->state, "skipped") || !strcmp(q->state, "pending")) fprintf(out, "    (%s: not asked)\n", q->state);
    fprintf(out, "    votes     yes %d · no %d (%d votes", q->yes, q->no, q->yes + q->no);
    if (q->changes) fprintf(out, ", %d changed", q->changes);
    fprintf(out, ") · majority %s\n", *q->majority ? q->majority : "none");
    if (q->round == 2) {
        char shift[REVOTE_SHIFT_MAX];
        revote_shift_line(q->first_yes, q->first_no, q->yes, q->no, score_truth_parse(q->truth), shift, sizeof shift);
        fprintf(out, "    round 1   yes %d · no %d (re-voted%s%s)\n", q->first_yes, q->first_no, shift[0] ? ": " : "",
                shift);
    }
    if (q->live.measured) {
        fprintf(out, "    truth     %s (%s, %s observer)\n", q->live.answer, q->live.basis,
                *q->live.observer ? q->live.observer : "?");
        fprintf(out, "    evidence  %s\n", *q->live.evidence ? q->live.evidence : "(none recorded)");
        print_path(out, &q->live);
    } else {
        fprintf(out, "    truth     not measured\n");
    }
    pct(a, sizeof a, export_question_accuracy(q));
    fprintf(out, "    verdict   %s · %s of votes right\n", export_verdict(q->correct), a);
    struct confidence_calib qc = {{0}, {0}};
    char line[160], head[CONFIDENCE_LINE_MAX];
    confidence_calib_add(&qc, &q->conf, score_truth_parse(q->truth));
    export_calib_text(&qc, line, sizeof line);
    confidence_headline(&qc, head, sizeof head);
    if (line[0]) fprintf(out, "    confidence %s%s%s\n", line, head[0] ? " · " : "", head);
    double t0 = s->row.started_at;
    offset(a, sizeof a, t0, q->opened_at);
    offset(b, sizeof b, t0, q->closed_at);
    offset(c, sizeof c, t0, q->revealed_at);
    fprintf(out, "    timing    opened %s · closed %s", a, b);
    if (q->opened_at > 0 && q->closed_at >= q->opened_at)
        fprintf(out, " (voting %.1f s)", q->closed_at - q->opened_at);
    offset(a, sizeof a, t0, q->live.measured_at);
    fprintf(out, " · measured %s · revealed %s\n", a, c);
}

void replay_print(FILE *out, const struct db_report_session *s) {
    char when[40], end[40], col[16], acc[16];
    export_local_time(when, sizeof when, s->row.started_at);
    export_local_time(end, sizeof end, s->row.ended_at);
    pct(col, sizeof col, s->score.collective);
    pct(acc, sizeof acc, s->score.vote_accuracy);
    fprintf(out, "Session %lld: %s\n", (long long)s->row.id, s->row.title);
    fprintf(out, "  started %s · %s%s\n", when, *end ? "ended " : "not ended", end);
    fprintf(out, "  host %s · kernel %s · target %s · observer %s\n", *s->row.host ? s->row.host : "?",
            *s->row.kernel ? s->row.kernel : "?", *s->row.target ? s->row.target : "?",
            *s->row.observer ? s->row.observer : "?");
    fprintf(out, "  %d questions · %d voters · collective score %s (%d scored) · vote accuracy %s (%d of %d)\n",
            s->score.questions, s->score.voters, col, s->score.scored, acc, s->score.votes_correct,
            s->score.votes_scored);
    char calib[160];
    export_calib_text(&s->calib, calib, sizeof calib);
    if (calib[0]) fprintf(out, "  confidence: %s\n", calib);
    for (int i = 0; i < s->nquestions; i++) print_question(out, s, &s->questions[i]);
    int remeasures = 0;
    for (int i = 0; i < s->nsets; i++)
        if (!strcmp(s->sets[i].kind, "remeasure")) remeasures++;
    if (remeasures) {
        fprintf(out, "\nRemeasured %d time(s) since:\n", remeasures);
        for (int i = 0; i < s->nsets; i++) {
            if (strcmp(s->sets[i].kind, "remeasure")) continue;
            export_local_time(when, sizeof when, s->sets[i].created_at);
            fprintf(out, "  %s · host %s · kernel %s · target %s · %d measurements\n", when, s->sets[i].host,
                    s->sets[i].kernel, s->sets[i].target, s->sets[i].measurements);
        }
    }
}
