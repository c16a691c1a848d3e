/* The probe engine run by an unprivileged user (uid 65534, no capabilities)
 * inside the lab's src namespace, observer "auto" (which must pick
 * recverr): every protocol x PMTUD mode at 1400 and 3000 bytes (ICMP echo
 * over ping sockets bound to a given identifier), on the
 * default lab and on one whose r1 reassembles (conntrack defrag). Each answer
 * is either labelled unknown or equals the ground truth from tcpdump on the
 * src-r1 and r1-r2 links -- observed and inferred answers alike. Then the
 * article's reader challenge as that user: with the PMTU cache kept the third
 * udp4 run differs from the first; with it flushed it does not.
 * Root builds the lab, the captures and the TCP listener and flushes the PMTU
 * cache between tests; the unprivileged child only runs probe_run. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "check.h"
#include "check_lab.h"
#include "check_probe.h"
#include "fragprobe.h"
#include "probe/pcap_truth.h"
#include "probe/truth_lab.h"

#define SIZES 2
static const int sizes[SIZES] = {1400, 3000};
#define MATRIX_TESTS (PROBE_PROTO_COUNT * 7 * SIZES)
#define UDP_PORT_BASE 21000

static char prefix[24];
static struct truth_dump dumps[2];
static struct probe_lab lab;
static pid_t child_pid = -1;
static int to_child = -1, from_child = -1;
static int tcp_port;

static void cleanup(void) {
    char err[256];
    if (to_child >= 0) close(to_child);
    to_child = -1;
    if (child_pid > 0) {
        kill(child_pid, SIGKILL);
        waitpid(child_pid, NULL, 0);
        child_pid = -1;
    }
    for (int i = 0; i < 2; i++) truth_dump_stop(&dumps[i]);
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
    prefix[0] = 0;
}

/* The unprivileged side: enter src, drop root, then run what the parent sends. */
static void child_main(int in, int out) {
    check_lab_enter_unprivileged(lab.ns[PROBE_LAB_SRC]);
    struct probe_spec spec;
    while (check_read_full(in, &spec, sizeof spec) == 0) {
        struct check_lab_reply *rep = check_lab_reply_fresh();
        struct probe_run_opts opts = {.observer = PROBE_OBS_AUTO, .timeout_ms = 300};
        rep->rc = probe_run(&opts, &spec, &rep->r, rep->err, sizeof rep->err);
        struct probe_path_topology topo; /* what the judges know of the lab */
        probe_path_topology_lab(&lab, probe_proto_is_v6(spec.proto), &topo);
        if (rep->rc == 0) probe_recverr_refine(&topo, &rep->r);
        check_lab_reply_send(out, rep);
    }
    _exit(0);
}

static int start_child(void) {
    child_pid = check_lab_fork_child(child_main, &to_child, &from_child);
    return child_pid < 0 ? -1 : 0;
}

/* Runs one test in the child; flushes the PMTU cache first (as root) if asked. */
static int run_unpriv(enum probe_proto p, enum probe_mode m, int size, int port, int flush, struct check_lab_reply *rep) {
    char err[256];
    if (flush && probe_lab_flush_pmtu(&lab, err, sizeof err) < 0) {
        fprintf(stderr, "flush: %s\n", err);
        return -1;
    }
    struct probe_spec s = check_probe_spec(p, m, size, probe_proto_is_tcp(p) ? tcp_port : port);
    s.ttl = lab.auto_ttl;
    snprintf(s.host, sizeof s.host, "%s", probe_lab_dst_addr(&lab, probe_proto_is_v6(p)));
    if (write(to_child, &s, sizeof s) != (ssize_t)sizeof s || check_read_full(from_child, rep, sizeof *rep) < 0) return -1;
    if (rep->rc < 0) fprintf(stderr, "probe_run as uid %d: %s\n", rep->uid, rep->err);
    return rep->rc;
}

/* A TCP listener in dst (the kernel completes the handshakes; the data,
 * sent with a small TTL, never arrives). Both families on one port. */
static int listen_fd = -1;
static int open_listener(void *arg) {
    (void)arg;
    int fd = socket(AF_INET6, SOCK_STREAM, 0), zero = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = in6addr_any};
    socklen_t al = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 64) ||
        getsockname(fd, (struct sockaddr *)&a, &al))
        return -1;
    listen_fd = fd;
    tcp_port = ntohs(a.sin6_port);
    return 0;
}

/* 1 when a labelled answer agrees with the truth or is unknown. */
static int agrees(const struct probe_fact *f, int truth) {
    if (f->basis == PROBE_BASIS_UNKNOWN) return f->answer == PROBE_ANS_UNKNOWN;
    return f->answer == (truth ? PROBE_ANS_YES : PROBE_ANS_NO);
}

static void test_every_answer_matches_the_wire_or_says_unknown(void) {
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/%s-src-r1.pcap", check_tmpdir(), prefix);
    snprintf(p2, sizeof p2, "%s/%s-r1-r2.pcap", check_tmpdir(), prefix);
    REQUIRE(truth_dump_start(&dumps[0], lab.ns[PROBE_LAB_SRC], lab.link[0].a_if, p1) == 0);
    REQUIRE(truth_dump_start(&dumps[1], lab.ns[PROBE_LAB_R1], lab.link[1].a_if, p2) == 0);
    /* Both captures must record before the first test: a packet that
     * reaches dst (TTL 64) crosses both links. */
    REQUIRE(truth_lab_recording(&lab, dumps, 2) == 0);

    static struct check_lab_reply reps[MATRIX_TESTS];
    double t_start[MATRIX_TESTS + 1];
    int n = 0, failed_runs = 0;
    for (int p = 0; p < PROBE_PROTO_COUNT; p++)
        for (int m = 0; m < 7; m++)
            for (int s = 0; s < SIZES; s++, n++) {
                t_start[n] = truth_now();
                if (run_unpriv((enum probe_proto)p, (enum probe_mode)m, sizes[s], UDP_PORT_BASE + n, 1, &reps[n]) < 0)
                    failed_runs++;
            }
    t_start[n] = 1e18;
    truth_dump_stop(&dumps[0]);
    truth_dump_stop(&dumps[1]);
    CHECK_INT(failed_runs, 0);
    static struct truth_cap c1, c2;
    REQUIRE(truth_read(p1, &c1) > 0);
    REQUIRE(truth_read(p2, &c2) >= 0);
    int mismatches = 0, unknown = 0, inferred = 0, observed = 0;
    for (int i = 0; i < n; i++) {
        const struct probe_result *r = &reps[i].r;
        if (reps[i].rc < 0) continue;
        CHECK(reps[i].uid != 0);
        CHECK_INT(reps[i].has_raw, 0);
        CHECK_STR(r->egress.observer, "recverr");
        if (probe_proto_is_icmp(r->spec.proto)) CHECK_STR(r->egress.sock, "ping");
        int v6 = probe_proto_is_v6(r->spec.proto);
        int l4 = truth_l4_of(probe_proto_is_tcp(r->spec.proto), probe_proto_is_icmp(r->spec.proto), v6);
        int src_pkts, host_frags, df, link2, link2_frags, df2;
        truth_flow(&c1, t_start[i], t_start[i + 1], v6, l4, r->spec.port, &src_pkts, &host_frags, &df);
        truth_flow(&c2, t_start[i], t_start[i + 1], v6, l4, r->spec.port, &link2, &link2_frags, &df2);
        int sent = src_pkts > 0, host_frag = host_frags > 0, router_frag = !host_frag && link2_frags > 0;
        int ok = agrees(&r->sent, sent) && agrees(&r->fragmented, host_frag || router_frag);
        if (sent && !v6 && !agrees(&r->df, df)) ok = 0;
        /* This observer cannot see DF on the wire: never "observed" when sent. */
        if (sent && !v6 && r->df.basis == PROBE_BASIS_OBSERVED) ok = 0;
        if (r->fragmented.basis != PROBE_BASIS_UNKNOWN && (host_frag || router_frag)) {
            enum probe_fragmenter want = host_frag ? PROBE_FRAG_HOST : PROBE_FRAG_ROUTER;
            if (r->fragmenter != want) ok = 0;
        }
        const struct probe_fact *facts[3] = {&r->sent, &r->df, &r->fragmented};
        for (int f = 0; f < 3; f++) {
            if (facts[f]->basis == PROBE_BASIS_UNKNOWN) unknown++;
            else if (facts[f]->basis == PROBE_BASIS_INFERRED) inferred++;
            else observed++;
        }
        printf("%s %-5s %-9s %5d | wire: sent %d df %d host-frag %d router-frag %d | recverr: sent %s/%s df %s/%s "
               "frag %s/%s by %s | %s\n",
               ok ? "ok  " : "DIFF", probe_proto_name(r->spec.proto), probe_mode_name(r->spec.mode), r->spec.size,
               sent, df, host_frag, router_frag, probe_answer_name(r->sent.answer), probe_basis_name(r->sent.basis),
               probe_answer_name(r->df.answer), probe_basis_name(r->df.basis), probe_answer_name(r->fragmented.answer),
               probe_basis_name(r->fragmented.basis), probe_fragmenter_name(r->fragmenter), r->evidence);
        if (!ok) mismatches++;
    }
    printf("facts: %d observed, %d inferred, %d unknown\n", observed, inferred, unknown);
    CHECK_INT(mismatches, 0);
    /* The test can fail in both directions: answers must not all hide as unknown. */
    CHECK(observed > 0 && inferred > 0);
}

static void test_reader_challenge_needs_the_kept_cache(void) {
    struct check_lab_reply a, b, c, d, e;
    /* Kept cache: udp4, tcp4, udp4 with no flush in between. */
    REQUIRE(run_unpriv(PROBE_UDP4, PROBE_MODE_DEFAULT, 1400, 31001, 1, &a) == 0);
    REQUIRE(run_unpriv(PROBE_TCP4, PROBE_MODE_DEFAULT, 1400, 0, 0, &b) == 0);
    REQUIRE(run_unpriv(PROBE_UDP4, PROBE_MODE_DEFAULT, 1400, 31003, 0, &c) == 0);
    /* Flushed before each: the third run answers like the first. */
    REQUIRE(run_unpriv(PROBE_TCP4, PROBE_MODE_DEFAULT, 1400, 0, 1, &d) == 0);
    REQUIRE(run_unpriv(PROBE_UDP4, PROBE_MODE_DEFAULT, 1400, 31005, 1, &e) == 0);
    printf("  kept:    udp4 %s (%s) | tcp4 | udp4 %s (%s)\n", probe_answer_name(a.r.fragmented.answer), a.r.evidence,
           probe_answer_name(c.r.fragmented.answer), c.r.evidence);
    printf("  flushed: udp4 %s (%s)\n", probe_answer_name(e.r.fragmented.answer), e.r.evidence);
    CHECK_INT(a.r.fragmented.answer, PROBE_ANS_NO);
    CHECK_INT(a.r.egress.cached_pmtu_before, 0);
    CHECK_INT(c.r.fragmented.answer, PROBE_ANS_YES);
    CHECK_INT(c.r.fragmented.basis, PROBE_BASIS_OBSERVED); /* the host's FragCreates moved */
    CHECK_INT(c.r.fragmenter, PROBE_FRAG_HOST);
    CHECK_INT(c.r.egress.cached_pmtu_before, lab.link[1].mtu);
    CHECK_INT(e.r.fragmented.answer, a.r.fragmented.answer);
    CHECK_INT(e.r.egress.cached_pmtu_before, 0);
}

/* serve's way: drop to a normal user but keep CAP_NET_RAW (raw observer
 * opens sockets per test), CAP_NET_ADMIN (PMTU flush) and CAP_SYS_ADMIN
 * (setns into the lab per test). The raw engine still observes, and the
 * netlink flush still works, as uid != 0. */
static int flush_in_src(void *arg) {
    char *err = arg;
    return probe_pmtu_flush(NULL, err, 256);
}

static int keep_child(void) {
    int keep[] = {CAP_NET_RAW, CAP_NET_ADMIN, CAP_SYS_ADMIN};
    char err[256];
    setenv("SUDO_UID", "4242", 1);
    setenv("SUDO_GID", "4242", 1);
    if (probe_priv_drop_keep(keep, 3, err, sizeof err) != 4242 || getuid() == 0) return 20;
    struct probe_run_opts opts = {.observer = PROBE_OBS_AUTO, .lab = &lab, .timeout_ms = 300};
    struct probe_spec s = {.proto = PROBE_UDP4, .mode = PROBE_MODE_DEFAULT, .size = 1400, .port = 32001};
    struct probe_result r1, r2, r3;
    if (probe_run(&opts, &s, &r1, err, sizeof err) < 0) return 21;
    if (strcmp(r1.egress.observer, "raw") || r1.fragmented.basis != PROBE_BASIS_OBSERVED || r1.icmp.mtu != lab.link[1].mtu)
        return 22;
    s.port++;
    if (probe_run(&opts, &s, &r2, err, sizeof err) < 0 || r2.egress.cached_pmtu_before != lab.link[1].mtu) return 23;
    char ferr[256] = "";
    if (probe_netns_run(lab.ns[PROBE_LAB_SRC], flush_in_src, ferr, err, sizeof err) < 0) {
        fprintf(stderr, "flush as uid %d: %s %s\n", (int)getuid(), err, ferr);
        return 24;
    }
    s.port++;
    if (probe_run(&opts, &s, &r3, err, sizeof err) < 0 || r3.egress.cached_pmtu_before != 0) return 25;
    return 0;
}

static void test_drop_keeping_capabilities_still_runs_the_raw_engine(void) {
    char err[256];
    REQUIRE(probe_lab_flush_pmtu(&lab, err, sizeof err) == 0);
    pid_t pid = fork();
    if (pid == 0) _exit(keep_child());
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st), 0);
}

/* Builds the lab (r1 reassembling or not), the dst listener and the
 * unprivileged child. 0 or -1 with the reason on stderr. */
static int setup(int reassemble) {
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "fvu%d%c", (int)getpid() % 100000, reassemble ? 'r' : 'n');
    cfg.reassemble = reassemble;
    snprintf(prefix, sizeof prefix, "%s", cfg.prefix);
    char err[1024];
    if (probe_lab_up(&cfg, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab up: %s\n", err);
        return -1;
    }
    if (listen_fd >= 0) close(listen_fd);
    listen_fd = -1;
    if (probe_netns_run(probe_lab_dst_ns(&lab), open_listener, NULL, err, sizeof err) < 0 || listen_fd < 0) {
        fprintf(stderr, "cannot open the TCP listener in dst\n");
        return -1;
    }
    if (start_child() < 0) {
        fprintf(stderr, "cannot start the unprivileged child: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

static void teardown(void) {
    if (from_child >= 0) close(from_child);
    from_child = -1;
    cleanup();
}

static void test_with_reassembling_r1_too(void) {
    REQUIRE(setup(1) == 0);
    test_every_answer_matches_the_wire_or_says_unknown();
    teardown();
}

int main(void) {
    check_root_begin("needs root to build the lab and the captures (the probes run unprivileged)", "tcpdump ip nft",
                     cleanup);
    if (setup(0) < 0) return 1;
    RUN(test_every_answer_matches_the_wire_or_says_unknown);
    RUN(test_reader_challenge_needs_the_kept_cache);
    RUN(test_drop_keeping_capabilities_still_runs_the_raw_engine);
    teardown();
    RUN(test_with_reassembling_r1_too);
    return check_summary();
}
