/* The judge of "sent?": seen leaving, quoted by an ICMP answer, answered by
 * the target, or send() failed. Pure. */
#include <stdio.h>
#include <string.h>

#include "judge_fact.h"
#include "judge_facts.h"
#include "send_errno.h"

void probe_judge_sent(const struct probe_judge_in *in, struct probe_result *r) {
    const struct probe_sendinfo *si = in->si;
    const struct probe_observation *obs = in->obs;
    const struct probe_icmp *p = in->p;
    if (!si->sent) {
        /* the error as its catalog key (the page's language), else strerror's English */
        const char *ek = probe_errno_key(si->send_errno);
        int mtu = r->egress.kernel_mtu;
        if (mtu > 0 && ek)
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.send_failed_mtu", "@error=%s mtu=%d", ek, mtu);
        else if (mtu > 0)
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.send_failed_mtu", "error=%s mtu=%d",
                           strerror(si->send_errno), mtu);
        else if (ek)
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.send_failed", "@error=%s", ek);
        else
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "why.send_failed", "error=%s",
                           strerror(si->send_errno));
    } else if (obs->egress_packets > 0) {
        /* Each fact's why speaks only of its own fact: the quiz reveals
         * "sent?" while "DF?" and "fragmented?" are still to be voted on, so
         * no packet count, size or answering hop here (docs/PROTOCOL.md). */
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.seen_leaving", " ");
    } else if (p) {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.icmp_quoted", " ");
    } else if (obs->echo_replies > 0) {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "why.echo_reply", " ");
    } else if (obs->egress_packets == 0) {
        probe_fact_set(&r->sent, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.not_seen", " ");
    } else {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_INFERRED, "why.accepted_unseen", " ");
    }
}
