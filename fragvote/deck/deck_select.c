/* A talk's subset of its deck (serve --questions 1-9,19): the deck rewritten
 * to ask only the chosen questions, so the session stores, resumes and
 * exports what was played (deck.h, deck_select). */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deck.h"
#include "fv_err.h"

#define DECK_QUESTIONS_MAX (DECK_TESTS_MAX * QKIND_N)

/* Reads one number of list at *p; -1 when there is none. */
static long number(const char **p) {
    while (**p == ' ') (*p)++;
    if (!isdigit((unsigned char)**p)) return -1;
    char *end;
    long v = strtol(*p, &end, 10);
    *p = end;
    while (**p == ' ') (*p)++;
    return v;
}

int deck_select_parse(const char *list, int count, unsigned char want[], char *err, size_t errlen) {
    memset(want, 0, (size_t)count);
    const char *p = list;
    int any = 0;
    for (;;) {
        const char *at = p;
        long a = number(&p), b = a;
        if (*p == '-') {
            p++;
            b = number(&p);
        }
        if (a < 0 || b < 0)
            return fv_fail(err, errlen, "--questions: '%s' is not a list of question numbers like 1-9,19", list);
        if (a < 1 || b > count || a > b)
            return fv_fail(err, errlen, "--questions: %.*s: the deck's questions are 1..%d", (int)strcspn(at, ","), at,
                           count);
        for (long i = a; i <= b; i++) want[i - 1] = 1;
        any = 1;
        if (*p == '\0') break;
        if (*p != ',') return fv_fail(err, errlen, "--questions: '%s' is not a list of question numbers like 1-9,19", list);
        p++;
    }
    return any ? 0 : fv_fail(err, errlen, "--questions: no question chosen");
}

/* The deck's JSON with only the wanted questions: a test keeps the kinds
 * chosen (its "ask" written out), a test with none goes. */
static char *rewrite(const struct deck *d, const unsigned char want[], char *err, size_t errlen) {
    json_error_t je;
    json_t *root = d->json ? json_loads(d->json, 0, &je) : NULL, *tests = json_object_get(root, "tests");
    if (!json_is_array(tests) || json_array_size(tests) != (size_t)d->ntests) {
        json_decref(root);
        fv_fail(err, errlen, "--questions: the deck's text is not at hand");
        return NULL;
    }
    json_object_del(root, "questions"); /* the subset is the deck now */
    for (int i = d->ntests - 1; i >= 0; i--) {
        json_t *ask = json_array();
        for (int k = 0; k < QKIND_N; k++) {
            int pos = deck_question_position(d, i, (enum qkind)k);
            if (pos >= 0 && want[pos]) json_array_append_new(ask, json_string(qkind_name((enum qkind)k)));
        }
        if (json_array_size(ask)) json_object_set_new(json_array_get(tests, (size_t)i), "ask", ask);
        else {
            json_decref(ask);
            json_array_remove(tests, (size_t)i);
        }
    }
    char *text = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    if (!text) fv_fail(err, errlen, "out of memory");
    return text;
}

int deck_select(struct deck *d, const char *list, char *err, size_t errlen) {
    unsigned char want[DECK_QUESTIONS_MAX];
    int count = deck_question_count(d);
    if (deck_select_parse(list, count, want, err, errlen)) return -1;
    char *text = rewrite(d, want, err, errlen);
    if (!text) return -1;
    struct deck chosen;
    int rc = deck_load_string(text, "deck (--questions)", &chosen, err, errlen);
    free(text);
    if (rc) return -1;
    deck_free(d);
    *d = chosen;
    return 0;
}

int deck_talk_minutes(const struct deck *d) { return (deck_question_count(d) * DECK_QUESTION_S + 59) / 60; }
