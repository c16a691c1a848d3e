/* Each test's path picture in the exports (issue 20): a hop table in
 * Markdown, an inline SVG drawing per test. The path is the one stored with
 * the test's live measurement (docs/PROBE.md, "The path"); a session is
 * over when it is exported, so the whole picture is shown. Rows stored
 * before issue 20 have no path: nothing is drawn for them. */
#include "export_path.h"

#include <stdlib.h>
#include <string.h>

#include "export_text.h"
#include "path_json.h"

/* The stored path of test t of s (its first measured question's), 1 when
 * there is one; *q gets that question. */
static int test_path(const struct db_report_session *s, int t, struct probe_path *p,
                     const struct db_report_question **q) {
    for (int k = 0; k < s->nquestions; k++) {
        const struct db_report_question *x = &s->questions[k];
        if (x->test_index != t || !x->live.measured || !x->live.observation_json) continue;
        json_t *o = json_loads(x->live.observation_json, 0, NULL);
        char err[160];
        int rc = path_json_read(json_object_get(o, "path"), p, err, sizeof err);
        json_decref(o);
        *q = x;
        return rc == 1;
    }
    return 0;
}

static int ntests(const struct db_report_session *s) {
    int n = 0;
    for (int k = 0; k < s->nquestions; k++)
        if (s->questions[k].test_index + 1 > n) n = s->questions[k].test_index + 1;
    return n;
}

int export_path_count(const struct db_report_session *s) {
    int n = 0;
    struct probe_path *p = malloc(sizeof *p);
    const struct db_report_question *q;
    for (int t = 0; p && t < ntests(s); t++) n += test_path(s, t, p, &q);
    free(p);
    return n;
}

/* ---- Markdown ---- */
void export_path_markdown(FILE *out, const struct db_report_session *s) {
    struct probe_path_row rows[PROBE_PATH_NODES_MAX];
    struct probe_path *p = malloc(sizeof *p); /* large: not on the stack */
    const struct db_report_question *q;
    int first = 1;
    for (int t = 0; p && t < ntests(s); t++) {
        if (!test_path(s, t, p, &q)) continue;
        if (first) fputs("\n## Paths\n", out);
        first = 0;
        char test[EXPORT_TEST_SUMMARY_MAX];
        export_test_summary(q->spec_json, test, sizeof test);
        fprintf(out, "\n### Test %d: ", t + 1);
        export_md_text(out, test);
        fputs("\n\n| Hop | Node | Address | MTU | Seen there |\n|----:|------|---------|----:|------------|\n", out);
        int n = probe_path_rows(p, rows, PROBE_PATH_NODES_MAX);
        for (int i = 0; i < n; i++) {
            fprintf(out, "| %s | ", rows[i].hop);
            export_md_text(out, rows[i].name);
            fputs(" | ", out);
            export_md_text(out, rows[i].addr[0] ? rows[i].addr : "?");
            fprintf(out, " | %s | ", rows[i].mtu[0] ? rows[i].mtu : "—");
            export_md_text(out, rows[i].seen);
            fputs(" |\n", out);
        }
    }
    free(p);
}

/* ---- SVG ---- */
#define W 1920
#define X0 150
#define X1 1770
#define BOX_W 210
#define BOX_H 100
#define BOX_Y 150

/* Words of s in lines of at most `cols` characters, each a <tspan>. */
static void wrapped(FILE *out, const char *s, double x, double y, int size, int cols, int max_lines) {
    char line[200];
    int lines = 0;
    const char *p = s;
    while (*p && lines < max_lines) {
        size_t n = strlen(p);
        if ((int)n > cols) {
            n = (size_t)cols;
            while (n > 1 && p[n] != ' ') n--;
            if (n <= 1) n = (size_t)cols;
        }
        if (n >= sizeof line) n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        if (lines + 1 == max_lines && p[n]) snprintf(line + (n > 3 ? n - 3 : 0), 4, "...");
        fprintf(out, "<tspan x=\"%.0f\" y=\"%.0f\">", x, y + lines * size * 1.2);
        export_xml_text(out, line);
        fputs("</tspan>", out);
        lines++;
        p += n;
        while (*p == ' ') p++;
    }
}

/* The shape that says what happened, drawn at (x, y) in black: colour never
 * carries the meaning, each shape has its word next to it. */
static void shape(FILE *out, enum probe_path_what w, const struct probe_path_pieces *pc, double x, double y) {
    switch (w) {
    case PROBE_PATH_DROPPED: case PROBE_PATH_REFUSED: /* a cross */
        fprintf(out, "<path d=\"M%.0f %.0f l20 20 M%.0f %.0f l-20 20\" stroke=\"#000\" stroke-width=\"5\"/>", x, y,
                x + 20, y);
        break;
    case PROBE_PATH_EXPIRED: /* an hourglass */
        fprintf(out, "<path d=\"M%.0f %.0f h20 l-20 22 h20 z\" fill=\"none\" stroke=\"#000\" stroke-width=\"3\"/>", x,
                y);
        break;
    case PROBE_PATH_ARRIVED: /* a tick */
        fprintf(out, "<path d=\"M%.0f %.0f l7 9 l13 -20\" fill=\"none\" stroke=\"#000\" stroke-width=\"5\"/>", x,
                y + 12);
        break;
    case PROBE_PATH_SILENT: /* a question mark in a circle */
        fprintf(out,
                "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"11\" fill=\"none\" stroke=\"#000\" stroke-width=\"3\"/>"
                "<text x=\"%.0f\" y=\"%.0f\" font-size=\"18\" font-weight=\"bold\" text-anchor=\"middle\">?</text>",
                x + 10, y + 10, x + 10, y + 16);
        break;
    case PROBE_PATH_FRAGMENTED: case PROBE_PATH_REASSEMBLED: case PROBE_PATH_PASSED: { /* the pieces as blocks */
        int n = pc->n > 0 ? (pc->n > 6 ? 6 : pc->n) : 1;
        for (int i = 0; i < n; i++)
            fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"20\" fill=\"none\" stroke=\"#000\" "
                         "stroke-width=\"2\"/>",
                    x + i * (n > 1 ? 24.0 / n + 2 : 0), y, n > 1 ? 24 / n : 22);
        break;
    }
    case PROBE_PATH_OTHER: /* another packet's answer: a dashed circle, its text says which */
        fprintf(out, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"10\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" "
                     "stroke-dasharray=\"3 3\"/>", x + 10, y + 10);
        break;
    }
}

/* Left edge of node i's column of text (never off the picture). */
static double column_x(int i, double step) {
    double x = X0 + i * step - (step > 0 ? step / 2 - 12 : BOX_W / 2);
    return x < 20 ? 20 : x;
}

/* Width in px of `chars` characters of bold text of `size` px (DejaVu Sans
 * Bold averages ~0.62 em a character; 0.66 leaves a margin). */
static double bold_px(size_t chars, int size) { return (double)chars * size * 0.66; }

/* Characters of bold text of `size` px that fit in `width` px. */
static int bold_cols(double width, int size) {
    int c = (int)(width / bold_px(1, size));
    return c < 8 ? 8 : c;
}

int export_path_svg_height(const struct db_report_session *s) { return EXPORT_PATH_SVG_H * export_path_count(s); }

/* One test's drawing in a W x EXPORT_PATH_SVG_H band at y. */
static void svg_one(FILE *out, const struct probe_path *p, int t, const char *test, int y) {
    fprintf(out, "<g class=\"path\" data-test=\"%d\" transform=\"translate(0 %d)\">\n", t + 1, y);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\" stroke=\"#000\"/>\n", W,
            EXPORT_PATH_SVG_H);
    fprintf(out, "<text x=\"60\" y=\"70\" font-size=\"44\" font-weight=\"bold\">Test %d: ", t + 1);
    export_xml_text(out, test);
    fputs("</text>\n", out);
    int n = p->nnodes;
    double step = n > 1 ? (double)(X1 - X0) / (n - 1) : 0;
    int size = step >= 400 ? 24 : step >= 250 ? 20 : 14;
    int cols = (int)(step * 0.9 / (size * 0.58));
    if (cols < 8) cols = 8;
    /* links, with their MTU ("?" unknown) */
    for (int i = 0; i + 1 < n; i++) {
        double a = X0 + i * step, b = X0 + (i + 1) * step;
        fprintf(out, "<g class=\"link\" data-link=\"%d\"><line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"#000\" "
                     "stroke-width=\"4\"%s/>",
                i, a, BOX_Y + BOX_H / 2, b, BOX_Y + BOX_H / 2,
                p->node[i].role == PROBE_PATH_GAP || p->node[i + 1].role == PROBE_PATH_GAP ||
                        (p->reached >= 0 && i >= p->reached) /* the packet never went there */
                    ? " stroke-dasharray=\"12 8\""
                    : "");
        char mtu[24];
        if (p->link[i].mtu > 0) snprintf(mtu, sizeof mtu, "MTU %d", p->link[i].mtu);
        else snprintf(mtu, sizeof mtu, "MTU ?");
        fprintf(out, "<text x=\"%.0f\" y=\"%d\" font-size=\"%d\" text-anchor=\"middle\">%s</text></g>\n", (a + b) / 2,
                BOX_Y - 12, size + 4, mtu);
    }
    /* nodes */
    for (int i = 0; i < n; i++) {
        const struct probe_path_node *nd = &p->node[i];
        double x = X0 + i * step;
        const char *label = i == 0 && !strcmp(nd->name, "src") ? "src (laptop)" : nd->name;
        /* the box as wide as its name (within its step); the name smaller if even that is too narrow */
        double room = step > 0 ? step - 20 : W - 2 * X0;
        int lsize = size + 8;
        size_t len = strlen(label);
        double bw = bold_px(len, lsize) + 24;
        if (bw < BOX_W) bw = BOX_W;
        if (bw > room) bw = room;
        while (lsize > size && bold_px(len, lsize) > bw - 16) lsize--;
        fprintf(out, "<g class=\"node\" data-node=\"%d\" data-role=\"%s\"><rect x=\"%.0f\" y=\"%d\" width=\"%.0f\" "
                     "height=\"%d\" fill=\"#ffffff\" stroke=\"#000\" stroke-width=\"%d\"%s/>",
                i, probe_path_role_name(nd->role), x - bw / 2, BOX_Y, bw, BOX_H, nd->role == PROBE_PATH_ROUTER ? 3 : 5,
                nd->role == PROBE_PATH_GAP ? " stroke-dasharray=\"10 6\"" : "");
        fprintf(out, "<text x=\"%.0f\" y=\"%d\" font-size=\"%d\" font-weight=\"bold\" text-anchor=\"middle\">", x,
                BOX_Y + 45, lsize);
        export_xml_text(out, label);
        fprintf(out, "</text><text x=\"%.0f\" y=\"%d\" font-size=\"%d\" text-anchor=\"middle\">", x, BOX_Y + 80,
                size);
        export_xml_text(out, nd->addr[0] ? nd->addr : nd->role == PROBE_PATH_GAP ? "" : "?");
        fputs("</text></g>\n", out);
    }
    /* what left the host, then each node's events below it */
    double ly[PROBE_PATH_NODES_MAX];
    for (int i = 0; i < n; i++) ly[i] = BOX_Y + BOX_H + 40;
    char sent[160];
    const char *df = p->df < 0 ? "" : p->df ? ", DF=1" : ", DF=0";
    if (p->left == 0) snprintf(sent, sizeof sent, "%d bytes%s: nothing left", p->bytes, df);
    else if (p->sent.n > 1) snprintf(sent, sizeof sent, "left: %d bytes%s in %d pieces", p->bytes, df, p->sent.n);
    else snprintf(sent, sizeof sent, "left: %d bytes%s, whole", p->bytes, df);
    fprintf(out, "<text class=\"sent\" font-size=\"%d\" font-weight=\"bold\">", size);
    /* bold, and its column ends where the next node's begins */
    wrapped(out, sent, column_x(0, step), ly[0], size,
            bold_cols(n > 1 ? column_x(1, step) - column_x(0, step) - 12 : W - 40, size), 2);
    fputs("</text>\n", out);
    ly[0] += size * 2.6;
    for (int e = 0; e < p->nevents; e++) {
        const struct probe_path_event *ev = &p->ev[e];
        int i = ev->node;
        if (i < 0 || i >= n) continue;
        double x = column_x(i, step);
        fprintf(out, "<g class=\"event\" data-node=\"%d\" data-what=\"%s\" data-pieces=\"", i,
                probe_path_what_name(ev->what));
        for (int k = 0; k < ev->pieces.n && k < PROBE_PATH_PIECES_MAX; k++) fprintf(out, "%s%d", k ? " " : "", ev->pieces.len[k]);
        fputs("\">", out);
        shape(out, ev->what, &ev->pieces, x, ly[i] - size);
        char line[200];
        snprintf(line, sizeof line, "%s [%s]", ev->text[0] ? ev->text : probe_path_what_name(ev->what),
                 probe_path_seen_name(ev->seen_by));
        fprintf(out, "<text font-size=\"%d\">", size);
        wrapped(out, line, x + 34, ly[i], size, cols - 3, 5);
        fputs("</text></g>\n", out);
        int nlines = (int)strlen(line) / (cols - 3) + 1;
        ly[i] += (nlines > 5 ? 5 : nlines) * size * 1.2 + size * 0.8;
    }
    fputs("</g>\n", out);
}

void export_path_svg(FILE *out, const struct db_report_session *s, int y) {
    struct probe_path *p = malloc(sizeof *p);
    const struct db_report_question *q;
    for (int t = 0; p && t < ntests(s); t++) {
        if (!test_path(s, t, p, &q)) continue;
        char test[EXPORT_TEST_SUMMARY_MAX];
        export_test_summary(q->spec_json, test, sizeof test);
        svg_one(out, p, t, test, y);
        y += EXPORT_PATH_SVG_H;
    }
    free(p);
}
