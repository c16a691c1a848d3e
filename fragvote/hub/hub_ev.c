/* The hub's libev event loop (hub_ev.h). */
#include <dlfcn.h>
#include <ev.h>
#include <stdlib.h>

#include "hub_ev.h"

/* libev through its stable C ABI, loaded at run time so the build needs no
 * libev headers or link flags (lws itself loads it as a plugin). We own the
 * loop ("foreign" to lws) so hub_run() can run it one iteration at a time and
 * notice hub_stop(). */
#define HUB_EVFLAG_AUTO 0u
#define HUB_EVRUN_ONCE 2
#define HUB_EVRUN_NOWAIT 1
int hub_ev_open(struct hub_ev *e) {
    e->lib = dlopen("libev.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (!e->lib) return -1;
    void *(*loop_new)(unsigned) = (void *(*)(unsigned))dlsym(e->lib, "ev_loop_new");
    e->run = (int (*)(void *, int))dlsym(e->lib, "ev_run");
    if (!loop_new || !e->run || !dlsym(e->lib, "ev_loop_destroy") ||
        !(e->loop = loop_new(HUB_EVFLAG_AUTO))) {
        dlclose(e->lib);
        e->lib = NULL;
        return -1;
    }
    e->foreign_loops[0] = e->loop;
    return 0;
}

static void loop_close(struct hub_ev *e) {
    if (e->loop) ((void (*)(void *))dlsym(e->lib, "ev_loop_destroy"))(e->loop);
    /* libev stays loaded: lws's plugin may still reference it */
    e->loop = NULL;
}

/* libev: lws 4.1.6 runs its scheduler from an ev_timer of its own that it
 * re-arms after each event with ev_timer_set + ev_timer_start; on a timer
 * that is already running that is a no-op in libev, so a deadline armed
 * earlier than the one it waits for would run only after the next event on
 * some socket, or when the old one ran out (lib/event-libs/libev/libev.c,
 * lws_ev_idle_cb). So before each turn the hub arms one ev_timer of its own
 * on the loop it owns for its earliest deadline; when it fires it runs
 * those of the hub's deadlines that are due, earliest first, as lws's pass
 * would (whichever comes first runs them). lws's own deadlines (HTTP and
 * close timeouts) get a pass at least every HUB_LWS_TIMERS_MS: the timer
 * then wakes lws (lws_cancel_service, from the loop's thread), and lws
 * runs what is due after that event. */
#define HUB_LWS_TIMERS_MS 500

static int armed(const struct hub_ev *e, int t) { return e->timers[t].list.owner != NULL; }

static void kick_fired(struct ev_loop *loop, ev_timer *w, int revents) {
    (void)loop, (void)revents;
    struct hub_ev *e = w->data;
    lws_usec_t now = lws_now_usecs();
    int ran = 0;
    for (;;) {
        int first = -1;
        for (int t = 0; t < e->ntimers; t++)
            if (armed(e, t) && e->timers[t].us <= now &&
                (first < 0 || e->timers[t].us < e->timers[first].us))
                first = t;
        if (first < 0) break;
        lws_sorted_usec_list_t *sul = &e->timers[first];
        lws_sul_cancel(sul); /* re-armed in its callback: due after now, so not again in this pass */
        sul->cb(sul);
        ran = 1;
    }
    if (!ran) lws_cancel_service(e->ctx);
}

int hub_ev_kick_new(struct hub_ev *e, struct lws_context *ctx, lws_sorted_usec_list_t *timers, int ntimers) {
    e->timer_start = (void (*)(void *, void *))dlsym(e->lib, "ev_timer_start");
    e->timer_stop = (void (*)(void *, void *))dlsym(e->lib, "ev_timer_stop");
    e->now_update = (void (*)(void *))dlsym(e->lib, "ev_now_update");
    ev_timer *k = e->kick = calloc(1, sizeof *k);
    if (!k || !e->timer_start || !e->timer_stop || !e->now_update) return -1;
    ev_timer_init(k, kick_fired, 0., 0.);
    k->data = e;
    e->ctx = ctx;
    e->timers = timers;
    e->ntimers = ntimers;
    return 0;
}

static void kick_arm(struct hub_ev *e) {
    ev_timer *k = e->kick;
    lws_usec_t now = lws_now_usecs(), at = now + HUB_LWS_TIMERS_MS * LWS_US_PER_MS;
    for (int t = 0; t < e->ntimers; t++)
        if (armed(e, t) && e->timers[t].us < at) at = e->timers[t].us;
    if (ev_is_active(k) && e->kick_at <= at) return; /* one early is harmless: it is re-armed after */
    e->timer_stop(e->loop, k);
    e->now_update(e->loop); /* the timer counts from the loop's time, else stale by this turn's work */
    ev_timer_set(k, at > now ? (double)(at - now) / 1e6 : 0., 0.);
    e->timer_start(e->loop, k);
    e->kick_at = at;
}

static void kick_free(struct hub_ev *e) {
    if (e->kick && e->loop && ev_is_active((ev_timer *)e->kick)) e->timer_stop(e->loop, e->kick);
    free(e->kick);
    e->kick = NULL;
}

void hub_ev_turn(struct hub_ev *e, int wait) {
    kick_arm(e);
    e->run(e->loop, wait ? HUB_EVRUN_ONCE : HUB_EVRUN_NOWAIT);
}

void hub_ev_close(struct hub_ev *e) {
    kick_free(e);
    loop_close(e);
}
