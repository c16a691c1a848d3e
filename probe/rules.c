/* The rules of IP, first-class (issue 34). Where neither the near end nor
 * the witness observed whether the packet was fragmented -- behind a PMTUD
 * black hole nothing comes back -- a stated rule decides what it can from
 * what was observed of the rest, with basis "rule" and its words in the why:
 *   (a) an IPv4 packet with DF=1 that left the host whole: no router
 *       fragments it (one that cannot forward it drops it);
 *   (b) IPv6 that left the host whole: no router fragments IPv6;
 *   (c) it left the host whole and the witness, asked, did not see it:
 *       dropped on the way, not fragmented by the host (with DF=0 a router
 *       may still have cut it before the drop: the answer stays unknown).
 * Runs last, after the judge, the recverr refinement and the witness merge.
 * Pure: no I/O. */
#include <stdio.h>
#include <string.h>

#include "observe.h"

/* The evidence line: the TCP prefix the judge wrote ("TCP: first segment
 * ...; "), then the rule's why, then the witness's note when it was silent. */
static void rule_evidence(struct probe_result *r) {
    char prefix[96] = "";
    if (!strncmp(r->evidence, "TCP: ", 5)) {
        const char *end = strstr(r->evidence, "; ");
        if (end && (size_t)(end - r->evidence) + 3 < sizeof prefix)
            snprintf(prefix, sizeof prefix, "%.*s", (int)(end - r->evidence) + 2, r->evidence);
    }
    snprintf(r->evidence, sizeof r->evidence, "%s%s%s%s%s%s", prefix, r->fragmented.why,
             r->fragmented.basis == PROBE_BASIS_RULE ? " (rule)" : "", r->witness.silent ? " [" : "",
             r->witness.silent ? r->witness.note : "", r->witness.silent ? "]" : "");
}

void probe_rules_apply(struct probe_result *r) {
    if (r->sent.answer != PROBE_ANS_YES || r->fragmented.basis != PROBE_BASIS_UNKNOWN) return;
    int v6 = probe_proto_is_v6(r->spec.proto);
    int whole = r->egress.packets > 0 && r->egress.fragments == 0; /* seen leaving whole (raw tap) */
    if (!whole) return;
    int df = !v6 && r->df.answer == PROBE_ANS_YES && r->df.basis == PROBE_BASIS_OBSERVED;
    const char *lost = r->witness.silent ? "; the witness did not see it: dropped on the way" : "";
    if (df || v6) {
        probe_fact_set(&r->fragmented, PROBE_ANS_NO, PROBE_BASIS_RULE, "it left the host whole and %s%s",
                       v6 ? "no router fragments IPv6" : "with DF=1 no router may fragment it", lost);
        r->fragmenter = PROBE_FRAG_NONE;
        r->witness.far_end &= ~4u;
    } else if (r->witness.silent) {
        probe_fact_set(&r->fragmented, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
                       "it left the host whole and the witness did not see it: dropped on the way, not fragmented by "
                       "the host; with DF=0 a router may have cut it first");
    } else {
        return;
    }
    rule_evidence(r);
}
