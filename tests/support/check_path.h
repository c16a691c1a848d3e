/* The no-sibling-leak rule for a reveal's path (issue 20, docs/PROTOCOL.md
 * "What a reveal shows"), as a check tests share: which field of a path
 * picture would answer which question. Header-only, jansson. */
#ifndef FRAGVOTE_CHECK_PATH_H
#define FRAGVOTE_CHECK_PATH_H
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "fragprobe.h"

/* The answer the judge relied on: from hop (lab node name), with its quote. */
static inline void check_path_answer(struct probe_result *r, const char *hop, const char *name, int type, int code,
                                     int mtu, int len, int df, int mf) {
    snprintf(r->icmp.hop, sizeof r->icmp.hop, "%s", hop);
    snprintf(r->icmp.hop_name, sizeof r->icmp.hop_name, "%s", name);
    r->icmp.type = type;
    r->icmp.code = code;
    r->icmp.mtu = mtu;
    r->icmp.quoted_len = len;
    r->icmp.quoted_df = df;
    r->icmp.quoted_mf = mf;
    r->icmp.quoted_offset = r->icmp.quoted_frag_hdr = 0;
}

/* r->path from r's observations on the default lab's plan (IPv4). */
static inline void check_path_build_lab(struct probe_result *r) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    char err[256];
    probe_lab_config_default(&cfg);
    probe_lab_plan(&cfg, &lab, err, sizeof err);
    struct probe_path_topology t;
    probe_path_topology_lab(&lab, 0, &t);
    probe_path_build(r, &t, &r->path);
}

/* Gives r (answers and evidence already set by the test) the observations and
 * path of the lab's "fragmented by r1" case: DF=0, 1400 bytes left whole, r1
 * cut it for its 1280 link, r2's Time Exceeded quoted the first fragment. */
static inline void check_path_fragmented_by_r1(struct probe_result *r) {
    r->spec.proto = PROBE_UDP4;
    r->spec.mode = PROBE_MODE_DONT;
    r->spec.size = 1400;
    r->spec.ttl = 2;
    r->fragmenter = PROBE_FRAG_ROUTER;
    r->egress.packets = 1;
    r->egress.fragments = 0;
    r->egress.first_len = 1400;
    r->egress.dev_mtu = r->egress.path_mtu_before = 1500;
    check_path_answer(r, "198.51.100.2", "r2", 11, 0, 0, 1276, 0, 1);
    r->icmp.echo_replies = -1;
    check_path_build_lab(r);
}

/* The same test with DF=1: r1 dropped the whole packet with Frag Needed,
 * MTU 1280 (an ICMP, a quote, an MTU learned from it). */
static inline void check_path_dropped_at_r1(struct probe_result *r) {
    check_path_fragmented_by_r1(r);
    r->spec.mode = PROBE_MODE_DO;
    r->df.answer = PROBE_ANS_YES;
    r->fragmenter = PROBE_FRAG_NONE;
    check_path_answer(r, "192.0.2.2", "r1", 3, 4, 1280, 1400, 1, 0);
    check_path_build_lab(r);
}

/* The first field of `path` (a reveal's "path" object) that would answer a
 * question whose kind is in open_kinds (bits 1 << QKIND_*), or NULL when none
 * does. sent?: whether anything left (sent.left, sent.error, a refused or
 * arrived event); DF?: the DF bit (sent.df, any ICMP, quote or text: a Frag
 * Needed tells DF=1); fragmented?: pieces anywhere, events that cut, passed,
 * reassembled, expired or dropped it, how far it got, the text lines. */
static inline const char *check_path_leak(json_t *path, unsigned open_kinds) {
    if (!path) return NULL;
    json_t *sent = json_object_get(path, "sent");
    int s = open_kinds & (1u << QKIND_SENT), d = open_kinds & (1u << QKIND_DF),
        f = open_kinds & (1u << QKIND_FRAGMENTED);
    if (s && json_object_get(sent, "left")) return "sent.left";
    if (s && json_object_get(sent, "error")) return "sent.error";
    if (d && json_object_get(sent, "df")) return "sent.df";
    if (f && json_object_get(sent, "pieces")) return "sent.pieces";
    if ((f || d) && json_object_get(path, "reached")) return "reached";
    if ((f || d) && json_object_get(sent, "pmtu_cache")) return "sent.pmtu_cache";
    json_t *links = json_object_get(path, "links");
    for (size_t i = 0; i < json_array_size(links); i++) {
        const char *from = json_string_value(json_object_get(json_array_get(links, i), "mtu_from"));
        if ((f || d) && from && !strcmp(from, "icmp")) return "an MTU learned from ICMP";
    }
    json_t *ev = json_object_get(path, "events");
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *w = json_string_value(json_object_get(e, "what"));
        if (!w) return "an event without what";
        if ((d || f) && (json_object_get(e, "icmp") || json_object_get(e, "quote") || json_object_get(e, "text")))
            return "an event's icmp, quote or text";
        if (d && json_object_get(e, "df")) return "an event's df";
        if (f && json_object_get(e, "pieces")) return "an event's pieces";
        if (f && strcmp(w, "refused") && strcmp(w, "arrived") && strcmp(w, "silent")) return "an event that cut or stopped it";
        if (s && (!strcmp(w, "refused") || !strcmp(w, "arrived"))) return "a refused or arrived event";
        if ((d || f) && !strcmp(w, "arrived")) return "an arrival (beside the link MTUs it tells DF or pieces)";
        if (d && !strcmp(w, "passed")) return "how far it got whole";
        if ((d || f) && !strcmp(w, "silent")) return "a silent event";
    }
    return NULL;
}
#endif
