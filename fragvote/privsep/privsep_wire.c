/* The helper's messages (see privsep_wire.h): pure, strict parsers and
 * their writers. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_err.h"
#include "probe_json.h"
#include "privsep_wire.h"

/* A decimal number at *p (no sign, no leading zero, at most 10 digits) in
 * [lo, hi]; *p moves past it. 0, or -1. */
static int wire_number(const char **p, const char *end, long lo, long hi, long *out) {
    const char *s = *p;
    long v = 0;
    int n = 0;
    while (s < end && *s >= '0' && *s <= '9' && n < 11) {
        v = v * 10 + (*s - '0');
        s++, n++;
    }
    if (n == 0 || n > 10 || (n > 1 && **p == '0') || v < lo || v > hi) return -1;
    *p = s;
    *out = v;
    return 0;
}

/* buf starts with word (len bytes of it) followed by a space: 1 and *p after the space. */
static int wire_word(const char *buf, size_t len, const char *word, const char **p) {
    size_t n = strlen(word);
    if (len < n + 1 || memcmp(buf, word, n) != 0 || buf[n] != ' ') return 0;
    *p = buf + n + 1;
    return 1;
}

int privsep_req_parse(const char *buf, size_t len, int ntests, struct privsep_req *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (len == 0) return fv_fail(err, errlen, "an empty request");
    if (len > PRIVSEP_REQ_MAX) return fv_fail(err, errlen, "a request of %zu bytes (at most %d)", len, PRIVSEP_REQ_MAX);
    if (len == 4 && memcmp(buf, "quit", 4) == 0) {
        out->kind = PRIVSEP_QUIT;
        return 0;
    }
    const char *p, *end = buf + len;
    long test = -1;
    if (!wire_word(buf, len, "run", &p)) return fv_fail(err, errlen, "an unknown request (only \"run SEQ TEST\" and \"quit\")");
    if (wire_number(&p, end, 1, PRIVSEP_SEQ_MAX, &out->seq) < 0 || p >= end || *p++ != ' ')
        return fv_fail(err, errlen, "run: SEQ is not a number in 1..%ld followed by one space", PRIVSEP_SEQ_MAX);
    if (ntests <= 0 || wire_number(&p, end, 0, ntests - 1, &test) < 0 || p != end)
        return fv_fail(err, errlen, "run: TEST is not a test of the deck (0..%d) ending the request", ntests - 1);
    out->kind = PRIVSEP_RUN;
    out->test = (int)test;
    return 0;
}

int privsep_req_format(const struct privsep_req *r, char *buf, size_t len) {
    int n = r->kind == PRIVSEP_QUIT ? snprintf(buf, len, "quit")
          : r->kind == PRIVSEP_RUN  ? snprintf(buf, len, "run %ld %d", r->seq, r->test)
                                    : -1;
    return n < 0 || (size_t)n >= len || n > PRIVSEP_REQ_MAX ? -1 : n;
}

/* A reason: printable ASCII and UTF-8 continuation bytes, no control byte, at most PRIVSEP_WHY_MAX. */
static int wire_why(const char *p, const char *end, char *why) {
    size_t n = (size_t)(end - p);
    if (n == 0 || n > PRIVSEP_WHY_MAX) return -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f) return -1;
    memcpy(why, p, n);
    why[n] = 0;
    return 0;
}

int privsep_reply_parse(const char *buf, size_t len, struct privsep_reply *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (len == 0 || len > PRIVSEP_REPLY_MAX)
        return fv_fail(err, errlen, "a reply of %zu bytes (1..%d)", len, PRIVSEP_REPLY_MAX);
    const char *p, *end = buf + len;
    if (len == 5 && memcmp(buf, "ready", 5) == 0) {
        out->kind = PRIVSEP_READY;
        return 0;
    }
    if (wire_word(buf, len, "ready", &p)) {
        json_t *o = json_loadb(p, (size_t)(end - p), JSON_REJECT_DUPLICATES, NULL);
        int obj = json_is_object(o);
        json_decref(o);
        if (!obj) return fv_fail(err, errlen, "ready: the lab is not a JSON object");
        if (!(out->lab = strndup(p, (size_t)(end - p)))) return fv_fail(err, errlen, "ready: out of memory");
        out->kind = PRIVSEP_READY;
        return 0;
    }
    if (wire_word(buf, len, "fail", &p)) {
        out->kind = PRIVSEP_FAIL;
        return wire_why(p, end, out->why) < 0 ? fv_fail(err, errlen, "fail: the reason is not one printable line") : 0;
    }
    int ok = wire_word(buf, len, "ok", &p);
    if (!ok && !wire_word(buf, len, "err", &p)) return fv_fail(err, errlen, "an unknown reply");
    out->kind = ok ? PRIVSEP_OK : PRIVSEP_ERR;
    if (wire_number(&p, end, ok ? 1 : 0, PRIVSEP_SEQ_MAX, &out->seq) < 0 || p >= end || *p++ != ' ')
        return fv_fail(err, errlen, "%s: SEQ is not a number followed by one space", ok ? "ok" : "err");
    if (!ok) return wire_why(p, end, out->why) < 0 ? fv_fail(err, errlen, "err: the reason is not one printable line") : 0;
    json_error_t je;
    json_t *o = json_loadb(p, (size_t)(end - p), JSON_REJECT_DUPLICATES, &je);
    if (!o) return fv_fail(err, errlen, "ok: the result is not JSON: %s", je.text);
    int rc = json_is_object(o) ? probe_result_from_json(o, &out->result, err, errlen)
                               : fv_fail(err, errlen, "ok: the result is not an object");
    json_decref(o);
    return rc;
}

/* "WORD SEQ " + text into a new string; NULL when it cannot. */
static char *wire_join(const char *word, long seq, const char *text) {
    size_t n = strlen(word) + 24 + strlen(text);
    char *s = malloc(n);
    if (!s) return NULL;
    if (seq >= 0) snprintf(s, n, "%s %ld %s", word, seq, text);
    else snprintf(s, n, "%s %s", word, text);
    if (strlen(s) > PRIVSEP_REPLY_MAX) {
        free(s);
        return NULL;
    }
    return s;
}

char *privsep_reply_format(const struct privsep_reply *r) {
    char why[PRIVSEP_WHY_MAX + 1];
    size_t n = 0;
    for (const char *p = r->why; *p && n < PRIVSEP_WHY_MAX; p++)
        why[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
    why[n] = 0;
    if (!n) snprintf(why, sizeof why, "no reason given");
    switch (r->kind) {
    case PRIVSEP_READY: return r->lab ? wire_join("ready", -1, r->lab) : strdup("ready");
    case PRIVSEP_FAIL: return wire_join("fail", -1, why);
    case PRIVSEP_ERR: return wire_join("err", r->seq, why);
    case PRIVSEP_OK: {
        json_t *o = probe_result_to_json(&r->result);
        char *js = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
        char *s = js ? wire_join("ok", r->seq, js) : NULL;
        free(js);
        return s;
    }
    }
    return NULL;
}
