/* Score summaries: CSV, JSON, Markdown, SVG (see export.h, docs/EXPORT.md). */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "export.h"
#include "export_calib.h"
#include "export_path.h"
#include "export_text.h"
#include "league.h"
#include "revote.h"
#include "fv_err.h"
#include "fv_names.h"

static const char *const format_names[] = {"csv", "json", "markdown", "svg"};
_Static_assert(FV_NAMES_N(format_names) == EXPORT_SVG + 1, "a name for each enum export_format");

int export_format_parse(const char *name, enum export_format *out) {
    int i = fv_names_find(format_names, FV_NAMES_N(format_names), name);
    if (i < 0 && name && !strcmp(name, "md")) i = EXPORT_MARKDOWN;
    if (i >= 0) *out = (enum export_format)i;
    return i < 0 ? -1 : 0;
}

const char *export_format_name(enum export_format f) {
    return fv_names_get(format_names, FV_NAMES_N(format_names), f);
}

double export_question_accuracy(const struct db_report_question *q) {
    int total = q->yes + q->no;
    if (total == 0 || q->correct_votes < 0) return -1;
    return (double)q->correct_votes / total;
}

void export_fmt_double(char *buf, size_t len, double v) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

int export_parse_id(const char *s, int64_t *out) {
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v <= 0) return -1;
    *out = v;
    return 0;
}

/* ---------------------------------------------------------------- CSV -- */

void export_csv_text(FILE *out, const char *s) {
    if (!s) s = "";
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    int guard = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
    if (quote) fputc('"', out);
    if (guard) fputc('\'', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    if (quote) fputc('"', out);
}

/* A number, or an empty field for "none" (negative sentinel). */
static void csv_num(FILE *out, double v) {
    char buf[40] = "";
    if (v >= 0) export_fmt_double(buf, sizeof buf, v);
    fputs(buf, out);
}

static const char csv_header[] =
    "record,session,title,started_at,questions,voters,collective,vote_accuracy,votes_scored,votes_correct,"
    "position,test,kind,question,yes,no,majority,truth,correct,accuracy,basis,evidence,score,voters_with_score,league,"
    "round,first_yes,first_no," EXPORT_CALIB_CSV_HEADER "\n";
#define CSV_COLUMNS_BEFORE_CALIB 28 /* the columns before export_calib.c's */

static void write_csv(FILE *out, const struct db_report_session *ss, int n) {
    fputs(csv_header, out);
    for (int i = 0; i < n; i++) {
        const struct db_report_session *s = &ss[i];
        char when[40];
        export_iso_time(when, sizeof when, s->row.started_at);
        fprintf(out, "session,%lld,", (long long)s->row.id);
        export_csv_text(out, s->row.title);
        fprintf(out, ",%s,%d,%d,", when, s->score.questions, s->score.voters);
        csv_num(out, s->score.collective);
        fputc(',', out);
        csv_num(out, s->score.vote_accuracy);
        char league[LEAGUE_LINE_MAX];
        league_line(s->score.collective, league, sizeof league);
        fprintf(out, ",%d,%d,,,,,,,,,,,,,,,", s->score.votes_scored, s->score.votes_correct);
        export_csv_text(out, league);
        fputs(",,,", out);
        export_calib_csv_session(out, s);
        fputc('\n', out);
        for (int k = 0; k < s->nquestions; k++) {
            const struct db_report_question *q = &s->questions[k];
            char test[EXPORT_TEST_SUMMARY_MAX];
            export_test_summary(q->spec_json, test, sizeof test);
            fprintf(out, "question,%lld,,,,,,,,,%d,", (long long)s->row.id, q->position);
            export_csv_text(out, test);
            fprintf(out, ",%s,", q->kind);
            export_csv_text(out, q->text);
            fprintf(out, ",%d,%d,%s,%s,", q->yes, q->no, q->majority, q->truth);
            csv_num(out, q->correct);
            fputc(',', out);
            csv_num(out, export_question_accuracy(q));
            fprintf(out, ",%s,", q->live.basis);
            export_csv_text(out, q->live.evidence);
            fprintf(out, ",,,,%d,", q->round);
            if (q->round == 2) fprintf(out, "%d,%d", q->first_yes, q->first_no);
            else fputs(",", out);
            export_calib_csv_empty(out);
            fputc('\n', out);
        }
        for (int k = 0; k <= s->dist.max_correct; k++) {
            fprintf(out, "distribution,%lld,,,,,,,,,,,,,,,,,,,,,%d,%d,,,,", (long long)s->row.id, k, s->dist.voters[k]);
            export_calib_csv_empty(out);
            fputc('\n', out);
        }
        export_calib_csv_rows(out, s, CSV_COLUMNS_BEFORE_CALIB);
    }
}

/* --------------------------------------------------------------- JSON -- */

static json_t *jnum_or_null(double v) { return v >= 0 ? json_real(v) : json_null(); }
static json_t *jstr_or_null(const char *s) { return s && *s ? json_string(s) : json_null(); }

static json_t *jtime(double t) {
    if (t <= 0) return json_null();
    char buf[40];
    export_iso_time(buf, sizeof buf, t);
    return json_string(buf);
}

/* json_string() refuses invalid UTF-8: fall back to an escaped copy. */
static json_t *jtext(const char *s) {
    json_t *j = json_string(s ? s : "");
    if (j) return j;
    size_t n = strlen(s);
    char *c = malloc(n + 1);
    if (!c) return json_null();
    for (size_t i = 0; i <= n; i++) c[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
    j = json_string(c);
    free(c);
    return j ? j : json_null();
}

static json_t *json_question(const struct db_report_question *q) {
    json_error_t jerr;
    json_t *test = json_loads(q->spec_json, 0, &jerr);
    if (!test) test = jtext(q->spec_json);
    char summary[EXPORT_TEST_SUMMARY_MAX];
    export_test_summary(q->spec_json, summary, sizeof summary);
    json_t *o = json_object();
    json_object_set_new(o, "position", json_integer(q->position));
    json_object_set_new(o, "test_index", json_integer(q->test_index));
    json_object_set_new(o, "test", test);
    json_object_set_new(o, "test_summary", jtext(summary));
    json_object_set_new(o, "kind", json_string(q->kind));
    json_object_set_new(o, "question", jtext(q->text));
    json_object_set_new(o, "state", json_string(q->state));
    json_object_set_new(o, "yes", json_integer(q->yes));
    json_object_set_new(o, "no", json_integer(q->no));
    json_object_set_new(o, "total", json_integer(q->yes + q->no));
    json_object_set_new(o, "majority", jstr_or_null(q->majority));
    json_object_set_new(o, "truth", jstr_or_null(q->truth));
    json_object_set_new(o, "correct", jnum_or_null(q->correct));
    json_object_set_new(o, "correct_votes", q->correct_votes >= 0 ? json_integer(q->correct_votes) : json_null());
    json_object_set_new(o, "accuracy", jnum_or_null(export_question_accuracy(q)));
    json_object_set_new(o, "basis", jstr_or_null(q->live.basis));
    json_object_set_new(o, "evidence", q->live.measured ? jtext(q->live.evidence) : json_null());
    json_object_set_new(o, "observer", jstr_or_null(q->live.observer));
    json_object_set_new(o, "opened_at", jtime(q->opened_at));
    json_object_set_new(o, "closed_at", jtime(q->closed_at));
    json_object_set_new(o, "measured_at", jtime(q->live.measured_at));
    json_object_set_new(o, "revealed_at", jtime(q->revealed_at));
    json_object_set_new(o, "round", json_integer(q->round));
    json_object_set_new(o, "revoted_at", jtime(q->revoted_at));
    if (q->round == 2) {
        enum score_truth ty = score_truth_parse(q->truth);
        double first = score_right_share(q->first_yes, q->first_no, ty);
        char shift[REVOTE_SHIFT_MAX];
        revote_shift_line(q->first_yes, q->first_no, q->yes, q->no, ty, shift, sizeof shift);
        json_t *fr = json_object();
        json_object_set_new(fr, "yes", json_integer(q->first_yes));
        json_object_set_new(fr, "no", json_integer(q->first_no));
        json_object_set_new(fr, "total", json_integer(q->first_yes + q->first_no));
        int first_right = score_correct_votes(q->first_yes, q->first_no, ty);
        json_object_set_new(fr, "correct_votes", first_right >= 0 ? json_integer(first_right) : json_null());
        json_object_set_new(fr, "accuracy", jnum_or_null(first));
        json_object_set_new(o, "first_round", fr);
        json_object_set_new(o, "shift", jstr_or_null(shift));
    } else {
        json_object_set_new(o, "first_round", json_null());
        json_object_set_new(o, "shift", json_null());
    }
    json_object_set_new(o, "confidence", export_calib_question_json(q));
    return o;
}

static json_t *json_session(const struct db_report_session *s) {
    const struct db_sscore *sc = &s->score;
    json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}", "id", (json_int_t)s->row.id, "title",
                          jtext(s->row.title), "started_at", jtime(s->row.started_at), "ended_at",
                          jtime(s->row.ended_at), "host", jtext(s->row.host), "kernel", jtext(s->row.kernel),
                          "observer", jtext(s->row.observer), "target", jtext(s->row.target), "voters", sc->voters);
    json_object_set_new(o, "score",
                        json_pack("{s:o, s:i, s:i, s:o, s:i, s:i}", "collective", jnum_or_null(sc->collective),
                                  "questions", sc->questions, "questions_scored", sc->scored, "vote_accuracy",
                                  jnum_or_null(sc->vote_accuracy), "votes_scored", sc->votes_scored,
                                  "votes_correct", sc->votes_correct));
    char league[LEAGUE_LINE_MAX];
    league_line(s->score.collective, league, sizeof league);
    json_object_set_new(o, "league", jstr_or_null(league));
    json_object_set_new(o, "calibration", export_calib_json(s));

    json_t *qs = json_array();
    for (int i = 0; i < s->nquestions; i++) json_array_append_new(qs, json_question(&s->questions[i]));
    json_object_set_new(o, "questions", qs);

    json_t *d = json_object();
    json_object_set_new(d, "voters_scored", json_integer(s->dist.voters_scored));
    json_object_set_new(d, "voters_unscored", json_integer(s->dist.voters_unscored));
    json_t *by = json_array();
    for (int k = 0; k <= s->dist.max_correct; k++) {
        json_t *b = json_object();
        json_object_set_new(b, "correct", json_integer(k));
        json_object_set_new(b, "voters", json_integer(s->dist.voters[k]));
        json_array_append_new(by, b);
    }
    json_object_set_new(d, "by_correct", by);
    json_object_set_new(o, "distribution", d);

    json_t *sets = json_array();
    for (int i = 0; i < s->nsets; i++) {
        const struct db_report_set *m = &s->sets[i];
        json_t *j = json_object();
        json_object_set_new(j, "kind", json_string(m->kind));
        json_object_set_new(j, "created_at", jtime(m->created_at));
        json_object_set_new(j, "host", jtext(m->host));
        json_object_set_new(j, "kernel", jtext(m->kernel));
        json_object_set_new(j, "target", jtext(m->target));
        json_object_set_new(j, "measurements", json_integer(m->measurements));
        json_array_append_new(sets, j);
    }
    json_object_set_new(o, "measurement_sets", sets);
    return o;
}

static int write_json(FILE *out, const struct db_report_session *ss, int n, char *err, size_t errlen) {
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("fragvote-export"));
    json_object_set_new(root, "version", json_integer(EXPORT_JSON_VERSION));
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(arr, json_session(&ss[i]));
    json_object_set_new(root, "sessions", arr);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (rc) {
        fv_seterr(err, errlen, "writing JSON failed");
        return -1;
    }
    fputc('\n', out);
    return 0;
}

/* ----------------------------------------------------------- Markdown -- */

/* Text from the deck or the store (titles, questions, evidence) in a heading
 * or a table cell, shown as typed by Markdown and HTML renderers alike: raw
 * HTML and entities become text (&lt; &gt; &amp;); the characters that make
 * links and images ([ ]), code spans, emphasis, strikethrough, a heading's
 * closing #s, cell breaks (|) and escapes are backslash-escaped (CommonMark
 * lets any ASCII punctuation be); line breaks are flattened, so a text
 * never starts a line (no lists, headings or link definitions). */
static void md_pct(FILE *out, double v) {
    if (v < 0) fputs("—", out);
    else fprintf(out, "%.0f%%", v * 100);
}

static void write_markdown(FILE *out, const struct db_report_session *ss, int n) {
    for (int i = 0; i < n; i++) {
        const struct db_report_session *s = &ss[i];
        char when[40], num[40];
        export_local_time(when, sizeof when, s->row.started_at);
        if (i) fputs("\n", out);
        fprintf(out, "# Session %lld: ", (long long)s->row.id);
        export_md_text(out, s->row.title);
        fprintf(out, "\n\n- Date: %s\n- Voters: %d\n- Collective score: ", when, s->score.voters);
        md_pct(out, s->score.collective);
        if (s->score.collective >= 0) {
            export_fmt_double(num, sizeof num, s->score.collective);
            fprintf(out, " (%s over %d scored of %d questions)", num, s->score.scored, s->score.questions);
        }
        fputs("\n- Vote accuracy: ", out);
        md_pct(out, s->score.vote_accuracy);
        fprintf(out, " (%d of %d votes right)\n", s->score.votes_correct, s->score.votes_scored);
        char league[LEAGUE_LINE_MAX];
        league_line(s->score.collective, league, sizeof league);
        if (league[0]) fprintf(out, "- League: %s\n", league);
        fputs("\n", out);
        fputs("| # | Test | Question | Yes | No | Majority | Truth | Right | Evidence |\n"
              "|---|------|----------|----:|---:|----------|-------|-------|----------|\n", out);
        for (int k = 0; k < s->nquestions; k++) {
            const struct db_report_question *q = &s->questions[k];
            char test[EXPORT_TEST_SUMMARY_MAX];
            export_test_summary(q->spec_json, test, sizeof test);
            fprintf(out, "| %d | ", q->position + 1);
            export_md_text(out, test);
            fputs(" | ", out);
            export_md_text(out, q->text);
            fprintf(out, " | %d | %d | %s | %s | %s | ", q->yes, q->no, *q->majority ? q->majority : "—",
                    *q->truth ? q->truth : "—", export_verdict(q->correct));
            export_md_text(out, q->live.measured ? q->live.evidence : "not measured");
            fputs(" |\n", out);
        }
        int revotes = 0;
        for (int k = 0; k < s->nquestions; k++) {
            const struct db_report_question *q = &s->questions[k];
            if (q->round != 2) continue;
            char shift[REVOTE_SHIFT_MAX];
            revote_shift_line(q->first_yes, q->first_no, q->yes, q->no, score_truth_parse(q->truth), shift,
                              sizeof shift);
            fprintf(out, "%s- Q%d re-voted: first round yes %d · no %d, final round yes %d · no %d%s%s\n",
                    revotes++ ? "" : "\nRe-votes (the final round is scored):\n\n", q->position + 1, q->first_yes,
                    q->first_no, q->yes, q->no, shift[0] ? "; " : "", shift);
        }
        export_calib_markdown(out, s);
        fputs("\n| Right answers | Voters |\n|--------------:|-------:|\n", out);
        for (int k = 0; k <= s->dist.max_correct; k++) fprintf(out, "| %d | %d |\n", k, s->dist.voters[k]);
        if (s->dist.voters_unscored)
            fprintf(out, "\n%d voter(s) joined but answered no scored question.\n", s->dist.voters_unscored);
        export_path_markdown(out, s);
    }
}

/* ---------------------------------------------------------------- SVG -- */

#define SVG_W 1920
#define SVG_H 1080
#define PLOT_X0 180
#define PLOT_X1 1860
#define PLOT_Y0 230 /* 100% */
#define PLOT_Y1 900 /* 0% */

#define SVG_COMPACT_AFTER 12 /* more questions than this: labels without "%" and "Q" */
#define SVG_LABEL_MAX 48
#define SVG_LABEL_MIN 12

/* Font size for a label of chars bold digits (about 0.7 em each) filling at
 * most 85% of a bar's slot, between SVG_LABEL_MIN and SVG_LABEL_MAX. */
static int svg_label_size(double slot, int chars) {
    int size = (int)(slot * 0.85 / (0.7 * chars));
    return size > SVG_LABEL_MAX ? SVG_LABEL_MAX : size < SVG_LABEL_MIN ? SVG_LABEL_MIN : size;
}

static const char *bar_colour(double correct) {
    if (correct == 1) return "#0b6e1f"; /* majority right: dark green */
    if (correct == 0) return "#b00020"; /* wrong: dark red */
    return "#c25400";                   /* tie: dark orange */
}

static void svg_chart(FILE *out, const struct db_report_session *s, int yoff) {
    char pct[16];
    fprintf(out, "<g transform=\"translate(0,%d)\">\n", yoff);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", SVG_W, SVG_H);
    fputs("<text x=\"60\" y=\"90\" font-size=\"64\" font-weight=\"bold\" fill=\"#000000\">", out);
    export_xml_text(out, s->row.title);
    fputs("</text>\n", out);
    fputs("<text x=\"60\" y=\"165\" font-size=\"44\" fill=\"#000000\">", out);
    if (s->score.collective >= 0) fprintf(out, "Room right on %.0f%% of questions", s->score.collective * 100);
    else fputs("No question scored", out);
    if (s->score.vote_accuracy >= 0) fprintf(out, " · %.0f%% of votes right", s->score.vote_accuracy * 100);
    fprintf(out, " · %d voters</text>\n", s->score.voters);
    export_calib_svg(out, s, 212);

    /* Axis and grid: 0, 50, 100 %. */
    for (int g = 0; g <= 100; g += 50) {
        int y = PLOT_Y1 - (PLOT_Y1 - PLOT_Y0) * g / 100;
        fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000000\" stroke-width=\"%d\"/>\n",
                PLOT_X0, y, PLOT_X1, y, g ? 2 : 5);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"40\" text-anchor=\"end\" fill=\"#000000\">%d%%</text>\n",
                PLOT_X0 - 16, y + 14, g);
    }

    int n = s->nquestions;
    double slot = n ? (double)(PLOT_X1 - PLOT_X0) / n : 0;
    double barw = slot * 0.7 > 220 ? 220 : slot * 0.7;
    /* Many bars: drop the "%" and the "Q" so the labels stay large. */
    int many = n > SVG_COMPACT_AFTER;
    int label = svg_label_size(slot, many ? 3 : 4);                 /* "100" / "100%" */
    int xlabel = svg_label_size(slot, many ? (n >= 100 ? 3 : 2) : 3); /* "36" / "Q12" */
    int revoted = 0;
    for (int i = 0; i < n; i++) {
        const struct db_report_question *q = &s->questions[i];
        double acc = export_question_accuracy(q);
        double h = acc >= 0 ? acc * (PLOT_Y1 - PLOT_Y0) : 0;
        double cx = PLOT_X0 + slot * (i + 0.5);
        char shown[16];
        if (acc >= 0) {
            snprintf(pct, sizeof pct, "%.0f%%", acc * 100);
            snprintf(shown, sizeof shown, many ? "%.0f" : "%.0f%%", acc * 100);
        } else {
            pct[0] = '\0';
            snprintf(shown, sizeof shown, "n/a");
        }
        fprintf(out,
                "<rect class=\"bar\" data-position=\"%d\" data-accuracy=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                q->position, pct, cx - barw / 2, PLOT_Y1 - h, barw, h, bar_colour(q->correct));
        export_xml_text(out, q->text);
        fputs("</title></rect>\n", out);
        double first = q->round == 2 ? score_right_share(q->first_yes, q->first_no, score_truth_parse(q->truth)) : -1;
        if (first >= 0) { /* the re-vote: where the first round stood, as a dashed outline */
            double fh = first * (PLOT_Y1 - PLOT_Y0);
            fprintf(out,
                    "<rect class=\"bar-first\" data-position=\"%d\" data-accuracy=\"%.0f%%\" x=\"%.1f\" y=\"%.1f\" "
                    "width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#000000\" stroke-width=\"4\" "
                    "stroke-dasharray=\"12 8\"><title>first round</title></rect>\n",
                    q->position, first * 100, cx - barw / 2, PLOT_Y1 - fh, barw, fh);
            revoted++;
        }
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" font-weight=\"bold\" text-anchor=\"middle\" "
                "fill=\"#000000\">%s</text>\n",
                cx, PLOT_Y1 - h - 12, label, shown);
        fprintf(out,
                "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" font-weight=\"bold\" text-anchor=\"middle\" "
                "fill=\"#000000\">%s%d</text>\n",
                cx, PLOT_Y1 + 16 + xlabel, xlabel, many ? "" : "Q", q->position + 1);
    }
    char league[LEAGUE_LINE_MAX];
    league_line(s->score.collective, league, sizeof league);
    if (league[0] || revoted) {
        fputs("<text class=\"league\" x=\"60\" y=\"996\" font-size=\"36\" font-weight=\"bold\" fill=\"#000000\">", out);
        export_xml_text(out, league);
        if (revoted) fputs(league[0] ? " \xc2\xb7 dashed: first round" : "Dashed: first round (re-vote)", out);
        fputs("</text>\n", out);
    }
    fputs("<text x=\"60\" y=\"1040\" font-size=\"36\" fill=\"#000000\">Bar: share of votes that were right. "
          "<tspan fill=\"#0b6e1f\" font-weight=\"bold\">Green</tspan>: majority right; "
          "<tspan fill=\"#b00020\" font-weight=\"bold\">red</tspan>: wrong; "
          "<tspan fill=\"#c25400\" font-weight=\"bold\">orange</tspan>: tie.</text>\n",
          out);
    fputs("</g>\n", out);
}

/* Each session's slide, then its tests' path pictures (export_path.c). */
static void write_svg(FILE *out, const struct db_report_session *ss, int n) {
    int h = n ? 0 : SVG_H;
    for (int i = 0; i < n; i++) h += SVG_H + export_path_svg_height(&ss[i]);
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n",
            SVG_W, h, SVG_W, h);
    for (int i = 0, y = 0; i < n; i++) {
        svg_chart(out, &ss[i], y);
        export_path_svg(out, &ss[i], y + SVG_H);
        y += SVG_H + export_path_svg_height(&ss[i]);
    }
    fputs("</svg>\n", out);
}

int export_write(FILE *out, enum export_format f, const struct db_report_session *s, int n, char *err,
                 size_t errlen) {
    int rc = 0;
    switch (f) {
    case EXPORT_CSV: write_csv(out, s, n); break;
    case EXPORT_JSON: rc = write_json(out, s, n, err, errlen); break;
    case EXPORT_MARKDOWN: write_markdown(out, s, n); break;
    case EXPORT_SVG: write_svg(out, s, n); break;
    default: fv_seterr(err, errlen, "unknown export format"); return -1;
    }
    if (rc) return rc;
    if (fflush(out) || ferror(out)) {
        fv_seterr(err, errlen, "writing the %s export failed: %s", export_format_name(f), strerror(errno));
        return -1;
    }
    return 0;
}
