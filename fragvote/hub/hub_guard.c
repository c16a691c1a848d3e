/* Per-source-address throttles (see hub_guard.h). lws thread only. */
#include "hub_guard.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "hub.h"

struct hub_guard_entry {
    unsigned char addr[16];
    long long t;                       /* ms of the last event; 0: free */
    double tokens;                     /* HTTP: tokens left at t */
};

struct hub_guard {
    uint64_t key[2];                   /* random: the set hash's key */
    double http_rate, http_burst;      /* per address; rate 0: no HTTP cap */
    double voter_rate, voter_burst;    /* new voters per address; rate 0: no cap */
    double room_tokens;                /* room-wide ceiling on compared wrong secrets */
    long long room_ms;
    struct hub_guard_entry secret[HUB_GUARD_SECRET_SETS * HUB_GUARD_WAYS];
    struct hub_guard_entry http[HUB_GUARD_HTTP_SETS * HUB_GUARD_WAYS];
    struct hub_guard_entry voter[HUB_GUARD_VOTER_SETS * HUB_GUARD_WAYS];
    struct hub_guard_entry resume[HUB_GUARD_RESUME_SETS * HUB_GUARD_WAYS];
};

_Static_assert(HUB_HTTP_BURST == 5 * HUB_HTTP_RATE, "hub_guard_rates makes the HTTP burst 5x the rate");

struct hub_guard *hub_guard_new(void) {
    struct hub_guard *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    if (getrandom(g->key, sizeof g->key, 0) != (ssize_t)sizeof g->key) {
        free(g);
        return NULL;
    }
    g->room_tokens = HUB_SECRET_ROOM_RATE;
    g->voter_burst = HUB_VOTER_BURST;
    hub_guard_rates(g, HUB_HTTP_RATE, HUB_VOTER_RATE); /* the HTTP burst: 5x, HUB_HTTP_BURST */
    return g;
}

void hub_guard_free(struct hub_guard *g) { free(g); }

void hub_guard_rates(struct hub_guard *g, double http_rate, double voter_rate) {
    if (http_rate >= 0) {
        g->http_rate = http_rate;
        g->http_burst = 5.0 * http_rate;
    }
    if (voter_rate >= 0) g->voter_rate = voter_rate;
}

/* An address as 16 bytes (IPv4 mapped into IPv6); -1 for other families. */
static int addr16(const struct sockaddr_storage *ss, unsigned char out[16]) {
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &s4->sin_addr, 4);
        return 0;
    }
    if (ss->ss_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
        return 0;
    }
    return -1;
}

int hub_guard_peer(int fd, struct hub_peer *out) {
    struct sockaddr_storage peer, local;
    socklen_t pl = sizeof peer, ll = sizeof local;
    unsigned char mine[16];
    memset(out, 0, sizeof *out);
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&peer, &pl) || addr16(&peer, out->addr)) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&local, &ll) == 0 && addr16(&local, mine) == 0)
        out->self = memcmp(mine, out->addr, sizeof mine) == 0;
    return 0;
}

/* splitmix64's finalizer. With the random key it spreads addresses over the
 * sets unpredictably; it is not a MAC, it only has to make aiming at one
 * set a blind guess. */
static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* addr's entry in table (sets x HUB_GUARD_WAYS), or NULL with *victim set
 * to the entry to reuse for it: a free one, else the stalest of the set,
 * and of equally stale ones the fullest bucket (a bucket at its burst is as
 * good as none: dropping it loses nothing, while an emptied one -- a /48
 * minting, touched in the same millisecond as its fresh /64s -- must stay). */
static struct hub_guard_entry *find(const struct hub_guard *g, struct hub_guard_entry *table, unsigned sets,
                                    const unsigned char addr[16], struct hub_guard_entry **victim) {
    uint64_t lo, hi;
    memcpy(&lo, addr, 8);
    memcpy(&hi, addr + 8, 8);
    struct hub_guard_entry *set = table + (mix(mix(lo ^ g->key[0]) ^ hi ^ g->key[1]) % sets) * HUB_GUARD_WAYS;
    struct hub_guard_entry *old = &set[0];
    for (int i = 0; i < HUB_GUARD_WAYS; i++) {
        if (set[i].t && !memcmp(set[i].addr, addr, 16)) return &set[i];
        if (old->t && (!set[i].t || set[i].t < old->t || (set[i].t == old->t && set[i].tokens > old->tokens)))
            old = &set[i];
    }
    *victim = old;
    return NULL;
}

static struct hub_guard_entry *find_or_take(const struct hub_guard *g, struct hub_guard_entry *table, unsigned sets,
                                            const unsigned char addr[16], int *fresh) {
    struct hub_guard_entry *v, *e = find(g, table, sets, addr, &v);
    *fresh = !e;
    if (e) return e;
    memcpy(v->addr, addr, 16);
    return v;
}

static void room_refill(struct hub_guard *g, long long now) {
    g->room_tokens += (double)(now - g->room_ms) * HUB_SECRET_ROOM_RATE / 1000.0;
    if (g->room_tokens > HUB_SECRET_ROOM_RATE) g->room_tokens = HUB_SECRET_ROOM_RATE;
    g->room_ms = now;
}

int hub_peer_is_v4(const unsigned char addr[16]) {
    static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return !memcmp(addr, v4mapped, sizeof v4mapped);
}

void hub_peer_net_key(const unsigned char addr[16], int plen, unsigned char key[16]) {
    memset(key, 0, 16);
    memcpy(key, addr, (size_t)plen / 8);
    key[15] = (unsigned char)plen;
}


/* p's /64 as a key of the secret table when p is IPv6 (0), else -1: one
 * host may hold a whole /64, so its guesses count there too. */
static int secret_net(const struct hub_peer *p, unsigned char key[16]) {
    if (hub_peer_is_v4(p->addr)) return -1;
    hub_peer_net_key(p->addr, 64, key);
    return 0;
}

int hub_guard_secret_throttled(struct hub_guard *g, const struct hub_peer *p, long long now, int long_attempt) {
    struct hub_guard_entry *v, *e = find(g, g->secret, HUB_GUARD_SECRET_SETS, p->addr, &v);
    if (e && now - e->t < HUB_SECRET_DELAY_MS) return 1;
    unsigned char net[16];
    if (!p->self && !secret_net(p, net) && (e = find(g, g->secret, HUB_GUARD_SECRET_SETS, net, &v)) &&
        now - e->t < HUB_SECRET_DELAY_MS)
        return 1;
    if (p->self || long_attempt) return 0;
    room_refill(g, now);
    return g->room_tokens < 1;
}

void hub_guard_secret_failed(struct hub_guard *g, const struct hub_peer *p, long long now, int long_attempt) {
    int fresh;
    struct hub_guard_entry *e = find_or_take(g, g->secret, HUB_GUARD_SECRET_SETS, p->addr, &fresh);
    e->t = now > 0 ? now : 1;
    if (p->self) return;
    unsigned char net[16];
    if (!secret_net(p, net)) {
        e = find_or_take(g, g->secret, HUB_GUARD_SECRET_SETS, net, &fresh);
        e->t = now > 0 ? now : 1;
    }
    if (long_attempt) return;
    room_refill(g, now);
    if (g->room_tokens >= 1) g->room_tokens -= 1; /* callers asked first; never below 0 */
    else g->room_tokens = 0;
}

/* addr's bucket in table, refilled to now (a new one full). */
static struct hub_guard_entry *bucket_refill(struct hub_guard *g, struct hub_guard_entry *table, unsigned sets,
                                             const unsigned char addr[16], double rate, double burst, long long now) {
    int fresh;
    struct hub_guard_entry *e = find_or_take(g, table, sets, addr, &fresh);
    if (fresh) e->tokens = burst;
    else e->tokens += (double)(now - e->t) * rate / 1000.0;
    if (e->tokens > burst) e->tokens = burst;
    e->t = now > 0 ? now : 1;
    return e;
}

/* One token from addr's bucket in table; 0, or -1 when it is empty. */
static int bucket_take(struct hub_guard *g, struct hub_guard_entry *table, unsigned sets, const unsigned char addr[16],
                       double rate, double burst, long long now) {
    struct hub_guard_entry *e = bucket_refill(g, table, sets, addr, rate, burst, now);
    if (e->tokens < 1) return -1;
    e->tokens -= 1;
    return 0;
}

int hub_guard_http_take(struct hub_guard *g, const struct hub_peer *p, long long now) {
    if (p->self || g->http_rate <= 0) return 0;
    return bucket_take(g, g->http, HUB_GUARD_HTTP_SETS, p->addr, g->http_rate, g->http_burst, now);
}

int hub_guard_voter_take(struct hub_guard *g, const struct hub_peer *p, long long now, int reserve) {
    if (p->self || g->voter_rate <= 0) return 0;
    /* IPv4: the address's bucket. IPv6: one host may hold a /64, one
     * customer a /56 or a /48: its /64, /56 and /48 must each still have a
     * token (nested buckets), so a /48's 65,536 /64s mint no more than one
     * /64 (issue 36, item 5). */
    static const int plens[3] = {64, 56, 48};
    int nb = hub_peer_is_v4(p->addr) ? 1 : 3;
    struct hub_guard_entry *e[3];
    for (int i = 0; i < nb; i++) {
        unsigned char key[16];
        if (nb == 1) memcpy(key, p->addr, 16);
        else hub_peer_net_key(p->addr, plens[i], key);
        e[i] = bucket_refill(g, g->voter, HUB_GUARD_VOTER_SETS, key, g->voter_rate, g->voter_burst, now);
    }
    /* In the room's reserve only a network that made fewer than
     * HUB_VOTER_RESERVE_PER_NET voters lately may add one. */
    double floor = reserve ? g->voter_burst - HUB_VOTER_RESERVE_PER_NET + 1 : 1;
    if (floor < 1) floor = 1;
    for (int i = 0; i < nb; i++)
        if (e[i]->tokens < floor) return -1;
    for (int i = 0; i < nb; i++) e[i]->tokens -= 1;
    return 0;
}

int hub_guard_resume_take(struct hub_guard *g, const char *token, long long now) {
    unsigned char key[16] = {0};
    memcpy(key, token, strnlen(token, sizeof key));
    return bucket_take(g, g->resume, HUB_GUARD_RESUME_SETS, key, HUB_RESUME_RATE, HUB_RESUME_BURST, now);
}
