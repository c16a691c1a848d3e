/* A lab test's own namespace lab (needs root): the default topology under
 * the prefix TAG<pid> (the test's own, so tests never share one); and a
 * test's child that runs as an unprivileged prober or witness inside it. */
#ifndef FRAGVOTE_CHECK_LAB_H
#define FRAGVOTE_CHECK_LAB_H
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* A test's child on two pipes: child_main(in, out) runs in it (and must
 * _exit); *to writes to its in, *from reads its out. Its pid, or -1. */
static inline pid_t check_lab_fork_child(void (*child_main)(int in, int out), int *to, int *from) {
    int a[2], b[2];
    if (pipe(a) || pipe(b)) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        child_main(a[0], b[1]);
        _exit(0);
    }
    close(a[0]);
    close(b[1]);
    *to = a[1];
    *from = b[0];
    return pid;
}

/* What an unprivileged child answers for one run: probe_run's rc and
 * result, the uid it ran as, whether it held a raw socket, the error. */
struct check_lab_reply {
    int rc, uid, has_raw;
    struct probe_result r;
    char err[256];
};

/* In the child: the reply for the next run, zeroed (one, static: a
 * result is too large for the stack of a thread the engine may use). */
static inline struct check_lab_reply *check_lab_reply_fresh(void) {
    static struct check_lab_reply rep;
    memset(&rep, 0, sizeof rep);
    return &rep;
}

/* In the child: rep's uid and raw socket filled in, rep written to out
 * (the child exits 12 when it cannot). */
static inline void check_lab_reply_send(int out, struct check_lab_reply *rep) {
    rep->uid = (int)getuid();
    rep->has_raw = probe_priv_has(CAP_NET_RAW);
    if (write(out, rep, sizeof *rep) != (ssize_t)sizeof *rep) _exit(12);
}
#endif
