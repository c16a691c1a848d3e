/* Results of the prober interface that need no prober (see prober.h). */
#include "prober.h"

#include <stdio.h>
#include <string.h>

void prober_result_unknown(const struct probe_spec *spec, const char *why, struct probe_result *r) {
    memset(r, 0, sizeof *r);
    r->spec = *spec;
    struct probe_fact *f[3] = {&r->sent, &r->df, &r->fragmented};
    for (int i = 0; i < 3; i++) {
        f[i]->answer = PROBE_ANS_UNKNOWN;
        f[i]->basis = PROBE_BASIS_UNKNOWN;
        fv_msg_key(&f[i]->msg, "why.not_run");
        fv_msg_text(&f[i]->msg, f[i]->why, sizeof f[i]->why);
    }
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    r->icmp.quoted_len = r->icmp.quoted_df = r->icmp.quoted_mf = r->icmp.quoted_offset = r->icmp.quoted_frag_hdr = -1;
    snprintf(r->evidence, sizeof r->evidence, "not measured: %s", why);
}

int prober_result_matches(const struct probe_spec *spec, const struct probe_result *res) {
    return res->spec.proto == spec->proto && res->spec.mode == spec->mode && res->spec.size == spec->size;
}
