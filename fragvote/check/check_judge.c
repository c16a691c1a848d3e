/* The venue check's judges (check_venue.h): pure, facts in, one line out. */
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check_venue.h"

void check_line_print(FILE *out, const struct check_line *l) {
    fprintf(out, "%s %s: %s\n", l->ok ? "\u2714" : "\u2718", l->what, l->says);
}

/* What a line says: o->says formatted. */
static void __attribute__((format(printf, 2, 3))) says(struct check_line *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->says, sizeof o->says, fmt, ap);
    va_end(ap);
}

/* A new line: ✔ or ✘ (ok) and what it is about, formatted; says nothing yet. */
static void __attribute__((format(printf, 3, 4))) line(struct check_line *out, int ok, const char *fmt, ...) {
    memset(out, 0, sizeof *out);
    out->ok = ok;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->what, sizeof out->what, fmt, ap);
    va_end(ap);
}

int check_url_host(const char *url, char *host, size_t hostlen) {
    const char *p = strstr(url, "://");
    if (!p) return -1;
    p += 3;
    size_t n;
    if (*p == '[') {
        const char *e = strchr(++p, ']');
        if (!e) return -1;
        n = (size_t)(e - p);
    } else {
        n = strcspn(p, ":/?#");
    }
    if (n == 0 || n >= hostlen) return -1;
    memcpy(host, p, n);
    host[n] = 0;
    return 0;
}

void check_judge_join(const struct check_join *j, struct check_line *o) {
    line(o, 0, "join URL %s", j->url); /* ✘ unless a branch says ✔ */
    const char *by = j->public_url ? "--public-url" : j->bound ? "--bind" : "the default route's interface";
    if (!j->is_addr && !j->resolved) {
        says(o,
             "%s does not resolve here: phones will not find it either. Do: fix its DNS name, or give "
             "--public-url with a name or address that resolves", j->host);
        return;
    }
    const char *addr = j->addr[0] ? j->addr : j->host;
    if (j->loopback) {
        says(o,
             "%s (%s) is loopback: no phone can reach it%s. Do: %s", addr, by,
             j->public_url || j->bound ? "" : " (this host has no IPv4 default route)",
             j->public_url ? "give --public-url a name or address phones can reach"
             : j->bound ? "--bind the address of the interface that faces the venue network, or no --bind"
                        : "connect this laptop to the venue network (it needs a default route), or --bind an "
                          "address of it, or --public-url");
        return;
    }
    if (j->linklocal) {
        says(o,
             "%s (%s) is link-local: phones reach it only on the same link, and browsers refuse most such "
             "URLs. Do: get an address from the venue network (DHCP), or serve --bind a routable one",
             addr, by);
        return;
    }
    if (j->public_url && !j->iface[0]) {
        o->ok = 1;
        says(o,
             "%s is not this host's (--public-url: a proxy or a hosted hub forwards it); whether phones reach "
             "it is checked only by a phone", addr);
        return;
    }
    if (!j->iface[0]) {
        says(o,
             "%s (%s) is on no interface of this host: serve cannot listen there. Do: --bind an address this "
             "laptop has (`ip addr`)", addr, by);
        return;
    }
    if (!j->iface_default) {
        says(o,
             "%s is on %s, which holds no default route: a network this laptop reaches only locally (a "
             "cable, a VM, a VPN's inside), not likely the one phones join. Do: --bind the address of the "
             "interface that faces the venue's wifi, or route the venue network there", addr, j->iface);
        return;
    }
    o->ok = 1;
    says(o, "%s on %s, which holds the default route (%s)", addr, j->iface, by);
}

/* What each capability the engine needs is for, and what happens without it. */
static const struct {
    int cap;
    const char *name, *for_what, *without;
} caps[] = {
    {CAP_NET_RAW, "CAP_NET_RAW", "the raw observer and TTL discovery",
     "the recverr observer infers DF and router fragmentation, and tests go with TTL 64 (no router is heard)"},
    {CAP_NET_ADMIN, "CAP_NET_ADMIN", "the PMTU cache flush before each test",
     "an answer may depend on what earlier tests taught the PMTU cache"},
    {CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "the namespace lab (building it, entering it per test)",
     "the deck's lab tests cannot run"},
    {CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE", "removing or rebuilding the lab (/run/netns is root's)",
     "the deck's lab scenarios cannot switch the lab"},
};

void check_judge_cap(int cap, int has, struct check_line *o) {
    size_t i = 0;
    while (i < sizeof caps / sizeof caps[0] - 1 && caps[i].cap != cap) i++;
    line(o, has, "privilege %s", caps[i].name);
    if (has)
        says(o, "there, for %s", caps[i].for_what);
    else
        says(o,
             "missing, needed for %s: without it %s. Do: run fragvote with sudo (serve drops root after set-up), "
             "or `sudo setcap cap_net_raw,cap_net_admin,cap_sys_admin+ep $(command -v fragvote)` "
             "(docs/PRIVILEGES.md)", caps[i].for_what, caps[i].without);
}

/* The TTLs of t's discovery whose hop is a router that answered Time
 * Exceeded (not the destination's own answer). */
static int router_answered(const struct check_target *t, int i) {
    if (!t->d.hop[i][0]) return 0;
    return !(t->d.reached_dst && i == t->d.tried - 1);
}

static int routers_heard(const struct check_target *t) {
    int n = 0;
    for (int i = 0; i < t->d.tried && i < PROBE_TTL_DISCOVER_MAX; i++) n += router_answered(t, i);
    return n;
}

int check_target_answering_ttl(const struct check_target *t) {
    if (t->rc < 0 || !t->raw) return 0;
    for (int i = 0; i < t->d.tried && i < PROBE_TTL_DISCOVER_MAX; i++)
        if (router_answered(t, i) && t->d.hop_state[i] == PROBE_HOP_ANSWERED) return i + 1;
    for (int i = 0; i < t->d.tried && i < PROBE_TTL_DISCOVER_MAX; i++)
        if (router_answered(t, i)) return i + 1;
    return 0;
}

/* A new ✔ line about target t ("target ", "ICMP rate towards "). */
static void target_line(struct check_line *o, const struct check_target *t, const char *about) {
    line(o, 1, "%s%s (%s, %d test%s)", about, t->host, t->v6 ? "IPv6" : "IPv4", t->tests, t->tests == 1 ? "" : "s");
}

/* The ✘ of a discovery that could not run. 1 when it wrote one. */
static int path_not_run(const struct check_target *t, struct check_line *o) {
    if (t->raw && t->rc >= 0) return 0;
    o->ok = 0;
    if (!t->raw)
        says(o,
             "not asked: TTL discovery needs CAP_NET_RAW; without it tests go with TTL 64 and no router is "
             "heard. Do: run with sudo (see the privileges above)");
    else if (t->rc == PROBE_E_HOST)
        says(o, "does not resolve here (%s). Do: check the deck's target and the "
             "venue's DNS, or give --target an address", t->err);
    else if (t->rc == PROBE_E_NOROUTE || t->rc == PROBE_E_NOV6)
        says(o, "no route from this laptop (%s). Do: connect to the venue network; "
             "for IPv6, ask the venue for it or drop the deck's IPv6 tests", t->err);
    else
        says(o, "could not be asked: %s", t->err);
    return 1;
}

void check_judge_path(const struct check_target *t, struct check_line *o) {
    target_line(o, t, "target ");
    if (path_not_run(t, o)) return;
    const struct probe_ttl_discovery *d = &t->d;
    int heard = routers_heard(t);
    if (d->ttl > 0 || heard) {
        says(o, "reachable, the routers on the way answer Time Exceeded: %s", d->why);
        return;
    }
    if (d->reached_dst && d->tried == 1) {
        says(o, "on this link: the destination answers at TTL 1, no router between");
        return;
    }
    o->ok = 0;
    if (d->reached_dst)
        says(o,
             "reachable (the destination answers at TTL %d), but no router on the way answers Time Exceeded "
             "(TTL 1 to %d silent, even after a pause each): what routers do is then seen only in a Frag "
             "Needed or by a witness. Do: run `fragvote witness` at the far end and give --witness "
             "HOST:PORT, or pick a target whose path answers",
             d->tried, d->tried - 1);
    else
        says(o,
             "nothing answered: %s. An ICMP-silent network or a firewall on the way. Do: ask the venue to let "
             "ICMP Time Exceeded through, run `fragvote witness` at the far end (--witness HOST:PORT), or "
             "play the deck on the lab (--target lab)", d->why);
}

int check_judge_rate(const struct check_target *t, struct check_line *o) {
    if (!t->burst_ttl) return 0;
    target_line(o, t, "ICMP rate towards ");
    const struct probe_ttl_burst *b = &t->burst;
    const char *hop = t->d.hop[t->burst_ttl - 1];
    if (t->burst_rc < 0) {
        o->ok = 0;
        says(o, "the burst could not run: %s", t->err);
    } else if (b->answered >= b->sent) {
        says(o,
             "%s (TTL %d) answered all %d Time Exceeded of %d datagrams sent one after the other in %.0f ms: "
             "no rate limit seen", hop, t->burst_ttl, b->answered, b->sent, b->ms);
    } else {
        o->ok = 0;
        says(o,
             "%s (TTL %d) answered %d of %d datagrams sent one after the other in %.0f ms: it rate-limits "
             "ICMP (Linux's default: a burst of 6, then one a second) or loses packets. The engine paces its "
             "sends and asks a silent test again after a pause, so tests still measure, a second or so each "
             "once the burst is spent. Do: keep serve's prefetch on (it measures while the room votes), or "
             "give --witness HOST:PORT (no Time Exceeded needed)",
             hop, t->burst_ttl, b->answered, b->sent, b->ms);
    }
    return 1;
}

int check_target_measures(const struct check_target *t, int witness_ok) {
    if (witness_ok) return 1;
    if (!t->raw || t->rc < 0) return 0;
    return t->d.ttl > 0 || routers_heard(t) || (t->d.reached_dst && t->d.tried == 1);
}

void check_judge_witness(const struct check_witness *w, struct check_line *o) {
    line(o, w->rc >= 0 && w->heard, "witness %s", w->label);
    if (w->rc < 0)
        says(o, "could not be asked: %s. Do: check --witness HOST:PORT", w->err);
    else if (w->heard)
        says(o, "reachable and keyed: its signed report came back (%s)", w->note);
    else
        says(o,
             "no signed report came back (%s): it is not running there, a firewall drops its port, or the key "
             "is not its key. Do: start `fragvote witness PORT` on the far end, open its UDP and TCP port, "
             "and give the key it printed (--witness-key or $FRAGVOTE_WITNESS_KEY)", w->note);
}

void check_judge_v6(const struct check_v6 *v, struct check_line *o) {
    line(o, v->iface[0] || !v->tests, "IPv6");
    if (v->iface[0])
        says(o, "a default route on %s", v->iface);
    else if (v->tests)
        says(o,
             "no IPv6 default route: the deck's %d IPv6 test%s cannot leave this laptop. Do: ask the venue "
             "for IPv6 (or a tunnel), or play them on the lab, or drop them (serve --questions)",
             v->tests, v->tests == 1 ? "" : "s");
    else
        says(o, "no IPv6 default route; the deck has no IPv6 test off the lab, so "
             "nothing is lost");
}

void check_judge_hub(const struct check_hub *h, struct check_line *o) {
    line(o, 0, "websocket through the hub %s", h->url);
    if (!h->connected) {
        says(o,
             "did not open: %s. Do: check the URL (the hub's join URL works as it is); a proxy or firewall "
             "that refuses websocket upgrades stops phones too", h->why);
    } else if (h->dropped) {
        says(o,
             "opened in %.0f ms, then lost %.1f s after it opened (%s): something on the way cuts websockets (a proxy's "
             "or the venue's idle timeout, a captive portal). Do: try another network (a phone's hotspot), or "
             "put the hub behind TLS (wss://), which middleboxes leave alone more often",
             h->open_ms, h->held_ms / 1000, h->why);
    } else if (h->pongs < h->pings || !h->pongs) {
        says(o,
             "open for %.1f s, but %d of %d pings came back: not a fragvote hub, or frames are lost on the way. "
             "Do: check the URL", h->held_ms / 1000, h->pongs, h->pings);
    } else {
        o->ok = 1;
        says(o,
             "open in %.0f ms and held %.1f s; %d of %d pings answered, round trip %.0f-%.0f ms",
             h->open_ms, h->held_ms / 1000, h->pongs, h->pings, h->rtt_min_ms, h->rtt_max_ms);
    }
}

void check_phone_url(const char *join_url, char *out, size_t outlen) {
    snprintf(out, outlen, "%s%scheck=1", join_url, strchr(join_url, '?') ? "&" : "?");
}

/* The ✔ line's round trip: the phone's report, or why there is none. */
static void phone_rtt_words(const struct check_phone *p, char *out, size_t outlen) {
    if (p->rtt_n)
        snprintf(out, outlen, " \u00b7 round trip median %.1f ms, max %.1f ms (%d sample%s)", p->rtt_median_ms,
                 p->rtt_max_ms, p->rtt_n, p->rtt_n == 1 ? "" : "s");
    else if (p->rtt_refused[0])
        snprintf(out, outlen, "; its round-trip report was refused (%s)", p->rtt_refused);
    else
        snprintf(out, outlen, "; no round-trip report came within %d s (a page opened without check=1 in its URL, "
                 "or an older fragvote's)", CHECK_PHONE_RTT_WAIT_S);
}

void check_judge_phone(const struct check_phone *p, struct check_line *o) {
    line(o, 0, "a phone joining through the hub %s", p->url);
    if (!p->connected || !p->authed || !p->join_url[0])
        says(o, "%s: %s. Do: %s", !p->connected ? "did not open" : "not asked",
             p->why[0] ? p->why : "the hub sent no state",
             p->connected && !p->authed ? "give the room's presenter secret (--secret-file FILE or "
                                          "$FRAGVOTE_SECRET)"
                                        : "check the URL");
    else if (p->joined <= p->joined0 && !p->rtt_n)
        says(o,
             "no phone joined in %d s after %s was shown: the venue's wifi may isolate clients or block the "
             "hub, a captive portal may hold the phones, or nobody opened it. Do: open it on a phone on the "
             "venue's wifi and again on mobile data; if only mobile data works, tell the room to use it",
             p->wait_ms / 1000, p->join_url);
    else {
        o->ok = 1;
        char rtt[300];
        phone_rtt_words(p, rtt, sizeof rtt);
        if (p->joined > p->joined0)
            says(o, "%d phone%s joined the room through the hub, the first %.1f s after %s was shown%s",
                 p->joined - p->joined0, p->joined - p->joined0 == 1 ? "" : "s", (p->joined_ms - p->shown_ms) / 1000,
                 p->join_url, rtt);
        else /* its token was in the room already: the count did not rise, the report came through the hub */
            says(o, "a phone already in the room opened %s and reported through the hub %.1f s after it was shown%s",
                 p->join_url, (p->joined_ms - p->shown_ms) / 1000, rtt);
    }
}
