/* Messages as a key and its arguments, their English from the embedded
 * catalog (fv_msg.h). */
#include "fv_msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fv_msg_en.c, generated from audience-web/i18n-en.json (cmake/msg_catalog.cmake):
 * every key and its text, sorted by strcmp. */
struct fv_msg_entry {
    const char *key, *text;
};
extern const struct fv_msg_entry fv_msg_en_table[];
extern const size_t fv_msg_en_count;

void fv_msg_set(struct fv_msg *m, const char *key, const char *spec, ...) {
    va_list ap;
    va_start(ap, spec);
    fv_msg_setv(m, key, spec, ap);
    va_end(ap);
}

void fv_msg_setv(struct fv_msg *m, const char *key, const char *spec, va_list ap) {
    memset(m, 0, sizeof *m);
    snprintf(m->key, sizeof m->key, "%s", key);
    for (const char *p = spec; *p && m->nargs < FV_MSG_ARGS_MAX;) {
        while (*p == ' ') p++;
        const char *eq = strchr(p, '=');
        if (!*p || !eq || eq[1] != '%' || (eq[2] != 'd' && eq[2] != 's')) break;
        struct fv_msg_arg *a = &m->arg[m->nargs++];
        int key_arg = *p == '@';
        if (key_arg) p++;
        snprintf(a->name, sizeof a->name, "%.*s", (int)(eq - p), p);
        if (eq[2] == 'd') {
            a->type = FV_MSG_INT;
            a->i = va_arg(ap, int);
        } else {
            a->type = key_arg ? FV_MSG_KEY : FV_MSG_STR;
            const char *s = va_arg(ap, const char *);
            snprintf(a->s, sizeof a->s, "%s", s ? s : "");
        }
        p = eq + 3;
    }
}

void fv_msg_key(struct fv_msg *m, const char *key) {
    memset(m, 0, sizeof *m);
    snprintf(m->key, sizeof m->key, "%s", key);
}

static int by_key(const void *k, const void *e) { return strcmp(k, ((const struct fv_msg_entry *)e)->key); }

const char *fv_msg_en(const char *key) {
    const struct fv_msg_entry *e = bsearch(key, fv_msg_en_table, fv_msg_en_count, sizeof *e, by_key);
    return e ? e->text : NULL;
}

const struct fv_msg_arg *fv_msg_arg(const struct fv_msg *m, const char *name) {
    for (int i = 0; i < m->nargs; i++)
        if (!strcmp(m->arg[i].name, name)) return &m->arg[i];
    return NULL;
}

/* Appends len bytes of s to out at *at (n its size), cutting at the end. */
static void put(char *out, size_t n, size_t *at, const char *s, size_t len) {
    if (*at + 1 >= n) return;
    if (len > n - 1 - *at) len = n - 1 - *at;
    memcpy(out + *at, s, len);
    *at += len;
    out[*at] = '\0';
}

size_t fv_msg_text(const struct fv_msg *m, char *out, size_t n) {
    if (!n) return 0;
    out[0] = '\0';
    if (!m->key[0]) return 0;
    const char *t = fv_msg_en(m->key);
    size_t at = 0;
    if (!t) {
        put(out, n, &at, m->key, strlen(m->key));
        return at;
    }
    while (*t) {
        const char *open = strchr(t, '{'), *close = open ? strchr(open, '}') : NULL;
        if (!open || !close) {
            put(out, n, &at, t, strlen(t));
            break;
        }
        put(out, n, &at, t, (size_t)(open - t));
        char name[FV_MSG_NAME_MAX];
        const struct fv_msg_arg *a = NULL;
        if ((size_t)(close - open - 1) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(close - open - 1), open + 1);
            a = fv_msg_arg(m, name);
        }
        char num[24];
        const char *v = NULL;
        if (a && a->type == FV_MSG_INT) snprintf(num, sizeof num, "%lld", a->i), v = num;
        else if (a && a->type == FV_MSG_KEY) v = fv_msg_en(a->s) ? fv_msg_en(a->s) : a->s;
        else if (a) v = a->s;
        if (v) put(out, n, &at, v, strlen(v));
        else put(out, n, &at, open, (size_t)(close - open + 1));
        t = close + 1;
    }
    return at;
}

void fv_msg_append(const struct fv_msg *m, char *out, size_t n) {
    size_t k = strlen(out);
    if (k + 1 < n) fv_msg_text(m, out + k, n - k);
}

void fv_msg_row_add(struct fv_msg *m, int *n, int cap, const char *key, const char *spec, ...) {
    if (*n < 0) return;
    if (*n >= cap) {
        *n = -1;
        return;
    }
    va_list ap;
    va_start(ap, spec);
    fv_msg_setv(&m[(*n)++], key, spec, ap);
    va_end(ap);
}

void fv_msg_row_append(struct fv_msg *m, int *n, int cap, const struct fv_msg *src, int k) {
    if (k < 0) *n = -1;
    for (int i = 0; i < k && *n >= 0; i++) {
        if (*n >= cap) *n = -1;
        else m[(*n)++] = src[i];
    }
}

void fv_msg_row_put(struct fv_msg *row, int *n, int cap, const struct fv_msg *m, char *text, size_t len) {
    if (*n == 0 && text[0]) *n = -1; /* English before it that no message says */
    if (*n >= 0 && *n < cap) {
        row[(*n)++] = *m;
        fv_msg_row_text(row, *n, text, len);
        return;
    }
    *n = -1;
    fv_msg_append(m, text, len);
}

size_t fv_msg_row_text(const struct fv_msg *m, int n, char *out, size_t len) {
    if (!len) return 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) fv_msg_append(&m[i], out, len);
    return strlen(out);
}
