/* The room the hub tests of votes, reveals, tallies, connections, control,
 * HTTP and the join URL (hub/test_hub_vote.c ... test_hub_url.c) play in:
 * a two-test deck (test 0 asks sent?, DF?, fragmented?; test 1 sent?), the
 * real hub on a free loopback port through hubfix, a real SQLite file, and
 * a prober the test answers by hand (hubroom_answer), as serve's probe
 * worker does through hub_post. The event loop is lws's poll loop, or libev
 * when HUB_TEST_LIBEV is set (the *_libev ctest entries). */
#ifndef FRAGVOTE_TESTS_HUBROOM_H
#define FRAGVOTE_TESTS_HUBROOM_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "fv_roles.h"
#include "hub.h"
#include "hubfix.h"
#include "room.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "correct-horse-42"
#define MARKER "EVIDENCE-7f3a9c-kernel-fragmented-locally"
/* Each fact's own explanation (probe_fact.why), told apart from the test's evidence. */
#define WHY_SENT "WHY-SENT-41c2-left-the-host"
#define WHY_DF "WHY-DF-9e07-df-bit-on-the-wire"
#define WHY_FRAG "WHY-FRAG-5ab8-fragments-seen"

struct hubroom {
    char dbpath[256];
    struct deck deck;
    struct hubfix fx;         /* db, room, hub, its thread, port */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t measure_asked;   /* rid asked for, 0 none */
    struct probe_spec asked_spec;
};

/* What the next hubroom_start sets up beyond the defaults (zero: none). */
struct hubroom_opts {
    int keepalive_s;                /* 0: defaults; else ping after it, close after 2x */
    int conn_max;                   /* 0: default cap */
    int big_deck;                   /* 1: the largest deck allowed (DECK_TESTS_MAX tests x 3 questions) */
    const char *tls_cert, *tls_key; /* set: serve HTTPS/WSS */
    const char *web_root;           /* NULL: the source's audience-web */
};

extern struct hubroom hubroom;
extern struct hubroom_opts hubroom_opts;

/* Starts the room "TEST42" with its database file in dir (live_split: the
 * hub's live_split; resume > 0: resume that session on the previous start's
 * file, else a new file): 0, or -1 with why on stderr. hubroom_start: in
 * the test's check_tmpdir(). */
int hubroom_start_in(const char *dir, int live_split, int64_t resume_session);
#define hubroom_start(live_split, resume_session) hubroom_start_in(check_tmpdir(), (live_split), (resume_session))
void hubroom_stop(void);
/* hubroom_start(0, 0) with the int option *opt (a member of hubroom_opts)
 * set to value for this start only. */
int hubroom_start_with_in(const char *dir, int *opt, int value);
#define hubroom_start_with(opt, value) hubroom_start_with_in(check_tmpdir(), (opt), (value))

/* A connection speaking protocol, no hello; NULL with why on stderr. */
struct wsc *hubroom_connect(const char *protocol);
/* An audience connection that said hello; token_out gets its token. */
struct wsc *hubroom_phone(const char *token_in, char token_out[ROOM_TOKEN_HEX + 1], json_t **welcome);
/* A presenter connection authenticated with SECRET. */
struct wsc *hubroom_presenter(void);
/* Each one asked for (not NULL): a phone that said hello (*w), a screen
 * (*s), a presenter (*p). 0, or -1 when one could not join (those that did
 * are freed, every pointer NULL). */
int hubroom_cast(struct wsc **w, struct wsc **s, struct wsc **p);
/* A connection speaking protocol and the first state it was sent (*state,
 * the caller json_decref's); NULL when either did not come. */
struct wsc *hubroom_connect_state(const char *protocol, json_t **state);
/* fvr_cmd with T_MS. */
int hubroom_cmd(struct wsc *p, const char *name, char *err, size_t errlen);
/* The same, a refusal's reason printed on stderr: 0, or -1. */
int hubroom_do(struct wsc *p, const char *name);
/* fvr_vote with T_MS. */
int hubroom_vote(struct wsc *w, int id, int q, int yes, json_t **reply);

/* A result with these answers, MARKER as evidence, each fact's WHY_* and a path picture. */
struct probe_result hubroom_result(int sent, int df, int frag);
/* Waits for the hub to ask for a measurement, then answers it with r via hub_post. */
int hubroom_answer(struct probe_result r);
/* The first question taken to measured: p opens it, phone w votes yes (1)
 * or no (0) with vote id 1, p closes and measures, and the measurement is
 * answered with r. 0, or -1 when a step failed. */
int hubroom_measured(struct wsc *p, struct wsc *w, int yes, struct probe_result r);
/* Waits until the current question is in state s (via hub_snapshot): 0, or -1. */
int hubroom_wait_state(enum quiz_state s);
/* The vote stored in the database file, read through a second connection. */
int hubroom_stored_vote(int pos, const char *token);
/* GET path from the hub (malloc'd, the whole response, *len its length); NULL with why on stderr. */
char *hubroom_http_get(const char *path, size_t *len);

/* Polls hub_snapshot until cond (an expression of st) holds, up to 5 s. */
#define WAIT_STATUS(st, cond)                                        \
    do {                                                             \
        for (int i_ = 0; i_ < 500; i_++) {                           \
            hub_snapshot(hubroom.fx.hub, &(st));                     \
            if (cond) break;                                         \
            usleep(10000);                                           \
        }                                                            \
    } while (0)

#endif
