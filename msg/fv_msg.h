/* libfragmsg: a text for people as a message key and its arguments
 * (docs/LANGUAGES.md "Texts worded in C").
 *
 * The judges, the predictor and the scores word their explanations for
 * people. Each such text is built once, as a struct fv_msg: a key of the
 * pages' message catalogs ("rule.do_fits") and named arguments (numbers,
 * verbatim strings such as a router's name or a socket option, or another
 * key whose text is the argument: "answer.no"). Its English, for the
 * terminal, the exports and old clients, is rendered here from the English
 * catalog (audience-web/i18n-en.json, embedded at build time), and the pages
 * render the same key and arguments from the catalog of their language: the
 * English and the catalog cannot drift. Pure: no I/O, libc only. */
#ifndef FV_MSG_H
#define FV_MSG_H

#include <stdarg.h>
#include <stddef.h>

#define FV_MSG_ARGS_MAX 6
#define FV_MSG_KEY_MAX 40
#define FV_MSG_NAME_MAX 12
#define FV_MSG_STR_MAX 160

enum fv_msg_type {
    FV_MSG_INT = 'd',             /* a number */
    FV_MSG_STR = 's',             /* a string shown as it is (a name, an address, an option) */
    FV_MSG_KEY = 'k',             /* a catalog key: its text is the argument ("answer.no") */
};
struct fv_msg_arg {
    char name[FV_MSG_NAME_MAX];   /* the placeholder: {name} */
    char type;                    /* enum fv_msg_type */
    long long i;                  /* FV_MSG_INT */
    char s[FV_MSG_STR_MAX];       /* FV_MSG_STR, FV_MSG_KEY */
};
struct fv_msg {
    char key[FV_MSG_KEY_MAX];     /* "" none */
    int nargs;
    struct fv_msg_arg arg[FV_MSG_ARGS_MAX];
};

/* Sets m to key with the arguments spec names, one per printf conversion:
 * "mtu=%d opt=%s @answer=%s" (a name, '=', %d or %s; a name starting with
 * '@' is a catalog key's argument, the '@' not part of its name). The
 * compiler checks the values against spec as printf's. A spec that does not
 * parse, or more than FV_MSG_ARGS_MAX arguments, leaves the arguments it
 * could read (the catalog test reads every spec of the sources). */
void fv_msg_set(struct fv_msg *m, const char *key, const char *spec, ...) __attribute__((format(printf, 3, 4)));

void fv_msg_setv(struct fv_msg *m, const char *key, const char *spec, va_list ap);

/* Sets m to key without arguments. */
void fv_msg_key(struct fv_msg *m, const char *key);

/* The English text of key in the embedded English catalog, or NULL. */
const char *fv_msg_en(const char *key);

/* m's English with its placeholders filled: a {name} without an argument
 * stays as written; a key the catalog lacks is written as itself (the
 * catalog test keeps both from shipping). Returns the length written
 * (truncated to n - 1); "" for a message without a key. */
size_t fv_msg_text(const struct fv_msg *m, char *out, size_t n);

/* Appends m's English to out (which holds a string), cut to n. */
void fv_msg_append(const struct fv_msg *m, char *out, size_t n);

/* Messages in a row: a text made of several (a why with the far end's words
 * after it, the evidence line: docs/LANGUAGES.md), whose English is theirs
 * one after another, each part carrying its own joint ("; ", ": ").
 * fv_msg_row_add sets m[*n] as fv_msg_set does and counts it; a row already
 * full (cap parts) is lost: *n becomes -1 and stays so, and its text is
 * then the caller's English alone (a page shows it marked English). */
void fv_msg_row_add(struct fv_msg *m, int *n, int cap, const char *key, const char *spec, ...)
    __attribute__((format(printf, 5, 6)));
/* Appends a copy of each of src[0..k) (k < 0: the row is lost). */
void fv_msg_row_append(struct fv_msg *m, int *n, int cap, const struct fv_msg *src, int k);
/* Adds m after the row m[0..*n) whose English is text (len bytes): text is
 * the row's English again; or, when the row cannot say text (lost, full, or
 * text has English before it that no message says), m's English is
 * appended to text alone and the row is lost (*n = -1). */
void fv_msg_row_put(struct fv_msg *row, int *n, int cap, const struct fv_msg *m, char *text, size_t len);
/* The English of m[0..n) one after another, cut to len; "" for n <= 0. */
size_t fv_msg_row_text(const struct fv_msg *m, int n, char *out, size_t len);

/* The argument named name, or NULL. */
const struct fv_msg_arg *fv_msg_arg(const struct fv_msg *m, const char *name);

#endif
