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

/* Gives r (answers and evidence already set by the test) the observations and
 * path of the lab's "fragmented by r1" case: DF=0, 1400 bytes left whole, r1
 * cut it for its 1280 link, r2's Time Exceeded quoted the first fragment. */
static inline void check_path_fragmented_by_r1(struct probe_result *r) {
    r->spec.proto = PROBE_UDP4;
    r->spec.mode = PROBE_MODE_DONT;
    r->spec.size = 1400;
    r->spec.ttl = 2;
    r->fragmenter = PROBE_FRAG_ROUTER;
    r->egress_packets = 1;
    r->egress_fragments = 0;
    r->egress_first_len = 1400;
    r->dev_mtu = r->path_mtu_before = 1500;
    snprintf(r->hop, sizeof r->hop, "198.51.100.2");
    snprintf(r->hop_name, sizeof r->hop_name, "r2");
    r->icmp_type = 11;
    r->icmp_code = 0;
    r->quoted_len = 1276;
    r->quoted_df = 0;
    r->quoted_mf = 1;
    r->quoted_offset = r->quoted_frag_hdr = 0;
    r->echo_replies = -1;
    struct probe_lab_config cfg;
    struct probe_lab lab;
    char err[256];
    probe_lab_config_default(&cfg);
    probe_lab_plan(&cfg, &lab, err, sizeof err);
    struct probe_path_topology t;
    probe_path_topology_lab(&lab, 0, &t);
    probe_path_build(r, &t, &r->path);
}

/* The first field of `path` (a reveal's "path" object) that would answer a
 * question whose kind is in open_kinds (bits 1 << DB_Q_*), or NULL when none
 * does. sent?: whether anything left (sent.left, sent.error, a refused or
 * arrived event); DF?: the DF bit (sent.df, any ICMP, quote or text: a Frag
 * Needed tells DF=1); fragmented?: pieces anywhere, events that cut, passed,
 * reassembled, expired or dropped it, how far it got, the text lines. */
static inline const char *check_path_leak(json_t *path, unsigned open_kinds) {
    if (!path) return NULL;
    json_t *sent = json_object_get(path, "sent");
    int s = open_kinds & (1u << DB_Q_SENT), d = open_kinds & (1u << DB_Q_DF),
        f = open_kinds & (1u << DB_Q_FRAGMENTED);
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
        if ((d || f) && !strcmp(w, "silent")) return "a silent event";
    }
    return NULL;
}
#endif
