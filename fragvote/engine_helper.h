/* The privilege separation of serve and present (issue 36, item 11;
 * docs/PRIVILEGES.md, "What fragvote serve does"). Started as root to
 * measure here (not --keep-root; serve not --prober remote), the command
 * forks a helper before it starts any thread: the helper builds or finds
 * the lab, starts its witness, drops to the invoking user (or nobody)
 * keeping only the capabilities the probe needs, and then runs the deck's
 * tests when asked (fragvote/privsep/). The process that faces the network
 * (serve's hub, present's link to its hub) drops to the same user keeping no
 * capability at all before it opens the database or a socket. When its end
 * of the socket closes (it ends, or dies of any signal, SIGKILL included)
 * the helper puts the lab back, takes down a lab it built and exits. */
#ifndef FRAGVOTE_ENGINE_HELPER_H
#define FRAGVOTE_ENGINE_HELPER_H

#include "cli_engine.h"
#include "deck.h"
#include "privsep_client.h"

struct engine_helper_config {
    const char *cmd;              /* "serve" or "present": its messages say "fragvote CMD: ..." */
    struct cli_engine *engine;    /* picked (cli_engine_pick); the helper's copy builds the lab */
    const struct deck *deck;      /* the tests the helper runs: its copy, from the fork */
    const char *witness;          /* as cli_engine_up's */
    const char *witness_key;
    const char *user;             /* --user, or NULL */
    int keep_pmtu_cache;
    int scenarios;                /* tests that name a lab scenario */
    void (*note)(void *ctx, const char *line); /* privsep_client_config's */
    void *ctx;
};

/* Whether the engine runs in a helper: root, the drop not refused with
 * --keep-root (serve --prober remote measures nothing: not asked). */
int engine_helper_wanted(int keep_root);
/* Forks the helper, then drops this process (no capability). Call it
 * before any thread starts: capabilities are per thread. FV_EXIT_OK with
 * *out, or the exit code (said on stderr). */
int engine_helper_start(const struct engine_helper_config *cfg, struct privsep_client **out);
/* Waits for the helper's "ready": FV_EXIT_OK with *lab_json (the lab it
 * uses, or NULL; caller frees), or the exit code (the helper's own when it
 * could not start: it said why; the helper is gone and c freed). */
int engine_helper_ready(const char *cmd, struct privsep_client **c, char **lab_json);
#endif
