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

#include "observe.h"

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

/* probe_fact_set_text (the arrival's words are English only: no message;
 * docs/LANGUAGES.md), and whether the far end is what observed it. */
static void far_fact(struct probe_result *r, struct probe_fact *f, enum probe_answer a, enum probe_basis b, int far,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void far_fact(struct probe_result *r, struct probe_fact *f, enum probe_answer a, enum probe_basis b, int far,
                     const char *fmt, ...) {
    far_bit(r, f, far);
    char why[sizeof f->why];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    probe_fact_set_text(f, a, b, why);
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

/* What arrived, as one phrase: "arrived at dst in 2 fragments, largest 1276 bytes". */
static void arrival(const struct probe_result *r, const char *where, char *buf, size_t len) {
    /* where is at most 80 bytes (the caller's buffer) */
    int tcp = probe_proto_is_tcp(r->spec.proto);
    if (r->witness.frag_max > 0 && r->witness.fragments > 0)
        snprintf(buf, len, "arrived at %s in %d fragments, largest %d bytes", where, r->witness.fragments, r->witness.frag_max);
    else if (r->witness.frag_max > 0)
        snprintf(buf, len, "arrived at %s in fragments, largest %d bytes", where, r->witness.frag_max);
    else if (r->witness.fragments == 0 && !tcp)
        snprintf(buf, len, "arrived at %s whole (%d bytes)", where,
                 r->witness.bytes + (probe_proto_is_v6(r->spec.proto) ? 48 : 28)); /* the IP datagram */
    else if (r->witness.fragments == 0)
        snprintf(buf, len, "arrived at %s whole (%d payload bytes)", where, r->witness.bytes);
    else
        snprintf(buf, len, "%d payload bytes arrived at %s", r->witness.bytes, where);
    if (tcp && r->witness.segments >= 0)
        append(buf, len, " in %d data segment%s%s", r->witness.segments, r->witness.segments == 1 ? "" : "s",
               r->witness.seg_max > 0 ? "" : "");
    if (tcp && r->witness.seg_max > 0) append(buf, len, " (largest %d bytes)", r->witness.seg_max);
    if (r->witness.ttl > 0 && r->spec.ttl > r->witness.ttl)
        append(buf, len, ", TTL %d on arrival (%d router%s)", r->witness.ttl, r->spec.ttl - r->witness.ttl,
               r->spec.ttl - r->witness.ttl == 1 ? "" : "s");
}

/* DF as it arrived says what left the host only where nothing on the way
 * changed it. No router sets DF, but some clear it (firewalls, VPN
 * gateways; lab --cleardf): DF=0 on arrival against the kernel's rule for
 * this socket (DF=1) says a router cleared it, not that the host sent DF=0. */
static void df_from_far_end(const struct probe_path_topology *topo, struct probe_result *r, const char *where,
                            const char *node) {
    int clears = probe_path_topology_clears_df(topo);
    char witness[72];
    snprintf(witness, sizeof witness, "%.64s", r->witness.target);
    if (r->witness.df) {
        if (node) probe_fact_set(&r->df, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.far_df1_at", "node=%s", node);
        else probe_fact_set(&r->df, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.far_df1_witness", "witness=%s", witness);
        far_bit(r, &r->df, 1);
    } else if (r->df.answer == PROBE_ANS_YES) {
        /* the kernel's rule for this socket (the judge's, inferred) stands,
         * with the far end's words after it: English only, so no message */
        append(r->df.why, sizeof r->df.why, "; DF=0 on arrival at %s: %s cleared it", where,
               clears ? topo->node[clears].name : "a router on the way");
        memset(&r->df.msg, 0, sizeof r->df.msg);
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
        if (r->witness.silent) append(r->evidence, sizeof r->evidence, " [%s]", r->witness.note);
        return;
    }
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto), tcp = probe_proto_is_tcp(s->proto);
    char where[80];
    const char *node = topo && probe_path_topology_node_of(topo, s->host) == topo->nnodes - 1
                           ? topo->node[topo->nnodes - 1].name
                           : NULL; /* the target is the path's last node: named as it */
    if (node) snprintf(where, sizeof where, "%s", node);
    else snprintf(where, sizeof where, "the witness %.64s", r->witness.target);
    char seen[256];
    arrival(r, where, seen, sizeof seen);

    /* ---- sent? ---- */
    if (r->sent.basis != PROBE_BASIS_OBSERVED || r->sent.answer != PROBE_ANS_YES)
        far_fact(r, &r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, 1, "%s", seen);

    /* ---- DF? ---- */
    if (!v6 && r->witness.df >= 0 && r->df.basis != PROBE_BASIS_OBSERVED) df_from_far_end(topo, r, where, node);

    /* ---- fragmented, and by whom? ---- */
    int arrived_frag = r->witness.frag_max > 0 ? 1 : r->witness.fragments == 0 ? 0 : -1;
    int host_seen = r->fragmenter == PROBE_FRAG_HOST && r->fragmented.basis == PROBE_BASIS_OBSERVED;
    int host_whole = r->egress.packets > 0 && r->egress.fragments == 0; /* the raw observer saw it leave whole */
    char who[200] = "";
    if (arrived_frag == 1 && host_seen) {
        append(r->evidence, sizeof r->evidence, "; %s", seen);
        snprintf(r->witness.note, sizeof r->witness.note, "%.199s", seen);
        return;
    }
    if (arrived_frag == 1 && r->fragmented.basis == PROBE_BASIS_OBSERVED && r->fragmented.answer == PROBE_ANS_YES) {
        /* The near end already saw a router's fragment: the far end agrees. */
        append(r->evidence, sizeof r->evidence, "; %s", seen);
        snprintf(r->witness.note, sizeof r->witness.note, "%.199s", seen);
        return;
    }
    if (arrived_frag == 1) {
        enum probe_fragmenter by;
        if (tcp) {
            by = PROBE_FRAG_ROUTER;
            snprintf(who, sizeof who, "TCP is never IP-fragmented by its sender: a router did");
        } else if (host_whole) {
            by = PROBE_FRAG_ROUTER;
            snprintf(who, sizeof who, "it left the host whole: a router fragmented it");
        } else if (v6) {
            by = PROBE_FRAG_HOST;
            snprintf(who, sizeof who, "routers never fragment IPv6: the host did");
        } else if (probe_judge_host_frags(s, r->egress.dev_mtu, r->egress.path_mtu_before)) {
            by = PROBE_FRAG_HOST;
            snprintf(who, sizeof who, "by the kernel's rules the host fragmented it (%d > MTU %d)", s->size,
                     r->egress.path_mtu_before > 0 ? r->egress.path_mtu_before : r->egress.dev_mtu);
        } else {
            by = PROBE_FRAG_ROUTER;
            snprintf(who, sizeof who, "by the kernel's rules the host sent it whole: a router fragmented it");
        }
        int from = r->df.answer == PROBE_ANS_YES && topo ? probe_path_topology_clears_df(topo) : 1;
        int mtu = 0, rt = by == PROBE_FRAG_ROUTER && topo ? path_fragmenter(topo, from, s->size, &mtu) : -1;
        if (rt > 0)
            snprintf(who, sizeof who, "%s fragmented it (the %s-%s link has MTU %d)%s", topo->node[rt].name,
                     topo->node[rt].name, topo->node[rt + 1].name, mtu,
                     host_whole ? "; it left the host whole" : tcp ? "; TCP is never IP-fragmented by its sender" : "");
        far_fact(r, &r->fragmented, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, 1, "%s", seen);
        r->fragmenter = by;
        snprintf(r->evidence, sizeof r->evidence, "%s: %s", seen, who);
    } else if (arrived_frag == 0) {
        if (host_seen || (r->fragmented.basis == PROBE_BASIS_OBSERVED && r->fragmented.answer == PROBE_ANS_YES)) {
            /* Cannot both be true unless something on the way reassembled it:
             * keep what the near end saw, say what the far end saw. */
            append(r->evidence, sizeof r->evidence, "; yet it %s (something on the way reassembled it)", seen);
        } else {
            far_fact(r, &r->fragmented, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, 1, "%s", seen);
            r->fragmenter = PROBE_FRAG_NONE;
            snprintf(r->evidence, sizeof r->evidence, "went whole: %s", seen);
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
        append(r->evidence, sizeof r->evidence, "; %s", seen);
    }
    snprintf(r->witness.note, sizeof r->witness.note, "%.199s", seen);
}
