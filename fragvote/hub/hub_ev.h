/* The hub's libev event loop (hub_ev.c): libev loaded at run time, the loop
 * the hub owns ("foreign" to lws), and the timer that runs the hub's
 * deadlines on time under it. Knows nothing of struct hub: it is given lws's
 * context and the deadlines. Internal to fragvote/hub. */
#ifndef FRAGVOTE_HUB_EV_H
#define FRAGVOTE_HUB_EV_H

#include <libwebsockets.h>

struct hub_ev {
    void *lib;                     /* dlopen'd libev when the libev event loop is used */
    void *loop;                    /* our (foreign to lws) libev loop, or NULL: lws's poll loop */
    int (*run)(void *, int);       /* libev's ev_run, looked up once */
    void *foreign_loops[1];        /* lws's info.foreign_loops: the loop */
    void *kick;                    /* our ev_timer that wakes the loop for the earliest deadline */
    lws_usec_t kick_at;            /* when it is armed to fire */
    void (*timer_start)(void *, void *), (*timer_stop)(void *, void *); /* libev's, looked up once */
    void (*now_update)(void *);
    struct lws_context *ctx;
    lws_sorted_usec_list_t *timers; /* the hub's deadlines (struct hub's timer[]) */
    int ntimers;
};

/* Loads libev and makes the loop (e->loop, e->foreign_loops); -1: no libev, e->loop NULL. */
int hub_ev_open(struct hub_ev *e);
/* Once lws runs on the loop: the kick timer for the ntimers deadlines at timers. 0, or -1. */
int hub_ev_kick_new(struct hub_ev *e, struct lws_context *ctx, lws_sorted_usec_list_t *timers, int ntimers);
/* One turn of the loop (wait: block until something happens), the kick armed first. */
void hub_ev_turn(struct hub_ev *e, int wait);
void hub_ev_close(struct hub_ev *e);    /* the kick and the loop (libev stays loaded) */

#endif
