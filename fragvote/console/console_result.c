/* The console's result line from a hub in this process (console.h:
 * console_status_result): what the room revealed, scored by score/'s rule,
 * the same numbers the screen shows (hub_msg.c:reveal_json). */
#include <stdio.h>

#include "console.h"
#include "score.h"

void console_status_result(struct console_status *st) {
    const struct hub_status *h = &st->hub;
    st->revealed = 0;
    if (h->ended || h->current.state != QUIZ_REVEALED || !h->truth[0]) return;
    int yes = h->current.yes, no = h->current.no;
    enum score_truth truth = score_truth_parse(h->truth);
    snprintf(st->truth, sizeof st->truth, "%s", h->truth);
    snprintf(st->basis, sizeof st->basis, "%s", h->basis);
    snprintf(st->why, sizeof st->why, "%s", h->why);
    snprintf(st->explain, sizeof st->explain, "%s", h->explain);
    snprintf(st->surprise, sizeof st->surprise, "%s", h->surprise);
    snprintf(st->majority, sizeof st->majority, "%s", score_majority_name(score_majority(yes, no)));
    st->correct = score_correct(yes, no, truth);
    st->correct_votes = score_correct_votes(yes, no, truth);
    st->revealed = 1;
}
