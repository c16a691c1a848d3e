/* The roles of fragvote's websocket protocol (docs/PROTOCOL.md) as test
 * steps, on top of the websocket client: connect with a role's subprotocol,
 * join as a phone (hello -> welcome), log in as the presenter (auth ->
 * auth_ok), send a presenter command and wait for its cmd_ok, vote and wait
 * for the answer with the vote's id. Part of the wsclient library.
 *
 * The server is named by host and port on every call (a test may restart
 * it on another port). Messages that are not the awaited answer (states,
 * tallies) are skipped; they stay in wsc_transcript. timeout_ms bounds each
 * step: the connect, and each message waited for.
 *
 * Every function that can fail returns -1 (or NULL) with a sentence in the
 * caller's err buffer that names the step ("connect: ...", "no welcome:
 * ..."); none prints, so each test decides what a failure shows. */
#ifndef FRAGVOTE_FV_ROLES_H
#define FRAGVOTE_FV_ROLES_H

#include <jansson.h>
#include <stddef.h>

#include "wsclient.h"

/* Connects to host:port, path "/", with a role's subprotocol
 * ("fragvote-audience", "fragvote-screen", "fragvote-presenter"; NULL: none).
 * Caller owns the result (wsc_close or wsc_free). */
struct wsc *fvr_connect(const char *host, int port, const char *protocol, int timeout_ms, char *err, size_t errlen);

/* Says hello on an audience connection: to room (NULL: none), with "v":
 * version when version > 0, with "token" when token is not NULL (NULL: a
 * new voter), and waits for the welcome. *welcome, when welcome is not NULL, gets it
 * (caller json_decref's). Returns 0 or -1; w stays open either way. */
int fvr_hello(struct wsc *w, const char *room, int version, const char *token, int timeout_ms, json_t **welcome,
              char *err, size_t errlen);

/* A joined phone: fvr_connect as "fragvote-audience", then fvr_hello.
 * Caller owns the result; on failure nothing stays open. */
struct wsc *fvr_phone(const char *host, int port, const char *room, int version, const char *token, int timeout_ms,
                      json_t **welcome, char *err, size_t errlen);

/* Sends auth with secret on a presenter connection and waits for auth_ok
 * (an error answer is skipped like any other message: the wait ends at the
 * timeout). Returns 0 or -1; w stays open either way. */
int fvr_auth(struct wsc *w, const char *secret, int timeout_ms, char *err, size_t errlen);

/* A logged-in presenter: fvr_connect as "fragvote-presenter", then
 * fvr_auth. Caller owns the result; on failure nothing stays open. */
struct wsc *fvr_presenter(const char *host, int port, const char *secret, int timeout_ms, char *err, size_t errlen);

/* Sends the presenter command name ("open", "close", "measure", ...) and
 * waits for the answer. Returns 0 on cmd_ok; -1 on an error answer (err
 * gets the server's message as it came) or when nothing came ("no answer"). */
int fvr_cmd(struct wsc *p, const char *name, int timeout_ms, char *err, size_t errlen);
/* fvr_cmd for a step a test expects to succeed: a refusal or no answer is
 * printed on stderr as "NAME: why". Returns 0 or -1. */
int fvr_step(struct wsc *p, const char *name, int timeout_ms);

/* Waits for the answer to the vote with this id: 0 when it is an ack, 1
 * when it is an error, -1 when none came. *reply, when reply is not NULL,
 * gets the answer (caller json_decref's; untouched when none came). */
int fvr_vote_answer(struct wsc *w, int id, int timeout_ms, json_t **reply);

/* Sends a vote (id, question position q, yes or no) and waits for its
 * answer as fvr_vote_answer does; -1 too when it could not be sent. */
int fvr_vote(struct wsc *w, int id, int q, int yes, int timeout_ms, json_t **reply);

/* Sends raw (a JSON text) and returns the first message after it whose "t"
 * is type or "error", skipping others; at most max_msgs messages looked at
 * (0: until one does not come within timeout_ms). Caller json_decref's; NULL
 * when it could not be sent or no such answer came. */
json_t *fvr_answer(struct wsc *w, const char *raw, const char *type, int max_msgs, int timeout_ms);

/* A room's cast on host:port, each where its pointer is not NULL: two phones
 * joined to room (*a, *b), a screen (*s) and a logged-in presenter (*p).
 * Returns 0; -1 with err when one could not join (those opened are freed and
 * every pointer set to NULL). */
int fvr_cast(const char *host, int port, const char *room, const char *secret, int timeout_ms, struct wsc **a,
             struct wsc **b, struct wsc **s, struct wsc **p, char *err, size_t errlen);

/* The next "state" that has member key, in at most max tries (a state
 * without it is skipped; a try that times out after timeout_ms counts).
 * Caller json_decref's; NULL when none came. */
json_t *fvr_state_with(struct wsc *w, const char *key, int max, int timeout_ms);

/* The next "tally" on w within timeout_ms (caller json_decref's; NULL when
 * none came), counted in *count; its "ver" must be above *last, which it
 * becomes: *in_order is set to 0 when it is not. */
json_t *fvr_next_tally(struct wsc *w, int timeout_ms, long long *last, int *in_order, int *count);

/* Waits for the next "state" whose "ended" is true (the final scoreboard),
 * skipping everything before it. Caller json_decref's; NULL when none came
 * within timeout_ms of the previous message. */
json_t *fvr_final_state(struct wsc *w, int timeout_ms);
/* How many of a state message's questions[] are in quiz state `state`
 * ("skipped", "revealed", ...). */
int fvr_questions_in(const json_t *state_msg, const char *state);

#endif
