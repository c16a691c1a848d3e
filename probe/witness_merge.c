/* Both ends of one test in one answer. The near end (probe/judge.c and the
 * recverr refinement) saw what left the host and what routers said; the
 * witness saw what arrived. Each fact keeps the near end's observation where
 * it has one, else takes the far end's (basis observed, far_end 1, the why
 * naming the witness), else the kernel's rules: TCP is never IP-fragmented
 * by its sender, routers never fragment IPv6. Who fragmented comes from both
 * ends together: left whole (near) + arrived in pieces (far) = a router; in
 * the lab the link MTUs say which one. Pure: no I/O. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "fragprobe.h"
#include "judge_fact.h"
#include "judge_kernel.h"

static unsigned fact_bit(const struct probe_result *r, const struct probe_fact *f) {
    return f == &r->sent ? 1u : f == &r->df ? 2u : f == &r->fragmented ? 4u : 0u;
}

const char *probe_fact_basis_label(const struct probe_result *r, const struct probe_fact *f) {
    if (f->basis == PROBE_BASIS_OBSERVED && (r->witness.far_end & fact_bit(r, f))) return "observed (far end)";
    return probe_basis_name(f->basis);
}

/* Whether the far end is what observed fact f. */
static void far_bit(struct probe_result *r, const struct probe_fact *f, int far) {
    if (far) r->witness.far_end |= fact_bit(r, f);
    else r->witness.far_end &= ~fact_bit(r, f);
}

/* The arrival as the fact's why (messages in a row: docs/LANGUAGES.md), and
 * whether the far end is what observed it. */
struct arrival_row {
    int n;
    struct fv_msg m[PROBE_WHY_PARTS];
};
static void far_fact(struct probe_result *r, struct probe_fact *f, enum probe_answer a, enum probe_basis b, int far,
                     const struct arrival_row *seen) {
    far_bit(r, f, far);
    probe_fact_set_row(f, a, b, seen->m, seen->n);
}

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* The router that must have fragmented a packet of len bytes on a known
 * path: the first one from node `from` on whose next link is smaller (a
 * packet with DF=1 can only be cut after the router that clears DF). -1 if
 * none. */
static int path_fragmenter(const struct probe_path_topology *t, int from, int len, int *mtu) {
    for (int i = from > 1 ? from : 1; i < t->nnodes - 1; i++)
        if (t->link[i].mtu < len) {
            *mtu = t->link[i].mtu;
            return i;
        }
    return -1;
}

/* What arrived, as one phrase: "arrived at dst in 2 fragments, largest 1276
 * bytes" (at the lab's last node by its name, else at the witness by its
 * address: where), messages in a row (ev.arrived_*), and its English. */
static void arrival(const struct probe_result *r, const char *node, const char *witness, struct arrival_row *row,
                    char *buf, size_t len) {
    int tcp = probe_proto_is_tcp(r->spec.proto);
    const char *where = node ? node : witness;
    struct fv_msg *m = row->m;
    int *n = &row->n, cap = PROBE_WHY_PARTS;
    *n = 0;
    if (r->witness.frag_max > 0 && r->witness.fragments > 0)
        fv_msg_row_add(m, n, cap, node ? "ev.arrived_frags_at" : "ev.arrived_frags_witness", "where=%s n=%d max=%d", where,
                       r->witness.fragments, r->witness.frag_max);
    else if (r->witness.frag_max > 0)
        fv_msg_row_add(m, n, cap, node ? "ev.arrived_somefrags_at" : "ev.arrived_somefrags_witness", "where=%s max=%d",
                       where, r->witness.frag_max);
    else if (r->witness.fragments == 0 && !tcp)
        fv_msg_row_add(m, n, cap, node ? "ev.arrived_whole_at" : "ev.arrived_whole_witness", "where=%s len=%d", where,
                       r->witness.bytes + (probe_proto_is_v6(r->spec.proto) ? 48 : 28)); /* the IP datagram */
    else if (r->witness.fragments == 0)
        fv_msg_row_add(m, n, cap, node ? "ev.arrived_whole_payload_at" : "ev.arrived_whole_payload_witness",
                       "where=%s len=%d", where, r->witness.bytes);
    else
        fv_msg_row_add(m, n, cap, node ? "ev.arrived_payload_at" : "ev.arrived_payload_witness", "where=%s len=%d", where,
                       r->witness.bytes);
    if (tcp && r->witness.segments >= 0)
        fv_msg_row_add(m, n, cap, r->witness.segments == 1 ? "ev.arrived_segment" : "ev.arrived_segments", "n=%d",
                       r->witness.segments);
    if (tcp && r->witness.seg_max > 0) fv_msg_row_add(m, n, cap, "ev.arrived_seg_largest", "max=%d", r->witness.seg_max);
    int routers = r->spec.ttl - r->witness.ttl;
    if (r->witness.ttl > 0 && routers > 0)
        fv_msg_row_add(m, n, cap, routers == 1 ? "ev.arrived_ttl_one" : "ev.arrived_ttl", "ttl=%d n=%d", r->witness.ttl,
                       routers);
    fv_msg_row_text(m, *n, buf, len);
}

/* DF as it arrived says what left the host only where nothing on the way
 * changed it. No router sets DF, but some clear it (firewalls, VPN
 * gateways; lab --cleardf): DF=0 on arrival against the kernel's rule for
 * this socket (DF=1) says a router cleared it, not that the host sent DF=0. */
static void df_from_far_end(const struct probe_path_topology *topo, struct probe_result *r, const char *node,
                            const char *witness) {
    int clears = probe_path_topology_clears_df(topo);
    if (r->witness.df) {
        if (node) probe_fact_set(&r->df, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.far_df1_at", "node=%s", node);
        else probe_fact_set(&r->df, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.far_df1_witness", "witness=%s", witness);
        far_bit(r, &r->df, 1);
    } else if (r->df.answer == PROBE_ANS_YES) {
        /* the kernel's rule for this socket (the judge's, inferred) stands,
         * with the far end's words after it */
        const char *where = node ? node : witness;
        struct fv_msg note;
        if (clears)
            fv_msg_set(&note, node ? "why.far_cleared_at" : "why.far_cleared_witness", "where=%s router=%s", where,
                       topo->node[clears].name);
        else
            fv_msg_set(&note, node ? "why.far_cleared_at_unknown" : "why.far_cleared_witness_unknown", "where=%s", where);
        probe_fact_add(&r->df, &note);
    } else {
        if (node) probe_fact_set(&r->df, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.far_df0_at", "node=%s", node);
        else probe_fact_set(&r->df, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.far_df0_witness", "witness=%s", witness);
        far_bit(r, &r->df, 1);
    }
}

void probe_witness_merge(const struct probe_path_topology *topo, struct probe_result *r) {
    if (!r->witness.target[0]) return;
    if (!r->witness.heard) {
        /* Silence is news; a probe a router dropped, or one never sent, is
         * explained by the near end already (the note keeps it). */
        struct fv_msg note;
        if (r->witness.silent && probe_ev_silence(r, &note) == 0) probe_ev_add_row(r, &note, 1);
        else if (r->witness.silent) append(r->evidence, sizeof r->evidence, " [%s]", r->witness.note), r->nev = -1;
        return;
    }
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto), tcp = probe_proto_is_tcp(s->proto);
    char witness[72];
    snprintf(witness, sizeof witness, "%.64s", r->witness.target);
    const char *node = topo && probe_path_topology_node_of(topo, s->host) == topo->nnodes - 1
                           ? topo->node[topo->nnodes - 1].name
                           : NULL; /* the target is the path's last node: named as it */
    char seen[256];
    struct arrival_row row;
    arrival(r, node, witness, &row, seen, sizeof seen);

    /* ---- sent? ---- */
    if (r->sent.basis != PROBE_BASIS_OBSERVED || r->sent.answer != PROBE_ANS_YES)
        far_fact(r, &r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, 1, &row);

    /* ---- DF? ---- */
    if (!v6 && r->witness.df >= 0 && r->df.basis != PROBE_BASIS_OBSERVED) df_from_far_end(topo, r, node, witness);

    /* ---- fragmented, and by whom? ---- */
    int arrived_frag = r->witness.frag_max > 0 ? 1 : r->witness.fragments == 0 ? 0 : -1;
    int host_seen = r->fragmenter == PROBE_FRAG_HOST && r->fragmented.basis == PROBE_BASIS_OBSERVED;
    int host_whole = r->egress.packets > 0 && r->egress.fragments == 0; /* the raw observer saw it leave whole */
    if (arrived_frag == 1 && (host_seen || (r->fragmented.basis == PROBE_BASIS_OBSERVED &&
                                            r->fragmented.answer == PROBE_ANS_YES))) {
        /* The near end saw the host's fragments, or a router's: the far end agrees. */
        probe_ev_add(r, "ev.then", " ");
        probe_ev_add_row(r, row.m, row.n);
        snprintf(r->witness.note, sizeof r->witness.note, "%.199s", seen);
        return;
    }
    if (arrived_frag == 1) {
        enum probe_fragmenter by = tcp || host_whole ? PROBE_FRAG_ROUTER
                                   : v6 ? PROBE_FRAG_HOST
                                   : probe_judge_host_frags(s, r->egress.dev_mtu, r->egress.path_mtu_before)
                                       ? PROBE_FRAG_HOST
                                       : PROBE_FRAG_ROUTER;
        int from = r->df.answer == PROBE_ANS_YES && topo ? probe_path_topology_clears_df(topo) : 1;
        int mtu = 0, rt = by == PROBE_FRAG_ROUTER && topo ? path_fragmenter(topo, from, s->size, &mtu) : -1;
        far_fact(r, &r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, 1, &row);
        r->fragmenter = by;
        /* the evidence: what arrived, then who fragmented it */
        probe_ev_clear(r);
        probe_ev_add_row(r, row.m, row.n);
        if (rt > 0) {
            probe_ev_add(r, "ev.by_link", "router=%s next=%s mtu=%d", topo->node[rt].name, topo->node[rt + 1].name, mtu);
            if (host_whole) probe_ev_add(r, "ev.by_link_left_whole", " ");
            else if (tcp) probe_ev_add(r, "ev.by_link_tcp", " ");
        } else if (tcp) {
            probe_ev_add(r, "ev.by_tcp", " ");
        } else if (host_whole) {
            probe_ev_add(r, "ev.by_left_whole", " ");
        } else if (v6) {
            probe_ev_add(r, "ev.by_v6", " ");
        } else if (by == PROBE_FRAG_HOST) {
            probe_ev_add(r, "ev.by_host_rule", "size=%d mtu=%d", s->size,
                         r->egress.path_mtu_before > 0 ? r->egress.path_mtu_before : r->egress.dev_mtu);
        } else {
            probe_ev_add(r, "ev.by_router_rule", " ");
        }
    } else if (arrived_frag == 0) {
        if (host_seen || (r->fragmented.basis == PROBE_BASIS_OBSERVED && r->fragmented.answer == PROBE_ANS_YES)) {
            /* Cannot both be true unless something on the way reassembled it:
             * keep what the near end saw, say what the far end saw. */
            probe_ev_add(r, "ev.yet_it", " ");
            probe_ev_add_row(r, row.m, row.n);
            probe_ev_add(r, "ev.reassembled_on_the_way", " ");
        } else {
            far_fact(r, &r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, 1, &row);
            r->fragmenter = PROBE_FRAG_NONE;
            probe_ev_clear(r);
            probe_ev_add(r, "ev.went_whole", " ");
            probe_ev_add_row(r, row.m, row.n);
        }
    } else {
        /* The witness could not see IP fragments (TCP without CAP_NET_RAW). */
        if (r->fragmented.basis == PROBE_BASIS_UNKNOWN && tcp && v6) {
            probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED, "why.tcp_v6", " ");
            far_bit(r, &r->fragmented, 0);
            r->fragmenter = PROBE_FRAG_NONE;
        } else if (r->fragmented.basis == PROBE_BASIS_UNKNOWN && tcp && r->df.answer == PROBE_ANS_YES &&
                   !probe_path_topology_clears_df(topo)) {
            probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_INFERRED, "why.tcp_df1", " ");
            far_bit(r, &r->fragmented, 0);
            r->fragmenter = PROBE_FRAG_NONE;
        }
        probe_ev_add(r, "ev.then", " ");
        probe_ev_add_row(r, row.m, row.n);
    }
    snprintf(r->witness.note, sizeof r->witness.note, "%.199s", seen);
}
