/* JSON -> probe_result: the reader of what probe_result_to_json() writes
 * (a remote prober's observations, issue 17). Pure and strict: every field
 * is type- and range-checked, a string that does not fit its field is
 * refused (never cut), and the first problem is named in err. */
#include <stdio.h>
#include <string.h>

#include "msg_json.h"
#include "path_json.h"
#include "probe_json.h"

struct rd {
    char *err;
    size_t errlen;
    int bad;
};

static void fail(struct rd *c, const char *what, const char *why) {
    if (c->bad) return;
    c->bad = 1;
    snprintf(c->err, c->errlen, "observation: \"%s\" %s", what, why);
}

/* An integer field in [lo, hi]; absent or null: unseen. */
static void rd_int(struct rd *c, json_t *o, const char *key, int lo, int hi, int unseen, int *out) {
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        *out = unseen;
        return;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        fail(c, key, "is not an integer in range");
        return;
    }
    *out = (int)json_integer_value(v);
}

/* A string field that must fit dst (with its NUL); absent or null: "". */
static void rd_str(struct rd *c, json_t *o, const char *key, int required, char *dst, size_t dstlen) {
    json_t *v = json_object_get(o, key);
    dst[0] = 0;
    if (!v || json_is_null(v)) {
        if (required) fail(c, key, "is missing");
        return;
    }
    if (!json_is_string(v)) {
        fail(c, key, "is not a string");
        return;
    }
    if (json_string_length(v) >= dstlen || strlen(json_string_value(v)) != json_string_length(v)) {
        fail(c, key, "is too long (or holds a NUL)");
        return;
    }
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
}

static void rd_spec(struct rd *c, json_t *o, struct probe_spec *s) {
    if (!json_is_object(o)) {
        fail(c, "spec", "is not an object");
        return;
    }
    const char *proto = json_string_value(json_object_get(o, "proto"));
    const char *mode = json_string_value(json_object_get(o, "mode"));
    if (!proto || probe_proto_parse(proto, &s->proto)) fail(c, "spec.proto", "is not a protocol name");
    if (!mode || probe_mode_parse(mode, &s->mode)) fail(c, "spec.mode", "is not a PMTUD mode name");
    rd_int(c, o, "size", 68, PROBE_SIZE_MAX, -1, &s->size);
    rd_int(c, o, "ttl", 0, 255, -1, &s->ttl);
    rd_int(c, o, "port", 0, 65535, -1, &s->port);
    if (s->size < 0 || s->ttl < 0 || s->port < 0) fail(c, "spec", "needs size, ttl and port");
    rd_str(c, o, "host", 0, s->host, sizeof s->host);
}

static void rd_fact(struct rd *c, json_t *root, const char *key, unsigned bit, struct probe_result *r,
                    struct probe_fact *f) {
    json_t *o = json_object_get(root, key);
    if (!json_is_object(o)) {
        fail(c, key, "is not a fact object");
        return;
    }
    const char *a = json_string_value(json_object_get(o, "answer"));
    const char *b = json_string_value(json_object_get(o, "basis"));
    if (a && !strcmp(a, "yes")) f->answer = PROBE_ANS_YES;
    else if (a && !strcmp(a, "no")) f->answer = PROBE_ANS_NO;
    else if (a && !strcmp(a, "unknown")) f->answer = PROBE_ANS_UNKNOWN;
    else fail(c, key, "has no answer yes/no/unknown");
    if (probe_basis_parse(b, &f->basis) < 0) fail(c, key, "has no basis observed/inferred/unknown/rule");
    rd_str(c, o, "why", 1, f->why, sizeof f->why);
    json_t *m = json_object_get(o, "why_msg"); /* absent in a row stored before it existed */
    if ((f->nmsg = msg_json_read_row(m, f->msg, PROBE_WHY_PARTS)) < 0) {
        f->nmsg = 0;
        fail(c, key, "has a why_msg that is not a message or a row of them");
    }
    json_t *at = json_object_get(o, "observed_at");
    if (at && !(json_is_string(at) && !strcmp(json_string_value(at), "far end")))
        fail(c, key, "has an observed_at other than \"far end\"");
    if (at) r->witness.far_end |= bit;
}

static void rd_fragmenter(struct rd *c, json_t *root, enum probe_fragmenter *out) {
    const char *s = json_string_value(json_object_get(root, "fragmenter"));
    static const enum probe_fragmenter all[] = {PROBE_FRAG_NONE, PROBE_FRAG_HOST, PROBE_FRAG_ROUTER,
                                                PROBE_FRAG_UNKNOWN};
    *out = PROBE_FRAG_UNKNOWN;
    if (!s) return;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(s, probe_fragmenter_name(all[i]))) {
            *out = all[i];
            return;
        }
    fail(c, "fragmenter", "is not none/host/router/unknown");
}

/* A sub-object that may be null (unseen: every field of it unseen). */
static json_t *rd_obj(struct rd *c, json_t *root, const char *key) {
    json_t *o = json_object_get(root, key);
    if (o && !json_is_null(o) && !json_is_object(o)) fail(c, key, "is neither an object nor null");
    return json_is_object(o) ? o : NULL;
}

static void rd_witness(struct rd *c, json_t *root, struct probe_result *r) {
    json_t *w = rd_obj(c, root, "witness");
    int *ints[] = {&r->witness.ttl, &r->witness.df, &r->witness.bytes, &r->witness.fragments, &r->witness.frag_max, &r->witness.frag_min,
                   &r->witness.segments, &r->witness.seg_max};
    static const char *const names[] = {"ttl", "df", "bytes", "fragments", "frag_max", "frag_min", "segments",
                                        "seg_max"};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) rd_int(c, w, names[i], 0, 1 << 20, -1, ints[i]);
    r->witness.raw = -1;
    if (!w) return;
    rd_str(c, w, "target", 1, r->witness.target, sizeof r->witness.target);
    rd_str(c, w, "note", 0, r->witness.note, sizeof r->witness.note);
    json_t *heard = json_object_get(w, "heard"), *raw = json_object_get(w, "raw");
    if (!json_is_boolean(heard)) fail(c, "witness.heard", "is not a boolean");
    r->witness.heard = json_is_true(heard);
    if (raw && !json_is_null(raw) && !json_is_boolean(raw)) fail(c, "witness.raw", "is not a boolean or null");
    if (json_is_boolean(raw)) r->witness.raw = json_is_true(raw);
}

int probe_result_from_json(json_t *o, struct probe_result *r, char *err, size_t errlen) {
    struct rd c = {err, errlen, 0};
    memset(r, 0, sizeof *r);
    if (!json_is_object(o)) {
        snprintf(err, errlen, "observation: not a JSON object");
        return -1;
    }
    rd_spec(&c, json_object_get(o, "spec"), &r->spec);
    rd_fact(&c, o, "sent", 1u, r, &r->sent);
    rd_fact(&c, o, "df", 2u, r, &r->df);
    rd_fact(&c, o, "fragmented", 4u, r, &r->fragmented);
    rd_fragmenter(&c, o, &r->fragmenter);
    rd_int(&c, o, "send_errno", 0, 4095, 0, &r->egress.send_errno);
    rd_int(&c, o, "kernel_mtu", 0, 1 << 20, 0, &r->egress.kernel_mtu);
    rd_int(&c, o, "cached_pmtu_before", 0, 1 << 20, 0, &r->egress.cached_pmtu_before);
    rd_int(&c, o, "path_mtu_before", 0, 1 << 20, -1, &r->egress.path_mtu_before);
    rd_int(&c, o, "dev_mtu", 0, 1 << 20, -1, &r->egress.dev_mtu);
    json_t *q = rd_obj(&c, o, "quote");
    rd_int(&c, q, "len", 0, 1 << 20, -1, &r->icmp.quoted_len);
    rd_int(&c, q, "df", 0, 1, -1, &r->icmp.quoted_df);
    rd_int(&c, q, "mf", 0, 1, -1, &r->icmp.quoted_mf);
    rd_int(&c, q, "offset", 0, 1 << 20, -1, &r->icmp.quoted_offset);
    rd_int(&c, q, "frag_hdr", 0, 1, -1, &r->icmp.quoted_frag_hdr);
    json_t *icmp = rd_obj(&c, o, "icmp");
    rd_int(&c, icmp, "type", 0, 255, -1, &r->icmp.type);
    rd_int(&c, icmp, "code", 0, 255, -1, &r->icmp.code);
    rd_int(&c, icmp, "mtu", 0, 1 << 20, 0, &r->icmp.mtu);
    if (icmp && (r->icmp.type < 0 || r->icmp.code < 0)) fail(&c, "icmp", "needs both type and code");
    rd_str(&c, o, "hop", 0, r->icmp.hop, sizeof r->icmp.hop);
    rd_str(&c, o, "hop_name", 0, r->icmp.hop_name, sizeof r->icmp.hop_name);
    json_t *eg = rd_obj(&c, o, "egress");
    rd_int(&c, eg, "packets", 0, 1 << 20, -1, &r->egress.packets);
    rd_int(&c, eg, "fragments", 0, 1 << 20, -1, &r->egress.fragments);
    rd_int(&c, eg, "first_len", 0, 1 << 20, -1, &r->egress.first_len);
    rd_int(&c, o, "answers", 0, 1 << 20, 0, &r->icmp.answers);
    rd_str(&c, o, "reassembling", 0, r->route.reassembling, sizeof r->route.reassembling);
    rd_str(&c, o, "ttl_basis", 0, r->route.ttl_basis, sizeof r->route.ttl_basis);
    rd_str(&c, o, "observer", 1, r->egress.observer, sizeof r->egress.observer);
    rd_str(&c, o, "evidence", 1, r->evidence, sizeof r->evidence);
    /* absent in a row stored before it */
    if ((r->nev = msg_json_read_row(json_object_get(o, "evidence_msg"), r->ev, PROBE_EVIDENCE_PARTS)) < 0) {
        r->nev = 0;
        fail(&c, "evidence_msg", "is not a message or a row of them");
    }
    json_t *el = json_object_get(o, "elapsed_ms");
    if (el && !json_is_number(el)) fail(&c, "elapsed_ms", "is not a number");
    r->elapsed_ms = el ? json_number_value(el) : 0;
    if (r->elapsed_ms < 0 || r->elapsed_ms > 1e9) fail(&c, "elapsed_ms", "is out of range");
    rd_str(&c, o, "socket", 0, r->egress.sock, sizeof r->egress.sock);
    rd_str(&c, o, "lab_does", 0, r->route.lab_does, sizeof r->route.lab_does);
    rd_witness(&c, o, r);
    /* The path (issue 20): absent in observations from before it. */
    if (!c.bad && path_json_read(json_object_get(o, "path"), &r->path, err, errlen) < 0) return -1;
    return c.bad ? -1 : 0;
}
