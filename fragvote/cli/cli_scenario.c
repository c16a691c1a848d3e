/* Switching the lab between a deck's scenarios; see cli_scenario.h. */
#include <stdio.h>
#include <string.h>

#include "cli_scenario.h"
#include "fv_clock.h"

void cli_scenario_init(struct cli_scenario *s, struct probe_lab *lab, struct witness_cli *witness) {
    memset(s, 0, sizeof *s);
    s->lab = lab;
    s->witness = witness;
    s->base = lab->cfg;
}

int cli_scenario_enter(struct cli_scenario *s, const struct probe_lab_config *want, double *ms, int *rebuilt,
                       char *err, size_t errlen) {
    *ms = 0;
    *rebuilt = 0;
    struct probe_lab_config w = want ? *want : s->base;
    snprintf(w.prefix, sizeof w.prefix, "%s", s->lab->cfg.prefix);
    struct probe_lab planned;
    if (probe_lab_plan(&w, &planned, err, errlen) < 0) return -1;
    if (probe_lab_config_same(&planned.cfg, &s->lab->cfg)) return 0;
    double t0 = fv_clock_ms_frac();
    if (probe_lab_reconfigure(s->lab, &w, rebuilt, err, errlen) < 0) return -1;
    /* A rebuilt lab has a new dst: the old witness listens in a namespace
     * no longer joined to anything. Same struct, so the run options'
     * pointer to its target stays good. */
    if (*rebuilt && s->witness && s->witness->lab_started) {
        probe_lab_witness_stop(&s->witness->lab);
        if (probe_lab_witness_start(s->lab, -1, &s->witness->lab, err, errlen) < 0) {
            s->witness->lab_started = 0;
            s->witness->target = NULL;
            return -1;
        }
    }
    *ms = fv_clock_ms_frac() - t0;
    s->switches++;
    s->rebuilds += *rebuilt;
    s->ms_total += *ms;
    if (*ms > s->ms_max) s->ms_max = *ms;
    return 0;
}

int cli_scenario_restore(struct cli_scenario *s, char *err, size_t errlen) {
    if (!s->lab || !s->switches) return 0;
    double ms;
    int rebuilt;
    return cli_scenario_enter(s, NULL, &ms, &rebuilt, err, errlen);
}

void cli_scenario_summary(const struct cli_scenario *s, char *buf, size_t len) {
    if (!s->switches) {
        if (len) buf[0] = 0;
        return;
    }
    snprintf(buf, len, "%d lab switch%s (%d rebuilt), %.0f ms on average, at most %.0f ms", s->switches,
             s->switches == 1 ? "" : "es", s->rebuilds, s->ms_total / s->switches, s->ms_max);
}
