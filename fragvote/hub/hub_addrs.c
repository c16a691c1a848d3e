/* Open audience websockets per source address (hub_addrs.h). */
#include "hub_addrs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "hub_guard.h"

static void key_of(const struct hub_peer *p, unsigned char key[16]) {
    if (hub_peer_is_v4(p->addr)) memcpy(key, p->addr, 16);
    else hub_peer_net_key(p->addr, 64, key); /* IPv6: its /64 */
}

static unsigned slot_of(const struct hub_addrs *a, const unsigned char key[16]) {
    uint64_t h = a->hkey[0], w[2];
    memcpy(w, key, 16);
    for (int i = 0; i < 2; i++) {
        h ^= w[i] + a->hkey[1] + (h << 6) + (h >> 2);
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return (unsigned)h & a->mask;
}

int hub_addrs_init(struct hub_addrs *a, int max_conns, int per_addr) {
    memset(a, 0, sizeof *a);
    unsigned n = 64;
    while (n < 2u * (unsigned)(max_conns > 0 ? max_conns : 1) && n < (1u << 24)) n <<= 1;
    if (getrandom(a->hkey, sizeof a->hkey, 0) != (ssize_t)sizeof a->hkey) return -1;
    a->slot = calloc(n, sizeof *a->slot);
    if (!a->slot) return -1;
    a->mask = n - 1;
    a->per_addr = per_addr;
    return 0;
}

void hub_addrs_free(struct hub_addrs *a) {
    free(a->slot);
    a->slot = NULL;
}

/* p's slot, or the free one where it would go (linear probing; the table
 * is never more than half full). */
static struct hub_addr_slot *find(const struct hub_addrs *a, const unsigned char key[16]) {
    for (unsigned i = slot_of(a, key);; i = (i + 1) & a->mask) {
        struct hub_addr_slot *s = &a->slot[i];
        if (!s->n || !memcmp(s->key, key, 16)) return s;
    }
}

int hub_addrs_count(const struct hub_addrs *a, const struct hub_peer *p) {
    unsigned char key[16];
    key_of(p, key);
    return a->slot ? find(a, key)->n : 0;
}

int hub_addrs_take(struct hub_addrs *a, const struct hub_peer *p) {
    if (!a->slot) return 0;
    unsigned char key[16];
    key_of(p, key);
    struct hub_addr_slot *s = find(a, key);
    if (!p->self && a->per_addr > 0 && s->n >= a->per_addr) return -1;
    memcpy(s->key, key, 16);
    s->n++;
    return 0;
}

void hub_addrs_put(struct hub_addrs *a, const struct hub_peer *p) {
    if (!a->slot) return;
    unsigned char key[16];
    key_of(p, key);
    struct hub_addr_slot *s = find(a, key);
    if (!s->n || --s->n) return;
    /* freed: shift back the entries of the probe run behind it (no tombstones) */
    unsigned hole = (unsigned)(s - a->slot);
    for (unsigned j = (hole + 1) & a->mask; a->slot[j].n; j = (j + 1) & a->mask) {
        unsigned home = slot_of(a, a->slot[j].key);
        /* j's entry may move to the hole when its home is not in (hole, j] cyclically */
        if (((j - home) & a->mask) >= ((j - hole) & a->mask)) {
            a->slot[hole] = a->slot[j];
            a->slot[j].n = 0;
            hole = j;
        }
    }
}
