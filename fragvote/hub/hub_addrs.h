/* Open audience websockets per source address (issue 36, item 4): one host
 * may not fill the room. IPv4 counts by address, IPv6 by /64 network (one
 * host may hold a whole /64), as the new-voter cap does. Exact counts in an
 * open-addressing table sized for every connection the room can hold, with
 * a random hash key, so nobody can aim addresses at one slot; lws thread
 * only. Internal to fragvote/hub*.c. */
#ifndef FRAGVOTE_HUB_ADDRS_H
#define FRAGVOTE_HUB_ADDRS_H

#include <stdint.h>

struct hub_peer;

struct hub_addr_slot {
    unsigned char key[16];           /* the address, an IPv6 one cut to its /64 */
    int n;                           /* open connections; 0: free */
};

struct hub_addrs {
    uint64_t hkey[2];
    unsigned mask;                   /* slots - 1 (a power of two, at least twice the connections) */
    struct hub_addr_slot *slot;
    int per_addr;                    /* cap per address; 0: none */
};

/* A table for up to max_conns connections, each address capped at
 * per_addr (0: no cap). 0, or -1 (out of memory, no randomness). */
int hub_addrs_init(struct hub_addrs *a, int max_conns, int per_addr);
void hub_addrs_free(struct hub_addrs *a);
/* Counts one more connection from p: 0, or -1 when p has per_addr open
 * already (nothing counted). This host (p->self) is never capped. */
int hub_addrs_take(struct hub_addrs *a, const struct hub_peer *p);
/* One connection from p closed (one that hub_addrs_take counted). */
void hub_addrs_put(struct hub_addrs *a, const struct hub_peer *p);
/* Open connections counted for p's address (or /64). */
int hub_addrs_count(const struct hub_addrs *a, const struct hub_peer *p);

#endif
