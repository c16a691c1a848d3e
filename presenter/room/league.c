/* The league of rooms and the reference line (see league.h). */
#include "league.h"

#include <stdio.h>
#include <stdlib.h>

int league_is_room(double collective, int voters) { return collective >= 0 && voters >= LEAGUE_MIN_VOTERS; }

static int by_rank(const void *pa, const void *pb) {
    const struct league_entry *a = pa, *b = pb;
    if (a->collective != b->collective) return a->collective > b->collective ? -1 : 1;
    if (a->scored != b->scored) return a->scored > b->scored ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

int league_rank(struct league_entry *e, int n) {
    if (n > 0) qsort(e, (size_t)n, sizeof *e, by_rank);
    int ref = 0;
    while (ref < n && e[ref].collective >= LEAGUE_REF_BELOW) ref++;
    return ref;
}

void league_line(double collective, char *buf, size_t len) {
    if (!len) return;
    if (collective < 0) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "This room: %.0f %% \xe2\x80\x94 %s: %s", collective * 100, LEAGUE_REF_NAME, LEAGUE_REF_SCORE);
}
