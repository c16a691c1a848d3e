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
        fv_msg_key(&f[i]->msg[0], "why.not_run");
        f[i]->nmsg = 1;
        fv_msg_text(&f[i]->msg[0], f[i]->why, sizeof f[i]->why);
    }
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    r->icmp.quoted_len = r->icmp.quoted_df = r->icmp.quoted_mf = r->icmp.quoted_offset = r->icmp.quoted_frag_hdr = -1;
    /* the evidence as a message (its reason stays as the caller words it) */
    fv_msg_row_add(r->ev, &r->nev, PROBE_EVIDENCE_PARTS, "ev.not_measured", "why=%s", why);
    fv_msg_row_text(r->ev, r->nev, r->evidence, sizeof r->evidence);
    if (strlen(why) >= FV_MSG_STR_MAX) { /* longer than a message's argument: English alone */
        r->nev = -1;
        snprintf(r->evidence, sizeof r->evidence, "not measured: %s", why);
    }
}

int prober_result_matches(const struct probe_spec *spec, const struct probe_result *res) {
    return res->spec.proto == spec->proto && res->spec.mode == spec->mode && res->spec.size == spec->size;
}
