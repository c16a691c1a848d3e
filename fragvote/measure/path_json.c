/* struct probe_path <-> JSON (schema: docs/PROBE.md, "The path"). */
#include "path_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_err.h"

static json_t *int_or_null(int v) { return v < 0 ? json_null() : json_integer(v); }
static json_t *name_or_null(const char *s) { return s ? json_string(s) : json_null(); }

/* A lab router's behaviours (PROBE_LAB_* bits) by their names: ["dropfrag", "silent"]. */
static json_t *behaviours_json(unsigned behave) {
    json_t *a = json_array();
    for (int b = 0; b < PROBE_LAB_BEHAVIOURS; b++)
        if (behave & (1u << b)) json_array_append_new(a, json_string(probe_lab_behaviour_name(1u << b)));
    return a;
}

/* The bits back from behaviours_json's array (absent: none); -1 for a name
 * that is no lab behaviour or an array that is not one of names. */
static int behaviours_read(const json_t *a, unsigned *behave) {
    *behave = 0;
    if (!a) return 0;
    if (!json_is_array(a)) return -1;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        unsigned bit;
        if (!json_is_string(v) || probe_lab_behaviour_parse(json_string_value(v), &bit) < 0) return -1;
        *behave |= bit;
    }
    return 0;
}

static void set_pieces(json_t *o, const struct probe_path_pieces *p) {
    if (p->n < 0) {
        json_object_set_new(o, "pieces", json_null());
        json_object_set_new(o, "pieces_from", json_null());
        return;
    }
    json_t *a = json_array();
    int listed = p->n < PROBE_PATH_PIECES_MAX ? p->n : PROBE_PATH_PIECES_MAX;
    for (int i = 0; i < listed; i++) json_array_append_new(a, json_integer(p->len[i]));
    json_object_set_new(o, "pieces", a);
    if (p->n > listed) json_object_set_new(o, "pieces_count", json_integer(p->n));
    json_object_set_new(o, "pieces_from", name_or_null(probe_path_pieces_from_name(p->from)));
}

static json_t *sent_json(const struct probe_path *p) {
    json_t *s = json_object();
    if (p->shown & PROBE_PATH_SHOW_LEFT) json_object_set_new(s, "left", p->left < 0 ? json_null() : json_boolean(p->left));
    json_object_set_new(s, "bytes", json_integer(p->bytes));
    if (p->shown & PROBE_PATH_SHOW_DF) json_object_set_new(s, "df", p->df < 0 ? json_null() : json_boolean(p->df));
    if ((p->shown & PROBE_PATH_SHOW_ERROR) && p->send_errno) {
        char e[24];
        if (p->send_errno == EMSGSIZE) snprintf(e, sizeof e, "EMSGSIZE");
        else snprintf(e, sizeof e, "errno %d", p->send_errno);
        json_object_set_new(s, "error", json_string(e));
        json_object_set_new(s, "mtu", p->kernel_mtu > 0 ? json_integer(p->kernel_mtu) : json_null());
    }
    if ((p->shown & PROBE_PATH_SHOW_CACHE) && p->pmtu_cache > 0)
        json_object_set_new(s, "pmtu_cache", json_integer(p->pmtu_cache));
    if (p->shown & PROBE_PATH_SHOW_PIECES) set_pieces(s, &p->sent);
    return s;
}

static json_t *event_json(const struct probe_path_event *e) {
    json_t *o = json_pack("{s:i, s:s, s:s}", "node", e->node, "what", probe_path_what_name(e->what), "seen_by",
                          probe_path_seen_name(e->seen_by));
    if (!o) return NULL;
    if (e->pieces.n >= 0) set_pieces(o, &e->pieces);
    if (e->shown & PROBE_PATH_EV_ICMP) {
        if (e->icmp != PROBE_PATH_ICMP_NONE) json_object_set_new(o, "icmp", json_string(probe_path_icmp_name(e->icmp)));
        if (e->mtu > 0) json_object_set_new(o, "mtu", json_integer(e->mtu));
    }
    if ((e->shown & PROBE_PATH_EV_QUOTE) && e->has_quote)
        json_object_set_new(o, "quote",
                            json_pack("{s:o, s:o, s:o, s:o, s:o}", "len", int_or_null(e->q_len), "df",
                                      int_or_null(e->q_df), "mf", int_or_null(e->q_mf), "offset",
                                      int_or_null(e->q_offset), "frag_hdr", int_or_null(e->q_frag_hdr)));
    if (e->shown & PROBE_PATH_EV_ARRIVAL) {
        if (e->ttl >= 0) json_object_set_new(o, "ttl", json_integer(e->ttl));
        if (e->df >= 0) json_object_set_new(o, "df", json_boolean(e->df));
    }
    if ((e->shown & PROBE_PATH_EV_TEXT) && e->text[0]) json_object_set_new(o, "text", json_string(e->text));
    return o;
}

json_t *path_json_from(const struct probe_path *p) {
    if (!p->v) return json_null();
    json_t *nodes = json_array(), *links = json_array(), *events = json_array();
    for (int i = 0; i < p->nnodes; i++) {
        const struct probe_path_node *n = &p->node[i];
        json_t *o = json_pack("{s:s, s:s, s:o}", "name", n->name, "role", probe_path_role_name(n->role), "addr",
                              n->addr[0] ? json_string(n->addr) : json_null());
        if (o && n->reassembles) json_object_set_new(o, "reassembles", json_true());
        if (o && n->silent) json_object_set_new(o, "silent", json_true());
        if (o && n->drops_fragments) json_object_set_new(o, "drops_fragments", json_true());
        if (o && n->clears_df) json_object_set_new(o, "clears_df", json_true());
        if (o && n->does[0]) json_object_set_new(o, "does", json_string(n->does));
        if (o && n->behave) json_object_set_new(o, "behaviours", behaviours_json(n->behave));
        json_array_append_new(nodes, o);
    }
    for (int i = 0; i + 1 < p->nnodes; i++)
        json_array_append_new(links, json_pack("{s:o, s:o}", "mtu", p->link[i].mtu > 0 ? json_integer(p->link[i].mtu)
                                                                                      : json_null(),
                                               "mtu_from", name_or_null(probe_path_mtu_from_name(p->link[i].from))));
    for (int i = 0; i < p->nevents; i++) json_array_append_new(events, event_json(&p->ev[i]));
    json_t *o = json_pack("{s:i, s:s, s:o, s:o, s:o}", "v", p->v, "view", p->view, "nodes", nodes, "links", links,
                          "sent", sent_json(p));
    if (o && (p->shown & PROBE_PATH_SHOW_REACHED)) json_object_set_new(o, "reached", int_or_null(p->reached));
    if (o) json_object_set_new(o, "events", events);
    else json_decref(events);
    return o;
}

/* ---- reading ---- */
static int int_field(const json_t *o, const char *k, int dflt) {
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}
static int bool_field(const json_t *o, const char *k) {
    const json_t *v = json_object_get(o, k);
    return json_is_boolean(v) ? json_is_true(v) : -1;
}
static void str_field(const json_t *o, const char *k, char *buf, size_t len) {
    const char *s = json_string_value(json_object_get(o, k));
    snprintf(buf, len, "%s", s ? s : "");
}

static int read_pieces(const json_t *o, struct probe_path_pieces *p, char *err, size_t errlen) {
    memset(p, 0, sizeof *p);
    p->n = -1;
    const json_t *a = json_object_get(o, "pieces");
    if (!a || json_is_null(a)) return 0;
    if (!json_is_array(a) || json_array_size(a) > PROBE_PATH_PIECES_MAX)
        return fv_fail(err, errlen, "path: \"pieces\" is not an array of at most %d lengths", PROBE_PATH_PIECES_MAX);
    p->n = (int)json_array_size(a);
    for (int i = 0; i < p->n; i++) {
        const json_t *v = json_array_get(a, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 65535)
            return fv_fail(err, errlen, "path: a piece length is not 0..65535");
        p->len[i] = (int)json_integer_value(v);
    }
    int count = int_field(o, "pieces_count", p->n);
    if (count > p->n) p->n = count;
    const char *from = json_string_value(json_object_get(o, "pieces_from"));
    if (from && probe_path_pieces_from_parse(from, &p->from))
        return fv_fail(err, errlen, "path: unknown pieces_from \"%.40s\"", from);
    return 0;
}

static int read_event(const json_t *o, struct probe_path_event *e, int nnodes, char *err, size_t errlen) {
    memset(e, 0, sizeof *e);
    e->node = int_field(o, "node", -1);
    if (e->node < 0 || e->node >= nnodes) return fv_fail(err, errlen, "path: an event's node is not one of the nodes");
    if (probe_path_what_parse(json_string_value(json_object_get(o, "what")), &e->what) ||
        probe_path_seen_parse(json_string_value(json_object_get(o, "seen_by")), &e->seen_by))
        return fv_fail(err, errlen, "path: an event's what or seen_by is unknown");
    if (read_pieces(o, &e->pieces, err, errlen)) return -1;
    const char *icmp = json_string_value(json_object_get(o, "icmp"));
    if (icmp && probe_path_icmp_parse(icmp, &e->icmp)) return fv_fail(err, errlen, "path: unknown icmp \"%.40s\"", icmp);
    e->mtu = int_field(o, "mtu", 0);
    const json_t *q = json_object_get(o, "quote");
    e->q_len = e->q_df = e->q_mf = e->q_offset = e->q_frag_hdr = -1;
    if (json_is_object(q)) {
        e->has_quote = 1;
        e->q_len = int_field(q, "len", -1);
        e->q_df = int_field(q, "df", -1);
        e->q_mf = int_field(q, "mf", -1);
        e->q_offset = int_field(q, "offset", -1);
        e->q_frag_hdr = int_field(q, "frag_hdr", -1);
    }
    e->ttl = int_field(o, "ttl", -1);
    e->df = bool_field(o, "df");
    str_field(o, "text", e->text, sizeof e->text);
    e->shown = PROBE_PATH_EV_ALL;
    return 0;
}

int path_json_read(const json_t *o, struct probe_path *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!o || json_is_null(o)) return 0;
    if (!json_is_object(o)) return fv_fail(err, errlen, "path: not an object");
    if (int_field(o, "v", 0) != PROBE_PATH_VERSION)
        return fv_fail(err, errlen, "path: version %d, this fragvote reads %d", int_field(o, "v", 0), PROBE_PATH_VERSION);
    const json_t *nodes = json_object_get(o, "nodes"), *links = json_object_get(o, "links"),
                 *events = json_object_get(o, "events"), *sent = json_object_get(o, "sent");
    if (!json_is_array(nodes) || json_array_size(nodes) < 1 || json_array_size(nodes) > PROBE_PATH_NODES_MAX ||
        !json_is_array(links) || json_array_size(links) + 1 != json_array_size(nodes) || !json_is_array(events) ||
        json_array_size(events) > PROBE_PATH_EVENTS_MAX || !json_is_object(sent))
        return fv_fail(err, errlen, "path: nodes, links (one fewer), events or sent missing or too long");
    out->v = PROBE_PATH_VERSION;
    str_field(o, "view", out->view, sizeof out->view);
    out->nnodes = (int)json_array_size(nodes);
    for (int i = 0; i < out->nnodes; i++) {
        const json_t *n = json_array_get(nodes, (size_t)i);
        struct probe_path_node *d = &out->node[i];
        str_field(n, "name", d->name, sizeof d->name);
        str_field(n, "addr", d->addr, sizeof d->addr);
        if (probe_path_role_parse(json_string_value(json_object_get(n, "role")), &d->role))
            return fv_fail(err, errlen, "path: node %d has no known role", i);
        d->reassembles = bool_field(n, "reassembles") == 1;
        d->silent = bool_field(n, "silent") == 1;
        d->drops_fragments = bool_field(n, "drops_fragments") == 1;
        d->clears_df = bool_field(n, "clears_df") == 1;
        str_field(n, "does", d->does, sizeof d->does);
        if (behaviours_read(json_object_get(n, "behaviours"), &d->behave) < 0)
            return fv_fail(err, errlen, "path: node %d has a behaviour that is not a lab's", i);
    }
    for (int i = 0; i + 1 < out->nnodes; i++) {
        const json_t *l = json_array_get(links, (size_t)i);
        out->link[i].mtu = int_field(l, "mtu", 0);
        const char *from = json_string_value(json_object_get(l, "mtu_from"));
        if (from && probe_path_mtu_from_parse(from, &out->link[i].from))
            return fv_fail(err, errlen, "path: unknown mtu_from \"%.40s\"", from);
    }
    out->left = bool_field(sent, "left");
    out->bytes = int_field(sent, "bytes", 0);
    out->df = bool_field(sent, "df");
    const char *e = json_string_value(json_object_get(sent, "error"));
    out->send_errno = !e ? 0 : !strcmp(e, "EMSGSIZE") ? EMSGSIZE : !strncmp(e, "errno ", 6) ? atoi(e + 6) : -1;
    out->kernel_mtu = int_field(sent, "mtu", 0);
    out->pmtu_cache = int_field(sent, "pmtu_cache", 0);
    if (read_pieces(sent, &out->sent, err, errlen)) return -1;
    out->reached = int_field(o, "reached", -1);
    out->nevents = (int)json_array_size(events);
    for (int i = 0; i < out->nevents; i++)
        if (read_event(json_array_get(events, (size_t)i), &out->ev[i], out->nnodes, err, errlen)) return -1;
    out->shown = PROBE_PATH_SHOW_ALL;
    return 1;
}
