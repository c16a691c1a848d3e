/* Issue 36, item 2, as a check tests share: a partial path view (a reveal's
 * picture while siblings of its test are open) must be the same whatever
 * the open questions' answers are. check_path_view_invariant makes the
 * counterfactual paths -- the full path with what each open fact owns
 * changed: DF flipped, a Frag Needed and the router that sent it, the
 * arrival added or taken away, pieces cut or joined, how far it got,
 * nothing left at all -- and compares each one's view with the real one's,
 * as the JSON a viewer receives. Needs quiz (quiz_path_view) and measure
 * (path_json_from). */
#ifndef FRAGVOTE_CHECK_PATH_VIEW_H
#define FRAGVOTE_CHECK_PATH_VIEW_H
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"
#include "path_json.h"
#include "quiz.h"

/* p as the JSON text a viewer gets (keys sorted), malloc'd; NULL if none. */
static inline char *check_path_json_text(const struct probe_path *p) {
    json_t *o = path_json_from(p);
    char *s = o ? json_dumps(o, JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return s;
}

static inline char *check_path_view_text(const struct probe_path *full, enum qkind kind, unsigned allowed) {
    struct probe_path p = *full;
    quiz_path_view(&p, kind, allowed);
    return check_path_json_text(&p);
}

static inline struct probe_path_event *check_path_view_event(struct probe_path *p, int node, enum probe_path_what w) {
    if (p->nevents >= PROBE_PATH_EVENTS_MAX) return NULL;
    struct probe_path_event *e = &p->ev[p->nevents++];
    memset(e, 0, sizeof *e);
    e->node = node;
    e->what = w;
    e->seen_by = PROBE_PATH_SEEN_ICMP;
    e->pieces.n = -1;
    e->q_len = e->q_df = e->q_mf = e->q_offset = e->q_frag_hdr = e->ttl = e->df = -1;
    e->shown = PROBE_PATH_EV_ALL;
    snprintf(e->text, sizeof e->text, "counterfactual");
    return e;
}

/* The router that answered this packet, as a real path adds it: after a
 * gap, before the target (a lab's path: its first router answers). Returns
 * its node. */
static inline int check_path_view_answerer(struct probe_path *p) {
    int gap = -1;
    for (int i = 0; i < p->nnodes; i++)
        if (p->node[i].role == PROBE_PATH_GAP) gap = i;
    if (gap < 0 || p->nnodes + 2 > PROBE_PATH_NODES_MAX) return p->nnodes > 2 ? 1 : 0;
    int t = p->nnodes - 1; /* the target */
    p->node[t + 2] = p->node[t];
    p->link[t + 1] = p->link[t - 1 >= 0 ? t - 1 : 0];
    memset(&p->node[t], 0, sizeof p->node[t]);
    snprintf(p->node[t].name, sizeof p->node[t].name, "…");
    p->node[t].role = PROBE_PATH_GAP;
    memset(&p->node[t + 1], 0, sizeof p->node[t + 1]);
    snprintf(p->node[t + 1].name, sizeof p->node[t + 1].name, "hop 9");
    snprintf(p->node[t + 1].addr, sizeof p->node[t + 1].addr, "203.0.113.9");
    p->node[t + 1].role = PROBE_PATH_ROUTER;
    p->link[t] = (struct probe_path_link){0, PROBE_PATH_MTU_NONE};
    p->link[t + 1] = (struct probe_path_link){1280, PROBE_PATH_MTU_ICMP};
    p->nnodes += 2;
    for (int i = 0; i < p->nevents; i++)
        if (p->ev[i].node == t) p->ev[i].node = t + 2;
    return t + 1;
}

static inline void check_path_view_drop(struct probe_path *p, enum probe_path_what w) {
    int k = 0;
    for (int i = 0; i < p->nevents; i++)
        if (p->ev[i].what != w) p->ev[k++] = p->ev[i];
    p->nevents = k;
}

static inline int check_path_view_has(const struct probe_path *p, enum probe_path_what w) {
    for (int i = 0; i < p->nevents; i++)
        if (p->ev[i].what == w) return 1;
    return 0;
}

#define CHECK_PATH_VIEW_MUTATIONS 12
/* Counterfactual m of full for the open kinds (bits 1 << QKIND_*) into *out:
 * 1 made, 0 when m does not concern an open fact. */
static inline int check_path_view_mutate(const struct probe_path *full, unsigned open, int m, struct probe_path *out) {
    *out = *full;
    int s = open & (1u << QKIND_SENT), d = open & (1u << QKIND_DF), f = open & (1u << QKIND_FRAGMENTED);
    int last = out->nnodes - 1;
    struct probe_path_event *e;
    switch (m) {
    case 0: /* DF flipped as it left */
        if (!d) return 0;
        out->df = out->df == 1 ? 0 : 1;
        return 1;
    case 1: /* a Frag Needed came back from a router this packet met */
        if (!d && !f) return 0;
        if ((e = check_path_view_event(out, check_path_view_answerer(out), PROBE_PATH_DROPPED))) {
            e->icmp = PROBE_PATH_ICMP_FRAG_NEEDED;
            e->mtu = 1280;
            e->has_quote = 1;
            e->q_len = 1400, e->q_df = 1, e->q_mf = 0;
        }
        return 1;
    case 2: /* the arrival: there if it was not, gone if it was */
        if (!d && !f && !s) return 0;
        if (check_path_view_has(out, PROBE_PATH_ARRIVED)) check_path_view_drop(out, PROBE_PATH_ARRIVED);
        else if ((e = check_path_view_event(out, last, PROBE_PATH_ARRIVED))) e->seen_by = PROBE_PATH_SEEN_WITNESS;
        return 1;
    case 3: /* it arrived in pieces */
        if (!f) return 0;
        check_path_view_drop(out, PROBE_PATH_ARRIVED);
        if ((e = check_path_view_event(out, last, PROBE_PATH_ARRIVED))) {
            e->pieces.n = 2, e->pieces.len[0] = 1276, e->pieces.len[1] = 144;
            e->pieces.from = PROBE_PATH_PIECES_WITNESS;
            e->df = 0, e->ttl = 62;
        }
        return 1;
    case 4: /* the host cut it: pieces left */
        if (!f) return 0;
        out->sent.n = 2, out->sent.len[0] = 1276, out->sent.len[1] = 144, out->sent.from = PROBE_PATH_PIECES_CAPTURE;
        return 1;
    case 5: /* a router cut it */
        if (!f || last < 2) return 0;
        if ((e = check_path_view_event(out, 1, PROBE_PATH_FRAGMENTED))) e->pieces.n = 2, e->pieces.len[0] = 1276,
                                                                           e->pieces.len[1] = 144;
        return 1;
    case 6: /* a router joined the pieces */
        if (!f || last < 2) return 0;
        check_path_view_event(out, 1, PROBE_PATH_REASSEMBLED);
        return 1;
    case 7: /* it passed the first router whole (how far it got) */
        if ((!d && !f) || last < 2) return 0;
        check_path_view_event(out, 1, PROBE_PATH_PASSED);
        out->reached = 1;
        return 1;
    case 8: /* a Time Exceeded from a router beyond discovery */
        if (!d && !f) return 0;
        if ((e = check_path_view_event(out, check_path_view_answerer(out), PROBE_PATH_EXPIRED))) {
            e->icmp = PROBE_PATH_ICMP_TIME_EXCEEDED;
            e->has_quote = 1;
            e->q_len = 1276, e->q_df = 0, e->q_mf = 1;
        }
        return 1;
    case 9: /* nothing left the host: the kernel refused it */
        if (!s) return 0;
        out->left = out->left == 1 ? 0 : 1;
        out->send_errno = out->send_errno ? 0 : 90; /* EMSGSIZE */
        out->kernel_mtu = out->kernel_mtu ? 0 : 1280;
        if (check_path_view_has(out, PROBE_PATH_REFUSED)) check_path_view_drop(out, PROBE_PATH_REFUSED);
        else if ((e = check_path_view_event(out, 0, PROBE_PATH_REFUSED))) e->seen_by = PROBE_PATH_SEEN_KERNEL;
        return 1;
    case 10: /* it vanished: every event of an open fact gone (pieces cut or joined are fragmented?'s,
              * the host's refusal sent?'s; the rest -- arrival, ICMP, how far -- tells any) */
        if (!d && !f && !s) return 0;
        {
            int k = 0;
            for (int i = 0; i < out->nevents; i++) {
                enum probe_path_what w = out->ev[i].what;
                int keep = ((w == PROBE_PATH_FRAGMENTED || w == PROBE_PATH_REASSEMBLED) && !f) ||
                           (w == PROBE_PATH_REFUSED && !s);
                if (keep) out->ev[k++] = out->ev[i];
            }
            out->nevents = k;
        }
        out->reached = -1;
        return 1;
    case 11: /* the cached PMTU before the send */
        if (!d && !f) return 0;
        out->pmtu_cache = out->pmtu_cache ? 0 : 1280;
        return 1;
    }
    return 0;
}

/* The first counterfactual whose view of kind (allowed: the facts that may
 * be shown; open: the other asked ones) differs from full's, as its number,
 * or -1 when every one matches. The two texts go to stderr. */
static inline int check_path_view_invariant(const struct probe_path *full, enum qkind kind, unsigned allowed,
                                            unsigned open) {
    char *want = check_path_view_text(full, kind, allowed);
    int bad = -1;
    for (int m = 0; m < CHECK_PATH_VIEW_MUTATIONS && bad < 0; m++) {
        struct probe_path cf;
        if (!check_path_view_mutate(full, open, m, &cf)) continue;
        char *got = check_path_view_text(&cf, kind, allowed);
        if (!want || !got || strcmp(want, got)) {
            bad = m;
            fprintf(stderr, "  view %s (allowed %#x, open %#x) changes with counterfactual %d:\n    %s\n    %s\n",
                    qkind_name(kind), allowed, open, m, want ? want : "(none)", got ? got : "(none)");
        }
        free(got);
    }
    free(want);
    return bad;
}

/* Every partial view of full (each kind, each set of open siblings among
 * asked): the number that change with an open fact's answer (0: none). */
static inline int check_path_views_all(const struct probe_path *full, unsigned asked, int *checked) {
    int bad = 0;
    for (int kind = 0; kind < QKIND_N; kind++) {
        if (!(asked & (1u << kind))) continue;
        unsigned others = asked & ~(1u << kind);
        for (unsigned open = others;; open = (open - 1) & others) {
            if (open) {
                /* an earlier sibling open: topology only; else the facts not open */
                for (int earlier = 0; earlier < 2; earlier++) {
                    unsigned allowed = earlier ? 0u : 7u & ~open;
                    if (earlier && !(open & ((1u << kind) - 1))) continue;
                    (*checked)++;
                    if (check_path_view_invariant(full, (enum qkind)kind, allowed, open) >= 0) bad++;
                }
            }
            if (!open) break;
        }
    }
    return bad;
}
#endif
