/* A phone's round-trip report relayed to the presenters (hub_rtt.c). Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_RTT_H
#define FRAGVOTE_HUB_RTT_H

struct hub_conn;
struct hub_conns;
struct hub_client_msg;

/* The room-wide relay bucket (HUB_RTT_RELAY_RATE, HUB_RTT_RELAY_BURST),
 * embedded in struct hub, read and written only by hub_rtt.c. */
struct hub_rtt {
    double tokens;
    long long ms;                  /* its last refill; 0: never (full) */
};

/* m is an `rtt` (HUB_C_RTT) from c: a welcomed phone's first acceptable
 * report goes to every authed presenter as `phone_rtt` and c is answered
 * `rtt_ok`; else c gets error forbidden, hello_first, bad_rtt (the figures
 * refused, or a second report) or throttled (HUB_RTT_RELAY_RATE). */
void hub_rtt_report(struct hub_rtt *r, const struct hub_conns *conns, struct hub_conn *c,
                    const struct hub_client_msg *m);

#endif
