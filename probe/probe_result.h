/* libfragprobe: the result of one test -- the three facts, the evidence
 * line, and what was seen on the way to them, grouped by where it was seen:
 * leaving the host (egress), in ICMP answers (icmp), at the far end
 * (witness), known of the route (route), and the path hop by hop (probe_run
 * fills it; the judges, the witness merge and the rules write the facts). */
#ifndef FRAGPROBE_RESULT_H
#define FRAGPROBE_RESULT_H

#include "probe_path.h"
#include "probe_spec.h"

/* How the send went and what left the host. */
struct probe_seen_egress {
    char observer[16];            /* who watched: "raw" / "recverr" */
    char sock[8];                 /* the sending socket: "udp" "tcp" "ping" "raw" */
    int send_errno;               /* errno of send()/write() (EMSGSIZE...), 0 if none */
    int kernel_mtu;               /* MTU the kernel reported with EMSGSIZE, 0 if none */
    int cached_pmtu_before;       /* PMTU cached for the target before the send, 0 if none */
    int dev_mtu;                  /* MTU of the outgoing device, -1 unknown */
    int path_mtu_before;          /* route MTU before the send (IP_MTU): cached or device, -1 unknown */
    int packets;                  /* packets of this test seen leaving the host, -1 unknown */
    int fragments;                /* of which IP fragments, -1 unknown */
    int first_len;                /* total length of the first one, -1 unknown */
};
/* The ICMP answers to the test (-1 / "" when unseen). */
struct probe_seen_icmp {
    int answers;                  /* ICMP answers matched to this test */
    int type, code;               /* the answer the judge relied on, -1 if none */
    int mtu;                      /* its MTU (Frag Needed / PTB), 0 if none */
    char hop[64];                 /* address of the answering hop, "" if none */
    char hop_name[16];            /* lab node of the answering hop ("r2"), "" off the lab */
    /* From its quoted header (raw observer), -1 when not seen. */
    int quoted_len, quoted_df, quoted_mf, quoted_offset, quoted_frag_hdr;
    int echo_replies;             /* ICMP tests: Echo Replies from the target, -1 not looked for */
    /* Answers about another packet of the test (a later TCP segment, a
     * resend, another datagram): shown, never the answer. */
    struct {
        int answers;              /* how many came back */
        char hop[64];             /* the address of the first one's hop, "" none */
        char quote[128];          /* what it quoted: "another segment (seq +2896, 104 bytes)" */
        struct fv_msg quote_msg;  /* the same as a message (ev.quote_*; not stored: the evidence row is) */
    } other;
};
/* What the far-end witness reported (probe_witness.h); -1 unseen. */
struct probe_seen_witness {
    char target[280];             /* "HOST:PORT" of the witness asked, "" none */
    int heard;                    /* 1 its report came back, 0 not (note says why) */
    int silent;                   /* 1 nothing explains the missing report (timeout): the evidence says so */
    int raw, ttl, df, bytes, fragments, frag_max, frag_min, segments, seg_max; /* its report */
    unsigned far_end;             /* facts the witness observed: bits 1 sent, 2 df, 4 fragmented */
    char note[200];               /* what the witness added, or why it could not */
    int waited_ms;                /* silent: how long the probe waited for its report (note's words; not stored) */
};
/* What is known of the route before judging. */
struct probe_seen_route {
    char ttl_basis[96];           /* where the TTL came from: given / lab topology / discovery */
    char reassembling[128];       /* hops known to reassemble, "" if none */
    char lab_does[256];           /* on the lab: what its routers do besides forwarding ("r2 drops every
                                     fragment that reaches it"; probe_lab_behaviours_text), "" none */
};

#define PROBE_EVIDENCE_PARTS 16   /* the evidence line's messages (probe_result.ev) */
struct probe_result {
    struct probe_spec spec;       /* as run (ttl resolved) */
    struct probe_fact sent, df, fragmented;
    enum probe_fragmenter fragmenter;
    char evidence[512];           /* one human line, e.g. "kernel fragmented locally: cached PMTU 1280 < 1400" */
    int nev;                      /* the same as messages in a row (fv_msg.h; evidence is their English, */
    struct fv_msg ev[PROBE_EVIDENCE_PARTS]; /* cut to fit): 0 none, -1 lost (did not fit: English only) */
    double elapsed_ms;
    struct probe_seen_egress egress;
    struct probe_seen_icmp icmp;
    struct probe_seen_witness witness;
    struct probe_seen_route route;
    struct probe_path path;       /* hop by hop (probe_run builds it last); v 0 = none */
};
#endif
