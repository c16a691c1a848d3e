/* A lab test's own namespace lab (needs root): the default topology under
 * the prefix TAG<pid> (the test's own, so tests never share one); and a
 * test's child that runs as an unprivileged prober or witness inside it. */
#ifndef FRAGVOTE_CHECK_LAB_H
#define FRAGVOTE_CHECK_LAB_H
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fragprobe.h"

/* Builds the lab cfg describes into *lab and copies its prefix into prefix
 * (len bytes), for the test's cleanup to take it down. 0, or -1 after
 * printing why. */
static inline int check_lab_up_cfg(const struct probe_lab_config *cfg, struct probe_lab *lab, char *prefix,
                                   size_t len) {
    snprintf(prefix, len, "%s", cfg->prefix);
    char err[1024];
    if (probe_lab_up(cfg, lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab up: %s\n", err);
        return -1;
    }
    return 0;
}

/* The default topology with these MTUs (NULL: the default ones) under the
 * prefix TAG<pid>, as check_lab_up_cfg. */
static inline int check_lab_up_mtus(const char *tag, const char *mtus, struct probe_lab *lab, char *prefix,
                                    size_t len) {
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "%s%d", tag, (int)getpid() % 100000);
    char err[1024];
    if (mtus && probe_lab_parse_mtus(mtus, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "lab mtus %s: %s\n", mtus, err);
        return -1;
    }
    return check_lab_up_cfg(&cfg, lab, prefix, len);
}
/* The default MTUs (1500,1280,1500). */
static inline int check_lab_up(const char *tag, struct probe_lab *lab, char *prefix, size_t len) {
    return check_lab_up_mtus(tag, NULL, lab, prefix, len);
}

/* The lab's witness in dst, on a port of its own choosing: 0, or -1 after
 * printing why. */
static inline int check_lab_witness_start(const struct probe_lab *lab, struct probe_lab_witness *wit) {
    char err[1024];
    if (probe_lab_witness_start(lab, -1, wit, err, sizeof err) < 0) {
        fprintf(stderr, "witness: %s\n", err);
        return -1;
    }
    return 0;
}

/* In a test's forked child: moves into the namespace ns and drops root for
 * good (to "nobody": SUDO_UID is ignored), as an unprivileged prober or
 * witness runs there. Exits 10 when it cannot enter, 11 when it cannot drop. */
static inline void check_lab_enter_unprivileged(const char *ns) {
    char err[256];
    int saved;
    if (probe_netns_enter(ns, &saved, err, sizeof err) < 0) _exit(10);
    close(saved);
    unsetenv("SUDO_UID");
    if (probe_priv_drop(err, sizeof err) < 0) _exit(11);
}
#endif
