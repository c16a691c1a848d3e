/* Both ends unprivileged: the prober as uid 65534 with no capabilities in
 * the lab's src (observer auto, which picks recverr), the witness as uid
 * 65534 in dst (no packet tap: IP_RECVFRAGSIZE, IP_RECVTTL, TCP_INFO only).
 * Every UDP/TCP protocol x PMTUD mode at 1400 and 3000 bytes, on the default
 * lab and on 1500,1500,1280 (the last router fragments), against tcpdump on
 * all three links: each answer equals the wire or says unknown. Judged as on
 * a real path (no lab topology to infer from): the same tests without the
 * witness (today's near-end answer) leave more facts unknown.
 * Root builds the lab and the captures and flushes the PMTU cache. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "check.h"
#include "check_lab.h"
#include "fragprobe.h"
#include "probe/pcap_truth.h"
#include "probe/truth_lab.h"

#define SIZES 2
static const int sizes[SIZES] = {1400, 3000};
#define TESTS (4 * 7 * SIZES)
#define UDP_PORT_BASE 22000

static char prefix[24];
static struct truth_dump dumps[3];
static struct probe_lab lab;
static pid_t prober_pid = -1, witness_pid = -1;
static int to_prober = -1, from_prober = -1;
static struct probe_witness_target target;

static void stop_children(void) {
    if (to_prober >= 0) close(to_prober);
    if (from_prober >= 0) close(from_prober);
    to_prober = from_prober = -1;
    pid_t *pids[2] = {&prober_pid, &witness_pid};
    for (int i = 0; i < 2; i++)
        if (*pids[i] > 0) {
            kill(*pids[i], SIGKILL);
            waitpid(*pids[i], NULL, 0);
            *pids[i] = -1;
        }
}

static void cleanup(void) {
    stop_children();
    truth_lab_teardown(NULL, dumps, 3, prefix);
}

struct ask {
    struct probe_spec spec;
    int with_witness;
};

static void prober_main(int in, int out) {
    check_lab_enter_unprivileged(lab.ns[PROBE_LAB_SRC]);
    struct ask a;
    while (check_read_full(in, &a, sizeof a) == 0) {
        struct check_lab_reply *rep = check_lab_reply_fresh();
        /* As on a real path: no lab topology to infer from, only the two ends. */
        struct probe_witness_target t = target;
        snprintf(t.host, sizeof t.host, "%s", a.spec.host);
        struct probe_run_opts opts = {.observer = PROBE_OBS_AUTO, .timeout_ms = 300,
                                      .witness = a.with_witness ? &t : NULL};
        rep->rc = probe_run(&opts, &a.spec, &rep->r, rep->err, sizeof rep->err);
        check_lab_reply_send(out, rep);
    }
    _exit(0);
}

static void witness_main(void) {
    check_lab_enter_unprivileged(probe_lab_dst_ns(&lab));
    struct probe_witness_opts o;
    memset(&o, 0, sizeof o);
    o.port = target.port;
    memcpy(o.key, target.key, sizeof o.key);
    o.raw = 0;
    o.seconds = 120;
    char err[256];
    _exit(probe_witness_run(&o, err, sizeof err) < 0 ? 13 : 0);
}

static int start_children(void) {
    witness_pid = fork();
    if (witness_pid == 0) witness_main();
    prober_pid = check_lab_fork_child(prober_main, &to_prober, &from_prober);
    if (prober_pid < 0) return -1;
    usleep(100 * 1000); /* the witness binds its port */
    return 0;
}

static int run_unpriv(enum probe_proto p, enum probe_mode m, int size, int port, int with_witness, struct check_lab_reply *rep) {
    char err[256];
    if (probe_lab_flush_pmtu(&lab, err, sizeof err) < 0) return -1;
    struct ask a;
    memset(&a, 0, sizeof a);
    a.spec.proto = p;
    a.spec.mode = m;
    a.spec.size = size;
    a.with_witness = with_witness;
    /* Without the witness: today's way (TTL 2, the lab's dst, a UDP port or
     * the witness's TCP listener, which accepts like any listener). */
    a.spec.ttl = with_witness ? 0 : lab.auto_ttl;
    a.spec.port = probe_proto_is_tcp(p) ? target.port : port;
    snprintf(a.spec.host, sizeof a.spec.host, "%s", probe_lab_dst_addr(&lab, probe_proto_is_v6(p)));
    if (write(to_prober, &a, sizeof a) != (ssize_t)sizeof a || check_read_full(from_prober, rep, sizeof *rep) < 0) return -1;
    if (rep->rc < 0) fprintf(stderr, "probe_run as uid %d: %s\n", rep->uid, rep->err);
    return rep->rc;
}

static int agrees(const struct probe_fact *f, int truth) {
    if (f->basis == PROBE_BASIS_UNKNOWN) return f->answer == PROBE_ANS_UNKNOWN;
    return f->answer == (truth ? PROBE_ANS_YES : PROBE_ANS_NO);
}

struct tally {
    int mismatches, unknown, far, frag_unknown;
};

static void judge_all(const struct truth_cap *cap, struct check_lab_reply *reps, const double *t_start, int n, int witness,
                      struct tally *t) {
    memset(t, 0, sizeof *t);
    for (int i = 0; i < n; i++) {
        const struct probe_result *r = &reps[i].r;
        if (reps[i].rc < 0) {
            t->mismatches++;
            continue;
        }
        int v6 = probe_proto_is_v6(r->spec.proto), l4 = probe_proto_is_tcp(r->spec.proto) ? IPPROTO_TCP : IPPROTO_UDP;
        int pk[3], fr[3], df[3];
        for (int k = 0; k < 3; k++) truth_flow(&cap[k], t_start[i], t_start[i + 1], v6, l4, r->spec.port, &pk[k], &fr[k], &df[k]);
        int sent = pk[0] > 0, host = fr[0] > 0, router = !host && (fr[1] > 0 || fr[2] > 0);
        int ok = agrees(&r->sent, sent) && agrees(&r->fragmented, host || router);
        if (sent && !v6 && !agrees(&r->df, df[0])) ok = 0;
        if (r->fragmented.basis != PROBE_BASIS_UNKNOWN && (host || router) &&
            r->fragmenter != (host ? PROBE_FRAG_HOST : PROBE_FRAG_ROUTER))
            ok = 0;
        if (reps[i].uid == 0 || reps[i].has_raw) ok = 0;
        if (witness && r->witness.heard && r->witness.raw) ok = 0; /* the witness had no tap */
        const struct probe_fact *f[3] = {&r->sent, &r->df, &r->fragmented};
        for (int k = 0; k < 3; k++) t->unknown += f[k]->basis == PROBE_BASIS_UNKNOWN;
        t->frag_unknown += r->fragmented.basis == PROBE_BASIS_UNKNOWN;
        t->far += (r->witness.far_end & 4) != 0;
        printf("%s %s %-4s %-9s %5d %4.0fms | wire: sent %d df %d frag host %d router %d | %s %s/%s df %s/%s frag %s/%s by %s | %s\n",
               ok ? "ok  " : "DIFF", witness ? "W" : "-", probe_proto_name(r->spec.proto), probe_mode_name(r->spec.mode),
               r->spec.size, r->elapsed_ms, sent, df[0], host, router, r->egress.observer, probe_answer_name(r->sent.answer),
               probe_fact_basis_label(r, &r->sent), probe_answer_name(r->df.answer), probe_fact_basis_label(r, &r->df),
               probe_answer_name(r->fragmented.answer), probe_fact_basis_label(r, &r->fragmented),
               probe_fragmenter_name(r->fragmenter), r->evidence);
        if (!ok) t->mismatches++;
    }
}

static int setup(const char *mtus, char tag) {
    char err[1024];
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "fvx%d%c", (int)getpid() % 100000, tag);
    snprintf(prefix, sizeof prefix, "%s", cfg.prefix);
    if (mtus && probe_lab_parse_mtus(mtus, &cfg, err, sizeof err) < 0) return -1;
    if (probe_lab_up(&cfg, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab up: %s\n", err);
        return -1;
    }
    memset(&target, 0, sizeof target);
    target.port = PROBE_WITNESS_PORT_LAB;
    if (probe_witness_random(target.key, sizeof target.key, err, sizeof err) < 0) return -1;
    return start_children();
}

static void run_topology(const char *mtus, char tag) {
    char err[512], paths[3][512];
    REQUIRE(setup(mtus, tag) == 0);
    for (int i = 0; i < 3; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s-link%d.pcap", check_tmpdir(), prefix, i);
        REQUIRE(truth_dump_start(&dumps[i], lab.ns[i], lab.link[i].a_if, paths[i]) == 0);
    }
    REQUIRE(truth_lab_recording(&lab, dumps, 3) == 0);
    static struct check_lab_reply reps[2][TESTS];
    double t_start[2][TESTS + 1];
    for (int w = 0; w < 2; w++) {
        int n = 0;
        for (int p = 0; p < 4; p++)
            for (int m = 0; m < 7; m++)
                for (int s = 0; s < SIZES; s++, n++) {
                    t_start[w][n] = truth_now();
                    run_unpriv((enum probe_proto)p, (enum probe_mode)m, sizes[s], UDP_PORT_BASE + n, w, &reps[w][n]);
                }
        t_start[w][n] = truth_now();
    }
    for (int i = 0; i < 3; i++) truth_dump_stop(&dumps[i]);
    static struct truth_cap cap[3];
    for (int i = 0; i < 3; i++) REQUIRE(truth_read(paths[i], &cap[i]) >= 0);
    struct tally near, both;
    judge_all(cap, reps[0], t_start[0], TESTS, 0, &near);
    judge_all(cap, reps[1], t_start[1], TESTS, 1, &both);
    printf("%s (%s): near end only %d unknown facts (%d fragmented?), %d mismatches; with the witness %d unknown (%d "
           "fragmented?), %d fragmented answers from the far end, %d mismatches\n",
           prefix, mtus ? mtus : "default", near.unknown, near.frag_unknown, near.mismatches, both.unknown,
           both.frag_unknown, both.far, both.mismatches);
    CHECK_INT(near.mismatches, 0);
    CHECK_INT(both.mismatches, 0);
    CHECK(both.far > 0);
    CHECK(both.unknown < near.unknown);
    stop_children();
    probe_lab_down(prefix, err, sizeof err);
    prefix[0] = 0;
}

static void test_unprivileged_both_ends_on_the_default_lab(void) { run_topology(NULL, 'd'); }

static void test_unprivileged_both_ends_when_the_last_router_fragments(void) { run_topology("1500,1500,1280", 'l'); }

int main(void) {
    check_root_begin("needs root to build the lab and the captures (the probes run as uid 65534)", "tcpdump ip",
                     cleanup);
    RUN(test_unprivileged_both_ends_on_the_default_lab);
    RUN(test_unprivileged_both_ends_when_the_last_router_fragments);
    return check_summary();
}
