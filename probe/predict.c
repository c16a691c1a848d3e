/* The predictor (probe_predict.h): the rules of Linux and of IP as a chain
 * of steps per fact. Pure: no I/O. The kernel's per-mode rules are
 * judge_kernel.c's (probe_judge_rule_df, probe_judge_host_frags), the same
 * the judges infer with; the router rules are rules.c's, stated before the
 * send instead of after. */
#include <stdio.h>
#include <string.h>

#include "judge_kernel.h"
#include "probe_predict.h"

struct pctx {
    const struct probe_predict_in *in;
    enum probe_mode mode;         /* DEFAULT resolved to WANT */
    int v6, tcp, sent;
    int route_mtu;                /* the MTU the socket obeys: the cache's or the device's, <= 0 unknown */
    int len;                      /* the first packet's length (a TCP segment is cut to the route MTU) */
};

/* A step: its words are a catalog key and its arguments (fv_msg.h), its
 * English rendered from them. */
static struct probe_predict_step *step_add(struct probe_predicted *f, const char *rule, unsigned tells) {
    if (f->nsteps == PROBE_PREDICT_STEPS_MAX) return NULL;
    struct probe_predict_step *s = &f->step[f->nsteps++];
    memset(s, 0, sizeof *s);
    s->rule = rule;
    s->tells = tells;
    return s;
}
#define step(f, rule, tells, ...)                                                                                     \
    do {                                                                                                               \
        struct probe_predict_step *s_ = step_add((f), (rule), (tells));                                                \
        if (s_) fv_msg_set(&s_->msg, __VA_ARGS__), fv_msg_text(&s_->msg, s_->text, sizeof s_->text);                   \
    } while (0)
#define step0(f, rule, tells, key)                                                                                    \
    do {                                                                                                               \
        struct probe_predict_step *s_ = step_add((f), (rule), (tells));                                                \
        if (s_) fv_msg_key(&s_->msg, (key)), fv_msg_text(&s_->msg, s_->text, sizeof s_->text);                         \
    } while (0)

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
        step(f, "socket option", 0, "rule.default_mode", "sockopt=%s opt=%s", c->v6 ? "IPV6_MTU_DISCOVER" : "IP_MTU_DISCOVER",
             opt_name(c));
    if (!with_mtu) return;
    if (in->dev_mtu <= 0)
        step0(f, "route MTU", 0, "rule.mtu_unknown");
    else if (in->cached_pmtu > 0 && obeys_cache(c))
        step(f, "route MTU", 0, "rule.mtu_cached", "pmtu=%d dev=%d mtu=%d", in->cached_pmtu, in->dev_mtu, c->route_mtu);
    else if (in->cached_pmtu > 0)
        step(f, "route MTU", 0, "rule.mtu_cache_ignored", "opt=%s pmtu=%d dev=%d", opt_name(c), in->cached_pmtu,
             in->dev_mtu);
    else
        step(f, "route MTU", 0, "rule.mtu_device", "dev=%d", in->dev_mtu);
}

static void predict_sent(struct pctx *c, struct probe_predicted *f) {
    const int size = c->in->spec.size, dev = c->in->dev_mtu;
    common_steps(c, f, c->mode == PROBE_MODE_DO || c->mode == PROBE_MODE_PROBE || c->mode == PROBE_MODE_INTERFACE);
    c->sent = 1;
    if (c->tcp) {
        step0(f, "kernel: TCP", 0, "rule.tcp_send");
    } else if (c->mode == PROBE_MODE_DO) {
        c->sent = c->route_mtu > 0 ? size <= c->route_mtu : -1;
        if (c->sent > 0)
            step(f, "kernel: send", PROBE_TELLS_SENT, "rule.do_fits", "opt=%s size=%d mtu=%d", opt_name(c), size,
                 c->route_mtu);
        else if (c->sent == 0)
            step(f, "kernel: send", PROBE_TELLS_SENT, "rule.do_too_big", "opt=%s size=%d mtu=%d", opt_name(c), size,
                 c->route_mtu);
    } else if (c->mode == PROBE_MODE_PROBE || c->mode == PROBE_MODE_INTERFACE) {
        c->sent = dev > 0 ? size <= dev : -1;
        if (c->sent > 0)
            step(f, "kernel: send", PROBE_TELLS_SENT, "rule.probe_fits", "opt=%s size=%d mtu=%d", opt_name(c), size, dev);
        else if (c->sent == 0)
            step(f, "kernel: send", PROBE_TELLS_SENT, "rule.probe_too_big", "opt=%s size=%d mtu=%d", opt_name(c), size,
                 dev);
    } else {
        step(f, "kernel: send", 0, "rule.never_refuses", "opt=%s", opt_name(c));
    }
    f->answer = c->sent < 0 ? PROBE_ANS_UNKNOWN : c->sent ? PROBE_ANS_YES : PROBE_ANS_NO;
}

static void predict_df(const struct pctx *c, struct probe_predicted *f) {
    const struct probe_spec *s = &c->in->spec;
    if (c->v6) {
        step0(f, "IPv6", PROBE_TELLS_DF, "why.v6_no_df");
        f->answer = PROBE_ANS_YES;
        return;
    }
    int rule = probe_judge_rule_df(s), df = rule;
    if (c->tcp && c->mode == PROBE_MODE_PROBE) {
        common_steps(c, f, 0);
        step(f, "kernel: DF", PROBE_TELLS_DF, "rule.tcp_probe_df", "opt=%s", opt_name(c));
    } else if (c->tcp) {
        common_steps(c, f, 0);
        step(f, "kernel: DF", PROBE_TELLS_DF, "rule.tcp_df", "opt=%s df=%d", opt_name(c), rule);
    } else if (c->mode == PROBE_MODE_WANT && c->sent == 1) {
        common_steps(c, f, 1);
        int frags = probe_judge_host_frags(s, c->in->dev_mtu, c->route_mtu);
        df = !frags;
        /* It tells the host's fragmentation only as DF's answer does, by
         * the rule the room is learning: not a sibling's measurement. */
        if (frags)
            step(f, "kernel: DF", PROBE_TELLS_DF, "rule.want_too_big", "opt=%s size=%d mtu=%d", opt_name(c), s->size,
                 c->route_mtu);
        else
            step(f, "kernel: DF", PROBE_TELLS_DF, "rule.want_fits", "opt=%s size=%d mtu=%d", opt_name(c), s->size,
                 c->route_mtu);
    } else {
        common_steps(c, f, 0);
        unsigned tells = PROBE_TELLS_DF | (c->sent == 0 ? PROBE_TELLS_SENT : 0u);
        if (rule && c->sent == 0) step(f, "kernel: DF", tells, "rule.df_always_unsent", "opt=%s", opt_name(c));
        else if (rule) step(f, "kernel: DF", tells, "rule.df_always", "opt=%s", opt_name(c));
        else if (c->sent == 0) step(f, "kernel: DF", tells, "rule.df_never_unsent", "opt=%s", opt_name(c));
        else step(f, "kernel: DF", tells, "rule.df_never", "opt=%s", opt_name(c));
    }
    f->answer = df ? PROBE_ANS_YES : PROBE_ANS_NO;
}

/* The routers' part for a packet of c->len bytes with DF=df that left whole. */
static void predict_routers(const struct pctx *c, int df, struct probe_prediction *p) {
    struct probe_predicted *f = &p->fragmented;
    const struct probe_path_topology *t = c->in->topo;
    const char *what = c->v6 ? "Packet Too Big" : "Frag Needed";
    if (c->v6) {
        step0(f, "IPv6", PROBE_TELLS_FRAG, "rule.v6_routers_drop");
    } else if (df) {
        step0(f, "router: DF=1", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "rule.df1_routers_drop");
    }
    if (c->v6 || df) {
        f->answer = PROBE_ANS_NO;
        p->fragmenter = PROBE_FRAG_NONE;
    }
    if (!t || t->nnodes < 2) {
        if (!c->v6 && !df) {
            step0(f, "router: DF=0", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "rule.df0_path_unknown");
            f->answer = PROBE_ANS_UNKNOWN;
            p->fragmenter = PROBE_FRAG_UNKNOWN;
        }
        return;
    }
    int dst = t->nnodes - 1, last = dst, ttl = c->in->spec.ttl;
    if (ttl > 0 && ttl < dst) {
        last = ttl;
        step(f, "router: TTL", 0, "rule.ttl_expires", "ttl=%d node=%s", ttl, t->node[ttl].name);
    }
    for (int k = 1; k < last; k++) {
        int mtu = t->link[k].mtu;
        if (mtu <= 0) {
            if (f->answer == PROBE_ANS_NO) return;
            step(f, "router: DF=0", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "rule.df0_link_unknown", "node=%s",
                 t->node[k].name);
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
        step(f, "router: DF=0", PROBE_TELLS_FRAG | PROBE_TELLS_DF, "rule.router_fragments",
             "router=%s len=%d mtu=%d next=%s n=%d", t->node[k].name, c->len, mtu, t->node[k + 1].name, n);
        f->answer = PROBE_ANS_YES;
        p->fragmenter = PROBE_FRAG_ROUTER;
        return;
    }
    if (f->answer != PROBE_ANS_NO)
        step(f, "router: fits", PROBE_TELLS_FRAG, "rule.fits_every_link", "len=%d", c->len);
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
        step0(f, "kernel: send", PROBE_TELLS_SENT | PROBE_TELLS_FRAG, "rule.refused");
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
            step(f, "kernel: TCP", PROBE_TELLS_FRAG, "rule.tcp_mss", "peer=%d len=%d", peer, c->len);
        } else {
            step(f, "kernel: TCP", PROBE_TELLS_FRAG, "rule.tcp_segments", "len=%d", c->len);
        }
    } else if (c->route_mtu <= 0) {
        return;
    } else if (probe_judge_host_frags(s, c->in->dev_mtu, c->route_mtu)) {
        int lim = c->mode == PROBE_MODE_OMIT ? c->in->dev_mtu : c->route_mtu;
        struct probe_path_pieces pc;
        int n = probe_path_split(s->size, lim, c->v6, &pc);
        if (c->mode == PROBE_MODE_OMIT)
            step(f, "kernel: fragment", PROBE_TELLS_FRAG, "rule.host_fragments_device", "opt=%s size=%d mtu=%d n=%d",
                 opt_name(c), s->size, lim, n);
        else
            step(f, "kernel: fragment", PROBE_TELLS_FRAG, "rule.host_fragments_route", "opt=%s size=%d mtu=%d n=%d",
                 opt_name(c), s->size, lim, n);
        f->answer = PROBE_ANS_YES;
        p->fragmenter = PROBE_FRAG_HOST;
        return;
    } else {
        int lim = c->mode == PROBE_MODE_WANT || c->mode == PROBE_MODE_DONT || c->mode == PROBE_MODE_DO
                      ? c->route_mtu : c->in->dev_mtu;
        if (c->mode == PROBE_MODE_DO || c->mode == PROBE_MODE_PROBE || c->mode == PROBE_MODE_INTERFACE)
            step(f, "kernel: fragment", PROBE_TELLS_FRAG, "rule.never_fragments", "opt=%s size=%d mtu=%d", opt_name(c),
                 s->size, lim);
        else
            step(f, "kernel: fragment", PROBE_TELLS_FRAG, "rule.whole_fits", "opt=%s size=%d mtu=%d", opt_name(c),
                 s->size, lim);
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

/* Whether step i of x may be shown with the facts in shown. */
static int visible(const struct probe_predicted *x, int i, unsigned shown) { return !(x->step[i].tells & ~shown); }

size_t probe_predict_text(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown, char *out,
                          size_t n) {
    const struct probe_predicted *x = probe_predict_fact(p, f);
    shown |= fact_bit(f);
    const char *sep = fv_msg_en("rule.sep") ? fv_msg_en("rule.sep") : "; ";
    size_t len = 0;
    if (n) out[0] = 0;
    for (int i = 0; i < x->nsteps && len + 1 < n; i++) {
        if (!visible(x, i, shown)) continue;
        int w = snprintf(out + len, n - len, "%s%s", len ? sep : "", x->step[i].text);
        if (w < 0) break;
        len = len + (size_t)w < n ? len + (size_t)w : n - 1;
    }
    return len;
}

int probe_predict_msgs(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown,
                       struct fv_msg out[PROBE_PREDICT_STEPS_MAX]) {
    const struct probe_predicted *x = probe_predict_fact(p, f);
    shown |= fact_bit(f);
    int k = 0;
    for (int i = 0; i < x->nsteps; i++)
        if (visible(x, i, shown)) out[k++] = x->step[i].msg;
    return k;
}

size_t probe_predict_key(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown, char *out,
                         size_t n) {
    struct fv_msg m[PROBE_PREDICT_STEPS_MAX];
    int k = probe_predict_msgs(p, f, shown, m);
    if (n) out[0] = 0;
    return k ? fv_msg_text(&m[k - 1], out, n) : 0;
}

int probe_predict_surprise_msg(const struct probe_prediction *p, enum probe_predict_fact f,
                               const struct probe_fact *m, struct fv_msg *out) {
    enum probe_answer want = probe_predict_fact(p, f)->answer;
    memset(out, 0, sizeof *out);
    if (want == PROBE_ANS_UNKNOWN || m->answer == PROBE_ANS_UNKNOWN || m->answer == want) return 0;
    const char *said = want == PROBE_ANS_YES ? "answer.yes" : "answer.no";
    if (m->why[0]) fv_msg_set(out, "surprise.said_why", "@answer=%s why=%s", said, m->why);
    else fv_msg_set(out, "surprise.said", "@answer=%s", said);
    return 1;
}

int probe_predict_surprise(const struct probe_prediction *p, enum probe_predict_fact f, const struct probe_fact *m,
                           char *out, size_t n) {
    struct fv_msg s;
    int r = probe_predict_surprise_msg(p, f, m, &s);
    if (n) out[0] = 0;
    if (r) fv_msg_text(&s, out, n);
    return r;
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
