/* The league of rooms and the reference line (see league.h). */
#include "league.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void league_line_msg(double collective, struct fv_msg *m) {
    memset(m, 0, sizeof *m);
    if (collective < 0) return;
    char pct[16];
    snprintf(pct, sizeof pct, "%.0f", collective * 100);
    fv_msg_set(m, "league.line", "score=%s", pct);
}

void league_line(double collective, char *buf, size_t len) {
    struct fv_msg m;
    league_line_msg(collective, &m);
    fv_msg_text(&m, buf, len);
}
