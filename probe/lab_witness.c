/* The lab's witness: a thread that enters the lab's dst namespace and runs
 * probe_witness_run on a free port with a fresh key, for as long as the
 * caller probes (a `probe` command, a `serve` session, a test). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fragprobe.h"

#define LAB_WITNESS_START_MS 2000   /* how long start waits for the witness to listen */

static void *lab_witness_main(void *arg) {
    struct probe_lab_witness *w = arg;
    int saved;
    w->rc = probe_netns_enter(w->ns, &saved, w->err, sizeof w->err);
    if (w->rc == 0) {
        w->rc = probe_witness_run(&w->opts, w->err, sizeof w->err);
        probe_netns_leave(saved);
    }
    __atomic_store_n(&w->running, 0, __ATOMIC_RELEASE);
    return NULL;
}

int probe_lab_witness_start(const struct probe_lab *lab, int raw, struct probe_lab_witness *w, char *err,
                            size_t errlen) {
    memset(w, 0, sizeof *w);
    snprintf(w->ns, sizeof w->ns, "%s", probe_lab_dst_ns(lab));
    if (probe_witness_random(w->target.key, sizeof w->target.key, err, errlen) < 0) return PROBE_E_FAIL;
    memcpy(w->opts.key, w->target.key, sizeof w->opts.key);
    w->opts.port = 0;
    w->opts.raw = raw;
    w->opts.stop = &w->stop;
    w->opts.bound_port = &w->bound;
    w->opts.stats = &w->stats;
    w->target.host[0] = 0; /* the lab's dst, of the test's family */
    w->running = 1;
    pthread_t t;
    if (pthread_create(&t, NULL, lab_witness_main, w) != 0) {
        snprintf(err, errlen, "cannot start the lab's witness thread");
        w->running = 0;
        return PROBE_E_FAIL;
    }
    w->thread = (unsigned long)t;
    for (int i = 0; i < LAB_WITNESS_START_MS && !w->bound && __atomic_load_n(&w->running, __ATOMIC_ACQUIRE); i++)
        usleep(1000);
    if (!w->bound) {
        snprintf(err, errlen, "the lab's witness in %s did not start: %s", w->ns, w->err[0] ? w->err : "timed out");
        w->stop = 1;
        pthread_join(t, NULL);
        w->thread = 0;
        return PROBE_E_FAIL;
    }
    w->target.port = w->bound;
    return 0;
}

void probe_lab_witness_stop(struct probe_lab_witness *w) {
    if (!w->thread) return;
    w->stop = 1;
    pthread_join((pthread_t)w->thread, NULL);
    w->thread = 0;
}
