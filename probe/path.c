/* The path of one test, hop by hop (issue 20). Pure: a finished probe_result
 * and the topology known before (the lab's, or TTL discovery's hops) give
 * the nodes, the link MTUs and what happened at each node. Where the lab
 * knows its link MTUs, what the packet met between the host and the answering
 * node follows IP's rules from what left the host; each event says what shows
 * it (capture, an ICMP answer, the witness, the kernel, the topology) or that
 * it is inference. Nothing here guesses past what the observations allow: a
 * real path's unseen stretches are gaps with unknown MTUs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fragprobe.h"
#include "judge_kernel.h"

/* ---- names ---- */
#define NAMES_LEN(a) ((int)(sizeof a / sizeof *a))
static const char *const role_names[] = {"host", "router", "target", "gap"};
static const char *const mtu_from_names[] = {NULL, "lab", "device", "icmp"};
static const char *const what_names[] = {"refused", "fragmented", "reassembled", "passed",
                                         "dropped", "expired",    "arrived",     "silent", "other"};
static const char *const seen_names[] = {"capture", "icmp", "witness", "kernel", "topology", "inference"};
static const char *const pieces_from_names[] = {NULL, "capture", "quote", "witness", "rule"};
static const char *const icmp_names[] = {NULL,          "frag_needed", "packet_too_big", "time_exceeded",
                                         "port_unreachable", "unreachable", "echo_reply"};
_Static_assert(NAMES_LEN(role_names) == PROBE_PATH_GAP + 1, "a name for each role");
_Static_assert(NAMES_LEN(mtu_from_names) == PROBE_PATH_MTU_ICMP + 1, "a name for each mtu_from");
_Static_assert(NAMES_LEN(what_names) == PROBE_PATH_OTHER + 1, "a name for each what");
_Static_assert(NAMES_LEN(seen_names) == PROBE_PATH_SEEN_INFERENCE + 1, "a name for each seen_by");
_Static_assert(NAMES_LEN(pieces_from_names) == PROBE_PATH_PIECES_RULE + 1, "a name for each pieces_from");
_Static_assert(NAMES_LEN(icmp_names) == PROBE_PATH_ICMP_ECHO_REPLY + 1, "a name for each icmp");

static const char *name_of(const char *const *names, int n, int v) { return v >= 0 && v < n ? names[v] : NULL; }
static int parse_of(const char *const *names, int n, const char *s, int *out) {
    for (int i = 0; i < n; i++)
        if (s && names[i] && !strcmp(s, names[i])) {
            *out = i;
            return 0;
        }
    return -1;
}
#define NAME_FNS(fn, type, arr)                                                                                    \
    const char *probe_path_##fn##_name(type v) { return name_of(arr, NAMES_LEN(arr), (int)v); }                   \
    int probe_path_##fn##_parse(const char *s, type *out) {                                                        \
        int i;                                                                                                     \
        if (parse_of(arr, NAMES_LEN(arr), s, &i)) return -1;                                                       \
        *out = (type)i;                                                                                            \
        return 0;                                                                                                  \
    }
NAME_FNS(role, enum probe_path_role, role_names)
NAME_FNS(mtu_from, enum probe_path_mtu_from, mtu_from_names)
NAME_FNS(what, enum probe_path_what, what_names)
NAME_FNS(seen, enum probe_path_seen, seen_names)
NAME_FNS(pieces_from, enum probe_path_pieces_from, pieces_from_names)
NAME_FNS(icmp, enum probe_path_icmp, icmp_names)

/* One human line for an event (cut to fit). */
__attribute__((format(printf, 2, 3))) static void etext(struct probe_path_event *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}

/* ---- pieces ---- */
static void pieces_one(struct probe_path_pieces *p, int len, enum probe_path_pieces_from from) {
    p->n = 1;
    p->len[0] = len;
    p->from = from;
}
static void pieces_push(struct probe_path_pieces *p, int len) {
    if (p->n < PROBE_PATH_PIECES_MAX) p->len[p->n] = len;
    p->n++;
}
static int pieces_max(const struct probe_path_pieces *p) {
    int m = 0;
    for (int i = 0; i < p->n && i < PROBE_PATH_PIECES_MAX; i++)
        if (p->len[i] > m) m = p->len[i];
    return m;
}
static int pieces_listed(const struct probe_path_pieces *p) { return p->n < PROBE_PATH_PIECES_MAX ? p->n : PROBE_PATH_PIECES_MAX; }
static int pieces_equal(const struct probe_path_pieces *a, const struct probe_path_pieces *b) {
    if (a->n != b->n) return 0;
    for (int i = 0; i < pieces_listed(a); i++)
        if (a->len[i] != b->len[i]) return 0;
    return 1;
}

/* The data of `data` bytes cut into pieces of at most `max` bytes with hdr
 * bytes of header each (Linux: full multiples of 8, the last the rest). */
static void split_data(int data, int hdr, int max, struct probe_path_pieces *out) {
    int per = (max - hdr) & ~7;
    if (per <= 0 || data <= max - hdr) {
        pieces_push(out, data + hdr);
        return;
    }
    while (data > per) {
        pieces_push(out, per + hdr);
        data -= per;
    }
    pieces_push(out, data + hdr);
}

int probe_path_split(int total, int max, int v6, struct probe_path_pieces *out) {
    memset(out, 0, sizeof *out);
    out->from = PROBE_PATH_PIECES_RULE;
    if (total <= max || max <= 0) {
        pieces_push(out, total);
        return out->n;
    }
    /* IPv6: the 40-byte header stays, each piece adds an 8-byte Fragment header. */
    if (v6) split_data(total - 40, 48, max, out);
    else split_data(total - 20, 20, max, out);
    return out->n;
}

/* A router forwarding IPv4 pieces onto a link of MTU m: each larger piece is
 * cut again (its data, 20-byte header). */
static void refragment(const struct probe_path_pieces *in, int m, struct probe_path_pieces *out) {
    memset(out, 0, sizeof *out);
    out->from = PROBE_PATH_PIECES_RULE;
    for (int i = 0; i < pieces_listed(in); i++) {
        if (in->len[i] <= m) pieces_push(out, in->len[i]);
        else split_data(in->len[i] - 20, 20, m, out);
    }
}

static int pieces_text(const struct probe_path_pieces *p, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < pieces_listed(p) && n + 16 < len; i++) {
        if (i == 4 && p->n > 5) {
            n += (size_t)snprintf(buf + n, len - n, " + … + %d", p->len[pieces_listed(p) - 1]);
            break;
        }
        n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? " + " : "", p->len[i]);
    }
    return (int)n;
}

/* ---- topology ---- */
static void node_set(struct probe_path_node *n, const char *name, const char *addr, enum probe_path_role role) {
    memset(n, 0, sizeof *n);
    /* Longer names and addresses are cut to the node's fields (%.*s says so to gcc's
     * -Wformat-truncation, which inlining at -O2 turns on). */
    snprintf(n->name, sizeof n->name, "%.*s", (int)sizeof n->name - 1, name);
    snprintf(n->addr, sizeof n->addr, "%.*s", (int)sizeof n->addr - 1, addr ? addr : "");
    n->role = role;
}

void probe_path_topology_lab(const struct probe_lab *lab, int v6, struct probe_path_topology *out) {
    memset(out, 0, sizeof *out);
    out->nnodes = lab->nnodes;
    for (int i = 0; i < lab->nnodes; i++) {
        /* A node answers from the interface facing src: link i-1's b side;
         * src from its only link's a side. */
        const char *addr = i == 0 ? (v6 ? lab->link[0].a6 : lab->link[0].a4)
                                  : (v6 ? lab->link[i - 1].b6 : lab->link[i - 1].b4);
        enum probe_path_role role = i == 0 ? PROBE_PATH_HOST : i == lab->nnodes - 1 ? PROBE_PATH_TARGET : PROBE_PATH_ROUTER;
        node_set(&out->node[i], lab->name[i], addr, role);
        /* conntrack (reassembly, or NAT for IPv4) makes a router reassemble. */
        out->node[i].reassembles = role == PROBE_PATH_ROUTER &&
                                   (lab->cfg.reassemble == i || (!v6 && (lab->cfg.behave[i] & PROBE_LAB_NAT)));
        probe_lab_node_does(lab, i, 1, ", ", out->node[i].does, sizeof out->node[i].does);
        out->node[i].behave = role == PROBE_PATH_ROUTER ? lab->cfg.behave[i] : 0;
        out->node[i].drops_fragments = role == PROBE_PATH_ROUTER && (lab->cfg.behave[i] & PROBE_LAB_DROPFRAG);
        out->node[i].clears_df = role == PROBE_PATH_ROUTER && !v6 && (lab->cfg.behave[i] & PROBE_LAB_CLEARDF);
    }
    for (int i = 0; i < lab->nlinks; i++) {
        out->link[i].mtu = lab->link[i].mtu;
        out->link[i].from = PROBE_PATH_MTU_LAB;
    }
}

static int add_node(struct probe_path_topology *t, const char *name, const char *addr, enum probe_path_role role) {
    if (t->nnodes >= PROBE_PATH_NODES_MAX) return -1;
    node_set(&t->node[t->nnodes], name, addr, role);
    return t->nnodes++;
}

static int is_icmp_too_big(const struct probe_result *r) {
    int v6 = probe_proto_is_v6(r->spec.proto);
    return v6 ? r->icmp.type == 2 : r->icmp.type == 3 && r->icmp.code == 4;
}
static int is_time_exceeded(const struct probe_result *r) {
    return probe_proto_is_v6(r->spec.proto) ? r->icmp.type == 3 && r->icmp.code == 0
                                            : r->icmp.type == 11 && r->icmp.code == 0;
}

void probe_path_topology_real(const struct probe_ttl_discovery *d, const struct probe_result *r,
                              struct probe_path_topology *out) {
    memset(out, 0, sizeof *out);
    add_node(out, "host", "", PROBE_PATH_HOST);
    int reached_dst = d && d->reached_dst;
    int heard = d ? (reached_dst ? d->tried - 1 : d->tried) : 0; /* router TTLs tried */
    if (heard > PROBE_TTL_DISCOVER_MAX) heard = PROBE_TTL_DISCOVER_MAX;
    for (int i = 0; i < heard; i++) {
        char name[16];
        snprintf(name, sizeof name, "hop %d", i + 1);
        int k = add_node(out, name, d->hop[i], PROBE_PATH_ROUTER);
        if (k < 0) break;
        out->node[k].silent = !d->hop[i][0];
        for (int j = 0; j < d->nreassembled; j++)
            if (d->hop[i][0] && !strcmp(d->hop[i], d->reassembled[j])) out->node[k].reassembles = 1;
    }
    /* The answering hop, when discovery did not list it. */
    int answered = r->icmp.hop[0] && strcmp(r->icmp.hop, r->spec.host);
    for (int i = 1; answered && i < out->nnodes; i++)
        if (!strcmp(out->node[i].addr, r->icmp.hop)) answered = 0;
    if (answered && is_time_exceeded(r) && r->spec.ttl > out->nnodes) {
        /* A Time Exceeded comes from the hop at the test's TTL: node index
         * = hop count while there is no gap. */
        if (r->spec.ttl > out->nnodes) add_node(out, "…", "", PROBE_PATH_GAP);
        char name[16];
        snprintf(name, sizeof name, "hop %d", r->spec.ttl);
        add_node(out, name, r->icmp.hop, PROBE_PATH_ROUTER);
    } else if (answered) {
        add_node(out, "…", "", PROBE_PATH_GAP);
        add_node(out, r->icmp.hop, r->icmp.hop, PROBE_PATH_ROUTER);
    }
    if (!reached_dst) add_node(out, "…", "", PROBE_PATH_GAP);
    if (out->nnodes >= PROBE_PATH_NODES_MAX) out->nnodes = PROBE_PATH_NODES_MAX - 1;
    add_node(out, r->spec.host, r->spec.host, PROBE_PATH_TARGET);
    if (r->egress.dev_mtu > 0) {
        out->link[0].mtu = r->egress.dev_mtu;
        out->link[0].from = PROBE_PATH_MTU_DEVICE;
    }
    /* Frag Needed / PTB: the answering hop's next link. */
    if (is_icmp_too_big(r) && r->icmp.mtu > 0)
        for (int i = 1; i < out->nnodes - 1; i++)
            if (!strcmp(out->node[i].addr, r->icmp.hop)) {
                out->link[i].mtu = r->icmp.mtu;
                out->link[i].from = PROBE_PATH_MTU_ICMP;
            }
}

/* ---- the builder ---- */
struct build {
    const struct probe_result *r;
    struct probe_path *p;
    int v6;
};

static struct probe_path_event *event(struct build *b, int node, enum probe_path_what what, enum probe_path_seen seen) {
    struct probe_path *p = b->p;
    if (p->nevents >= PROBE_PATH_EVENTS_MAX) return NULL;
    struct probe_path_event *e = &p->ev[p->nevents++];
    memset(e, 0, sizeof *e);
    e->node = node;
    e->what = what;
    e->seen_by = seen;
    e->pieces.n = -1;
    e->q_len = e->q_df = e->q_mf = e->q_offset = e->q_frag_hdr = -1;
    e->ttl = e->df = -1;
    e->shown = PROBE_PATH_EV_ALL;
    if (seen != PROBE_PATH_SEEN_INFERENCE && seen != PROBE_PATH_SEEN_TOPOLOGY && what != PROBE_PATH_OTHER &&
        node > p->reached)
        p->reached = node;
    return e;
}

/* An ICMP answer about another packet of the test (issue 34), at its node
 * in path order: shown as such, never as this packet's fate. */
static void other_event(struct build *b) {
    const struct probe_result *r = b->r;
    struct probe_path *p = b->p;
    int node = -1;
    for (int i = 1; r->icmp.other.answers > 0 && r->icmp.other.hop[0] && i < p->nnodes; i++)
        if (!strcmp(p->node[i].addr, r->icmp.other.hop)) node = i;
    if (node < 0) return;
    int at = 0;
    while (at < p->nevents && p->ev[at].node <= node) at++;
    struct probe_path_event *e = event(b, node, PROBE_PATH_OTHER, PROBE_PATH_SEEN_ICMP);
    if (!e) return;
    struct probe_path_event moved = *e;
    memmove(&p->ev[at + 1], &p->ev[at], (size_t)(p->nevents - 1 - at) * sizeof *e);
    p->ev[at] = moved;
    snprintf(p->ev[at].text, sizeof p->ev[at].text, "answered with %.100s: not this packet", r->icmp.other.quote);
}

static enum probe_path_icmp icmp_kind(const struct probe_result *r, int from_target) {
    if (r->icmp.type < 0) return PROBE_PATH_ICMP_NONE;
    if (is_icmp_too_big(r)) return probe_proto_is_v6(r->spec.proto) ? PROBE_PATH_ICMP_PACKET_TOO_BIG : PROBE_PATH_ICMP_FRAG_NEEDED;
    if (is_time_exceeded(r)) return PROBE_PATH_ICMP_TIME_EXCEEDED;
    int unreach = probe_proto_is_v6(r->spec.proto) ? r->icmp.type == 1 : r->icmp.type == 3;
    int port = probe_proto_is_v6(r->spec.proto) ? r->icmp.code == 4 : r->icmp.code == 3;
    if (unreach && port && from_target) return PROBE_PATH_ICMP_PORT_UNREACHABLE;
    return PROBE_PATH_ICMP_UNREACHABLE;
}

static void quote_into(const struct probe_result *r, struct probe_path_event *e) {
    if (r->icmp.quoted_len < 0) return;
    e->has_quote = 1;
    e->q_len = r->icmp.quoted_len;
    e->q_df = r->icmp.quoted_df;
    e->q_mf = r->icmp.quoted_mf;
    e->q_offset = r->icmp.quoted_offset;
    e->q_frag_hdr = r->icmp.quoted_frag_hdr;
}
static int quote_is_fragment(const struct probe_result *r) {
    return r->icmp.quoted_len > 0 && (r->icmp.quoted_mf == 1 || r->icmp.quoted_offset > 0 || r->icmp.quoted_frag_hdr == 1);
}

/* What left the host: the capture's count and first length, else the
 * kernel's rule when the judge knows whether the host fragmented. */
static void build_sent(struct build *b) {
    const struct probe_result *r = b->r;
    struct probe_path *p = b->p;
    p->sent.n = -1;
    if (r->egress.send_errno) {
        p->left = 0;
        p->sent.n = 0;
        p->send_errno = r->egress.send_errno;
        p->kernel_mtu = r->egress.kernel_mtu > 0 ? r->egress.kernel_mtu : 0;
        struct probe_path_event *e = event(b, 0, PROBE_PATH_REFUSED, PROBE_PATH_SEEN_KERNEL);
        if (e) {
            e->mtu = p->kernel_mtu;
            if (r->egress.send_errno == EMSGSIZE && e->mtu)
                etext(e, "send() refused it: EMSGSIZE (MTU %d), nothing left", e->mtu);
            else
                etext(e, "send() refused it (%s), nothing left", strerror(r->egress.send_errno));
        }
        return;
    }
    p->left = r->sent.answer == PROBE_ANS_YES ? 1 : r->sent.answer == PROBE_ANS_NO ? 0 : -1;
    if (r->egress.packets > 0 && r->egress.first_len > 0) {
        if (r->egress.fragments > 0) probe_path_split(r->spec.size, r->egress.first_len, b->v6, &p->sent);
        else pieces_one(&p->sent, r->egress.first_len, PROBE_PATH_PIECES_CAPTURE);
        p->sent.from = PROBE_PATH_PIECES_CAPTURE;
        /* One count: IP's split by the first piece must give the pieces the
         * capture counted, else their sizes are not known. */
        if (r->egress.fragments > 0 && p->sent.n != r->egress.fragments) p->sent.n = -1;
    } else if (p->left == 1 && r->fragmenter == PROBE_FRAG_HOST) {
        int mtu = r->egress.path_mtu_before > 0 ? r->egress.path_mtu_before : r->egress.dev_mtu;
        if (mtu > 0) probe_path_split(r->spec.size, mtu, b->v6, &p->sent);
    } else if (p->left == 1 && (r->fragmenter == PROBE_FRAG_NONE || r->fragmenter == PROBE_FRAG_ROUTER ||
                                probe_proto_is_tcp(r->spec.proto) ||
                                !probe_judge_host_frags(&r->spec, r->egress.dev_mtu, r->egress.path_mtu_before))) {
        pieces_one(&p->sent, r->spec.size, PROBE_PATH_PIECES_RULE);
    }
    if (p->left == 1 || r->egress.packets > 0) p->reached = r->egress.packets > 0 ? 0 : p->reached;
    if (p->sent.n > 1) {
        struct probe_path_event *e = event(
            b, 0, PROBE_PATH_FRAGMENTED,
            p->sent.from == PROBE_PATH_PIECES_CAPTURE ? PROBE_PATH_SEEN_CAPTURE : PROBE_PATH_SEEN_INFERENCE);
        if (e) {
            e->pieces = p->sent;
            char pt[80];
            pieces_text(&p->sent, pt, sizeof pt);
            etext(e, "the host fragmented it: %d pieces %s", p->sent.n, pt);
        }
    }
}

/* Whether the witness's report agrees with the model: the pieces that left
 * the host, cut by the links on the way (one model, one count, issue 34):
 * its count (exact with its packet tap), largest and smallest piece. TCP:
 * it reports segments, not IP pieces, so it confirms nothing here. */
static int witness_agrees(const struct probe_result *r, const struct probe_path_pieces *model) {
    if (probe_proto_is_tcp(r->spec.proto) || model->n < 1) return 0;
    if (r->witness.fragments == 0) return model->n == 1;
    if (r->witness.frag_max <= 0 || model->n < 2) return 0;
    if (r->witness.fragments > 0 && r->witness.fragments != model->n) return 0;
    int lo = model->len[0];
    for (int i = 0; i < pieces_listed(model); i++)
        if (model->len[i] < lo) lo = model->len[i];
    return pieces_max(model) == r->witness.frag_max && (r->witness.frag_min <= 0 || r->witness.frag_min == lo);
}

/* The pieces on arrival from the witness alone (no model, or one it
 * contradicts): whole, or IP's split by its largest piece when that gives
 * its count; n -1 when it could not tell or the split would be a guess. */
static void witness_pieces(const struct probe_result *r, int v6, struct probe_path_pieces *out) {
    memset(out, 0, sizeof *out);
    out->n = -1;
    if (probe_proto_is_tcp(r->spec.proto)) return;
    if (r->witness.fragments == 0) pieces_one(out, r->spec.size, PROBE_PATH_PIECES_WITNESS);
    else if (r->witness.frag_max > 0) probe_path_split(r->spec.size, r->witness.frag_max, v6, out);
    else return;
    out->from = PROBE_PATH_PIECES_WITNESS;
    if (r->witness.fragments > 0 && out->n != r->witness.fragments) out->n = -1;
}

/* The target's event when the witness reported: the model's pieces when
 * the witness agrees with them, else its own. Returns 1 when it confirmed
 * the model. */
static int witness_arrival(struct build *b, int node, const struct probe_path_pieces *cur, int known) {
    const struct probe_result *r = b->r;
    struct probe_path_event *e = event(b, node, PROBE_PATH_ARRIVED, PROBE_PATH_SEEN_WITNESS);
    if (!e) return 0;
    int agrees = known && witness_agrees(r, cur);
    if (agrees) {
        e->pieces = *cur;
        e->pieces.from = PROBE_PATH_PIECES_WITNESS;
    } else {
        witness_pieces(r, b->v6, &e->pieces);
    }
    e->ttl = r->witness.ttl;
    e->df = r->witness.df;
    char ttl[24] = "";
    if (r->witness.ttl >= 0) snprintf(ttl, sizeof ttl, ", TTL %d", r->witness.ttl);
    if (e->pieces.n > 1) {
        char pt[80];
        pieces_text(&e->pieces, pt, sizeof pt);
        etext(e, "arrived in %d fragments: %s%s", e->pieces.n, pt, ttl);
    } else if (e->pieces.n == 1) {
        etext(e, "arrived whole (%d bytes)%s", e->pieces.len[0], ttl);
    } else if (r->witness.fragments > 0 || r->witness.frag_max > 0) {
        char n[16] = "";
        if (r->witness.fragments > 0) snprintf(n, sizeof n, "%d ", r->witness.fragments);
        etext(e, "arrived in %sfragments, largest %d bytes%s", n, r->witness.frag_max, ttl);
    } else {
        etext(e, "arrived (the witness reported it)%s", ttl);
    }
    return agrees;
}

/* The routers' events the witness's report speaks for: when it confirmed
 * the model, pieces equal to what arrived are the witness's; when it did
 * not, what the routers on the way did is the model's inference. */
static void witness_seen(struct probe_path *p, int target, int agrees) {
    const struct probe_path_event *arrived = &p->ev[p->nevents - 1];
    for (int i = 0; i + 1 < p->nevents; i++) {
        struct probe_path_event *e = &p->ev[i];
        if (e->node >= target || e->seen_by != PROBE_PATH_SEEN_WITNESS) continue;
        if (!agrees) e->seen_by = PROBE_PATH_SEEN_INFERENCE;
        else if (pieces_equal(&e->pieces, &arrived->pieces)) e->pieces.from = PROBE_PATH_PIECES_WITNESS;
    }
}

static void text_pieces(struct probe_path_event *e, const char *what, int mtu) {
    char pt[80];
    pieces_text(&e->pieces, pt, sizeof pt);
    if (mtu > 0) etext(e, "%s %d pieces: %s (next link MTU %d)", what, e->pieces.n, pt, mtu);
    else etext(e, "%s %d pieces: %s", what, e->pieces.n, pt);
}

/* The event of the node that answered (hop), with the quote. */
static void answer_event(struct build *b, int node, int is_target, struct probe_path_pieces *cur) {
    const struct probe_result *r = b->r;
    enum probe_path_icmp k = icmp_kind(r, is_target);
    enum probe_path_what what = k == PROBE_PATH_ICMP_TIME_EXCEEDED    ? PROBE_PATH_EXPIRED
                                : k == PROBE_PATH_ICMP_PORT_UNREACHABLE ? PROBE_PATH_ARRIVED
                                                                       : PROBE_PATH_DROPPED;
    struct probe_path_event *e = event(b, node, what, PROBE_PATH_SEEN_ICMP);
    if (!e) return;
    e->icmp = k;
    e->mtu = r->icmp.mtu > 0 ? r->icmp.mtu : 0;
    quote_into(r, e);
    if (what == PROBE_PATH_ARRIVED && cur->n > 0) e->pieces = *cur;
    const char *frag = e->has_quote && quote_is_fragment(r) ? (r->icmp.quoted_offset > 0 ? "a later" : "a first") : NULL;
    switch (what) {
    case PROBE_PATH_EXPIRED:
        if (!e->has_quote) etext(e, "TTL expired here: Time Exceeded");
        else if (frag) etext(e, "Time Exceeded quoting %s fragment of %d bytes", frag, e->q_len);
        else if (node + 1 < b->p->nnodes && b->p->link[node].mtu > 0 && e->q_len > b->p->link[node].mtu)
            snprintf(e->text, sizeof e->text,
                     "Time Exceeded quoting the whole %d-byte packet: it expired before the smaller link (MTU %d)",
                     e->q_len, b->p->link[node].mtu);
        else etext(e, "Time Exceeded quoting the whole %d-byte packet", e->q_len);
        break;
    case PROBE_PATH_ARRIVED:
        etext(e, "arrived: the target answered port unreachable");
        break;
    default:
        if (k == PROBE_PATH_ICMP_FRAG_NEEDED || k == PROBE_PATH_ICMP_PACKET_TOO_BIG)
            etext(e, "dropped: %s, MTU %d",
                     k == PROBE_PATH_ICMP_FRAG_NEEDED ? "Frag Needed" : "Packet Too Big", e->mtu);
        else
            etext(e, "dropped: Destination Unreachable (type %d, code %d)", r->icmp.type,
                     r->icmp.code);
    }
}

static int node_of_hop(const struct probe_path *p, const struct probe_result *r) {
    if (!r->icmp.hop[0]) return -1;
    for (int i = 1; i < p->nnodes; i++)
        if (r->icmp.hop_name[0] ? !strcmp(p->node[i].name, r->icmp.hop_name) : !strcmp(p->node[i].addr, r->icmp.hop)) return i;
    return -1;
}

/* Where an answer was due but none came: the node at the test's TTL (the
 * node's position is its hop count in a path without gaps), else the target. */
static int node_at_ttl(const struct probe_path *p, int ttl) {
    for (int i = 1; i < p->nnodes; i++)
        if (p->node[i].role == PROBE_PATH_GAP) return -1;
    return ttl > 0 && ttl < p->nnodes ? ttl : p->nnodes - 1;
}

/* The walk along the path, node by node: what travels and what is known. */
struct walk {
    struct build *b;
    struct probe_path_pieces cur; /* what travels */
    int known;                    /* cur is what travels */
    int hop;                      /* the node that answered (ICMP), -1 none */
    int target;                   /* the last node */
    int heard;                    /* the witness saw it */
    int silent_at;                /* where an answer was due but none came, -1 */
    int dfknown, dfset;           /* routers must drop rather than fragment: IPv6 always, IPv4 by DF */
};

/* A firewall of the lab that drops fragments (before it would reassemble
 * them): the pieces end here (1), unless the far end saw them arrive (then
 * the observations win and this says nothing); a router that reassembles. */
static int walk_lab_node(struct walk *w, int i) {
    const struct probe_path_node *nd = &w->b->p->node[i];
    int size = w->b->r->spec.size;
    if (nd->drops_fragments && w->known && w->cur.n > 1 && !w->heard) {
        struct probe_path_event *e = event(w->b, i, PROBE_PATH_DROPPED, PROBE_PATH_SEEN_TOPOLOGY);
        if (e) etext(e, "drops every fragment that reaches it: the %d pieces end here", w->cur.n);
        return 1;
    }
    if (nd->reassembles && w->known && w->cur.n > 1) {
        struct probe_path_event *e = event(w->b, i, PROBE_PATH_REASSEMBLED, PROBE_PATH_SEEN_TOPOLOGY);
        pieces_one(&w->cur, size, PROBE_PATH_PIECES_RULE);
        if (e) {
            e->pieces = w->cur;
            etext(e, "reassembles the fragments: %d bytes whole again", size);
        }
    }
    return 0;
}

/* The node that answered with ICMP. 1: the walk ends here. */
static int walk_answer(struct walk *w, int i) {
    const struct probe_result *r = w->b->r;
    if (w->known && r->icmp.quoted_len > 0 && quote_is_fragment(r) && w->cur.n == 1) w->known = 0;
    answer_event(w->b, i, i == w->target, &w->cur);
    /* TCP with a witness: the stack resends smaller segments after a
     * Frag Needed, and those arrive; anything else ends here. */
    if (!(w->heard && i < w->target)) return 1;
    w->known = 0;
    return 0;
}

/* The target, where the walk ends: the witness's report, an Echo Reply, or
 * silence. */
static void walk_target(struct walk *w, int i) {
    struct build *b = w->b;
    const struct probe_result *r = b->r;
    if (w->heard) {
        int before = b->p->nevents, agrees = witness_arrival(b, i, &w->cur, w->known);
        if (b->p->nevents > before) witness_seen(b->p, w->target, agrees);
    } else if (r->icmp.echo_replies > 0) {
        struct probe_path_event *e = event(b, i, PROBE_PATH_ARRIVED, PROBE_PATH_SEEN_ICMP);
        if (!e) return;
        e->icmp = PROBE_PATH_ICMP_ECHO_REPLY;
        etext(e, "arrived: the target answered (Echo Reply)");
    } else if (w->silent_at == i || w->silent_at < 0) {
        struct probe_path_event *e = event(b, i, PROBE_PATH_SILENT, PROBE_PATH_SEEN_INFERENCE);
        /* A silent witness: dropped somewhere on the way (rules.c, rule c). */
        if (e && r->witness.silent) etext(e, "the witness did not see it: dropped on the way");
        else if (e) etext(e, "no answer from the target");
    }
}

/* No link MTU past router i (a real path): only what the answer's quote
 * shows, else nothing more is known. */
static void walk_unknown_link(struct walk *w, int i) {
    struct build *b = w->b;
    const struct probe_result *r = b->r;
    if (!(w->known && w->hop == i + 1 && w->cur.n == 1 && r->icmp.quoted_len > 0)) {
        w->known = 0;
        return;
    }
    struct probe_path_event *e;
    if (quote_is_fragment(r) && r->icmp.quoted_len < w->cur.len[0]) {
        e = event(b, i, PROBE_PATH_FRAGMENTED, PROBE_PATH_SEEN_ICMP);
        if (e) {
            probe_path_split(r->spec.size, r->icmp.quoted_len, b->v6, &e->pieces);
            e->pieces.from = PROBE_PATH_PIECES_QUOTE;
            text_pieces(e, "fragmented into", 0);
            w->cur = e->pieces;
        }
    } else if (!quote_is_fragment(r)) {
        e = event(b, i, PROBE_PATH_PASSED, PROBE_PATH_SEEN_ICMP);
        if (e) {
            e->pieces = w->cur;
            etext(e, "passed whole");
        }
    }
}

/* A router on the way to the answering node (or past the host, silent).
 * 1: the walk ends here. */
static int walk_router(struct walk *w, int i) {
    struct build *b = w->b;
    const struct probe_result *r = b->r;
    int m = b->p->link[i].mtu;
    if (w->silent_at == i) {
        /* Nothing came back from where the TTL ran out. */
        struct probe_path_event *e = event(b, i, PROBE_PATH_SILENT, PROBE_PATH_SEEN_INFERENCE);
        if (e)
            snprintf(e->text, sizeof e->text,
                     "no answer came back from here on: the packet or its ICMP answer was lost");
        return 1;
    }
    if (!w->known || m <= 0) {
        walk_unknown_link(w, i);
        return 0;
    }
    int big = pieces_max(&w->cur) > m;
    if (big && !w->dfknown) {
        w->known = 0;
        return 0;
    }
    if (big && w->dfset) {
        /* It must have been dropped here with Frag Needed / PTB. */
        if (w->hop < 0 && !w->heard) {
            struct probe_path_event *e = event(b, i, PROBE_PATH_SILENT, PROBE_PATH_SEEN_INFERENCE);
            if (e)
                etext(e, "no answer came back: its next link (MTU %d) is too small and %s, but it sent no %s", m,
                      b->v6 ? "routers never fragment IPv6" : "DF is set", b->v6 ? "Packet Too Big" : "Frag Needed");
            return 1;
        }
        w->known = 0; /* the observations disagree with the rule: say nothing */
        return 0;
    }
    struct probe_path_pieces next = w->cur;
    if (big) refragment(&w->cur, m, &next);
    /* With a witness: seen by it if its report agrees with the model at
     * the target (witness_arrival), else relabelled inference there. */
    enum probe_path_seen seen = PROBE_PATH_SEEN_INFERENCE;
    if (w->hop > i && r->icmp.quoted_len > 0) seen = PROBE_PATH_SEEN_ICMP;
    else if (w->heard && !probe_proto_is_tcp(r->spec.proto)) seen = PROBE_PATH_SEEN_WITNESS;
    if (seen == PROBE_PATH_SEEN_ICMP && next.len[0] == r->icmp.quoted_len) next.from = PROBE_PATH_PIECES_QUOTE;
    struct probe_path_event *e = event(b, i, big ? PROBE_PATH_FRAGMENTED : PROBE_PATH_PASSED, seen);
    if (!e) return 1;
    e->pieces = next;
    if (big) text_pieces(e, w->cur.n > 1 ? "fragmented again into" : "fragmented into", m);
    else if (next.n == 1) etext(e, "passed whole");
    else etext(e, "passed the %d pieces unchanged", next.n);
    w->cur = next;
    return 0;
}

void probe_path_build(const struct probe_result *r, const struct probe_path_topology *topo, struct probe_path *out) {
    struct probe_path p;
    memset(&p, 0, sizeof p);
    struct build b = {r, &p, probe_proto_is_v6(r->spec.proto)};
    p.v = PROBE_PATH_VERSION;
    snprintf(p.view, sizeof p.view, "full");
    p.shown = PROBE_PATH_SHOW_ALL;
    p.nnodes = topo->nnodes;
    memcpy(p.node, topo->node, sizeof p.node);
    memcpy(p.link, topo->link, sizeof p.link);
    p.bytes = r->spec.size;
    p.df = b.v6 || r->df.answer == PROBE_ANS_UNKNOWN ? -1 : r->df.answer == PROBE_ANS_YES;
    p.pmtu_cache = r->egress.cached_pmtu_before > 0 ? r->egress.cached_pmtu_before : 0;
    p.reached = -1;
    build_sent(&b);
    if (p.left != 1 || p.nnodes < 2) {
        *out = p;
        return;
    }
    /* Whether routers must drop rather than fragment: IPv6 always, IPv4 by DF. */
    int dfknown = b.v6 || p.df >= 0, dfset = b.v6 || p.df == 1;
    int hop = node_of_hop(&p, r);
    int heard = r->witness.target[0] && r->witness.heard;
    int silent_at = hop < 0 && !heard && r->icmp.echo_replies <= 0 ? node_at_ttl(&p, r->spec.ttl) : -1;
    struct walk w = {&b, p.sent, p.sent.n > 0, hop, p.nnodes - 1, heard, silent_at, dfknown, dfset};
    for (int i = 1; i < p.nnodes; i++) {
        if (p.node[i].role == PROBE_PATH_GAP) {
            w.known = 0;
            continue;
        }
        if (walk_lab_node(&w, i)) break;
        if (i == w.hop) {
            if (walk_answer(&w, i)) break;
            continue;
        }
        if (i == w.target) {
            walk_target(&w, i);
            break;
        }
        if (walk_router(&w, i)) break;
    }
    other_event(&b);
    *out = p;
}
