/* Test-only: captures in the lab that must be recording before the first
 * test. One engine call sends a sentinel datagram all the way to dst (TTL
 * 64) until each of the n captures has it. 0, or -1 (said on stderr) when
 * they never do. */
#ifndef FRAGVOTE_TEST_TRUTH_LAB_H
#define FRAGVOTE_TEST_TRUTH_LAB_H
#include "check.h"
#include "fragprobe.h"
#include "pcap_truth.h"

static inline int truth_lab_recording(const struct probe_lab *lab, struct truth_dump *d, int n) {
    char err[512];
    struct probe_run_opts o = {.observer = PROBE_OBS_RAW, .lab = lab, .timeout_ms = 200};
    struct probe_spec sentinel = {.proto = PROBE_UDP4, .mode = PROBE_MODE_DEFAULT, .size = 100, .ttl = 64, .port = 9};
    struct probe_result r;
    for (int tries = 0; tries < 20; tries++) {
        probe_run(&o, &sentinel, &r, err, sizeof err);
        usleep(20 * 1000);
        int all = 1;
        for (int i = 0; i < n; i++) all = all && truth_dump_bytes(&d[i]) > 24;
        if (all) return 0;
    }
    fprintf(stderr, "the captures are not recording\n");
    return -1;
}

/* Test n of a matrix: the PMTU cache flushed, its start time in *t_start,
 * then probe_run; its rc (a failure said on stderr). */
static inline int truth_lab_run(const struct probe_lab *lab, const struct probe_run_opts *o,
                                const struct probe_spec *s, struct probe_result *r, double *t_start, int n) {
    char err[1024];
    *t_start = truth_now();
    if (probe_lab_flush_pmtu(lab, err, sizeof err) < 0) fprintf(stderr, "flush: %s\n", err);
    int rc = probe_run(o, s, r, err, sizeof err);
    if (rc < 0) fprintf(stderr, "test %d: %s\n", n, err);
    return rc;
}

/* A capture on every link of lab (at its end nearer src) into
 * TMPDIR/PREFIX-linkI.pcap, paths[i] naming each, all recording before it
 * returns: 0, or -1. */
static inline int truth_lab_capture_links(const struct probe_lab *lab, const char *prefix, struct truth_dump *d,
                                          char (*paths)[512]) {
    for (int i = 0; i < lab->nlinks; i++) {
        snprintf(paths[i], 512, "%s/%s-link%d.pcap", check_tmpdir(), prefix, i);
        if (truth_dump_start(&d[i], lab->ns[i], lab->link[i].a_if, paths[i]) < 0) return -1;
    }
    return truth_lab_recording(lab, d, lab->nlinks);
}

/* A lab test's cleanup: its witness (NULL: none) and its n captures
 * stopped, its lab (prefix; "" when none is up) taken down. */
static inline void truth_lab_teardown(struct probe_lab_witness *wit, struct truth_dump *d, int n, char *prefix) {
    char err[256];
    if (wit) probe_lab_witness_stop(wit);
    for (int i = 0; i < n; i++) truth_dump_stop(&d[i]);
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
    prefix[0] = 0;
}
#endif
