/* The network-facing process's side (serve's hub, present's link to its
 * hub) of the privilege separation of serve and present: asks the
 * privileged helper (privsep_helper.h) to run the deck's tests, one at a
 * time, each within a deadline, and watches that the helper is alive. A
 * helper that died, hung or answered nonsense is said once on the console
 * (the note callback) and every later run fails with the reason, so the
 * room answers "unknown", never a wrong truth, and never waits longer than
 * the deadline. */
#ifndef FRAGVOTE_PRIVSEP_CLIENT_H
#define FRAGVOTE_PRIVSEP_CLIENT_H

#include <stddef.h>

#include "fragprobe.h"

#define PRIVSEP_RUN_MS 60000  /* a run's deadline: a test is bounded by ~1 s, TTL discovery and a lab rebuild by seconds */
#define PRIVSEP_READY_MS 30000 /* the helper's start (the lab's witness, its drop) */
#define PRIVSEP_QUIT_MS 30000  /* the helper's end (the lab taken down) */

struct privsep_client_config {
    int fd;          /* our end of the SOCK_SEQPACKET pair (owned from here on) */
    long pid;        /* the helper, our child */
    const char *cmd; /* "serve" or "present": the notes say "fragvote CMD: ..." */
    void (*note)(void *ctx, const char *line); /* a line for the console, from any thread */
    void *ctx;
    int run_ms;      /* 0: PRIVSEP_RUN_MS */
};

struct privsep_client;

/* The hub's side of the helper on fd. NULL with err (out of memory). */
struct privsep_client *privsep_client_new(const struct privsep_client_config *cfg, char *err, size_t errlen);
/* Waits up to ms for the helper's "ready", then watches it (a thread): 0 with *lab (the lab it uses as
 * JSON text, or NULL; caller frees), or -1 with its reason in err. */
int privsep_client_ready(struct privsep_client *c, int ms, char **lab, char *err, size_t errlen);
/* Runs the deck's test `test` (spec: what the room asked, checked against
 * the answer) in the helper: 0 with *out, or -1 with why in err. Not
 * concurrently with itself (the probe worker's thread calls it). */
int privsep_client_run(struct privsep_client *c, int test, const struct probe_spec *spec, struct probe_result *out,
                       char *err, size_t errlen);
/* The helper's pid. */
long privsep_client_pid(const struct privsep_client *c);
/* Tells the helper to quit (it takes the lab down), waits up to
 * PRIVSEP_QUIT_MS for it to exit, and frees c. Returns the helper's exit
 * status (0..255), or -1 (killed, not exited in time, unknown; c NULL). */
int privsep_client_free(struct privsep_client *c);

#endif
