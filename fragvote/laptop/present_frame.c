/* Frames of `fragvote present` (see present_frame.h). Pure: jansson only. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present_frame.h"

#define PF_RID_MAX 9007199254740991LL /* 2^53 - 1, as the hub's ids */

static const struct {
    const char *name;
    enum present_frame_type type;
} pf_types[] = {
    {"auth_ok", PF_AUTH_OK}, {"state", PF_STATE},         {"tally", PF_TALLY},         {"cmd_ok", PF_CMD_OK},
    {"error", PF_ERROR},     {"prober_ok", PF_PROBER_OK}, {"measure", PF_MEASURE},     {"result_ok", PF_RESULT_OK},
    {"pong", PF_PONG},       {"prober_gone", PF_PROBER_GONE}, {"export_ok", PF_EXPORT_OK},
    {"phone_rtt", PF_PHONE_RTT},
};

static json_t *load(const char *text, size_t len, char *err, size_t errlen) {
    if (len > PRESENT_FRAME_MAX) {
        snprintf(err, errlen, "frame of %zu bytes (more than %d)", len, PRESENT_FRAME_MAX);
        return NULL;
    }
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        snprintf(err, errlen, "not JSON: %s", je.text);
        return NULL;
    }
    if (!json_is_object(o) || !json_is_string(json_object_get(o, "t"))) {
        snprintf(err, errlen, "not an object with a string \"t\"");
        json_decref(o);
        return NULL;
    }
    return o;
}

static void copy_str(char *dst, size_t n, json_t *v) {
    const char *s = json_string_value(v);
    snprintf(dst, n, "%s", s ? s : "");
}

/* An optional integer field in [lo, hi]: 0 and *out set (or dflt when absent), -1 when present and wrong. */
static int opt_int(json_t *o, const char *key, long long lo, long long hi, long long dflt, long long *out) {
    json_t *v = json_object_get(o, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) return -1;
    *out = json_integer_value(v);
    return 0;
}

static int parse_spec(json_t *s, struct probe_spec *out) {
    memset(out, 0, sizeof *out);
    const char *proto = json_string_value(json_object_get(s, "proto"));
    const char *mode = json_string_value(json_object_get(s, "mode"));
    json_t *size = json_object_get(s, "size"), *ttl = json_object_get(s, "ttl");
    if (!proto || !mode || !json_is_integer(size) || !json_is_integer(ttl)) return -1;
    if (probe_proto_parse(proto, &out->proto) || probe_mode_parse(mode, &out->mode)) return -1;
    out->size = (int)json_integer_value(size);
    out->ttl = (int)json_integer_value(ttl);
    return 0;
}

/* A phone's round trip as the hub relays it: the types, then the hub's own
 * rule (hub_rtt_refusal); -1 with err when refused. */
static int parse_phone_rtt(json_t *o, struct present_frame *out, char *err, size_t errlen) {
    json_t *n = json_object_get(o, "n"), *med = json_object_get(o, "median_ms"), *mx = json_object_get(o, "max_ms");
    const char *why = !json_is_integer(n) || !json_is_number(med) || !json_is_number(mx)
                          ? "\"n\" must be an integer, \"median_ms\" and \"max_ms\" numbers"
                          : hub_rtt_refusal(json_integer_value(n), json_number_value(med), json_number_value(mx));
    if (why) {
        snprintf(err, errlen, "phone_rtt refused: %s", why);
        return -1;
    }
    out->rtt_n = (int)json_integer_value(n);
    out->rtt_median_ms = json_number_value(med);
    out->rtt_max_ms = json_number_value(mx);
    return 0;
}

int present_frame_parse(const char *text, size_t len, struct present_frame *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->rid = -1;
    out->q = -1;
    json_t *o = load(text, len, err, errlen);
    if (!o) return -1;
    const char *t = json_string_value(json_object_get(o, "t"));
    out->type = PF_OTHER;
    for (size_t i = 0; i < sizeof pf_types / sizeof pf_types[0]; i++)
        if (!strcmp(t, pf_types[i].name)) out->type = pf_types[i].type;
    int rc = 0;
    long long v;
    switch (out->type) {
    case PF_ERROR:
        /* the hub names the error in "code"; the draft said "error": take either */
        copy_str(out->code, sizeof out->code, json_object_get(o, "code"));
        if (!out->code[0]) copy_str(out->code, sizeof out->code, json_object_get(o, "error"));
        copy_str(out->message, sizeof out->message, json_object_get(o, "message"));
        if (opt_int(o, "rid", 0, PF_RID_MAX, -1, &out->rid)) rc = -1;
        break;
    case PF_CMD_OK: copy_str(out->cmd, sizeof out->cmd, json_object_get(o, "cmd")); break;
    case PF_PROBER_OK:
        copy_str(out->epoch, sizeof out->epoch, json_object_get(o, "epoch"));
        copy_str(out->deck, sizeof out->deck, json_object_get(o, "deck"));
        copy_str(out->room, sizeof out->room, json_object_get(o, "room"));
        if (opt_int(o, "session", 0, PF_RID_MAX, 0, &out->session) || opt_int(o, "pending", 0, 1 << 30, 0, &v))
            rc = -1;
        else
            out->pending = (int)v;
        break;
    case PF_PROBER_GONE:
        copy_str(out->reason, sizeof out->reason, json_object_get(o, "reason"));
        copy_str(out->message, sizeof out->message, json_object_get(o, "message"));
        break;
    case PF_EXPORT_OK:
        copy_str(out->format, sizeof out->format, json_object_get(o, "format"));
        if (!json_is_string(json_object_get(o, "data"))) rc = -1;
        break;
    case PF_RESULT_OK:
        if (opt_int(o, "rid", 0, PF_RID_MAX, -1, &out->rid) || out->rid < 0) rc = -1;
        break;
    case PF_MEASURE: {
        json_t *rr = json_object_get(o, "rerun");
        if (opt_int(o, "rid", 0, PF_RID_MAX, -1, &out->rid) || out->rid < 0 ||
            opt_int(o, "test", 0, DECK_TESTS_MAX - 1, -1, &v) || v < 0) {
            rc = -1;
            break;
        }
        out->test = (int)v;
        if (opt_int(o, "q", -1, QUIZ_QUESTIONS_MAX - 1, -1, &v) || (rr && !json_is_boolean(rr))) {
            rc = -1;
            break;
        }
        out->q = (int)v;
        out->rerun = json_is_true(rr);
        json_t *ep = json_object_get(o, "epoch");
        if (ep && (!json_is_string(ep) || json_string_length(ep) >= sizeof out->epoch)) {
            rc = -1;
            break;
        }
        copy_str(out->epoch, sizeof out->epoch, ep);
        json_t *spec = json_object_get(o, "spec");
        if (spec) {
            if (!json_is_object(spec) || parse_spec(spec, &out->spec_seen) < 0) rc = -1;
            else out->has_spec = 1;
        }
        break;
    }
    case PF_STATE:
        copy_str(out->room, sizeof out->room, json_object_get(o, "room"));
        copy_str(out->title, sizeof out->title, json_object_get(o, "title"));
        copy_str(out->join_url, sizeof out->join_url, json_object_get(o, "join_url"));
        break;
    case PF_PHONE_RTT:
        if (parse_phone_rtt(o, out, err, errlen) < 0) {
            json_decref(o);
            return -1;
        }
        break;
    default: break;
    }
    if (rc < 0) snprintf(err, errlen, "%s frame with a missing or malformed field", t);
    json_decref(o);
    return rc;
}

/* ---- state and tally into the console's status ---- */

static int get_int(json_t *o, const char *key, int *out) {
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v)) return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

int present_frame_state(const char *text, size_t len, struct console_status *st, char *err, size_t errlen) {
    json_t *o = load(text, len, err, errlen);
    if (!o) return -1;
    struct console_status n = *st;
    struct quiz_qinfo *c = &n.hub.current;
    json_t *q = json_object_get(o, "q");
    const char *kind = json_string_value(json_object_get(q, "kind"));
    const char *state = json_string_value(json_object_get(q, "state"));
    if (strcmp(json_string_value(json_object_get(o, "t")), "state") || get_int(o, "cursor", &n.hub.cursor) ||
        get_int(o, "n", &n.hub.nquestions) || !json_is_boolean(json_object_get(o, "ended")) || !json_is_object(q) ||
        get_int(q, "pos", &c->position) || get_int(q, "test", &c->test_index) || !kind ||
        qkind_parse(kind, &c->kind) || !state || quiz_state_parse(state, &c->state)) {
        snprintf(err, errlen, "state frame with a missing or malformed field");
        json_decref(o);
        return -1;
    }
    n.hub.ended = json_is_true(json_object_get(o, "ended"));
    c->measuring = json_is_true(json_object_get(q, "measuring"));
    if (get_int(q, "round", &c->round)) c->round = 1;
    copy_str(c->text, sizeof c->text, json_object_get(q, "text"));
    copy_str(c->summary, sizeof c->summary, json_object_get(q, "summary"));
    json_t *split = json_object_get(o, "split");
    if (get_int(split, "yes", &c->yes) || get_int(split, "no", &c->no)) c->yes = c->no = 0;
    json_t *coll = json_object_get(o, "collective");
    n.hub.collective = json_is_number(coll) ? json_number_value(coll) : -1;
    json_t *cl = json_object_get(o, "closes_in_ms");
    n.hub.closes_in_ms = json_is_integer(cl) && json_integer_value(cl) > 0 ? json_integer_value(cl) : 0;
    json_t *rv = json_object_get(o, "reveal");
    n.revealed = 0;
    n.hub.why_view = 0;
    n.truth[0] = n.majority[0] = n.basis[0] = n.why[0] = n.explain[0] = n.surprise[0] = 0;
    n.correct = -1;
    n.correct_votes = -1;
    c->first_yes = c->first_no = 0;
    if (json_is_object(rv) && c->state == QUIZ_REVEALED) {
        copy_str(n.truth, sizeof n.truth, json_object_get(rv, "truth"));
        copy_str(n.majority, sizeof n.majority, json_object_get(rv, "majority"));
        copy_str(n.basis, sizeof n.basis, json_object_get(rv, "basis"));
        copy_str(n.why, sizeof n.why, json_object_get(rv, "why"));
        copy_str(n.explain, sizeof n.explain, json_object_get(rv, "explain"));
        copy_str(n.surprise, sizeof n.surprise, json_object_get(rv, "surprise"));
        json_t *cr = json_object_get(rv, "correct");
        n.correct = json_is_number(cr) ? json_number_value(cr) : -1;
        int yes = c->yes, no = c->no;
        get_int(rv, "yes", &yes);
        get_int(rv, "no", &no);
        n.correct_votes = !strcmp(n.truth, "yes") ? yes : !strcmp(n.truth, "no") ? no : -1;
        json_t *fr = json_object_get(rv, "first_round");
        if (get_int(fr, "yes", &c->first_yes) || get_int(fr, "no", &c->first_no)) c->first_yes = c->first_no = 0;
        n.revealed = n.truth[0] != 0;
        n.hub.why_view = n.revealed && json_is_string(json_object_get(rv, "view")) &&
                    !strcmp(json_string_value(json_object_get(rv, "view")), "why");
    }
    *st = n;
    json_decref(o);
    return 0;
}

int present_frame_tally(const char *text, size_t len, struct console_status *st, char *err, size_t errlen) {
    json_t *o = load(text, len, err, errlen);
    if (!o) return -1;
    int q, online, joined, votes;
    if (strcmp(json_string_value(json_object_get(o, "t")), "tally") || get_int(o, "q", &q) ||
        get_int(o, "online", &online) || get_int(o, "joined", &joined) || get_int(o, "votes", &votes)) {
        snprintf(err, errlen, "tally frame with a missing or malformed field");
        json_decref(o);
        return -1;
    }
    json_t *ver = json_object_get(o, "ver");
    if (json_is_integer(ver)) st->hub.tally_version = (unsigned long)json_integer_value(ver);
    st->hub.connections = online;
    st->hub.voters = joined; /* the console's "Voters": everyone who joined (the hub counts them) */
    st->hub.newcomers = 0;
    int screens, presenters; /* the presenter's tally only (older hubs: absent, shown as 0) */
    st->hub.screens = get_int(o, "screens", &screens) || screens < 0 ? 0 : screens;
    st->hub.presenters = get_int(o, "presenters", &presenters) || presenters < 0 ? 0 : presenters;
    if (q == st->hub.cursor) {
        int yes, no;
        if (!get_int(o, "yes", &yes) && !get_int(o, "no", &no)) {
            st->hub.current.yes = yes;
            st->hub.current.no = no;
        }
    }
    json_t *cl = json_object_get(o, "closes_in_ms");
    st->hub.closes_in_ms = json_is_integer(cl) && json_integer_value(cl) > 0 ? json_integer_value(cl) : 0;
    json_decref(o);
    return 0;
}

/* ---- builders ---- */

static char *dump(json_t *o) {
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

char *present_frame_auth(const char *secret) { return dump(json_pack("{s:s, s:s}", "t", "auth", "secret", secret)); }

char *present_frame_cmd(enum hub_cmd_kind k, int seconds) {
    if (k == HUB_CMD_QUIT || k == HUB_CMD_MEASURED) return NULL;
    json_t *o = json_pack("{s:s, s:s}", "t", "cmd", "cmd", console_act_name(k));
    if (o && k == HUB_CMD_OPEN && seconds > 0) json_object_set_new(o, "seconds", json_integer(seconds));
    return dump(o);
}

char *present_frame_prober(const char *deck_json, const struct present_facts *f, int take_over,
                           const char *instance) {
    json_t *deck = json_loads(deck_json, 0, NULL);
    json_t *lab = f->lab_json ? json_loads(f->lab_json, 0, NULL) : json_null();
    if (!json_is_object(deck) || !(json_is_object(lab) || json_is_null(lab))) {
        json_decref(deck);
        json_decref(lab);
        return NULL;
    }
    return dump(json_pack("{s:s, s:i, s:o, s:b, s:s, s:s, s:s, s:s, s:o, s:s}", "t", "prober", "v", 1, "deck", deck,
                          "take_over", take_over, "host", f->host, "kernel", f->kernel, "observer", f->observer,
                          "target", f->target, "lab", lab, "instance", instance));
}

char *present_frame_result(const char *epoch, long long rid, const char *observation_json) {
    json_t *obs = json_loads(observation_json, 0, NULL);
    if (!json_is_object(obs)) {
        json_decref(obs);
        return NULL;
    }
    return dump(json_pack("{s:s, s:s, s:I, s:o}", "t", "result", "epoch", epoch, "rid", (json_int_t)rid,
                          "observation", obs));
}

char *present_frame_export(const char *format) {
    return dump(json_pack("{s:s, s:s}", "t", "export", "format", format));
}

char *present_frame_export_data(const char *text, size_t len, size_t *datalen, char *err, size_t errlen) {
    json_t *o = load(text, len, err, errlen);
    if (!o) return NULL;
    json_t *d = json_object_get(o, "data");
    char *out = NULL;
    if (!json_is_string(d)) {
        snprintf(err, errlen, "export_ok without a string \"data\"");
    } else if ((out = malloc(json_string_length(d) + 1))) {
        *datalen = json_string_length(d);
        memcpy(out, json_string_value(d), *datalen);
        out[*datalen] = 0;
    } else {
        snprintf(err, errlen, "out of memory");
    }
    json_decref(o);
    return out;
}
