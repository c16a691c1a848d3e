/* Deck loading and validation (docs/DECKS.md).
 *
 * jansson parses and refuses duplicate keys with a line and column. It keeps
 * no positions for values, so semantic errors (unknown field, DF question on
 * IPv6, size out of range) locate the offending value with a small scan of
 * the text that follows a key path such as tests[3].size to its byte offset. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "deck.h"
#include "probe_json.h"

extern const char deck_builtin_json[];

#define DECK_PATH_MAX 6 /* deepest key path we ever locate: tests[i].lab.dropfrag[j] */

/* One step of a key path: an object member (key != NULL) or an array index. */
struct deck_step {
    const char *key;
    int index;
};

/* What the loader needs while it walks one document. */
struct deck_ctx {
    const char *text;
    size_t len;
    const char *name; /* file name for messages */
    char *err;
    size_t errlen;
};

/* ---- locating a value in the text ---- */

struct deck_scan {
    const char *s;
    size_t len, pos;
};

static void scan_ws(struct deck_scan *sc) {
    while (sc->pos < sc->len && isspace((unsigned char)sc->s[sc->pos])) sc->pos++;
}

static int scan_string(struct deck_scan *sc) {
    if (sc->pos >= sc->len || sc->s[sc->pos] != '"') return -1;
    for (sc->pos++; sc->pos < sc->len; sc->pos++) {
        if (sc->s[sc->pos] == '\\') sc->pos++;
        else if (sc->s[sc->pos] == '"') { sc->pos++; return 0; }
    }
    return -1;
}

/* Skips one JSON value of any kind (the text was already accepted by jansson). */
static int scan_value(struct deck_scan *sc, int depth) {
    scan_ws(sc);
    if (sc->pos >= sc->len || depth > 64) return -1;
    char c = sc->s[sc->pos];
    if (c == '"') return scan_string(sc);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        sc->pos++;
        scan_ws(sc);
        if (sc->pos < sc->len && sc->s[sc->pos] == close) { sc->pos++; return 0; }
        for (;;) {
            if (c == '{') {
                scan_ws(sc);
                if (scan_string(sc) < 0) return -1;
                scan_ws(sc);
                if (sc->pos >= sc->len || sc->s[sc->pos] != ':') return -1;
                sc->pos++;
            }
            if (scan_value(sc, depth + 1) < 0) return -1;
            scan_ws(sc);
            if (sc->pos >= sc->len) return -1;
            if (sc->s[sc->pos] == ',') { sc->pos++; continue; }
            if (sc->s[sc->pos] == close) { sc->pos++; return 0; }
            return -1;
        }
    }
    while (sc->pos < sc->len && !strchr(",]} \t\r\n", sc->s[sc->pos])) sc->pos++;
    return 0;
}

/* Byte offset of the value at path (or of its key when want_key and the last
 * step is a member); -1 when not found. */
static long scan_locate(const char *text, size_t len, const struct deck_step *path, int n, int want_key) {
    struct deck_scan sc = {text, len, 0};
    for (int i = 0; i < n; i++) {
        scan_ws(&sc);
        if (sc.pos >= len) return -1;
        if (path[i].key) {
            if (sc.s[sc.pos] != '{') return -1;
            sc.pos++;
            for (;;) {
                scan_ws(&sc);
                if (sc.pos < len && sc.s[sc.pos] == '}') return -1;
                size_t kpos = sc.pos;
                if (scan_string(&sc) < 0) return -1;
                size_t klen = sc.pos - kpos - 2;
                int match = klen == strlen(path[i].key) && !memcmp(text + kpos + 1, path[i].key, klen);
                scan_ws(&sc);
                if (sc.pos >= len || sc.s[sc.pos] != ':') return -1;
                sc.pos++;
                scan_ws(&sc);
                if (match) {
                    if (i == n - 1 && want_key) return (long)kpos;
                    break;
                }
                if (scan_value(&sc, 0) < 0) return -1;
                scan_ws(&sc);
                if (sc.pos < len && sc.s[sc.pos] == ',') sc.pos++;
            }
        } else {
            if (sc.s[sc.pos] != '[') return -1;
            sc.pos++;
            for (int k = 0; k < path[i].index; k++) {
                scan_ws(&sc);
                if (sc.pos < len && sc.s[sc.pos] == ']') return -1;
                if (scan_value(&sc, 0) < 0) return -1;
                scan_ws(&sc);
                if (sc.pos < len && sc.s[sc.pos] == ',') sc.pos++;
            }
            scan_ws(&sc);
            if (sc.pos < len && sc.s[sc.pos] == ']') return -1;
        }
    }
    scan_ws(&sc);
    return (long)sc.pos;
}

/* 1-based line and column (in characters, as jansson counts) of a byte offset. */
static void offset_linecol(const char *text, size_t len, long off, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (long i = 0; i < off && (size_t)i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') { (*line)++; *col = 1; }
        else if ((c & 0xC0) != 0x80) (*col)++;
    }
}

static void path_name(const struct deck_step *path, int n, char *buf, size_t buflen) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n && used < buflen; i++) {
        int w = path[i].key ? snprintf(buf + used, buflen - used, "%s%s", used ? "." : "", path[i].key)
                            : snprintf(buf + used, buflen - used, "[%d]", path[i].index);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* "NAME:LINE:COL: PATH: message" with the position of the value at path. */
static int fail_at(struct deck_ctx *c, const struct deck_step *path, int n, int want_key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(struct deck_ctx *c, const struct deck_step *path, int n, int want_key, const char *fmt, ...) {
    long off = scan_locate(c->text, c->len, path, n, want_key);
    if (off < 0 && n > 0) off = scan_locate(c->text, c->len, path, n - 1, 0); /* the enclosing value */
    if (off < 0) off = 0;
    int line, col;
    offset_linecol(c->text, c->len, off, &line, &col);
    char where[96], msg[384];
    path_name(path, n, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->err && c->errlen)
        snprintf(c->err, c->errlen, "%s:%d:%d: %s%s%s", c->name, line, col, where, where[0] ? ": " : "", msg);
    return -1;
}

/* ---- field checks ---- */

static int check_known(struct deck_ctx *c, json_t *obj, const char *const *allowed, struct deck_step *path,
                       int n) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, key)) ok = 1;
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 1);
                if (a[1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            path[n].key = key;
            return fail_at(c, path, n + 1, 1, "unknown field (allowed: %s)", list);
        }
    }
    return 0;
}

static int get_string(struct deck_ctx *c, json_t *obj, const char *key, char *dst, size_t dstlen,
                      struct deck_step *path, int n) {
    json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    path[n].key = key;
    if (!json_is_string(v)) return fail_at(c, path, n + 1, 0, "must be a string");
    if (json_string_length(v) >= dstlen)
        return fail_at(c, path, n + 1, 0, "too long (%zu bytes, at most %zu)", json_string_length(v), dstlen - 1);
    if (strlen(json_string_value(v)) != json_string_length(v))
        return fail_at(c, path, n + 1, 0, "must not contain NUL characters");
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return 1;
}

static int get_int(struct deck_ctx *c, json_t *obj, const char *key, int lo, int hi, int *dst,
                   struct deck_step *path, int n, const char *why) {
    json_t *v = json_object_get(obj, key);
    if (!v) return 0;
    path[n].key = key;
    if (!json_is_integer(v)) return fail_at(c, path, n + 1, 0, "must be an integer");
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return fail_at(c, path, n + 1, 0, "%lld is out of range %d..%d%s", (long long)x, lo, hi, why);
    *dst = (int)x;
    return 1;
}

static int valid_target(const char *t) {
    for (const char *p = t; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr(".:-_[]%", *p)) return 0;
    return 1;
}

static const char *const deck_fields[] = {"title", "lang", "target", "port", "ttl", "observer", "keep_pmtu_cache",
                                          "witness", "lab", "tests", "questions", NULL};

int deck_lang_ok(const char *tag) {
    size_t n = strspn(tag, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"), len = strlen(tag);
    if (n < 2 || n > 3 || len >= DECK_LANG_MAX) return 0;
    for (const char *p = tag + n; *p; p += n) {
        if (*p++ != '-') return 0;
        n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
        if (n < 1 || n > 8) return 0;
    }
    return 1;
}
static const char *const test_fields[] = {"proto", "mode", "size", "ttl", "ask", "notes", "target", "port", "lab", NULL};
static const char *const lab_fields[] = {"routers", "mtu", "reassemble", "ratelimit", "dropfrag", "blackhole",
                                         "silent", "nat", "cleardf", NULL};

/* "rK" at path (a router of the scenario's `routers`): K, or -1 after the message. */
static int lab_router(struct deck_ctx *c, json_t *v, int routers, struct deck_step *path, int n) {
    int k = json_is_string(v) ? probe_lab_router_parse(json_string_value(v)) : -1;
    if (k < 1 || k > routers)
        return fail_at(c, path, n, 0, "must name a router of this lab, \"r1\"..\"r%d\"", routers);
    return k;
}

/* A lab scenario ("lab": {...}, the `fragvote lab up` options as JSON) at
 * path[0..n) into cfg. 0, or -1 with the message. */
static int load_lab(struct deck_ctx *c, json_t *o, struct deck_step *path, int n, struct probe_lab_config *cfg) {
    if (!json_is_object(o)) return fail_at(c, path, n, 0, "must be an object (routers, mtu, and the behaviours)");
    if (check_known(c, o, lab_fields, path, n) < 0) return -1;
    memset(cfg, 0, sizeof *cfg);
    cfg->routers = PROBE_LAB_ROUTERS_DEFAULT;
    if (get_int(c, o, "routers", 1, PROBE_LAB_ROUTERS_MAX, &cfg->routers, path, n, " routers") < 0) return -1;
    json_t *mtu = json_object_get(o, "mtu");
    if (mtu) {
        path[n].key = "mtu";
        if (!json_is_array(mtu) || (int)json_array_size(mtu) != cfg->routers + 1)
            return fail_at(c, path, n + 1, 0, "must list %d MTUs, one per link of a %d-router lab", cfg->routers + 1,
                           cfg->routers);
        size_t i;
        json_t *m;
        json_array_foreach(mtu, i, m) {
            path[n + 1] = (struct deck_step){NULL, (int)i};
            if (!json_is_integer(m) || json_integer_value(m) < 1280 || json_integer_value(m) > 65535)
                return fail_at(c, path, n + 2, 0, "a link MTU is an integer 1280..65535 (IPv6 needs 1280)");
            cfg->mtu[i] = (int)json_integer_value(m);
        }
    }
    json_t *re = json_object_get(o, "reassemble");
    if (re) {
        path[n].key = "reassemble";
        if (!(json_is_string(re) && !strcmp(json_string_value(re), "none")) &&
            (cfg->reassemble = lab_router(c, re, cfg->routers, path, n + 1)) < 0)
            return -1;
    }
    for (unsigned bit = 1; bit <= PROBE_LAB_BEHAVIOUR_ALL; bit <<= 1) {
        path[n].key = probe_lab_behaviour_name(bit);
        json_t *list = json_object_get(o, path[n].key);
        if (!list) continue;
        if (!json_is_array(list) || (int)json_array_size(list) > cfg->routers)
            return fail_at(c, path, n + 1, 0, "must be a list of at most %d routers, like [\"r2\"]", cfg->routers);
        size_t i;
        json_t *r;
        json_array_foreach(list, i, r) {
            path[n + 1] = (struct deck_step){NULL, (int)i};
            int k = lab_router(c, r, cfg->routers, path, n + 2);
            if (k < 0) return -1;
            if (cfg->behave[k] & bit) return fail_at(c, path, n + 2, 0, "r%d named twice", k);
            cfg->behave[k] |= bit;
        }
    }
    struct probe_lab plan;
    char e[256];
    if (probe_lab_plan(cfg, &plan, e, sizeof e) < 0) return fail_at(c, path, n, 0, "%s", e);
    cfg->prefix[0] = 0; /* the talk's lab's */
    return 0;
}

static int load_test(struct deck_ctx *c, json_t *jt, int idx, const struct deck *d, struct deck_test *t) {
    struct deck_step path[DECK_PATH_MAX] = {{"tests", 0}, {NULL, idx}};
    int n = 2;
    if (!json_is_object(jt)) return fail_at(c, path, n, 0, "a test must be an object");
    if (check_known(c, jt, test_fields, path, n) < 0) return -1;
    memset(t, 0, sizeof *t);

    char name[32] = "";
    int r = get_string(c, jt, "proto", name, sizeof name, path, n);
    if (r < 0) return -1;
    path[n].key = "proto";
    if (r == 0) return fail_at(c, path, n, 0, "missing \"proto\" (udp4, tcp4, udp6, tcp6, icmp4 or icmp6)");
    if (probe_proto_parse(name, &t->spec.proto) < 0)
        return fail_at(c, path, n + 1, 0,
                       "unknown protocol \"%s\" (expected udp4, tcp4, udp6, tcp6, icmp4 or icmp6)", name);

    name[0] = 0;
    if ((r = get_string(c, jt, "mode", name, sizeof name, path, n)) < 0) return -1;
    t->spec.mode = PROBE_MODE_DEFAULT;
    path[n].key = "mode";
    if (r == 1 && probe_mode_parse(name, &t->spec.mode) < 0)
        return fail_at(c, path, n + 1, 0,
                       "unknown PMTUD mode \"%s\" (expected default, dont, want, do, probe, interface or omit)", name);

    path[n].key = "size";
    if (!json_object_get(jt, "size")) return fail_at(c, path, n, 0, "missing \"size\" (IP packet size in bytes)");
    if (get_int(c, jt, "size", 68, PROBE_SIZE_MAX, &t->spec.size, path, n, " bytes (IP packet size, header included)") < 0)
        return -1;

    t->spec.ttl = d->ttl;
    if (get_int(c, jt, "ttl", 0, 255, &t->spec.ttl, path, n, " (0 = automatic)") < 0) return -1;

    char target[256];
    snprintf(target, sizeof target, "%s", d->target);
    if ((r = get_string(c, jt, "target", target, sizeof target, path, n)) < 0) return -1;
    path[n].key = "target";
    if (!valid_target(target)) return fail_at(c, path, n + 1, 0, "\"%s\" is not a host name or address", target);
    if (strcmp(target, "lab")) snprintf(t->spec.host, sizeof t->spec.host, "%s", target);
    t->spec.port = d->port;
    if (get_int(c, jt, "port", 0, 65535, &t->spec.port, path, n, "") < 0) return -1;

    if ((r = get_string(c, jt, "notes", t->notes, sizeof t->notes, path, n)) < 0) return -1;

    json_t *lab = json_object_get(jt, "lab");
    path[n].key = "lab";
    if (lab && load_lab(c, lab, path, n + 1, &t->lab) < 0) return -1;
    t->has_lab = lab || d->has_lab;
    if (!lab && d->has_lab) t->lab = d->lab;

    int v6 = probe_proto_is_v6(t->spec.proto);
    json_t *ask = json_object_get(jt, "ask");
    if (!ask) {
        /* Ask what makes sense: there is no DF bit in IPv6. */
        t->ask[QKIND_SENT] = 1;
        t->ask[QKIND_DF] = !v6;
        t->ask[QKIND_FRAGMENTED] = 1;
        return 0;
    }
    path[n].key = "ask";
    if (!json_is_array(ask) || json_array_size(ask) == 0)
        return fail_at(c, path, n + 1, 0, "must be a non-empty list of \"sent\", \"df\", \"fragmented\"");
    size_t k;
    json_t *q;
    json_array_foreach(ask, k, q) {
        path[n + 1].key = NULL;
        path[n + 1].index = (int)k;
        enum qkind kind;
        if (!json_is_string(q) || qkind_parse(json_string_value(q), &kind) < 0)
            return fail_at(c, path, n + 2, 0, "unknown question (expected \"sent\", \"df\" or \"fragmented\")");
        if (t->ask[kind]) return fail_at(c, path, n + 2, 0, "question \"%s\" asked twice", qkind_name(kind));
        if (kind == QKIND_DF && v6)
            return fail_at(c, path, n + 2, 0, "IPv6 has no DF bit: a \"df\" question makes no sense for %s",
                           probe_proto_name(t->spec.proto));
        t->ask[kind] = 1;
    }
    return 0;
}

static int load_root(struct deck_ctx *c, json_t *root, struct deck *d) {
    struct deck_step path[DECK_PATH_MAX] = {{NULL, 0}};
    if (!json_is_object(root)) return fail_at(c, path, 0, 0, "a deck must be a JSON object");
    if (check_known(c, root, deck_fields, path, 0) < 0) return -1;
    int r = get_string(c, root, "title", d->title, sizeof d->title, path, 0);
    if (r < 0) return -1;
    if (r == 0 || !d->title[0]) {
        path[0].key = "title";
        return fail_at(c, path, r ? 1 : 0, 0, "the deck needs a non-empty \"title\"");
    }
    if (get_string(c, root, "lang", d->lang, sizeof d->lang, path, 0) < 0) return -1;
    path[0].key = "lang";
    if (d->lang[0] && !deck_lang_ok(d->lang)) return fail_at(c, path, 1, 0, "\"%s\" is not a language tag (\"de\", \"pt-BR\")", d->lang);
    if (get_string(c, root, "target", d->target, sizeof d->target, path, 0) < 0) return -1;
    path[0].key = "target";
    if (!valid_target(d->target)) return fail_at(c, path, 1, 0, "\"%s\" is not a host name or address", d->target);
    if (get_int(c, root, "port", 0, 65535, &d->port, path, 0, "") < 0) return -1;
    d->ttl = PROBE_TTL_AUTO;
    if (get_int(c, root, "ttl", 0, 255, &d->ttl, path, 0, " (0 = automatic)") < 0) return -1;
    snprintf(d->observer, sizeof d->observer, "auto");
    if (get_string(c, root, "observer", d->observer, sizeof d->observer, path, 0) < 0) return -1;
    path[0].key = "observer";
    if (strcmp(d->observer, "auto") && strcmp(d->observer, "raw") && strcmp(d->observer, "recverr"))
        return fail_at(c, path, 1, 0, "unknown observer \"%s\" (expected auto, raw or recverr)", d->observer);
    if (get_string(c, root, "witness", d->witness, sizeof d->witness, path, 0) < 0) return -1;
    path[0].key = "witness";
    if (d->witness[0] && strcmp(d->witness, "lab") && strcmp(d->witness, "none")) {
        struct probe_witness_target wt;
        char we[160];
        if (!valid_target(d->witness) || probe_witness_target_parse(d->witness, &wt, we, sizeof we) < 0)
            return fail_at(c, path, 1, 0, "\"%s\" is not \"lab\", \"none\" or HOST:PORT of a witness", d->witness);
    }
    json_t *lab = json_object_get(root, "lab");
    path[0].key = "lab";
    if (lab && load_lab(c, lab, path, 1, &d->lab) < 0) return -1;
    d->has_lab = lab != NULL;
    json_t *keep = json_object_get(root, "keep_pmtu_cache");
    if (keep) {
        path[0].key = "keep_pmtu_cache";
        if (!json_is_boolean(keep)) return fail_at(c, path, 1, 0, "must be true or false");
        d->keep_pmtu_cache = json_is_true(keep);
    }
    json_t *tests = json_object_get(root, "tests");
    path[0].key = "tests";
    if (!tests) return fail_at(c, path, 0, 0, "the deck needs a \"tests\" list");
    if (!json_is_array(tests) || json_array_size(tests) == 0)
        return fail_at(c, path, 1, 0, "must be a non-empty list of tests");
    if (json_array_size(tests) > DECK_TESTS_MAX) {
        path[1].key = NULL;
        path[1].index = DECK_TESTS_MAX;
        return fail_at(c, path, 2, 0, "too many tests (%zu, at most %d)", json_array_size(tests), DECK_TESTS_MAX);
    }
    size_t i;
    json_t *jt;
    json_array_foreach(tests, i, jt) {
        if (load_test(c, jt, (int)i, d, &d->tests[i]) < 0) return -1;
        d->ntests = (int)i + 1;
    }
    return 0;
}

int deck_load_string(const char *text, const char *name, struct deck *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    size_t len = strlen(text);
    struct deck_ctx c = {text, len, name ? name : "deck", err, errlen};
    if (len > DECK_FILE_MAX) {
        snprintf(err, errlen, "%s:1:1: deck is %zu bytes, larger than the %d-byte limit", c.name, len, DECK_FILE_MAX);
        return -1;
    }
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "%s:%d:%d: %s", c.name, je.line, je.column, je.text);
        return -1;
    }
    int rc = load_root(&c, root, out);
    /* "questions": the talk's subset, as serve --questions (deck_select
     * rewrites the text without the key: what the session stores is the
     * subset itself, so reloading it selects nothing again) */
    json_t *qs = json_object_get(root, "questions");
    char list[128] = "";
    if (rc == 0 && qs) {
        struct deck_step path[1] = {{.key = "questions"}};
        if (!json_is_string(qs) || json_string_length(qs) >= sizeof list)
            rc = fail_at(&c, path, 1, 0, "must be a list of question numbers like \"1-9,19\"");
        else
            snprintf(list, sizeof list, "%s", json_string_value(qs));
    }
    json_decref(root);
    if (rc < 0) {
        deck_free(out);
        return -1;
    }
    out->json = strdup(text);
    if (!out->json) {
        snprintf(err, errlen, "%s: out of memory", c.name);
        return -1;
    }
    if (list[0] && deck_select(out, list, err, errlen)) {
        deck_free(out);
        return -1;
    }
    return 0;
}

int deck_load_file(const char *arg, struct deck *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    char found[PATH_MAX];
    const char *path = datadir_deck(arg, found, sizeof found);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        char dir[PATH_MAX], derr[256];
        if (!strchr(arg, '/') && datadir_path("decks", dir, sizeof dir, derr, sizeof derr) == 0)
            snprintf(err, errlen, "%s: cannot open deck: %s (and %s has no deck of that name)", path, strerror(e), dir);
        else
            snprintf(err, errlen, "%s: cannot open deck: %s", path, strerror(e));
        return -1;
    }
    char *buf = malloc(DECK_FILE_MAX + 2);
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    size_t n = fread(buf, 1, DECK_FILE_MAX + 1, f);
    int rerr = ferror(f);
    fclose(f);
    int rc = -1;
    if (rerr) snprintf(err, errlen, "%s: cannot read deck", path);
    else if (n > DECK_FILE_MAX)
        snprintf(err, errlen, "%s:1:1: deck is larger than the %d-byte limit", path, DECK_FILE_MAX);
    else if (memchr(buf, 0, n))
        snprintf(err, errlen, "%s:1:1: deck contains a NUL byte (not a text file?)", path);
    else {
        buf[n] = 0;
        rc = deck_load_string(buf, path, out, err, errlen);
    }
    free(buf);
    return rc;
}

int deck_load_builtin(struct deck *out, char *err, size_t errlen) {
    return deck_load_string(deck_builtin_json, "builtin:fragquiz.json", out, err, errlen);
}

int deck_load_arg(const char *arg, const char *target, struct deck *out, char *err, size_t errlen) {
    if (arg ? deck_load_file(arg, out, err, errlen) : deck_load_builtin(out, err, errlen)) return -1;
    if (target) deck_set_target(out, target);
    return 0;
}

void deck_free(struct deck *d) {
    if (!d) return;
    free(d->json);
    d->json = NULL;
}

void deck_set_target(struct deck *d, const char *target) {
    int lab = !strcmp(target, "lab");
    snprintf(d->target, sizeof d->target, "%s", target);
    for (int i = 0; i < d->ntests; i++)
        snprintf(d->tests[i].spec.host, sizeof d->tests[i].spec.host, "%s", lab ? "" : target);
}

int deck_scenarios(const struct deck *d) {
    int n = 0;
    for (int i = 0; i < d->ntests; i++) n += d->tests[i].has_lab;
    return n;
}

const struct probe_lab_config *deck_test_lab(const struct deck *d, int i) {
    return i >= 0 && i < d->ntests && d->tests[i].has_lab ? &d->tests[i].lab : NULL;
}

/* ---- questions ---- */

int deck_question_count(const struct deck *d) {
    int n = 0;
    for (int i = 0; i < d->ntests; i++)
        for (int k = 0; k < 3; k++) n += d->tests[i].ask[k] != 0;
    return n;
}

int deck_question_at(const struct deck *d, int position, int *test_index, enum qkind *kind) {
    int n = 0;
    for (int i = 0; i < d->ntests; i++)
        for (int k = 0; k < 3; k++) {
            if (!d->tests[i].ask[k]) continue;
            if (n++ == position) {
                *test_index = i;
                *kind = (enum qkind)k;
                return 0;
            }
        }
    return -1;
}

int deck_question_position(const struct deck *d, int test_index, enum qkind kind) {
    if (test_index < 0 || test_index >= d->ntests || (unsigned)kind > 2 || !d->tests[test_index].ask[kind]) return -1;
    int n = 0;
    for (int i = 0; i < d->ntests; i++)
        for (int k = 0; k < 3; k++) {
            if (!d->tests[i].ask[k]) continue;
            if (i == test_index && k == (int)kind) return n;
            n++;
        }
    return -1;
}

int deck_spec_json(const struct probe_spec *s, char *buf, size_t buflen) {
    json_t *o = probe_spec_to_json(s);
    if (!o) return -1;
    char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!txt) return -1;
    int rc = strlen(txt) < buflen ? 0 : -1;
    if (rc == 0) memcpy(buf, txt, strlen(txt) + 1);
    else if (buflen) buf[0] = 0;
    free(txt);
    return rc;
}
