/* probe_result -> JSON. The probe library knows no JSON; this is the one
 * place that spells its structs for the outside (schema in docs/PROBE.md). */
#include <string.h>

#include "msg_json.h"
#include "path_json.h"
#include "probe_json.h"

json_t *probe_spec_to_json(const struct probe_spec *s) {
    return json_pack("{s:s, s:s, s:i, s:i, s:s, s:i}", "proto", probe_proto_name(s->proto), "mode",
                     probe_mode_name(s->mode), "size", s->size, "ttl", s->ttl, "host", s->host, "port", s->port);
}

/* basis stays observed / inferred / unknown (what the store accepts);
 * "observed_at": "far end" marks what the witness saw (issue 19). */
json_t *probe_fact_to_json(const struct probe_result *r, const struct probe_fact *f) {
    json_t *o = json_pack("{s:s, s:s, s:s}", "answer", probe_answer_name(f->answer), "basis",
                          probe_basis_name(f->basis), "why", f->why);
    json_t *m = o ? msg_json_row(f->msg, f->nmsg) : NULL; /* why as messages (docs/PROTOCOL.md "Texts as messages") */
    if (m) json_object_set_new(o, "why_msg", m);
    if (o && strcmp(probe_fact_basis_label(r, f), probe_basis_name(f->basis)))
        json_object_set_new(o, "observed_at", json_string("far end"));
    return o;
}

static json_t *int_or_null(int v);

json_t *probe_witness_to_json(const struct probe_result *r) {
    if (!r->witness.target[0]) return json_null();
    return json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "target", r->witness.target, "heard",
                     r->witness.heard, "raw", r->witness.heard ? json_boolean(r->witness.raw == 1) : json_null(), "ttl",
                     int_or_null(r->witness.ttl), "df", int_or_null(r->witness.df), "bytes", int_or_null(r->witness.bytes),
                     "fragments", int_or_null(r->witness.fragments), "frag_max", int_or_null(r->witness.frag_max), "frag_min",
                     int_or_null(r->witness.frag_min), "segments", int_or_null(r->witness.segments), "seg_max",
                     int_or_null(r->witness.seg_max), "note", r->witness.note);
}

/* -1 means "not seen": null in JSON. */
static json_t *int_or_null(int v) { return v < 0 ? json_null() : json_integer(v); }

json_t *probe_result_to_json(const struct probe_result *r) {
    json_t *quote = json_pack("{s:o, s:o, s:o, s:o, s:o}", "len", int_or_null(r->icmp.quoted_len), "df",
                              int_or_null(r->icmp.quoted_df), "mf", int_or_null(r->icmp.quoted_mf), "offset",
                              int_or_null(r->icmp.quoted_offset), "frag_hdr", int_or_null(r->icmp.quoted_frag_hdr));
    json_t *icmp = r->icmp.type < 0 ? json_null()
                                    : json_pack("{s:i, s:i, s:o}", "type", r->icmp.type, "code", r->icmp.code,
                                                "mtu", r->icmp.mtu > 0 ? json_integer(r->icmp.mtu) : json_null());
    json_t *egress = json_pack("{s:o, s:o, s:o}", "packets", int_or_null(r->egress.packets), "fragments",
                               int_or_null(r->egress.fragments), "first_len", int_or_null(r->egress.first_len));
    json_t *o = json_pack(
        "{s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:s, s:s, s:s, s:f}",
        "spec", probe_spec_to_json(&r->spec), "sent", probe_fact_to_json(r, &r->sent), "df", probe_fact_to_json(r, &r->df),
        "fragmented", probe_fact_to_json(r, &r->fragmented), "fragmenter", probe_fragmenter_name(r->fragmenter), "send_errno",
        r->egress.send_errno ? json_integer(r->egress.send_errno) : json_null(), "kernel_mtu",
        r->egress.kernel_mtu > 0 ? json_integer(r->egress.kernel_mtu) : json_null(), "cached_pmtu_before",
        r->egress.cached_pmtu_before > 0 ? json_integer(r->egress.cached_pmtu_before) : json_null(), "path_mtu_before",
        int_or_null(r->egress.path_mtu_before), "dev_mtu", int_or_null(r->egress.dev_mtu), "quote", quote, "icmp", icmp, "hop",
        r->icmp.hop[0] ? json_string(r->icmp.hop) : json_null(), "hop_name", r->icmp.hop_name[0] ? json_string(r->icmp.hop_name) : json_null(),
        "egress", egress, "answers", json_integer(r->icmp.answers), "reassembling", r->route.reassembling, "ttl_basis",
        r->route.ttl_basis, "observer", r->egress.observer, "evidence", r->evidence, "elapsed_ms", r->elapsed_ms);
    if (o) json_object_set_new(o, "socket", r->egress.sock[0] ? json_string(r->egress.sock) : json_null());
    if (o && r->route.lab_does[0]) json_object_set_new(o, "lab_does", json_string(r->route.lab_does));
    json_t *ev = o ? msg_json_row(r->ev, r->nev) : NULL; /* the evidence as messages (docs/PROTOCOL.md) */
    if (ev) json_object_set_new(o, "evidence_msg", ev);
    if (o) json_object_set_new(o, "witness", probe_witness_to_json(r));
    if (o) json_object_set_new(o, "path", path_json_from(&r->path));
    return o;
}

char *probe_observation_json(const struct probe_result *r) {
    json_t *o = probe_result_to_json(r);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}

json_t *probe_lab_to_json(const struct probe_lab *lab) {
    json_t *links = json_array();
    for (int i = 0; i < lab->nlinks; i++) {
        const struct probe_lab_link *l = &lab->link[i];
        json_array_append_new(links, json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "a",
                                               lab->name[l->a], "b", lab->name[l->b], "mtu", l->mtu, "a_if",
                                               l->a_if, "b_if", l->b_if, "a4", l->a4, "b4", l->b4, "a6", l->a6,
                                               "b6", l->b6, "net4", l->net4, "net6", l->net6));
    }
    json_t *ns = json_array();
    for (int n = 0; n < lab->nnodes; n++) json_array_append_new(ns, json_string(lab->ns[n]));
    /* "behaviours": {"r2": {"does": ["dropfrag"], "says": "drops every fragment ..."}} */
    json_t *beh = json_object();
    for (int k = 1; k + 1 < lab->nnodes; k++) {
        if (!lab->cfg.behave[k]) continue;
        json_t *does = json_array();
        for (unsigned bit = 1; bit <= PROBE_LAB_BEHAVIOUR_ALL; bit <<= 1)
            if (lab->cfg.behave[k] & bit) json_array_append_new(does, json_string(probe_lab_behaviour_name(bit)));
        char says[512];
        probe_lab_node_does(lab, k, 0, "; ", says, sizeof says);
        json_object_set_new(beh, lab->name[k], json_pack("{s:o, s:s}", "does", does, "says", says));
    }
    char text[1024];
    probe_lab_behaviours_text(lab, 1, text, sizeof text);
    return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:s, s:i}", "prefix", lab->cfg.prefix, "routers",
                     lab->cfg.routers, "namespaces", ns, "links", links, "reassembling",
                     lab->cfg.reassemble ? json_string(lab->name[lab->cfg.reassemble]) : json_null(), "behaviours",
                     beh, "behaviours_text", text, "auto_ttl", lab->auto_ttl);
}

char *probe_lab_json(const struct probe_lab *lab) {
    json_t *o = probe_lab_to_json(lab);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    return s;
}
