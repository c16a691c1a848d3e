/* A lab test's own namespace lab (needs root): the default topology under
 * the prefix TAG<pid> (the test's own, so tests never share one). */
#ifndef FRAGVOTE_CHECK_LAB_H
#define FRAGVOTE_CHECK_LAB_H
#include <stdio.h>
#include <unistd.h>

#include "fragprobe.h"

/* Builds the lab into *lab and copies its prefix into prefix (len bytes),
 * for the test's cleanup to take it down. 0, or -1 after printing why. */
static inline int check_lab_up(const char *tag, struct probe_lab *lab, char *prefix, size_t len) {
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "%s%d", tag, (int)getpid() % 100000);
    snprintf(prefix, len, "%s", cfg.prefix);
    char err[1024];
    if (probe_lab_up(&cfg, lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab up: %s\n", err);
        return -1;
    }
    return 0;
}
#endif
