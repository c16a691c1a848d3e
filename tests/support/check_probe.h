/* Canned probe data: a result for tests that feed the room, hub or quiz a
 * measurement without running a probe, and the lab's path as the pure
 * judges get it. */
#ifndef FRAGVOTE_CHECK_PROBE_H
#define FRAGVOTE_CHECK_PROBE_H
#include <stdio.h>
#include <string.h>

#include "fragprobe.h"

/* A test of proto p, mode m and size bytes to port (0: none), the rest zero
 * (TTL and host: the run's defaults). */
static inline struct probe_spec check_probe_spec(enum probe_proto p, enum probe_mode m, int size, int port) {
    struct probe_spec s;
    memset(&s, 0, sizeof s);
    s.proto = p;
    s.mode = m;
    s.size = size;
    s.port = port;
    return s;
}

/* The three answers (PROBE_ANS_*), the evidence line, observer "raw"; the
 * rest zero (bases observed): a test sets what else it needs. */
static inline struct probe_result check_probe_result(int sent, int df, int frag, const char *evidence) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.sent.answer = sent;
    r.df.answer = df;
    r.fragmented.answer = frag;
    snprintf(r.evidence, sizeof r.evidence, "%s", evidence);
    snprintf(r.egress.observer, sizeof r.egress.observer, "raw");
    return r;
}

/* The namespace lab's path as the judges get it (struct
 * probe_path_topology), written out by hand so the judges' tests need no lab
 * code: the addresses of family v6 (each router's facing src, as it
 * answers), link MTUs src-r1, r1-r2, r2-dst and the reassembling router (0,
 * 1 = r1, 2 = r2). tests/probe/test_judge checks it equals
 * probe_path_topology_lab of a planned lab. */
static inline struct probe_path_topology check_probe_lab_path(int v6, int mtu0, int mtu1, int mtu2, int reassemble) {
    static const char *const names[4] = {"src", "r1", "r2", "dst"};
    static const char *const addrs[2][4] = {{"192.0.2.1", "192.0.2.2", "198.51.100.2", "203.0.113.2"},
                                            {"2001:db8:1::1", "2001:db8:1::2", "2001:db8:2::2", "2001:db8:3::2"}};
    static const enum probe_path_role roles[4] = {PROBE_PATH_HOST, PROBE_PATH_ROUTER, PROBE_PATH_ROUTER,
                                                  PROBE_PATH_TARGET};
    const int mtus[3] = {mtu0, mtu1, mtu2};
    struct probe_path_topology t;
    memset(&t, 0, sizeof t);
    t.nnodes = 4;
    for (int n = 0; n < 4; n++) {
        snprintf(t.node[n].name, sizeof t.node[n].name, "%s", names[n]);
        snprintf(t.node[n].addr, sizeof t.node[n].addr, "%s", addrs[v6 ? 1 : 0][n]);
        t.node[n].role = roles[n];
        t.node[n].reassembles = n == reassemble && reassemble > 0;
    }
    for (int i = 0; i < 3; i++) {
        t.link[i].mtu = mtus[i];
        t.link[i].from = PROBE_PATH_MTU_LAB;
    }
    return t;
}
#endif
