/* A console backend for a hub on another host (`fragvote present`): the
 * console's actions become presenter `cmd` frames, and its status is what the
 * hub's presenter `state` and `tally` frames said (docs/PROTOCOL.md).
 *
 * The link's thread feeds it frames (present_console_state, _tally, _answer)
 * and the link's ups and downs (present_console_link); the console thread
 * reads it through the backend (present_console_backend). An action asked
 * while the hub is unreachable, or whose answer the lost connection took
 * with it, is reported as refused with that reason (never queued for later:
 * a stale "next" must not fire when the link comes back). */
#ifndef FRAGVOTE_PRESENT_CONSOLE_H
#define FRAGVOTE_PRESENT_CONSOLE_H

#include "console.h"
#include "present_frame.h"

struct present_console;

/* send: queues one text frame on the link; returns 0, or -1 (not connected). */
struct present_console *present_console_new(int (*send)(void *ctx, const char *text), void *send_ctx);
void present_console_free(struct present_console *r);
/* The backend to put in struct console. */
struct console_backend present_console_backend(struct present_console *r);

/* The link is up (authed: 1) or down, with why and the next attempt in ms. */
void present_console_link(struct present_console *r, int up, const char *why, int next_ms);
/* A line about the link the console shows while it is up ("" none), e.g. that another laptop measures now. */
void present_console_note(struct present_console *r, const char *note);
/* A presenter state / tally frame (text as received). Returns 0, or -1 with err. */
int present_console_state(struct present_console *r, const char *text, size_t len, char *err, size_t errlen);
int present_console_tally(struct present_console *r, const char *text, size_t len, char *err, size_t errlen);
/* The answer to one of our commands: cmd_ok, or an error frame (refused, busy, bad_cmd ...). */
void present_console_answer(struct present_console *r, const struct present_frame *f);
/* Copies the head's facts from the last state (room code, title, join URL): 0, or -1 before any state. */
int present_console_facts(struct present_console *r, char *room, size_t roomlen, char *title, size_t titlelen, char *url,
                         size_t urllen);

#endif
