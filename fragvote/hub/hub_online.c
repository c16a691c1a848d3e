/* A counting set of tokens, and the voters online (see hub_online.h). */
#include "hub_online.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The token's random id (its first 16 hex digits) spread over the slots:
 * tokens come from the server (room_token_issued), so nobody picks them. */
static unsigned slot_of(const struct hub_online *s, const char *token) {
    uint64_t x = 0;
    for (int i = 0; i < 16 && token[i]; i++)
        x = x << 4 | (uint64_t)(token[i] <= '9' ? token[i] - '0' : token[i] - 'a' + 10);
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    return (unsigned)(x >> 32) & (s->cap - 1);
}

static struct hub_online_slot *find(const struct hub_online *s, const char *token) {
    if (!s->cap) return NULL;
    for (unsigned i = slot_of(s, token);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slots[i].token[0]) return NULL;
        if (!strcmp(s->slots[i].token, token)) return &s->slots[i];
    }
}

static void put(struct hub_online *s, const struct hub_online_slot *e) {
    unsigned i = slot_of(s, e->token);
    while (s->slots[i].token[0]) i = (i + 1) & (s->cap - 1);
    s->slots[i] = *e;
}

static int grow(struct hub_online *s) {
    unsigned cap = s->cap ? s->cap * 2 : 256;
    struct hub_online_slot *old = s->slots, *n = calloc(cap, sizeof *n);
    if (!n) return -1;
    unsigned oldcap = s->cap;
    s->slots = n;
    s->cap = cap;
    for (unsigned i = 0; i < oldcap; i++)
        if (old[i].token[0]) put(s, &old[i]);
    free(old);
    return 0;
}

int hub_online_add(struct hub_online *s, const char *token) {
    struct hub_online_slot *e = find(s, token);
    if (e) {
        e->conns++;
        return 0;
    }
    if ((s->used + 1) * 2 > s->cap && grow(s)) return -1; /* at most half full: short probes */
    struct hub_online_slot n = {.conns = 1};
    snprintf(n.token, sizeof n.token, "%s", token);
    put(s, &n);
    s->used++;
    return 1;
}

int hub_online_remove(struct hub_online *s, const char *token) {
    struct hub_online_slot *e = find(s, token);
    if (!e) return -1;
    if (--e->conns) return 0;
    /* Backward-shift deletion: pull up every later entry of the probe run
     * that may sit in the hole, so lookups need no tombstones. */
    unsigned hole = (unsigned)(e - s->slots), mask = s->cap - 1;
    s->slots[hole].token[0] = 0;
    for (unsigned i = (hole + 1) & mask; s->slots[i].token[0]; i = (i + 1) & mask) {
        unsigned home = slot_of(s, s->slots[i].token);
        /* the entry may move to the hole if its home is not in (hole, i] */
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            s->slots[hole] = s->slots[i];
            s->slots[i].token[0] = 0;
            hole = i;
        }
    }
    s->used--;
    return 1;
}

void hub_online_free(struct hub_online *s) {
    free(s->slots);
    s->slots = NULL;
    s->cap = s->used = 0;
}

int hub_voters_add(struct hub_voters *s, int v) {
    if (v >= s->cap) {
        int cap = s->cap ? s->cap : 1024;
        while (cap <= v) cap *= 2;
        unsigned short *n = realloc(s->conns, sizeof *n * (size_t)cap);
        if (!n) return -1;
        memset(n + s->cap, 0, sizeof *n * (size_t)(cap - s->cap));
        s->conns = n;
        s->cap = cap;
    }
    if (s->conns[v]++ == 0) s->joined++;
    return 0;
}

void hub_voters_remove(struct hub_voters *s, int v) {
    if (--s->conns[v] == 0) s->joined--;
}

void hub_voters_free(struct hub_voters *s) {
    free(s->conns);
    memset(s, 0, sizeof *s);
}
