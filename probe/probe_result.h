/* libfragprobe: the result of one test -- the three facts, the evidence
 * line, and everything seen on the way to them (probe_run fills it; the
 * judges, the witness merge and the rules write the facts). */
#ifndef FRAGPROBE_RESULT_H
#define FRAGPROBE_RESULT_H

#include "probe_path.h"
#include "probe_spec.h"

struct probe_result {
    struct probe_spec spec;       /* as run (ttl resolved) */
    struct probe_fact sent, df, fragmented;
    enum probe_fragmenter fragmenter;
    int send_errno;               /* errno of send()/write() (EMSGSIZE...), 0 if none */
    int kernel_mtu;               /* MTU the kernel reported with EMSGSIZE, 0 if none */
    int cached_pmtu_before;       /* PMTU cached for the target before the send, 0 if none */
    /* From the quoted header of the ICMP answer (raw observer), -1 when not seen. */
    int quoted_len, quoted_df, quoted_mf, quoted_offset, quoted_frag_hdr;
    char hop[64];                 /* address of the answering hop, "" if none */
    char observer[16];            /* "raw" / "recverr" */
    char evidence[512];           /* one human line, e.g. "kernel fragmented locally: cached PMTU 1280 < 1400" */
    double elapsed_ms;
    /* The answer, the route and the egress tap (-1 / "" when unseen). */
    char hop_name[16];            /* lab node of the answering hop ("r2"), "" off the lab */
    int icmp_type, icmp_code;     /* the answer the judge relied on, -1 if none */
    int icmp_mtu;                 /* its MTU (Frag Needed / PTB), 0 if none */
    int dev_mtu;                  /* MTU of the outgoing device, -1 unknown */
    int path_mtu_before;          /* route MTU before the send (IP_MTU): cached or device, -1 unknown */
    int egress_packets;           /* packets of this test seen leaving the host, -1 unknown */
    int egress_fragments;         /* of which IP fragments, -1 unknown */
    int egress_first_len;         /* total length of the first one, -1 unknown */
    int answers;                  /* ICMP answers matched to this test */
    char reassembling[128];       /* hops known to reassemble, "" if none */
    char lab_does[256];           /* on the lab: what its routers do besides forwarding ("r2 drops every
                                     fragment that reaches it"; probe_lab_behaviours_text), "" none */
    char ttl_basis[96];           /* where the TTL came from: given / lab topology / discovery */
    char sock[8];                 /* the sending socket: "udp" "tcp" "ping" "raw" */
    /* The far-end witness (probe_witness.h); -1 unseen. */
    char witness[280];            /* "HOST:PORT" of the witness asked, "" none */
    int witness_heard;            /* 1 its report came back, 0 not (witness_note says why) */
    int witness_silent;           /* 1 nothing explains the missing report (timeout): the evidence says so */
    int w_raw, w_ttl, w_df, w_bytes, w_fragments, w_frag_max, w_frag_min, w_segments, w_seg_max;
    unsigned far_end;             /* facts the witness observed: bits 1 sent, 2 df, 4 fragmented */
    char witness_note[200];       /* what the witness added, or why it could not */
    /* The path. */
    int echo_replies;             /* ICMP tests: Echo Replies from the target, -1 not looked for */
    struct probe_path path;       /* hop by hop (probe_run builds it last); v 0 = none */
    /* ICMP answers about another packet of the test (a later TCP segment, a
     * resend, another datagram): shown, never the answer. */
    int other_answers;            /* how many came back */
    char other_hop[64];           /* the address of the first one's hop, "" none */
    char other_quote[128];        /* what it quoted: "another segment (seq +2896, 104 bytes)" */
};
#endif
