/* The rules of IP, first-class (issue 34). Where neither the near end nor
 * the witness observed whether the packet was fragmented -- behind a PMTUD
 * black hole nothing comes back -- a stated rule decides what it can from
 * what was observed of the rest, with basis "rule" and its words in the why:
 *   (a) an IPv4 packet with DF=1 that left the host whole: no router
 *       fragments it (one that cannot forward it drops it) -- except on a
 *       path known to have a router that clears DF (lab --cleardf), where
 *       the answer stays unknown;
 *   (b) IPv6 that left the host whole: no router fragments IPv6;
 *   (c) it left the host whole and the witness, asked, did not see it:
 *       dropped on the way, not fragmented by the host (with DF=0 a router
 *       may still have cut it before the drop: the answer stays unknown);
 *   (d) on a path whose link MTUs are known (the lab: its routers forward
 *       every whole packet; their behaviours drop only fragments or ICMP),
 *       an IPv4 packet with DF=0 that left the host whole is fragmented by
 *       the router before the first link it crossed that is smaller than
 *       it, and by none when it fits every link it crossed.
 * Runs last, after the judge, the recverr refinement and the witness merge.
 * Pure: no I/O. */
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "judge_fact.h"
#include "judge_links.h"
#include "rules.h"

/* The evidence line: the TCP prefix the judge wrote ("TCP: first segment
 * ...; "), then the rule's why, the judge's "; r2 (...) answered with a
 * quote of another segment (...): not this packet" when one came back, then
 * the witness's note when it was silent. Its messages are the same parts of
 * the judge's row (probe/evidence.c), kept only when they say this English. */
/* The first part of the row m[0..n) whose English starts at offset at of
 * the row's English, n when none does. */
static int part_at(const struct fv_msg *m, int n, size_t at) {
    size_t pos = 0;
    char t[512];
    for (int i = 0; i < n; i++) {
        if (pos == at) return i;
        pos += fv_msg_text(&m[i], t, sizeof t);
    }
    return n;
}

static void rule_evidence(struct probe_result *r) {
    struct fv_msg was[PROBE_EVIDENCE_PARTS];
    int nwas = r->nev;
    memcpy(was, r->ev, sizeof was);
    char prefix[96] = "", other[240] = "";
    size_t other_at = 0;
    if (!strncmp(r->evidence, "TCP: ", 5)) {
        const char *end = strstr(r->evidence, "; ");
        if (end && (size_t)(end - r->evidence) + 3 < sizeof prefix)
            snprintf(prefix, sizeof prefix, "%.*s", (int)(end - r->evidence) + 2, r->evidence);
    }
    const char *a = r->icmp.other.answers ? strstr(r->evidence, " answered with ") : NULL;
    if (a) {
        while (a > r->evidence && strncmp(a, "; ", 2)) a--;
        snprintf(other, sizeof other, "%.239s", a);
        other_at = (size_t)(a - r->evidence);
    }
    int rule = r->fragmented.basis == PROBE_BASIS_RULE;
    int n = snprintf(r->evidence, sizeof r->evidence, "%s%s%s%s%s%s%s", prefix, r->fragmented.why, rule ? " (rule)" : "",
                     other, r->witness.silent ? " [" : "", r->witness.silent ? r->witness.note : "",
                     r->witness.silent ? "]" : "");
    if (n >= (int)sizeof r->evidence) {
        /* cut to fit: its start (the rule's words) is what the room reads */
    }
    r->nev = 0;
    /* the same parts: the prefix is the judge's first, the other answer
     * those from where its English starts (checked below) */
    int cap = PROBE_EVIDENCE_PARTS;
    if (prefix[0]) fv_msg_row_append(r->ev, &r->nev, cap, was, nwas > 0 ? 1 : -1);
    fv_msg_row_append(r->ev, &r->nev, cap, r->fragmented.msg, r->fragmented.nmsg > 0 ? r->fragmented.nmsg : -1);
    if (rule) fv_msg_row_add(r->ev, &r->nev, cap, "ev.rule", " ");
    int from = other[0] ? part_at(was, nwas, other_at) : nwas;
    if (other[0]) fv_msg_row_append(r->ev, &r->nev, cap, was + from, from < nwas ? nwas - from : -1);
    struct fv_msg note;
    if (r->witness.silent) fv_msg_row_append(r->ev, &r->nev, cap, &note, probe_ev_silence(r, &note) == 0 ? 1 : -1);
    probe_ev_check(r); /* lost unless it says exactly the line */
}

/* Rule (d): 1 when it decided. */
static int known_links(const struct probe_path_topology *topo, struct probe_result *r) {
    int last = probe_path_topology_last_node(topo, r);
    if (last < 0) return 0;
    probe_judge_links(topo, last, r->egress.first_len > 0 ? r->egress.first_len : r->spec.size, PROBE_BASIS_RULE, r);
    return 1;
}

void probe_rules_apply(const struct probe_path_topology *topo, struct probe_result *r) {
    if (r->sent.answer != PROBE_ANS_YES || r->fragmented.basis != PROBE_BASIS_UNKNOWN) return;
    int v6 = probe_proto_is_v6(r->spec.proto);
    int whole = r->egress.packets > 0 && r->egress.fragments == 0; /* seen leaving whole (raw tap) */
    if (!whole) return;
    int df = !v6 && r->df.answer == PROBE_ANS_YES && r->df.basis == PROBE_BASIS_OBSERVED;
    int clears = df ? probe_path_topology_clears_df(topo) : 0;
    if (clears) {
        /* Rule (a) does not hold on this path: a router clears DF. */
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.rule_df1_cleared", "router=%s",
                       topo->node[clears].name);
    } else if (df || v6) {
        const char *key = v6 ? (r->witness.silent ? "why.rule_v6_lost" : "why.rule_v6")
                             : r->witness.silent ? "why.rule_df1_lost" : "why.rule_df1";
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_RULE, key, " ");
        r->fragmenter = PROBE_FRAG_NONE;
        r->witness.far_end &= ~4u;
    } else if (topo && !v6 && r->df.answer == PROBE_ANS_NO && r->df.basis == PROBE_BASIS_OBSERVED &&
               known_links(topo, r)) {
        /* decided by the path's known links */
    } else if (r->witness.silent) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.rule_lost", " ");
    } else {
        return;
    }
    rule_evidence(r);
}
