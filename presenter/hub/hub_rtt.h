/* A phone's round-trip report relayed to the presenters (hub_rtt.c). Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_RTT_H
#define FRAGVOTE_HUB_RTT_H

struct hub;
struct hub_conn;
struct hub_client_msg;

/* m is an `rtt` (HUB_C_RTT) from c: a welcomed phone's first acceptable
 * report goes to every authed presenter as `phone_rtt` and c is answered
 * `rtt_ok`; else c gets error forbidden, hello_first, bad_rtt (the figures
 * refused, or a second report) or throttled (HUB_RTT_RELAY_RATE). */
void hub_rtt_report(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m);

#endif
