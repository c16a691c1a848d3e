/* The console screen and the terminal QR code (see console.h). */
#include <qrencode.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "revote.h"

const char *console_keys_help(void) {
    return "keys: [o]pen [t]imed open [c]lose re-[v]ote [m]easure [r]eveal [w]hy [n]ext/space r[e]-run [s]kip "
           "[a]nswer w/o vote [b]ack [f]inish [p]resenter secret [q]uit  (? help)";
}

/* The keys as letters only, beside the QR code at 80x24 (the full line
 * wrapped to four rows there and pushed the QR code off a revealed frame). */
static const char *keys_short(void) { return "keys: o t c v m r w n e s a b f p q  (? help)"; }

#define QR_QUIET 2 /* modules of quiet zone around the code */

/* ---- the QR code as rows of text ---- */

/* Light module at (x, y)? Outside the symbol (the quiet zone) is light. */
static int qr_light(const QRcode *qr, int x, int y) {
    if (x < 0 || y < 0 || x >= qr->width || y >= qr->width) return 1;
    return !(qr->data[y * qr->width + x] & 1);
}

/* The rows of text that draw the QR code of text: *rows gets nrows strings
 * of stride bytes each (malloc'd, the caller frees), each `*cols` cells wide. */
struct qr_text {
    char *rows;
    int nrows, cols;
    size_t stride;
};

static int qr_text_make(const char *text, struct qr_text *out, char *err, size_t errlen) {
    QRcode *qr = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
    if (!qr) {
        snprintf(err, errlen, "cannot encode the join URL as a QR code (%zu bytes)", strlen(text));
        return -1;
    }
    /* Terminal text is light on dark: draw light modules, leave dark ones
     * blank. One character cell holds two rows of modules. */
    static const char *const cell[4] = {" ", "\xe2\x96\x84", "\xe2\x96\x80", "\xe2\x96\x88"}; /* none, lower, upper, both */
    int side = qr->width + 2 * QR_QUIET;
    out->cols = side;
    out->nrows = (side + 1) / 2;
    out->stride = (size_t)side * 3 + 1;
    out->rows = calloc((size_t)out->nrows, out->stride);
    if (!out->rows) {
        QRcode_free(qr);
        snprintf(err, errlen, "out of memory drawing the QR code");
        return -1;
    }
    for (int r = 0; r < out->nrows; r++) {
        int y = -QR_QUIET + 2 * r;
        char *p = out->rows + (size_t)r * out->stride;
        for (int x = -QR_QUIET; x < qr->width + QR_QUIET; x++) {
            int top = qr_light(qr, x, y);
            int bottom = y + 1 < qr->width + QR_QUIET ? qr_light(qr, x, y + 1) : 0;
            const char *c = cell[top * 2 + bottom];
            size_t n = strlen(c);
            memcpy(p, c, n);
            p += n;
        }
    }
    QRcode_free(qr);
    return 0;
}

int console_qr_draw(FILE *out, const char *text, char *err, size_t errlen) {
    struct qr_text q;
    if (qr_text_make(text, &q, err, errlen) < 0) return -1;
    for (int r = 0; r < q.nrows; r++) fprintf(out, "%s\n", q.rows + (size_t)r * q.stride);
    free(q.rows);
    return 0;
}

/* ---- lines of text ---- */

#define CR_ROWS 48     /* lines a frame part may hold */
#define CR_BYTES 800   /* bytes of one line: "The rules: " and a chain (PROBE_PREDICT_TEXT_MAX) */

struct cr_text {
    char line[CR_ROWS][CR_BYTES];
    int n;
};

static void cr_add(struct cr_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cr_add(struct cr_text *t, const char *fmt, ...) {
    if (t->n >= CR_ROWS) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->line[t->n++], CR_BYTES, fmt, ap);
    va_end(ap);
}

/* Display cells of UTF-8 text (one per code point: no wide characters here). */
static int cells(const char *s, size_t len) {
    int n = 0;
    for (size_t i = 0; i < len && s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) n++;
    return n;
}

/* Bytes of s that fill at most w cells. */
static size_t fit_bytes(const char *s, int w) {
    size_t i = 0;
    int n = 0;
    while (s[i]) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (n == w) break;
            n++;
        }
        i++;
    }
    return i;
}

/* Appends s to t wrapped at spaces to w cells; continuation lines keep s's
 * indentation. A word longer than w is cut. */
static void cr_wrap(struct cr_text *t, const char *s, int w) {
    size_t indent = strspn(s, " ");
    if ((int)indent >= w / 2) indent = 0;
    const char *p = s;
    int first = 1;
    while (t->n < CR_ROWS) {
        size_t pre = first ? 0 : indent;
        int room = w - (int)pre;
        size_t len = strlen(p);
        size_t take = len;
        if (cells(p, len) > room) {
            take = fit_bytes(p, room);
            size_t sp = take;
            while (sp > 0 && p[sp] != ' ') sp--;
            if (sp > 0) take = sp;
        }
        snprintf(t->line[t->n++], CR_BYTES, "%*s%.*s", (int)pre, "", (int)take, p);
        p += take;
        while (*p == ' ') p++;
        if (!*p) break;
        first = 0;
    }
}

/* ---- the frame ---- */

int console_page_url(const char *join_url, const char *page, char *out, size_t outlen) {
    const char *q = strchr(join_url, '?');
    size_t base = q ? (size_t)(q - join_url) : strlen(join_url);
    const char *slash = base > 0 && join_url[base - 1] == '/' ? "" : "/";
    int n = snprintf(out, outlen, "%.*s%s%s", (int)base, join_url, slash, page);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

void console_render_secret(FILE *out, const struct console_view *v) {
    fprintf(out, "Presenter secret: %s\n", v->secret ? v->secret : "");
    if (v->presenter_url) fprintf(out, "Presenter: %s#secret=%s\n", v->presenter_url, v->secret ? v->secret : "");
}

static void head_lines(struct cr_text *t, const struct console_view *v) {
    int tty = v->cols > 0;
    cr_add(t, "fragvote \xc2\xb7 %s", v->title ? v->title : "");
    cr_add(t, "Join: %s", v->join_url ? v->join_url : "");
    if (v->show_secret)
        cr_add(t, "Room: %s   Presenter secret: %s   Target: %s", v->room_code ? v->room_code : "",
               v->secret ? v->secret : "", v->target ? v->target : "");
    else
        cr_add(t, "Room: %s   Target: %s", v->room_code ? v->room_code : "", v->target ? v->target : "");
    if (v->screen_url) cr_add(t, "Projector: %s", v->screen_url);
    if (v->presenter_url) {
        if (v->show_secret)
            cr_add(t, "Presenter: %s#secret=%s", v->presenter_url, v->secret ? v->secret : "");
        else
            cr_add(t, "Presenter: %s   (secret hidden: %s)", v->presenter_url, tty ? "press p" : "type 'secret'");
    }
}

/* A terminal shorter than this shows no "The rules:" line (the projector and
 * the log do): beside the QR code at 80x24 the frame has no row to spare. */
#define CR_RULES_MIN_ROWS 30

static void body_lines(struct cr_text *t, const struct console_view *v, const struct console_status *st) {
    const struct hub_status *h = &st->hub;
    const struct quiz_qinfo *q = &h->current;
    char line[CR_BYTES];
    if (st->link[0]) cr_add(t, "Hub: %s", st->link);
    if (h->ended) {
        cr_add(t, "The quiz has ended (%d questions).", h->nquestions);
        /* the short link to the phones' self-paced replay (docs/SERVE.md "After the talk") */
        if (v->join_url && !console_page_url(v->join_url, "r", line, sizeof line))
            cr_add(t, "Phones play it again at %s", line);
    } else {
        cr_add(t, "Question %d/%d   [%s]", h->cursor + 1, h->nquestions, q->summary);
        cr_add(t, "  %s", q->text);
        int n = snprintf(line, sizeof line, "State: %s%s", quiz_state_name(q->state), q->round == 2 ? " (round 2: re-vote)" : "");
        if (h->closes_in_ms > 0 && n > 0 && (size_t)n < sizeof line) /* the seconds the room still has, as the phones count them */
            n += snprintf(line + n, sizeof line - (size_t)n, "   (closes in %lld s)", (h->closes_in_ms + 999) / 1000);
        if (q->measuring && n > 0 && (size_t)n < sizeof line) snprintf(line + n, sizeof line - (size_t)n, "   (probe running...)");
        cr_add(t, "%s", line);
        /* While voting the console shows only the count: a mirrored laptop
         * screen must not bias the room with the split. */
        if (q->state == QUIZ_PENDING || q->state == QUIZ_VOTING)
            cr_add(t, "Votes: %d", q->yes + q->no);
        else
            cr_add(t, "Votes: %d (yes %d / no %d)", q->yes + q->no, q->yes, q->no);
        if (st->revealed) {
            int total = q->yes + q->no;
            n = snprintf(line, sizeof line, "Truth: %s   Majority: %s%s", st->truth, st->majority[0] ? st->majority : "-",
                         st->correct < 0 ? " (unscored)" : st->correct == 1 ? " (right)" : st->correct == 0 ? " (wrong)"
                                                                                                         : " (tie)");
            if (total > 0 && st->correct_votes >= 0 && n > 0 && (size_t)n < sizeof line)
                snprintf(line + n, sizeof line - (size_t)n, "   %d%% of votes right", st->correct_votes * 100 / total);
            cr_add(t, "%s", line);
            if (st->surprise[0]) cr_add(t, "%s", st->surprise);
            if (st->why[0]) cr_add(t, "Why: %s: %s", st->basis[0] ? st->basis : "?", st->why); /* "unknown: ..." too */
            if (st->explain[0] && (v->cols <= 0 || v->rows >= CR_RULES_MIN_ROWS)) cr_add(t, "The rules: %s", st->explain);
            char shift[REVOTE_SHIFT_MAX] = "";
            if (q->round == 2)
                revote_shift_line(q->first_yes, q->first_no, q->yes, q->no,
                                  !strcmp(st->truth, "yes") ? 1 : !strcmp(st->truth, "no") ? 0 : -1, shift,
                                  sizeof shift);
            if (shift[0]) cr_add(t, "Re-vote: %s", shift);
        }
    }
    cr_add(t, "Voters: %d   Phones connected: %d   Screens: %d   Presenters: %d", h->voters, h->connections, h->screens,
           h->presenters);
    /* A script minting voters: tokens far beyond the phones, or new voters refused by the per-address cap. */
    if (h->voters_refused || h->tokens_minted > HUB_MINT_WARN + 2ul * (unsigned long)(h->voters + h->newcomers))
        cr_add(t, "Suspicious minting: %lu tokens issued for %d voters + %d joined; %lu new voters refused (over %d/s per address)",
               h->tokens_minted, h->voters, h->newcomers, h->voters_refused, HUB_VOTER_RATE);
    /* A host filling the room, or another site's page opening websockets from its visitors' browsers. */
    if (h->conns_refused || h->conns_evicted || h->origin_refused || h->resumes_refused)
        cr_add(t, "Connections refused: %lu (an address's share taken, or the room full); %lu silent phones closed "
                  "to make room; %lu from other sites' pages; %lu reconnects of one phone too often",
               h->conns_refused, h->conns_evicted, h->origin_refused, h->resumes_refused);
    if (h->collective >= 0)
        cr_add(t, "Collective score so far: %.0f%%", h->collective * 100.0);
    else
        cr_add(t, "Collective score so far: -");
    if (h->last_warning[0]) cr_add(t, "Warning: %s", h->last_warning);
    if (h->last_error[0] && !v->hide_refused) cr_add(t, "Last refused: %s", h->last_error);
}

static void print_cut(FILE *out, const char *s, int w) {
    size_t take = fit_bytes(s, w);
    fprintf(out, "%.*s\n", (int)take, s);
}

void console_render(FILE *out, const struct console_view *v, const struct console_status *st) {
    struct cr_text head, body, lay; /* ~115 KB of stack, on the console's own thread */
    head.n = body.n = lay.n = 0;
    head_lines(&head, v);
    body_lines(&body, v, st);
    char err[128];
    if (v->cols <= 0) { /* a log: everything, one block after the other */
        for (int i = 0; i < head.n; i++) fprintf(out, "%s\n", head.line[i]);
        if (v->show_qr && v->join_url && v->join_url[0] && console_qr_draw(out, v->join_url, err, sizeof err) < 0)
            fprintf(out, "(%s)\n", err);
        fputc('\n', out);
        for (int i = 0; i < body.n; i++) fprintf(out, "%s\n", body.line[i]);
        fprintf(out, "%s\n", console_keys_help());
        return;
    }
    /* A terminal: the frame fits cols x rows. The last column stays empty
     * (a character there makes some terminals wrap), the last row holds the cursor. */
    int width = v->cols - 1, height = v->rows > 0 ? v->rows - 1 : CR_ROWS;
    struct qr_text qr = {0};
    int have_qr = v->show_qr && v->join_url && v->join_url[0] && qr_text_make(v->join_url, &qr, err, sizeof err) == 0;
    int side = have_qr ? width - qr.cols - 2 : 0;
    if (have_qr && side >= 30) {
        for (int i = 0; i < body.n; i++) cr_wrap(&lay, body.line[i], side);
        cr_wrap(&lay, keys_short(), side);
        int tall = lay.n > qr.nrows ? lay.n : qr.nrows;
        if (head.n + tall <= height) { /* the QR code on the left, the question beside it */
            for (int i = 0; i < head.n; i++) print_cut(out, head.line[i], width);
            for (int r = 0; r < tall; r++) {
                if (r < qr.nrows)
                    fputs(qr.rows + (size_t)r * qr.stride, out);
                else
                    fprintf(out, "%*s", qr.cols, "");
                fprintf(out, "  %s\n", r < lay.n ? lay.line[r] : "");
            }
            free(qr.rows);
            return;
        }
    }
    free(qr.rows);
    /* Too small for the QR code beside the question: no QR code (the
     * projector shows it), and everything else still on one screen. */
    lay.n = 0;
    if (v->show_qr) cr_wrap(&lay, "(QR code for phones: on the projector; a terminal of 80x24 shows it here too)", width);
    for (int i = 0; i < body.n; i++) cr_wrap(&lay, body.line[i], width);
    cr_wrap(&lay, console_keys_help(), width);
    for (int i = 0; i < head.n; i++) print_cut(out, head.line[i], width);
    for (int i = 0; i < lay.n && head.n + i < height; i++) fprintf(out, "%s\n", lay.line[i]);
}

void console_render_line(FILE *out, const struct console_status *st) {
    const struct hub_status *h = &st->hub;
    if (st->link[0]) fprintf(out, "status: hub: %s\n", st->link);
    if (h->ended)
        fprintf(out, "status: the quiz has ended, %d voters\n", h->voters);
    else
        fprintf(out, "status: question %d/%d %s%s, %d vote%s, %d voter%s (%d online)\n", h->cursor + 1, h->nquestions,
                quiz_state_name(h->current.state), h->current.measuring ? " (probe running)" : "",
                h->current.yes + h->current.no, h->current.yes + h->current.no == 1 ? "" : "s", h->voters,
                h->voters == 1 ? "" : "s", h->connections);
}
