/* The judge: turns what was sent and what an observer saw into the three
 * answers. Pure: no I/O, and it asks nobody -- the path's node names and link
 * MTUs come in as data (struct probe_path_topology) -- so both observers are
 * judged by the same rules and tests can feed it observations. An answer is "observed" only when a packet
 * (ours leaving, or a router's quote) shows it; otherwise the kernel's rules
 * (ip(7), measured in ../shared notes) give an "inferred" answer, or it
 * stays "unknown" with the reason. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "judge.h"
#include "judge_facts.h"
#include "quote_about.h"
#include "send_errno.h"

static void addr_str(int family, const uint8_t *a, char *buf, size_t len) {
    if (!inet_ntop(family, a, buf, (socklen_t)len)) snprintf(buf, len, "?");
}

/* "r2 (198.51.100.2)" in the lab, the address elsewhere. */
static void hop_label(const struct probe_result *r, char *buf, size_t len) {
    if (r->icmp.hop_name[0]) snprintf(buf, len, "%s (%s)", r->icmp.hop_name, r->icmp.hop);
    else snprintf(buf, len, "%s", r->icmp.hop);
}

/* The answer that speaks about the packet as a whole: of the answers about
 * the packet the question is about (issue 34), the first that quotes it whole
 * or its first fragment. An answer about another packet of the test is
 * counted and the first one described in r->other_*, never used. */
static const struct probe_icmp *primary_answer(const struct probe_sendinfo *si, const struct probe_observation *obs,
                                               struct probe_result *r) {
    const struct probe_icmp *whole = NULL, *any = NULL;
    for (int i = 0; i < obs->nanswers; i++) {
        const struct probe_icmp *a = &obs->answers[i];
        char what[sizeof r->icmp.other.quote];
        struct fv_msg about;
        if (probe_quote_about(si, &obs->pkt, &a->q, what, sizeof what, &about) != PROBE_ABOUT_THIS) {
            if (r->icmp.other.answers++) continue;
            addr_str(a->family, a->from, r->icmp.other.hop, sizeof r->icmp.other.hop);
            snprintf(r->icmp.other.quote, sizeof r->icmp.other.quote, "%s", what);
            r->icmp.other.quote_msg = about;
            continue;
        }
        if (!any) any = a;
        if (!whole && a->q.frag_offset == 0 && a->kind != PROBE_ICMP_OTHER) whole = a;
    }
    return whole ? whole : any;
}

void probe_judge(const struct probe_sendinfo *si, const struct probe_observation *obs,
                 const struct probe_path_topology *topo, struct probe_result *r) {
    const struct probe_spec *s = &r->spec;
    int v6 = probe_proto_is_v6(s->proto), tcp = probe_proto_is_tcp(s->proto);
    r->icmp.other.answers = 0;
    r->icmp.other.hop[0] = r->icmp.other.quote[0] = '\0';
    const struct probe_icmp *p = primary_answer(si, obs, r);
    char hop[96] = "";
    r->icmp.answers = obs->nanswers + obs->answers_dropped;
    r->egress.packets = obs->egress_packets;
    r->egress.fragments = obs->egress_fragments;
    r->egress.first_len = obs->egress_first_len;
    r->icmp.echo_replies = obs->echo_replies;
    int hop_node = -1;
    if (p) {
        addr_str(p->family, p->from, r->icmp.hop, sizeof r->icmp.hop);
        if (topo && (hop_node = probe_path_topology_node_of(topo, r->icmp.hop)) >= 0)
            snprintf(r->icmp.hop_name, sizeof r->icmp.hop_name, "%.*s", (int)sizeof r->icmp.hop_name - 1, topo->node[hop_node].name);
        hop_label(r, hop, sizeof hop);
        r->icmp.type = p->type;
        r->icmp.code = p->code;
        r->icmp.mtu = p->mtu;
        r->icmp.quoted_len = p->q.total_len;
        r->icmp.quoted_df = p->q.df;
        r->icmp.quoted_mf = p->q.mf;
        r->icmp.quoted_offset = p->q.frag_offset;
        r->icmp.quoted_frag_hdr = p->q.frag_hdr;
    }

    struct probe_judge_in in = {si, obs, topo, p, hop, hop_node};
    probe_judge_sent(&in, r);
    probe_judge_df(&in, r);
    probe_judge_frag(&in, r);

    /* ---- one line of evidence (messages, probe/evidence.c) ---- */
    probe_ev_clear(r);
    if (tcp && si->sent && obs->egress_first_len > 0) {
        if (v6) probe_ev_add(r, "ev.tcp_first_v6", "len=%d", obs->egress_first_len);
        else probe_ev_add(r, "ev.tcp_first", "len=%d df=%d", obs->egress_first_len, obs->egress_df);
    }
    const char *icmp = v6 ? "Packet Too Big" : "Frag Needed";
    if (!si->sent) {
        int cached = r->egress.kernel_mtu > 0 && r->egress.dev_mtu > 0 && r->egress.kernel_mtu < r->egress.dev_mtu;
        const char *ek = probe_errno_key(si->send_errno);
        if (si->send_errno == EMSGSIZE && cached)
            probe_ev_add(r, "ev.emsgsize_cached", "size=%d mtu=%d dev=%d", s->size, r->egress.kernel_mtu, r->egress.dev_mtu);
        else if (si->send_errno == EMSGSIZE)
            probe_ev_add(r, "ev.emsgsize", "size=%d mtu=%d", s->size, r->egress.kernel_mtu);
        else if (ek)
            probe_ev_add(r, "ev.send_failed", "@error=%s", ek);
        else
            probe_ev_add(r, "ev.send_failed", "error=%s", strerror(si->send_errno));
    } else if (r->fragmenter == PROBE_FRAG_HOST) {
        if (r->egress.dev_mtu > 0 && s->size > r->egress.dev_mtu)
            probe_ev_add(r, "ev.host_frag_dev", "size=%d mtu=%d", s->size, r->egress.dev_mtu);
        else if (r->egress.path_mtu_before > 0 && r->egress.path_mtu_before < s->size)
            probe_ev_add(r, "ev.host_frag_cache", "mtu=%d size=%d", r->egress.path_mtu_before, s->size);
        else
            probe_ev_add(r, "ev.host_frag", " ");
        if (p && probe_quote_is_fragment(&p->q) && obs->egress_max_len > 0 && p->q.total_len < obs->egress_max_len)
            probe_ev_add(r, "ev.frag_again", "hop=%s len=%d", hop, p->q.total_len);
    } else if (r->fragmenter == PROBE_FRAG_ROUTER) {
        if (topo && hop_node > 0)
            probe_ev_add(r, "ev.router_frag_named", "router=%s hop=%s len=%d df=%d", topo->node[hop_node - 1].name, hop,
                         p ? p->q.total_len : -1, p ? p->q.df : -1);
        else
            probe_ev_add(r, "ev.router_frag", "hop=%s len=%d df=%d", hop, p ? p->q.total_len : -1, p ? p->q.df : -1);
    } else if (p && p->q.total_len < 0) {
        probe_ev_add_fact(r, &r->fragmented);
    } else if (p && p->kind == PROBE_ICMP_FRAG_NEEDED && r->fragmented.answer == PROBE_ANS_NO) {
        probe_ev_add(r, "ev.dropped", "hop=%s icmp=%s mtu=%d", hop, icmp, p->mtu);
    } else if (p && r->fragmented.answer == PROBE_ANS_NO) {
        if (v6) probe_ev_add(r, "ev.went_whole_quoted_v6", "hop=%s len=%d", hop, p->q.total_len);
        else probe_ev_add(r, "ev.went_whole_quoted", "hop=%s len=%d df=%d", hop, p->q.total_len, p->q.df ? 1 : 0);
    } else {
        probe_ev_add_fact(r, &r->fragmented);
    }
    if (r->icmp.other.answers) {
        int node = topo ? probe_path_topology_node_of(topo, r->icmp.other.hop) : -1;
        char name[16]; /* as the line always cut it */
        if (node >= 0) snprintf(name, sizeof name, "%.15s", topo->node[node].name);
        if (node >= 0) probe_ev_add(r, "ev.other_answer_named", "node=%s hop=%s", name, r->icmp.other.hop);
        else probe_ev_add(r, "ev.other_answer", "hop=%s", r->icmp.other.hop);
        if (r->icmp.other.quote_msg.key[0]) probe_ev_add_row(r, &r->icmp.other.quote_msg, 1); /* what it quoted */
        else probe_ev_add_text(r, r->icmp.other.quote);
        probe_ev_add(r, "ev.other_answer_end", " ");
    }
}
