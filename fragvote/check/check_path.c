/* The venue check's measurements, all through the probe engine
 * (probe_run.h): TTL discovery and a rate burst towards each of the deck's
 * targets, one small keyed test to the witness (check_venue.h). */
#include <stdio.h>
#include <string.h>

#include "check_venue.h"

void check_target_run(struct check_target *t, int burst) {
    t->rc = 0;
    t->err[0] = 0;
    t->burst_ttl = 0;
    memset(&t->d, 0, sizeof t->d);
    memset(&t->burst, 0, sizeof t->burst);
    if (!t->raw) return;
    struct probe_run_opts o = {.observer = PROBE_OBS_RAW};
    t->rc = probe_ttl_discover(&o, t->v6, t->host, &t->d, t->err, sizeof t->err);
    if (t->rc < 0 || burst <= 0) return;
    t->burst_ttl = check_target_answering_ttl(t);
    if (t->burst_ttl)
        t->burst_rc = probe_ttl_burst(&o, t->v6, t->host, t->burst_ttl, burst, &t->burst, t->err, sizeof t->err);
}

void check_witness_run(const struct probe_witness_target *wt, enum probe_observer_kind obs, struct check_witness *w) {
    struct probe_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.proto = strchr(wt->host, ':') ? PROBE_UDP6 : PROBE_UDP4;
    spec.mode = PROBE_MODE_DEFAULT;
    spec.size = 200; /* room for the witness's header, far below any MTU */
    spec.ttl = 64;   /* to the far end, no discovery */
    snprintf(spec.host, sizeof spec.host, "%s", wt->host);
    spec.port = wt->port;
    struct probe_run_opts o = {.observer = obs, .witness = wt};
    struct probe_result r;
    memset(&r, 0, sizeof r);
    w->err[0] = 0;
    w->rc = probe_run(&o, &spec, &r, w->err, sizeof w->err);
    w->heard = w->rc >= 0 && r.witness.heard;
    snprintf(w->note, sizeof w->note, "%s", w->rc >= 0 ? r.witness.note : "");
}
