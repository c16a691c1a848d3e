/* Decks: the tests of a talk and the questions asked about each.
 *
 * A deck is a JSON file (docs/DECKS.md): title, target (or the lab), default
 * TTL/observer, and a list of tests; each names protocol, mode, size,
 * optional TTL, which questions to ask (sent / df / fragmented) and optional
 * speaker notes. Loading validates everything and reports file:line:column.
 * The built-in deck (decks/fragquiz.json, compiled in) is the article's quiz. */
#ifndef FRAGVOTE_DECK_H
#define FRAGVOTE_DECK_H

#include <stddef.h>

#include "fragprobe.h"
#include "qkind.h"

#define DECK_FILE_MAX (256 * 1024) /* bytes: a deck file larger than this is refused */
#define DECK_TESTS_MAX 64          /* tests per deck */
#define DECK_TEXT_MAX 512          /* title / notes length */
#define DECK_LANG_MAX 36           /* a language tag ("de", "pt-BR") with its NUL */

struct deck_test {
    struct probe_spec spec;         /* host/port from the deck's target unless the test overrides */
    int ask[QKIND_N];               /* indexed by enum qkind: ask this question? */
    char notes[DECK_TEXT_MAX];      /* speaker notes, "" if none */
    int has_lab;                    /* 1: played on the lab scenario `lab` (its own, or the deck's) */
    struct probe_lab_config lab;    /* routers, MTUs, behaviours (prefix ""): docs/DECKS.md, "Lab scenarios" */
};

struct deck {
    char title[DECK_TEXT_MAX];
    char lang[DECK_LANG_MAX];       /* "" or the projector's and presenter page's language (docs/LANGUAGES.md) */
    char target[256];               /* "" or "lab" = the namespace lab */
    int ttl;                        /* default TTL, PROBE_TTL_AUTO if unset */
    char observer[16];              /* "auto" / "raw" / "recverr" */
    int port;                       /* default target port, 0 = the probe's default */
    int keep_pmtu_cache;            /* 1: do not flush the PMTU cache between tests (reader challenge) */
    char witness[280];              /* "" (default), "lab", "none" or HOST:PORT (issue 19) */
    int has_lab;                    /* 1: "lab" gives every test that names none this scenario */
    struct probe_lab_config lab;
    int ntests;
    struct deck_test tests[DECK_TESTS_MAX];
    char *json;                     /* the deck as loaded (owned; stored with the session) */
};

/* Each fills *out (caller owns it, release with deck_free) or returns -1 with
 * "FILE:LINE:COLUMN: problem" in err. deck_load_file's arg is a file, or the
 * name of an installed deck (datadir_deck: "reader-challenge"). */
int deck_load_file(const char *arg, struct deck *out, char *err, size_t errlen);
int deck_load_string(const char *text, const char *name, struct deck *out, char *err, size_t errlen);
int deck_load_builtin(struct deck *out, char *err, size_t errlen);
/* A command line's --deck ARG (deck_load_file), or the built-in deck when
 * arg is NULL; then its --target, when not NULL (deck_set_target). */
int deck_load_arg(const char *arg, const char *target, struct deck *out, char *err, size_t errlen);
void deck_free(struct deck *d);
/* Points every test at target (a host, or "lab" = the namespace lab), as a
 * command line's --target overrides the deck's. target must fit the specs'
 * host field (callers check its length). */
void deck_set_target(struct deck *d, const char *target);

/* 1 when tag has a language tag's shape: 2 or 3 letters, then "-" and 1 to
 * 8 letters or digits as often as it fits ("de", "pt-BR"); which ones have a
 * catalog is the pages' business (an unknown one shows English). */
int deck_lang_ok(const char *tag);

/* How many tests name a lab scenario (their own or the deck's). */
int deck_scenarios(const struct deck *d);
/* Test i's scenario, or NULL when it names none (it runs on the lab as the
 * talk found or built it). */
const struct probe_lab_config *deck_test_lab(const struct deck *d, int i);

/* Questions are numbered 0..deck_question_count()-1 in deck order: for each
 * test, its asked kinds in the order sent, df, fragmented. */
int deck_question_count(const struct deck *d);
/* Maps a question position to its test and kind; returns 0, or -1 if out of range. */
int deck_question_at(const struct deck *d, int position, int *test_index, enum qkind *kind);
/* The position of (test_index, kind), or -1 if that question is not asked. */
int deck_question_position(const struct deck *d, int test_index, enum qkind kind);

/* A talk's subset (serve --questions): list is question numbers as the
 * console counts them (1-based, deck order), ranges and commas: "1-9,19".
 * deck_select_parse fills want[0..count-1] (1: asked); deck_select rewrites
 * *d (and its JSON, which the session stores) to ask only those, dropping
 * tests left with none. Returns 0, or -1 with err (nothing changed). */
int deck_select_parse(const char *list, int count, unsigned char want[], char *err, size_t errlen);
int deck_select(struct deck *d, const char *list, char *err, size_t errlen);
/* The talk's estimated length in whole minutes: DECK_QUESTION_S a question
 * (open, vote, measure, reveal, a word about it). */
#define DECK_QUESTION_S 75
int deck_talk_minutes(const struct deck *d);

/* The test spec as JSON text for the store (probe_spec_to_json), e.g.
 * {"proto":"udp4","mode":"do","size":1400,"ttl":0,"host":"","port":0}.
 * Returns 0, or -1 if buf is too small. */
int deck_spec_json(const struct probe_spec *s, char *buf, size_t buflen);

/* The question as the room reads it, e.g. "A 1400-byte UDP/IPv4 packet,
 * IP_PMTUDISC_DO: is it sent?" Writes into buf (NUL-terminated). */
void deck_question_text(const struct deck_test *t, enum qkind kind, char *buf, size_t buflen);
/* What a socket mode asks, in plain words beside the jargon (issue 37,
 * item 6), as linux/in.h words it: "the app asked: always set DF". */
const char *deck_mode_plain(enum probe_mode m);
/* The test spelled out for the phone, e.g.
 * "udp4 · IP_PMTUDISC_DO (the app asked: always set DF) · 1400 bytes · TTL 2". */
void deck_test_summary(const struct deck_test *t, char *buf, size_t buflen);

#endif
