/* `fragvote present`'s session with a hosted hub: the protocol on the link
 * (auth, the prober hello and its take-over, state and tally for the
 * console, the hub's errors, measure asks for the prober, export answers),
 * the console thread it starts with the hub's first state, and how the
 * session stops (a signal, the console's end, a fatal refusal). cmd_present.c
 * builds the parts it drives (link, remote console, prober) and runs the
 * link's loop.
 *
 * Threads: the link's loop calls the link callbacks (present_session_link);
 * the console thread and the probe worker send through present_session_send;
 * the signal thread calls present_session_signal. */
#ifndef FRAGVOTE_PRESENT_SESSION_H
#define FRAGVOTE_PRESENT_SESSION_H

#include <pthread.h>

#include "console.h"
#include "present_console.h"
#include "present_export.h"
#include "present_frame.h"
#include "present_link.h"
#include "present_opts.h"
#include "present_prober.h"

struct present_session {
    const struct present_opts *o;      /* secret, --take-over, the console's options, --export files */
    char instance[33];                 /* this process's random id (the prober hello) */
    /* Set by the wiring once the engine is up, before the link runs: */
    const char *deck_json;             /* the deck as loaded, for the prober hello */
    struct present_facts facts;        /* this laptop's (host, kernel, observer, target, lab) */
    struct present_link *link;
    struct present_console *remote;
    struct present_prober *prober;
    FILE *script;                      /* --script, opened at start (the console thread runs and closes it) */
    int export_fd[PRESENT_EXPORTS_MAX]; /* each --export opened at start (fv_file_open_early), or -1 */
    /* The session's own: */
    struct present_export export;      /* the --export the console thread waits for */
    struct console con;
    char title[512], room[16], join_url[PRESENT_URL_MAX], screen_url[600], presenter_url[600];
    int authed, con_started, downs;    /* the link's loop's */
    int was_prober;                    /* the hub said prober_ok to this process at least once */
    int displaced;                     /* another connection took the prober role over: present only */
    int took_over;                     /* this connection sent take_over after prober_busy */
    char *last_state;                  /* the newest full state (the summary at the end) */
    pthread_t con_thread;
    pthread_mutex_t lock;
    volatile int stop;
    int signal_no, script_failed, export_failed, fatal;
    char fatal_msg[400];
};

/* A session for the options o (which outlive it), with its random instance
 * id. 0, or -1 with err (nothing to destroy then). */
int present_session_init(struct present_session *s, const struct present_opts *o, char *err, size_t errlen);
/* The link's callbacks (on_up, on_frame, on_down) with s as their ctx. */
void present_session_link(struct present_session *s, struct present_link_config *lc);
/* The send callback (ctx: the session) of the remote console and the prober. */
int present_session_send(void *ctx, const char *text);
/* The signal thread's callback (ctx: the session): stops the session. */
void present_session_signal(void *ctx, int sig);
/* Stops the session and waits for its console thread. */
void present_session_stop(struct present_session *s);
void present_session_destroy(struct present_session *s);

#endif
