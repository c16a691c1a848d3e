/* Test-only: captures in the lab that must be recording before the first
 * test. One engine call sends a sentinel datagram all the way to dst (TTL
 * 64) until each of the n captures has it. 0, or -1 when they never do. */
#ifndef FRAGVOTE_TEST_TRUTH_LAB_H
#define FRAGVOTE_TEST_TRUTH_LAB_H
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
    return -1;
}
#endif
