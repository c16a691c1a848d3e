/* A phone's round-trip report (`rtt`, docs/PROTOCOL.md; sent by a phone page
 * opened from `fragvote check --phone`'s URL, docs/CHECK.md): checked
 * (hub_parse.c), one relayed per connection, under a room-wide rate, as
 * `phone_rtt` to every authed presenter connection. Nothing is stored. Runs
 * on the lws thread. */
#include <jansson.h>

#include "fv_clock.h"
#include "hub.h"
#include "hub_conns.h"
#include "hub_msg.h"
#include "hub_parse.h"
#include "hub_rtt.h"
#include "hub_send.h"

/* The room-wide relay bucket: 1 and a token taken, or 0 (empty). */
static int relay_take(struct hub_rtt *r) {
    long long now = fv_clock_coarse_ms();
    if (!r->ms) r->tokens = HUB_RTT_RELAY_BURST;
    else r->tokens += (double)(now - r->ms) * HUB_RTT_RELAY_RATE / 1000.0;
    if (r->tokens > HUB_RTT_RELAY_BURST) r->tokens = HUB_RTT_RELAY_BURST;
    r->ms = now;
    if (r->tokens < 1) return 0;
    r->tokens -= 1;
    return 1;
}

/* Milliseconds (0..HUB_RTT_MS_MAX, checked) to 0.1 ms, as the relay carries them. */
static double tenth(double ms) { return (double)(long long)(ms * 10 + 0.5) / 10; }

void hub_rtt_report(struct hub_rtt *r, const struct hub_conns *conns, struct hub_conn *c,
                    const struct hub_client_msg *m) {
    int phone = hub_conn_role(c) == HUB_AUDIENCE;
    if (!phone || !hub_conn_token(c)[0]) {
        hub_conn_error(c, -1, !phone ? "forbidden" : "hello_first",
                       !phone ? "only phones report a round trip" : "say hello before reporting a round trip");
        return;
    }
    if (!m->rtt_ok || hub_conn_asks(c, HUB_ASK_RTT)) {
        hub_conn_error(c, -1, "bad_rtt", m->rtt_ok ? "one round-trip report per connection" : m->rtt_err);
        return;
    }
    if (!relay_take(r)) {
        hub_conn_error(c, -1, "throttled", "too many round-trip reports in this room just now: try again shortly");
        return;
    }
    json_t *o = json_pack("{s:s, s:i, s:i, s:f, s:f}", "t", "phone_rtt", "v", 1, "n", m->rtt_n, "median_ms",
                          tenth(m->rtt_median_ms), "max_ms", tenth(m->rtt_max_ms));
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(o);
    struct hub_msg *msg = text ? hub_msg_new(text) : NULL;
    if (!msg) {
        hub_conn_error(c, -1, "busy", "out of memory: the report was not relayed");
        return;
    }
    hub_conn_asked(c, HUB_ASK_RTT);
    hub_conns_presenters_send(conns, msg);
    hub_msg_unref(msg);
    hub_conn_send_own(c, hub_msg_simple("rtt_ok", NULL, NULL));
}
