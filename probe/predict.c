/* The predictor (probe_predict.h): the rules of Linux and of IP as a chain
 * of steps per fact. Pure: no I/O. The kernel's per-mode rules are
 * judge_kernel.c's (probe_judge_rule_df, probe_judge_host_frags), the same
 * the judges infer with; the router rules are rules.c's, stated before the
 * send instead of after. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "judge.h"
#include "probe_predict.h"

struct pctx {
    const struct probe_predict_in *in;
    enum probe_mode mode;         /* DEFAULT resolved to WANT */
    int v6, tcp, sent;
    int route_mtu;                /* the MTU the socket obeys: the cache's or the device's, <= 0 unknown */
    int len;                      /* the first packet's length (a TCP segment is cut to the route MTU) */
};

static void step(struct probe_predicted *f, const char *rule, unsigned tells, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void step(struct probe_predicted *f, const char *rule, unsigned tells, const char *fmt, ...) {
    if (f->nsteps == PROBE_PREDICT_STEPS_MAX) return;
    struct probe_predict_step *s = &f->step[f->nsteps++];
    s->rule = rule;
    s->tells = tells;
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(s->text, sizeof s->text, fmt, ap) < 0) s->text[0] = 0;
    va_end(ap);
}

static const char *opt_name(const struct pctx *c) {
    static const char *const v4[] = {"", "IP_PMTUDISC_DONT", "IP_PMTUDISC_WANT", "IP_PMTUDISC_DO",
                                     "IP_PMTUDISC_PROBE", "IP_PMTUDISC_INTERFACE", "IP_PMTUDISC_OMIT"};
    static const char *const v6[] = {"", "IPV6_PMTUDISC_DONT", "IPV6_PMTUDISC_WANT", "IPV6_PMTUDISC_DO",
                                     "IPV6_PMTUDISC_PROBE", "IPV6_PMTUDISC_INTERFACE", "IPV6_PMTUDISC_OMIT"};
    return c->v6 ? v6[c->mode] : v4[c->mode];
}

/* Whether the socket's own sends obey the cached PMTU (notes: UDP PROBE,
 * INTERFACE and OMIT do not; TCP segments are always sized from it). */
static int obeys_cache(const struct pctx *c) {
    return c->tcp || c->mode == PROBE_MODE_DONT || c->mode == PROBE_MODE_WANT || c->mode == PROBE_MODE_DO;
}

/* The steps every chain starts with: the default mode named, then the MTU
 * the socket obeys. Neither tells an answer. */
static void common_steps(const struct pctx *c, struct probe_predicted *f, int with_mtu) {
    const struct probe_predict_in *in = c->in;
    if (in->spec.mode == PROBE_MODE_DEFAULT)
        step(f, "socket option", 0, "no IP%s_MTU_DISCOVER option is set, so Linux's default applies: %s", c->v6 ? "V6" : "",
             opt_name(c));
    if (!with_mtu) return;
    if (in->dev_mtu <= 0)
        step(f, "route MTU", 0, "the device's MTU is not known");
    else if (in->cached_pmtu > 0 && obeys_cache(c))
        step(f, "route MTU", 0, "a path MTU of %d is cached for this address (an earlier Frag Needed or Packet Too Big "
             "filled it), below the device's %d: the socket obeys %d", in->cached_pmtu, in->dev_mtu, c->route_mtu);
    else if (in->cached_pmtu > 0)
        step(f, "route MTU", 0, "%s ignores the cached path MTU %d: only the device's %d limits it", opt_name(c),
             in->cached_pmtu, in->dev_mtu);
    else
        step(f, "route MTU", 0, "nothing is cached for this address, so the route's MTU is the device's %d", in->dev_mtu);
}

static void predict_sent(struct pctx *c, struct probe_predicted *f) {
    const int size = c->in->spec.size, dev = c->in->dev_mtu;
    common_steps(c, f, c->mode == PROBE_MODE_DO || c->mode == PROBE_MODE_PROBE || c->mode == PROBE_MODE_INTERFACE);
    c->sent = 1;
    if (c->tcp) {
        step(f, "kernel: TCP", 0, "TCP never refuses data for its size: the kernel cuts the stream into segments that "
             "fit the route");
    } else if (c->mode == PROBE_MODE_DO) {
        c->sent = c->route_mtu > 0 ? size <= c->route_mtu : -1;
        if (c->sent >= 0)
            step(f, "kernel: send", PROBE_TELLS_SENT, "%s refuses a datagram larger than the route's MTU: %d %s %d, so "
                 "send() %s", opt_name(c), size, c->sent ? "<=" : ">", c->route_mtu,
                 c->sent ? "accepts it" : "fails with EMSGSIZE and nothing leaves");
    } else if (c->mode == PROBE_MODE_PROBE || c->mode == PROBE_MODE_INTERFACE) {
        c->sent = dev > 0 ? size <= dev : -1;
        if (c->sent >= 0)
            step(f, "kernel: send", PROBE_TELLS_SENT, "%s refuses only what exceeds the device's MTU: %d %s %d, so "
                 "send() %s", opt_name(c), size, c->sent ? "<=" : ">", dev,
                 c->sent ? "accepts it" : "fails with EMSGSIZE and nothing leaves");
    } else {
        step(f, "kernel: send", 0, "%s never refuses a datagram for its size: send() accepts it", opt_name(c));
    }
    f->answer = c->sent < 0 ? PROBE_ANS_UNKNOWN : c->sent ? PROBE_ANS_YES : PROBE_ANS_NO;
}

static void predict_df(const struct pctx *c, struct probe_predicted *f) {
    const struct probe_spec *s = &c->in->spec;
    if (c->v6) {
        step(f, "IPv6", PROBE_TELLS_DF, "IPv6 has no DF bit: routers never fragment IPv6, only the sender may");
        f->answer = PROBE_ANS_YES;
        return;
    }
    int rule = probe_judge_rule_df(s), df = rule;
    if (c->tcp && c->mode == PROBE_MODE_PROBE) {
        common_steps(c, f, 0);
        step(f, "kernel: DF", PROBE_TELLS_DF, "on TCP, %s sends its segments with DF=0 (only UDP gets DF=1 from it)",
             opt_name(c));
    } else if (c->tcp) {
        common_steps(c, f, 0);
        step(f, "kernel: DF", PROBE_TELLS_DF, "a TCP socket with %s sets DF=%d on every segment", opt_name(c), rule);
    } else if (c->mode == PROBE_MODE_WANT && c->sent == 1) {
        common_steps(c, f, 1);
        int frags = probe_judge_host_frags(s, c->in->dev_mtu, c->route_mtu);
        df = !frags;
        /* It tells the host's fragmentation only as DF's answer does, by
         * the rule the room is learning: not a sibling's measurement. */
        step(f, "kernel: DF", PROBE_TELLS_DF, "%s sets DF=1 on a datagram that fits the route's "
             "MTU and DF=0 on the fragments of one that does not: %d %s %d, so DF=%d", opt_name(c), s->size,
             frags ? ">" : "<=", c->route_mtu, df);
    } else {
        common_steps(c, f, 0);
        step(f, "kernel: DF", PROBE_TELLS_DF | (c->sent == 0 ? PROBE_TELLS_SENT : 0u), "%s %s DF%s", opt_name(c),
             rule ? "always sets" : "never sets", c->sent == 0 ? " (had anything left the host)" : "");
    }
    f->answer = df ? PROBE_ANS_YES : PROBE_ANS_NO;
}

/* The routers' part for a packet of c->len bytes with DF=df that left whole. */
static void predict_routers(const struct pctx *c, int df, struct probe_prediction *p) {
    struct probe_predicted *f = &p->fragmented;
    const struct probe_path_topology *t = c->in->topo;
    const char *what = c->v6 ? "Packet Too Big" : "Frag Needed";
    if (c->v6 || df) {
        step(f, c->v6 ? "IPv6" : "router: DF=1", PROBE_TELLS_FRAG | (c->v6 ? 0 : PROBE_TELLS_DF),
             "%s: a router that cannot forward it drops it and answers %s", c->v6 ? "no router fragments IPv6"
             : "with DF=1 no router may fragment it", what);
        f->answer = PROBE_ANS_NO;
        p->fragmenter = PROBE_FRAG_NONE;
    }
    if (!t || t->nnodes < 2) {
        if (!c->v6 && !df) {
            step(f, "router: DF=0", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "with DF=0 any router before a smaller link "
                 "fragments it, and this path's links are not known before the send");
            f->answer = PROBE_ANS_UNKNOWN;
            p->fragmenter = PROBE_FRAG_UNKNOWN;
        }
        return;
    }
    int dst = t->nnodes - 1, last = dst, ttl = c->in->spec.ttl;
    if (ttl > 0 && ttl < dst) {
        last = ttl;
        step(f, "router: TTL", 0, "its TTL of %d runs out at %s, which checks the TTL before the MTU", ttl,
             t->node[ttl].name);
    }
    for (int k = 1; k < last; k++) {
        int mtu = t->link[k].mtu;
        if (mtu <= 0) {
            if (f->answer == PROBE_ANS_NO) return;
            step(f, "router: DF=0", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "with DF=0 a router may fragment it, and the "
                 "MTU of the link after %s is not known before the send", t->node[k].name);
            f->answer = PROBE_ANS_UNKNOWN;
            p->fragmenter = PROBE_FRAG_UNKNOWN;
            return;
        }
        if (c->len <= mtu) continue;
        if (c->v6 || df) {
            snprintf(p->comes_back, sizeof p->comes_back, "%s from %s (MTU %d); it fills the host's PMTU cache for "
                     "this address, whatever the socket's mode", what, t->node[k].name, mtu);
            return;
        }
        struct probe_path_pieces pc;
        int n = probe_path_split(c->len, mtu, 0, &pc);
        step(f, "router: DF=0", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "with DF=0, %s forwards %d bytes onto its %d-byte "
             "link to %s in %d pieces", t->node[k].name, c->len, mtu, t->node[k + 1].name, n);
        f->answer = PROBE_ANS_YES;
        p->fragmenter = PROBE_FRAG_ROUTER;
        return;
    }
    if (f->answer != PROBE_ANS_NO)
        step(f, "router: fits", PROBE_TELLS_FRAG, "its %d bytes fit every link it crosses, so no router cuts it",
             c->len);
    f->answer = PROBE_ANS_NO;
    p->fragmenter = PROBE_FRAG_NONE;
    if (last < dst)
        snprintf(p->comes_back, sizeof p->comes_back, "Time Exceeded from %s%s", t->node[last].name,
                 t->node[last].silent ? " (if it sends one at all)" : "");
    else
        snprintf(p->comes_back, sizeof p->comes_back, "it arrives at %s%s", t->node[dst].name,
                 c->tcp ? ", which acknowledges it" : probe_proto_is_icmp(c->in->spec.proto) ? ", which answers Echo Reply"
                                                                                             : "");
}

static void predict_frag(struct pctx *c, int df, struct probe_prediction *p) {
    struct probe_predicted *f = &p->fragmented;
    const struct probe_spec *s = &c->in->spec;
    p->fragmenter = PROBE_FRAG_UNKNOWN;
    f->answer = PROBE_ANS_UNKNOWN;
    if (c->sent == 0) {
        step(f, "kernel: send", PROBE_TELLS_SENT | PROBE_TELLS_FRAG, "send() refuses it: nothing leaves the host");
        f->answer = PROBE_ANS_NO;
        p->fragmenter = PROBE_FRAG_NONE;
        return;
    }
    if (c->sent < 0) return;
    common_steps(c, f, 1);
    if (c->tcp) {
        const struct probe_path_topology *t = c->in->topo;
        int peer = t && t->nnodes >= 2 ? t->link[t->nnodes - 2].mtu : 0; /* the target's own link */
        c->len = c->route_mtu > 0 && c->route_mtu < s->size ? c->route_mtu : s->size;
        if (peer > 0 && peer < c->len) {
            c->len = peer;
            step(f, "kernel: TCP", PROBE_TELLS_FRAG, "the host never fragments TCP: it cuts segments to the route's "
                 "MTU and to the MSS the target announced from its own %d-byte link, so the first one is %d bytes",
                 peer, c->len);
        } else {
            step(f, "kernel: TCP", PROBE_TELLS_FRAG, "the host never fragments TCP: it cuts segments to the route's "
                 "MTU, so the first one is %d bytes", c->len);
        }
    } else if (c->route_mtu <= 0) {
        return;
    } else if (probe_judge_host_frags(s, c->in->dev_mtu, c->route_mtu)) {
        int lim = c->mode == PROBE_MODE_OMIT ? c->in->dev_mtu : c->route_mtu;
        struct probe_path_pieces pc;
        int n = probe_path_split(s->size, lim, c->v6, &pc);
        step(f, "kernel: fragment", PROBE_TELLS_FRAG, "%s fragments what exceeds %s MTU: %d > %d, so the "
             "host sends %d fragments", opt_name(c), c->mode == PROBE_MODE_OMIT ? "the device's" : "the route's",
             s->size, lim, n);
        f->answer = PROBE_ANS_YES;
        p->fragmenter = PROBE_FRAG_HOST;
        return;
    } else {
        int lim = c->mode == PROBE_MODE_WANT || c->mode == PROBE_MODE_DONT || c->mode == PROBE_MODE_DO
                      ? c->route_mtu : c->in->dev_mtu;
        step(f, "kernel: fragment", PROBE_TELLS_FRAG, "%s %s: %d <= %d, so the host sends it whole",
             opt_name(c), c->mode == PROBE_MODE_DO || c->mode == PROBE_MODE_PROBE || c->mode == PROBE_MODE_INTERFACE
                              ? "never fragments" : "fragments only what exceeds this MTU", s->size, lim);
        c->len = s->size;
    }
    predict_routers(c, df, p);
}

/* Whatever "fragmented?"'s chain says of what left the host tells that
 * something did: "sent?" too. */
static void frag_tells_sent(struct probe_predicted *f) {
    for (int i = 0; i < f->nsteps; i++)
        if (f->step[i].tells) f->step[i].tells |= PROBE_TELLS_SENT;
}

void probe_predict(const struct probe_predict_in *in, struct probe_prediction *out) {
    memset(out, 0, sizeof *out);
    struct pctx c = {.in = in, .mode = in->spec.mode == PROBE_MODE_DEFAULT ? PROBE_MODE_WANT : in->spec.mode};
    c.v6 = probe_proto_is_v6(in->spec.proto);
    c.tcp = probe_proto_is_tcp(in->spec.proto);
    c.route_mtu = in->cached_pmtu > 0 && obeys_cache(&c) ? in->cached_pmtu : in->dev_mtu;
    c.len = in->spec.size;
    predict_sent(&c, &out->sent);
    predict_df(&c, &out->df);
    predict_frag(&c, out->df.answer == PROBE_ANS_YES, out);
    frag_tells_sent(&out->fragmented);
    if (c.sent == 0)
        snprintf(out->comes_back, sizeof out->comes_back, "EMSGSIZE from the host's own kernel, with the MTU it obeys");
}

const struct probe_predicted *probe_predict_fact(const struct probe_prediction *p, enum probe_predict_fact f) {
    return f == PROBE_PREDICT_SENT ? &p->sent : f == PROBE_PREDICT_DF ? &p->df : &p->fragmented;
}

static unsigned fact_bit(enum probe_predict_fact f) {
    return f == PROBE_PREDICT_SENT ? PROBE_TELLS_SENT : f == PROBE_PREDICT_DF ? PROBE_TELLS_DF : PROBE_TELLS_FRAG;
}

size_t probe_predict_text(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown, char *out,
                          size_t n) {
    const struct probe_predicted *x = probe_predict_fact(p, f);
    shown |= fact_bit(f);
    size_t len = 0;
    if (n) out[0] = 0;
    for (int i = 0; i < x->nsteps && len + 1 < n; i++) {
        if (x->step[i].tells & ~shown) continue;
        int w = snprintf(out + len, n - len, "%s%s", len ? "; " : "", x->step[i].text);
        if (w < 0) break;
        len = len + (size_t)w < n ? len + (size_t)w : n - 1;
    }
    return len;
}

size_t probe_predict_key(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown, char *out,
                         size_t n) {
    const struct probe_predicted *x = probe_predict_fact(p, f);
    shown |= fact_bit(f);
    if (n) out[0] = 0;
    for (int i = x->nsteps - 1; i >= 0; i--)
        if (!(x->step[i].tells & ~shown)) {
            int w = snprintf(out, n, "%s", x->step[i].text);
            return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n ? n - 1 : 0;
        }
    return 0;
}

int probe_predict_surprise(const struct probe_prediction *p, enum probe_predict_fact f, const struct probe_fact *m,
                           char *out, size_t n) {
    enum probe_answer want = probe_predict_fact(p, f)->answer;
    if (n) out[0] = 0;
    if (want == PROBE_ANS_UNKNOWN || m->answer == PROBE_ANS_UNKNOWN || m->answer == want) return 0;
    if (snprintf(out, n, "Surprise: the rules said %s%s%s", probe_answer_name(want), m->why[0] ? " \xe2\x80\x94 " : "",
                 m->why) < 0 && n)
        out[0] = 0;
    return 1;
}

void probe_predict_in_of(const struct probe_result *r, struct probe_path_topology *topo, struct probe_predict_in *in) {
    memset(in, 0, sizeof *in);
    in->spec = r->spec;
    in->dev_mtu = r->egress.dev_mtu;
    in->cached_pmtu = r->egress.cached_pmtu_before > 0 ? r->egress.cached_pmtu_before : 0;
    /* Only a path whose every link was known before the send (the lab's):
     * elsewhere the nodes are what answered, and a hop's index is not its
     * distance once a stretch went unseen. */
    const struct probe_path *p = &r->path;
    int lab = p->v > 0 && p->nnodes >= 2;
    for (int i = 0; lab && i + 1 < p->nnodes; i++)
        lab = (p->link[i].from == PROBE_PATH_MTU_LAB || (i == 0 && p->link[i].from == PROBE_PATH_MTU_DEVICE)) &&
              p->node[i + 1].role != PROBE_PATH_GAP;
    if (!lab) return;
    memset(topo, 0, sizeof *topo);
    topo->nnodes = p->nnodes;
    memcpy(topo->node, p->node, sizeof topo->node[0] * (size_t)p->nnodes);
    memcpy(topo->link, p->link, sizeof topo->link[0] * (size_t)(p->nnodes - 1));
    in->topo = topo;
}
