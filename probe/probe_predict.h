/* libfragprobe: the predictor -- what the rules say a test will do, and why
 * (probe/predict.c, pure; issue 37).
 *
 * From what is known before the send -- the test (protocol, mode, size,
 * TTL), the device MTU, the PMTU cached for the target, and the path's link
 * MTUs and router behaviours where known (the lab) -- it predicts each fact
 * (sent? DF? fragmented, by whom? what comes back?) as a short chain of
 * steps, each naming the rule it applies (a socket option's meaning, what
 * the kernel does, what a router does). The rules are the project's own
 * words for what ../shared/notes and docs/PROBE.md establish, written once
 * here; the reveal shows them under the verdict, and where the measurement
 * differs from them it says so ("Surprise: the rules said no -- ...").
 *
 * Each step says which facts its words tell (`tells`), so a reveal can show
 * a fact's chain without saying anything of a sibling question still open. */
#ifndef FRAGPROBE_PREDICT_H
#define FRAGPROBE_PREDICT_H

#include <stddef.h>

#include "fv_msg.h"
#include "probe_path.h"
#include "probe_result.h"
#include "probe_spec.h"

#define PROBE_PREDICT_STEPS_MAX 6
#define PROBE_PREDICT_STEP_MAX 200
#define PROBE_PREDICT_TEXT_MAX 720   /* a chain in one line (probe_predict_text) */

/* The facts a step's words tell (bits of probe_predict_step.tells). */
enum { PROBE_TELLS_SENT = 1u << 0, PROBE_TELLS_DF = 1u << 1, PROBE_TELLS_FRAG = 1u << 2 };

struct probe_predict_step {
    const char *rule;             /* the rule's name, static: "socket option", "kernel: send", ... */
    unsigned tells;               /* PROBE_TELLS_* of the answers it gives away; 0 none */
    struct fv_msg msg;            /* its words: a catalog key ("rule.do_fits") and its arguments */
    char text[PROBE_PREDICT_STEP_MAX]; /* msg in English (fv_msg_text) */
};
struct probe_predicted {
    enum probe_answer answer;     /* unknown: the rules cannot say (the path is not known) */
    int nsteps;
    struct probe_predict_step step[PROBE_PREDICT_STEPS_MAX];
};
struct probe_prediction {
    struct probe_predicted sent, df, fragmented;
    enum probe_fragmenter fragmenter;
    char comes_back[PROBE_PREDICT_STEP_MAX]; /* what the host should hear back, "" when nothing known */
};

struct probe_predict_in {
    struct probe_spec spec;       /* ttl as run (PROBE_TTL_AUTO: it reaches the target) */
    int dev_mtu;                  /* MTU of the outgoing device, <= 0 unknown */
    int cached_pmtu;              /* PMTU cached for the target before the send, 0 none */
    const struct probe_path_topology *topo; /* the path, node 0 the host; link MTUs 0 where not known
                                               before the send; NULL: nothing known past the host */
};

/* Pure: the prediction of in. Never fails. */
void probe_predict(const struct probe_predict_in *in, struct probe_prediction *out);

/* Pure: the inputs a finished result gives: its spec, device MTU and cached
 * PMTU before the send, and its path's nodes and the link MTUs known before
 * the send (the lab's and the device's; those learned from ICMP are not).
 * topo is filled when r has a path (in->topo points at it), else in->topo is
 * NULL. */
void probe_predict_in_of(const struct probe_result *r, struct probe_path_topology *topo,
                         struct probe_predict_in *in);

/* The fact a question asks, as the prediction holds it. */
enum probe_predict_fact { PROBE_PREDICT_SENT, PROBE_PREDICT_DF, PROBE_PREDICT_FRAGMENTED };
const struct probe_predicted *probe_predict_fact(const struct probe_prediction *p, enum probe_predict_fact f);

/* Pure: the chain of fact f as one line ("step; step; ... so: yes"), only
 * the steps whose `tells` lie within `shown` (PROBE_TELLS_* of the facts
 * that may be told; the fact's own bit is always allowed). Returns the
 * length written. */
size_t probe_predict_text(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown, char *out,
                          size_t n);

/* Pure: the same steps as probe_predict_text, as messages (fv_msg.h: a
 * key and its arguments, for a page to word in its reader's language).
 * Returns how many. */
int probe_predict_msgs(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown,
                       struct fv_msg out[PROBE_PREDICT_STEPS_MAX]);

/* Pure: the chain's conclusion alone -- its last step within shown (as
 * probe_predict_text) -- for a screen with no room for the whole chain (the
 * projector beside a path picture). Returns the length written. */
size_t probe_predict_key(const struct probe_prediction *p, enum probe_predict_fact f, unsigned shown, char *out,
                         size_t n);

/* Pure: 1 when the measured answer m of fact f (yes/no, observed or
 * decided) differs from the prediction's (yes/no), with the headline in out:
 * "Surprise: the rules said no -- <m's why>" (without the dash when m's why
 * is ""); 0 (out "") when they agree or either is unknown. */
int probe_predict_surprise(const struct probe_prediction *p, enum probe_predict_fact f, const struct probe_fact *m,
                           char *out, size_t n);
/* The same as a message: "surprise.said_why" with the arguments answer (a
 * key: "answer.no") and why (m's why in English; a page puts the why's own
 * message in its place), "surprise.said" without a why. */
int probe_predict_surprise_msg(const struct probe_prediction *p, enum probe_predict_fact f,
                               const struct probe_fact *m, struct fv_msg *out);

#endif
