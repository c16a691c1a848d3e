/* The nickname leaderboard (see leaderboard.h). */
#include "leaderboard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct leaderboard {
    char (*nick)[LEADERBOARD_NICK_MAX + 1]; /* per voter index; "" none */
    unsigned char *sets;                    /* changes per voter */
    int cap;
};

/* Length of the valid UTF-8 sequence at p (1..4) and its code point, or 0. */
static int utf8_seq(const unsigned char *p, unsigned *cp) {
    if (p[0] < 0x80) return *cp = p[0], 1;
    int n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : 0;
    if (!n) return 0;
    unsigned c = p[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        c = c << 6 | (p[i] & 0x3F);
    }
    static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return n;
}

/* Characters a nickname may not hold: controls (C0, DEL, C1), line and
 * paragraph separators, and the bidirectional/zero-width formatting marks
 * that could turn a projector's text around. */
static int refused(unsigned c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) ||
           (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF;
}

int leaderboard_nick_clean(const char *in, char *out, size_t outlen) {
    size_t cap = outlen ? outlen - 1 : 0, n = 0;
    if (cap > LEADERBOARD_NICK_MAX) cap = LEADERBOARD_NICK_MAX;
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    while (*p) {
        unsigned c;
        int len = utf8_seq(p, &c);
        if (!len) { p++; continue; }      /* invalid byte: dropped */
        if (refused(c) || (c == ' ' && n == 0)) { p += len; continue; }
        if (n + (size_t)len > cap) break; /* full: cut before this character */
        memcpy(out + n, p, (size_t)len);
        n += (size_t)len;
        p += len;
    }
    while (n > 0 && out[n - 1] == ' ') n--;
    if (outlen) out[n] = '\0';
    return n ? (int)n : -1;
}

struct leaderboard *leaderboard_new(void) { return calloc(1, sizeof(struct leaderboard)); }

void leaderboard_free(struct leaderboard *lb) {
    if (!lb) return;
    free(lb->nick);
    free(lb->sets);
    free(lb);
}

static int grow(struct leaderboard *lb, int voter) {
    if (voter < lb->cap) return 0;
    int cap = lb->cap ? lb->cap : 256;
    while (cap <= voter) cap *= 2;
    char(*nick)[LEADERBOARD_NICK_MAX + 1] = realloc(lb->nick, sizeof *nick * (size_t)cap);
    if (!nick) return -1;
    lb->nick = nick;
    unsigned char *sets = realloc(lb->sets, (size_t)cap);
    if (!sets) return -1;
    lb->sets = sets;
    memset(lb->nick + lb->cap, 0, sizeof *nick * (size_t)(cap - lb->cap));
    memset(lb->sets + lb->cap, 0, (size_t)(cap - lb->cap));
    lb->cap = cap;
    return 0;
}

int leaderboard_set(struct leaderboard *lb, int voter, const char *nick, char *out, char *err, size_t errlen) {
    if (voter < 0 || voter >= ROOM_VOTERS_MAX) return snprintf(err, errlen, "unknown voter"), -1;
    if (leaderboard_nick_clean(nick, out, LEADERBOARD_NICK_MAX + 1) < 0)
        return snprintf(err, errlen, "a nickname needs at least one visible character"), -1;
    if (grow(lb, voter)) return snprintf(err, errlen, "out of memory"), -1;
    if (lb->sets[voter] >= LEADERBOARD_NICK_SETS_MAX)
        return snprintf(err, errlen, "a nickname can be changed %d times", LEADERBOARD_NICK_SETS_MAX), -1;
    lb->sets[voter]++;
    memcpy(lb->nick[voter], out, LEADERBOARD_NICK_MAX + 1);
    return 0;
}

const char *leaderboard_nick(const struct leaderboard *lb, int voter) {
    return voter >= 0 && voter < lb->cap && lb->nick[voter][0] ? lb->nick[voter] : NULL;
}

/* Whether a ranks above b (voter indexes break ties: who joined first). */
static int above(const struct leaderboard_row *a, int ia, const struct leaderboard_row *b, int ib) {
    if (a->correct != b->correct) return a->correct > b->correct;
    if (a->scored - a->correct != b->scored - b->correct) return a->scored - a->correct < b->scored - b->correct;
    return ia < ib;
}

int leaderboard_top(const struct leaderboard *lb, const struct room *r, struct leaderboard_row *out) {
    int n = 0, idx[LEADERBOARD_TOP];
    for (int v = 0; v < lb->cap && v < room_voter_count(r); v++) {
        if (!lb->nick[v][0]) continue;
        struct leaderboard_row row;
        int answered;
        room_voter_score(r, v, &answered, &row.scored, &row.correct);
        memcpy(row.nick, lb->nick[v], sizeof row.nick);
        /* insertion into the sorted top list */
        int at = n;
        while (at > 0 && above(&row, v, &out[at - 1], idx[at - 1])) at--;
        if (at >= LEADERBOARD_TOP) continue;
        int last = n < LEADERBOARD_TOP ? n : LEADERBOARD_TOP - 1;
        for (int k = last; k > at; k--) {
            out[k] = out[k - 1];
            idx[k] = idx[k - 1];
        }
        out[at] = row;
        idx[at] = v;
        if (n < LEADERBOARD_TOP) n++;
    }
    return n;
}
