/* The signal thread of a long-running subcommand (serve, present): SIGINT,
 * SIGTERM and SIGHUP are blocked in every thread and taken by one thread with
 * sigwait(), which calls on_signal; nothing runs in a signal handler. SIGPIPE
 * is ignored (a peer gone mid-write is an error return, not a death). */
#ifndef FRAGVOTE_CLI_SIGNALS_H
#define FRAGVOTE_CLI_SIGNALS_H

#include <pthread.h>
#include <signal.h>

struct cli_signals {
    void (*on_signal)(void *ctx, int sig); /* on the signal thread */
    void *ctx;
    pthread_t thread;
    sigset_t old;
    int started;
};

/* Blocks the signals in the calling thread (threads made afterwards inherit
 * it) and starts the thread. Call before any other thread is made. 0, or -1
 * (the mask restored). */
int cli_signals_start(struct cli_signals *s, void (*on_signal)(void *ctx, int sig), void *ctx);
/* Ends the thread and restores the caller's mask. */
void cli_signals_stop(struct cli_signals *s);

#endif
