/* The signal thread (see cli_signals.h). */
#include <string.h>

#include "cli_signals.h"

#define CLI_SIGNALS_END SIGUSR1 /* cli_signals_stop wakes the thread with it */

static void fill(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, CLI_SIGNALS_END);
}

static void *signal_main(void *arg) {
    struct cli_signals *s = arg;
    sigset_t set;
    fill(&set);
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0) continue;
        if (sig == CLI_SIGNALS_END) return NULL;
        s->on_signal(s->ctx, sig);
    }
}

int cli_signals_start(struct cli_signals *s, void (*on_signal)(void *ctx, int sig), void *ctx) {
    memset(s, 0, sizeof *s);
    s->on_signal = on_signal;
    s->ctx = ctx;
    sigset_t set;
    fill(&set);
    pthread_sigmask(SIG_BLOCK, &set, &s->old);
    signal(SIGPIPE, SIG_IGN);
    if (pthread_create(&s->thread, NULL, signal_main, s)) {
        pthread_sigmask(SIG_SETMASK, &s->old, NULL);
        return -1;
    }
    s->started = 1;
    return 0;
}

void cli_signals_stop(struct cli_signals *s) {
    if (!s->started) return;
    pthread_kill(s->thread, CLI_SIGNALS_END); /* blocked everywhere: only sigwait takes it */
    pthread_join(s->thread, NULL);
    pthread_sigmask(SIG_SETMASK, &s->old, NULL);
    s->started = 0;
}
