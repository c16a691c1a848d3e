/* The console screen and the terminal QR code (see console.h). */
#include <qrencode.h>
#include <string.h>

#include "console.h"
#include "revote.h"

const char *console_keys_help(void) {
    return "keys: [o]pen [t]imed open [c]lose re-[v]ote [m]easure [r]eveal [n]ext/space r[e]-run [s]kip [b]ack "
           "[q]uit  (? help)";
}

#define QR_QUIET 2 /* modules of quiet zone around the code */

/* Light module at (x, y)? Outside the symbol (the quiet zone) is light. */
static int qr_light(const QRcode *qr, int x, int y) {
    if (x < 0 || y < 0 || x >= qr->width || y >= qr->width) return 1;
    return !(qr->data[y * qr->width + x] & 1);
}

int console_qr_draw(FILE *out, const char *text, char *err, size_t errlen) {
    QRcode *qr = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
    if (!qr) {
        snprintf(err, errlen, "cannot encode the join URL as a QR code (%zu bytes)", strlen(text));
        return -1;
    }
    /* Terminal text is light on dark: draw light modules, leave dark ones
     * blank. One character cell holds two rows of modules. */
    static const char *const cell[4] = {" ", "\xe2\x96\x84", "\xe2\x96\x80", "\xe2\x96\x88"}; /* none, lower, upper, both */
    for (int y = -QR_QUIET; y < qr->width + QR_QUIET; y += 2) {
        for (int x = -QR_QUIET; x < qr->width + QR_QUIET; x++) {
            int top = qr_light(qr, x, y);
            int bottom = y + 1 < qr->width + QR_QUIET ? qr_light(qr, x, y + 1) : 0;
            fputs(cell[top * 2 + bottom], out);
        }
        fputc('\n', out);
    }
    QRcode_free(qr);
    return 0;
}

void console_render(FILE *out, const struct console_view *v, const struct console_status *st) {
    const struct hub_status *h = &st->hub;
    const struct quiz_qinfo *q = &h->current;
    fprintf(out, "fragvote \xc2\xb7 %s\n", v->title ? v->title : "");
    fprintf(out, "Join: %s\n", v->join_url ? v->join_url : "");
    fprintf(out, "Room: %s   Presenter secret: %s   Target: %s\n", v->room_code ? v->room_code : "",
            v->secret ? v->secret : "", v->target ? v->target : "");
    if (v->show_qr && v->join_url && v->join_url[0]) {
        char err[128];
        if (console_qr_draw(out, v->join_url, err, sizeof err) < 0) fprintf(out, "(%s)\n", err);
    }
    fputc('\n', out);
    if (h->ended) {
        fprintf(out, "The quiz has ended (%d questions).\n", h->nquestions);
    } else {
        fprintf(out, "Question %d/%d   [%s]\n", h->cursor + 1, h->nquestions, q->summary);
        fprintf(out, "  %s\n", q->text);
        fprintf(out, "State: %s%s", quiz_state_name(q->state), q->round == 2 ? " (round 2: re-vote)" : "");
        if (h->closes_in_ms > 0) /* the seconds the room still has, as the phones count them */
            fprintf(out, "   (closes in %lld s)", (h->closes_in_ms + 999) / 1000);
        fprintf(out, "%s\n", q->measuring ? "   (probe running...)" : "");
        /* While voting the console shows only the count: a mirrored laptop
         * screen must not bias the room with the split. */
        if (q->state == QUIZ_PENDING || q->state == QUIZ_VOTING)
            fprintf(out, "Votes: %d\n", q->yes + q->no);
        else
            fprintf(out, "Votes: %d (yes %d / no %d)\n", q->yes + q->no, q->yes, q->no);
        if (st->revealed) {
            int total = q->yes + q->no;
            fprintf(out, "Truth: %s   Majority: %s%s", st->truth, st->majority[0] ? st->majority : "-",
                    st->correct < 0 ? " (unscored)" : st->correct == 1 ? " (right)" : st->correct == 0 ? " (wrong)"
                                                                                                     : " (tie)");
            if (total > 0 && st->correct_votes >= 0)
                fprintf(out, "   %d%% of votes right", st->correct_votes * 100 / total);
            fputc('\n', out);
            char shift[REVOTE_SHIFT_MAX] = "";
            if (q->round == 2)
                revote_shift_line(q->first_yes, q->first_no, q->yes, q->no,
                                  !strcmp(st->truth, "yes") ? 1 : !strcmp(st->truth, "no") ? 0 : -1, shift,
                                  sizeof shift);
            if (shift[0]) fprintf(out, "Re-vote: %s\n", shift);
        }
    }
    fprintf(out, "Voters: %d   Phones connected: %d   Screens: %d   Presenters: %d\n", h->voters, h->connections,
            h->screens, h->presenters);
    if (h->collective >= 0)
        fprintf(out, "Collective score so far: %.0f%%\n", h->collective * 100.0);
    else
        fprintf(out, "Collective score so far: -\n");
    if (h->last_error[0]) fprintf(out, "Last refused: %s\n", h->last_error);
    fprintf(out, "%s\n", console_keys_help());
}
