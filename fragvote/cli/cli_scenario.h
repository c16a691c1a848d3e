/* The lab between a deck's scenarios (docs/DECKS.md, "Lab scenarios"):
 * before each test the running lab becomes the scenario the test names, or
 * the lab the talk started on when it names none; only what differs changes
 * (probe_lab_reconfigure), and the lab's witness is restarted in the new dst
 * after a rebuild. Each switch is timed. Used from one thread at a time
 * (serve's and play's worker, probe --deck's one job). */
#ifndef FRAGVOTE_CLI_SCENARIO_H
#define FRAGVOTE_CLI_SCENARIO_H
#include <stddef.h>

#include "fragprobe.h"
#include "witness_cli.h"

struct cli_scenario {
    struct probe_lab *lab;          /* the lab the tests run on: switched in place */
    struct witness_cli *witness;    /* its lab witness is restarted after a rebuild; may be NULL */
    struct probe_lab_config base;   /* the lab of tests that name no scenario */
    int switches, rebuilds;         /* how often the lab changed, and of those, was rebuilt */
    double ms_total, ms_max;        /* time the switches took */
};

/* base: the lab as it is now. */
void cli_scenario_init(struct cli_scenario *s, struct probe_lab *lab, struct witness_cli *witness);
/* The lab for one test: want (NULL: the base). 0 (*ms the time it took, 0
 * when nothing changed, *rebuilt whether it was rebuilt), or -1 with err. */
int cli_scenario_enter(struct cli_scenario *s, const struct probe_lab_config *want, double *ms, int *rebuilt,
                       char *err, size_t errlen);
/* After the talk: the lab back to the base (a lab the speaker built is
 * left as it was found). 0, or -1 with err. */
int cli_scenario_restore(struct cli_scenario *s, char *err, size_t errlen);
/* "4 lab switches (1 rebuild), 85 ms on average, at most 460 ms" into buf; "" when none. */
void cli_scenario_summary(const struct cli_scenario *s, char *buf, size_t len);
#endif
