/* The judge of "sent?": seen leaving, quoted by an ICMP answer, answered by
 * the target, or send() failed. Pure. */
#include <stdio.h>
#include <string.h>

#include "judge.h"

void probe_judge_sent(const struct probe_judge_in *in, struct probe_result *r) {
    const struct probe_sendinfo *si = in->si;
    const struct probe_observation *obs = in->obs;
    const struct probe_icmp *p = in->p;
    if (!si->sent) {
        if (r->egress.kernel_mtu > 0)
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "send() failed: %s (kernel MTU %d)",
                 strerror(si->send_errno), r->egress.kernel_mtu);
        else
            probe_fact_set(&r->sent, PROBE_ANS_NO, PROBE_BASIS_OBSERVED, "send() failed: %s", strerror(si->send_errno));
    } else if (obs->egress_packets > 0) {
        /* Each fact's why speaks only of its own fact: the quiz reveals
         * "sent?" while "DF?" and "fragmented?" are still to be voted on, so
         * no packet count, size or answering hop here (docs/PROTOCOL.md). */
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "it was seen leaving the host");
    } else if (p) {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED, "an ICMP answer quoted it");
    } else if (obs->echo_replies > 0) {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_OBSERVED,
                       "the target answered the echo request (Echo Reply)");
    } else if (obs->egress_packets == 0) {
        probe_fact_set(&r->sent, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN,
             "send() succeeded but nothing of this test was seen leaving the host");
    } else {
        probe_fact_set(&r->sent, PROBE_ANS_YES, PROBE_BASIS_INFERRED,
             "send() accepted it; this observer cannot see the wire and no hop answered");
    }
}
