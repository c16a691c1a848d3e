/* fragvote's protocol roles as test steps (see fv_roles.h). */
#include "fv_roles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wsc *fvr_connect(const char *host, int port, const char *protocol, int timeout_ms, char *err, size_t errlen) {
    char why[256];
    struct wsc *w = wsc_connect(host, port, "/", protocol, NULL, timeout_ms, why, sizeof why);
    if (!w) snprintf(err, errlen, "connect: %s", why);
    return w;
}

int fvr_hello(struct wsc *w, const char *room, int version, const char *token, int timeout_ms, json_t **welcome,
              char *err, size_t errlen) {
    /* in the order the pages send the fields: t, v, room, token */
    json_t *hello = json_object();
    json_object_set_new(hello, "t", json_string("hello"));
    if (version > 0) json_object_set_new(hello, "v", json_integer(version));
    if (room) json_object_set_new(hello, "room", json_string(room));
    if (token) json_object_set_new(hello, "token", json_string(token));
    char *text = json_dumps(hello, JSON_COMPACT);
    json_decref(hello);
    if (!text) return snprintf(err, errlen, "hello: out of memory"), -1;
    int sent = wsc_send_text(w, text);
    free(text);
    json_t *m = sent == 0 ? wsc_recv_type(w, "welcome", timeout_ms) : NULL;
    if (!m) return snprintf(err, errlen, "no welcome: %s", wsc_error(w)), -1;
    if (welcome)
        *welcome = m;
    else
        json_decref(m);
    return 0;
}

struct wsc *fvr_phone(const char *host, int port, const char *room, int version, const char *token, int timeout_ms,
                      json_t **welcome, char *err, size_t errlen) {
    struct wsc *w = fvr_connect(host, port, "fragvote-audience", timeout_ms, err, errlen);
    if (w && fvr_hello(w, room, version, token, timeout_ms, welcome, err, errlen)) {
        wsc_free(w);
        return NULL;
    }
    return w;
}

int fvr_auth(struct wsc *w, const char *secret, int timeout_ms, char *err, size_t errlen) {
    json_t *m = wsc_send_json(w, "{s:s, s:s}", "t", "auth", "secret", secret) == 0
                    ? wsc_recv_type(w, "auth_ok", timeout_ms)
                    : NULL;
    if (!m) return snprintf(err, errlen, "no auth_ok: %s", wsc_error(w)), -1;
    json_decref(m);
    return 0;
}

struct wsc *fvr_presenter(const char *host, int port, const char *secret, int timeout_ms, char *err, size_t errlen) {
    struct wsc *w = fvr_connect(host, port, "fragvote-presenter", timeout_ms, err, errlen);
    if (w && fvr_auth(w, secret, timeout_ms, err, errlen)) {
        wsc_free(w);
        return NULL;
    }
    return w;
}

int fvr_cmd(struct wsc *p, const char *name, int timeout_ms, char *err, size_t errlen) {
    if (wsc_send_json(p, "{s:s, s:s}", "t", "cmd", "cmd", name) < 0)
        return snprintf(err, errlen, "no answer: %s", wsc_error(p)), -1;
    for (;;) {
        char *m;
        if (wsc_recv(p, &m, timeout_ms) <= 0) return snprintf(err, errlen, "no answer"), -1;
        json_t *o = json_loads(m, 0, NULL);
        free(m);
        const char *t = json_string_value(json_object_get(o, "t"));
        int rc = 1;
        if (t && !strcmp(t, "cmd_ok")) rc = 0;
        if (t && !strcmp(t, "error")) {
            const char *msg = json_string_value(json_object_get(o, "message"));
            snprintf(err, errlen, "%s", msg ? msg : "an error without a message");
            rc = -1;
        }
        json_decref(o);
        if (rc <= 0) return rc;
    }
}

int fvr_step(struct wsc *p, const char *name, int timeout_ms) {
    char err[256];
    if (fvr_cmd(p, name, timeout_ms, err, sizeof err) == 0) return 0;
    fprintf(stderr, "%s: %s\n", name, err);
    return -1;
}

int fvr_vote_answer(struct wsc *w, int id, int timeout_ms, json_t **reply) {
    for (;;) {
        char *m;
        if (wsc_recv(w, &m, timeout_ms) <= 0) return -1;
        json_t *o = json_loads(m, 0, NULL);
        free(m);
        const char *t = json_string_value(json_object_get(o, "t"));
        if (t && (!strcmp(t, "ack") || !strcmp(t, "error")) && json_integer_value(json_object_get(o, "id")) == id) {
            int rc = !strcmp(t, "ack") ? 0 : 1;
            if (reply)
                *reply = o;
            else
                json_decref(o);
            return rc;
        }
        json_decref(o);
    }
}

int fvr_vote(struct wsc *w, int id, int q, int yes, int timeout_ms, json_t **reply) {
    if (wsc_send_json(w, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", id, "q", q, "yes", yes) < 0) return -1;
    return fvr_vote_answer(w, id, timeout_ms, reply);
}

json_t *fvr_answer(struct wsc *w, const char *raw, const char *type, int max_msgs, int timeout_ms) {
    if (wsc_send_text(w, raw) < 0) return NULL;
    for (int i = 0; max_msgs <= 0 || i < max_msgs; i++) {
        char *text;
        if (wsc_recv(w, &text, timeout_ms) <= 0) return NULL;
        json_t *m = json_loads(text, 0, NULL);
        free(text);
        const char *t = json_string_value(json_object_get(m, "t"));
        if (t && (!strcmp(t, type) || !strcmp(t, "error"))) return m;
        json_decref(m);
    }
    return NULL;
}

int fvr_cast(const char *host, int port, const char *room, const char *secret, int timeout_ms, struct wsc **a,
             struct wsc **b, struct wsc **s, struct wsc **p, char *err, size_t errlen) {
    struct wsc **who[] = {a, b, s, p};
    int bad = 0;
    for (int i = 0; i < 4; i++) {
        if (!who[i]) continue;
        *who[i] = NULL;
        if (bad) continue;
        if (i < 2)
            *who[i] = fvr_phone(host, port, room, 1, NULL, timeout_ms, NULL, err, errlen);
        else if (i == 2)
            *who[i] = fvr_connect(host, port, "fragvote-screen", timeout_ms, err, errlen);
        else
            *who[i] = fvr_presenter(host, port, secret, timeout_ms, err, errlen);
        bad = !*who[i];
    }
    if (!bad) return 0;
    for (int i = 0; i < 4; i++)
        if (who[i] && *who[i]) {
            wsc_free(*who[i]);
            *who[i] = NULL;
        }
    return -1;
}

json_t *fvr_state_with(struct wsc *w, const char *key, int max, int timeout_ms) {
    for (int i = 0; i < max; i++) {
        json_t *st = wsc_recv_type(w, "state", timeout_ms);
        if (st && json_object_get(st, key)) return st;
        json_decref(st); /* (NULL: none came in time; the next try waits again) */
    }
    return NULL;
}

json_t *fvr_next_tally(struct wsc *w, int timeout_ms, long long *last, int *in_order, int *count) {
    json_t *t = wsc_recv_type(w, "tally", timeout_ms);
    if (!t) return NULL;
    long long v = json_integer_value(json_object_get(t, "ver"));
    if (v <= *last) *in_order = 0;
    *last = v;
    (*count)++;
    return t;
}

json_t *fvr_final_state(struct wsc *w, int timeout_ms) {
    for (;;) {
        json_t *m = wsc_recv_type(w, "state", timeout_ms);
        if (!m || json_is_true(json_object_get(m, "ended"))) return m;
        json_decref(m);
    }
}

int fvr_questions_in(const json_t *state_msg, const char *state) {
    json_t *qs = json_object_get(state_msg, "questions");
    int n = 0;
    for (size_t i = 0; i < json_array_size(qs); i++) {
        const char *st = json_string_value(json_object_get(json_array_get(qs, i), "state"));
        n += st && !strcmp(st, state);
    }
    return n;
}
