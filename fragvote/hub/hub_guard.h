/* Per-source-address throttles of the hub: the presenter secret (one wrong
 * guess per address per HUB_SECRET_DELAY_MS, and a room-wide ceiling), HTTP
 * requests and new voters (a token bucket per address each). The state lives in fixed-size
 * tables keyed by the peer's IP address, so memory stays constant however
 * many addresses turn up; lws thread only. Internal to fragvote/hub*.c.
 *
 * The tables are set-associative with exact address matching: two addresses
 * never share a throttle. When a set is full the stalest entry is dropped,
 * which can only let an address off early, never throttle a stranger; the
 * room-wide ceiling bounds what an attacker with many addresses gains. The
 * set index is a hash keyed with random bytes, so nobody can aim many
 * addresses at one set to evict a chosen entry. */
#ifndef FRAGVOTE_HUB_GUARD_H
#define FRAGVOTE_HUB_GUARD_H

#include <stdint.h>

#define HUB_GUARD_WAYS 4               /* entries per set */
#define HUB_GUARD_SECRET_SETS 256      /* 1,024 addresses with a recent wrong secret */
#define HUB_GUARD_HTTP_SETS 1024       /* 4,096 addresses with an HTTP bucket not yet full again */
#define HUB_GUARD_VOTER_SETS 1024      /* 4,096 addresses (IPv6: /64 networks) that created voters lately */
#define HUB_GUARD_RESUME_SETS 1024     /* 4,096 identities that said hello lately */

/* A peer: its IPv6 address (IPv4 as ::ffff:a.b.c.d) and whether it is this
 * host talking to itself (the connection's two ends have the same address:
 * a browser on the laptop, or a reverse proxy on it). Behind a trusted proxy
 * (serve --trust-proxy) the client it names instead: hub_proxy_peer. */
struct hub_peer {
    unsigned char addr[16];
    int self;
};

/* 1 when addr is an IPv4 address (::ffff:a.b.c.d), else 0. */
int hub_peer_is_v4(const unsigned char addr[16]);

/* An IPv6 address's network of plen bits (64, 56, 48) as a table key: the
 * host bits cleared, the prefix length in the last byte (cleared by every
 * plen <= 120), so a /56 never shares a /64's key. */
void hub_peer_net_key(const unsigned char addr[16], int plen, unsigned char key[16]);

/* The throttles' tables (hub_guard.c; opaque: only their functions touch them). */
struct hub_guard;

/* New tables with a fresh random key and the default rates (HUB_HTTP_RATE
 * and HUB_HTTP_BURST, HUB_VOTER_RATE and HUB_VOTER_BURST). NULL when
 * getrandom or memory failed. hub_guard_free releases them (NULL: nothing). */
struct hub_guard *hub_guard_new(void);
void hub_guard_free(struct hub_guard *g);
/* Per-address caps per second instead of the defaults: HTTP requests
 * (burst 5x) and new voters; 0: no cap, a negative value: keep the default. */
void hub_guard_rates(struct hub_guard *g, double http_rate, double voter_rate);

/* The peer of a connected socket. Returns 0, or -1 (out is then all zero:
 * one shared "unknown" address, not this host). */
int hub_guard_peer(int fd, struct hub_peer *out);

/* Presenter secret: 1 when an attempt from p must not even be compared now
 * (p, or for IPv6 its /64, guessed wrong less than HUB_SECRET_DELAY_MS ago;
 * or the room has had HUB_SECRET_ROOM_RATE short wrong guesses in the last
 * second, p is not this host and the attempt is short: long_attempt, at
 * least HUB_SECRET_LONG characters, skips that ceiling); 0 when it may be
 * compared. */
int hub_guard_secret_throttled(struct hub_guard *g, const struct hub_peer *p, long long now_ms, int long_attempt);
/* Records a compared, wrong attempt from p (and its /64); a short one also
 * spends the room-wide ceiling. */
void hub_guard_secret_failed(struct hub_guard *g, const struct hub_peer *p, long long now_ms, int long_attempt);

/* HTTP: takes one token from p's bucket (its rate per s, burst 5x;
 * by default HUB_HTTP_RATE and HUB_HTTP_BURST: hub_guard_rates).
 * Returns 0, or -1 when p is over the cap. This host is never capped, and
 * nobody when http_rate is 0. */
int hub_guard_http_take(struct hub_guard *g, const struct hub_peer *p, long long now_ms);

/* New voters (a token's first vote creates its voter): takes one from p's
 * bucket (its rate per s; by default
 * HUB_VOTER_RATE, burst HUB_VOTER_BURST: hub_guard_rates). IPv4 counts by address; an IPv6 peer
 * by its /64, its /56 and its /48 at once (nested buckets, each must have a
 * token: one host may hold a /64, one customer a /48 of 65,536 of them).
 * reserve: the room is in its last places (HUB_VOTER_RESERVE_DIV), kept
 * for networks new to it: only a network (each of its buckets) that made
 * fewer than HUB_VOTER_RESERVE_PER_NET voters lately may add one.
 * Returns 0, or -1 when p is over the cap. This host is never capped, and
 * nobody when voter_rate is 0. */
int hub_guard_voter_take(struct hub_guard *g, const struct hub_peer *p, long long now_ms, int reserve);

/* Resumes: takes one from the bucket of token (its first 16 bytes; the
 * room issued it: random), HUB_RESUME_RATE per s, burst HUB_RESUME_BURST,
 * whatever the address (a phone changes networks). Returns 0, or -1 when
 * the identity reconnects faster than that. */
int hub_guard_resume_take(struct hub_guard *g, const char *token, long long now_ms);

#endif
