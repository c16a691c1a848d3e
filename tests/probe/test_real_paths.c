/* Issue 34's "Done when": the engine on paths that behave like real ones,
 * judged against tcpdump captures on every link with the project's own pcap
 * reader (pcap_truth.h), never by the engine.
 *
 * Behaviours (each a lab of its own, `fragvote lab up` options):
 *   kind        the default lab (1500,1280,1500), ICMP rate limits off
 *   ratelimit   --ratelimit r1 --ratelimit r2 (Linux's default ICMP limits)
 *   dropfrag    --dropfrag r2 (a firewall that drops every fragment)
 *   blackhole   --mtu 1500,1500,1280 --blackhole r1 (r2's Frag Needed and
 *               Packet Too Big are swallowed by r1: a PMTUD black hole)
 *   silent      --silent r2 (no Time Exceeded from the router the lab's TTL
 *               expires at)
 *   nat         --nat r1 (masquerade with conntrack: r1 reassembles IPv4)
 *   cleardf     --cleardf r1 (r1 clears DF on whole IPv4 packets, then cuts
 *               them onto its 1280-byte link: a box that breaks the rules)
 * Runs: as root (raw observer) and unprivileged (uid 65534, recverr), with
 * the lab's topology known to the engine ("lab") or as a path it has never
 * seen ("real": only a target address; root then discovers the TTL), with
 * and without the far-end witness in dst (UDP and TCP tests: the witness
 * does not answer ICMP echo).
 * Tests: 6 protocols x the 6 PMTUD modes (WANT stands for the unset
 * default, which is WANT on Linux) x sizes around each link MTU (1280, 1281,
 * 1500, 1501). The behaviours play at once, each on its own lab in a process
 * of its own (most of the time is spent waiting for answers that never
 * come); inside one, the tests run one after another, each judged on the
 * capture between its start and the next one's. A case is right when every answer it gives equals the
 * wire, wrong when one differs, unknown when it answers "unknown"; "no
 * answer" when probe_run could not give a result. The test fails on any
 * wrong answer or any case without an answer, and where a witness run is
 * under 95 % right. It prints the table docs/PROBE.md ("Real paths") keeps.
 * Every run's path also gets issue 36 item 2's check: each partial picture
 * (a reveal while siblings are open) is the same for every counterfactual
 * answer of the open questions (check_path_view.h).
 * FRAGVOTE_REAL_PATHS=NAME plays one behaviour only.
 * Needs root (namespaces, raw sockets, tcpdump, nft). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>

#include "check.h"
#include "check_lab.h"
#include "check_path_view.h"
#include "fragprobe.h"
#include "pcap_truth.h"
#include "truth_lab.h"

#define SIZES 4
static const int sizes[SIZES] = {1280, 1281, 1500, 1501};
#define MODES 7
#define RUNS 8
#define TESTS_MAX (RUNS * PROBE_PROTO_COUNT * MODES * SIZES)
#define UDP_PORT_BASE 22000
#define TIMEOUT_MS 300
#define LINKS PROBE_LAB_LINKS_MAX

struct behaviour {
    const char *name, *says;
    char tag;
};
static const struct behaviour behaviours[] = {
    {"kind", "lab defaults, ICMP rate limits off", 'k'},
    {"ratelimit", "--ratelimit r1 --ratelimit r2", 'r'},
    {"dropfrag", "--dropfrag r2", 'd'},
    {"blackhole", "--mtu 1500,1500,1280 --blackhole r1", 'b'},
    {"silent", "--silent r2", 's'},
    {"nat", "--nat r1", 'n'},
    {"cleardf", "--cleardf r1", 'c'},
};
#define BEHAVIOURS (int)(sizeof behaviours / sizeof behaviours[0])

struct run {
    const char *name;
    int real, witness, unpriv;
};
static const struct run runs[RUNS] = {
    {"root, lab", 0, 0, 0},         {"root, lab, witness", 0, 1, 0},
    {"root, real", 1, 0, 0},        {"root, real, witness", 1, 1, 0},
    {"unpriv, lab", 0, 0, 1},       {"unpriv, lab, witness", 0, 1, 1},
    {"unpriv, real", 1, 0, 1},      {"unpriv, real, witness", 1, 1, 1},
};

/* V_RULE: "fragmented?" decided by the stated rule "with DF=1 no router may
 * fragment it" (basis inferred or rule, the room reads which) on a path the
 * engine was not told has a router that clears DF (the cleardf lab's
 * "real" runs): the rule, not the engine, is what that router breaks.
 * Anywhere else such an answer counts as WRONG. */
enum verdict { V_RIGHT, V_UNKNOWN, V_RULE, V_WRONG, V_NONE, V_KINDS };
static const char *verdict_name[V_KINDS] = {"right", "unknown", "rule broken", "WRONG", "NO ANSWER"};

/* One test: what was asked, when, and what came back (shared with the
 * unprivileged child). */
struct item {
    struct probe_spec spec;
    int run, rc;
    double t0;
    struct probe_result r;
};
static struct item *items; /* TESTS_MAX, MAP_SHARED */
static int nitems;

static char prefix[24];
static struct truth_dump dumps[LINKS];
static char paths[LINKS][512];
static int ndumps;
static struct probe_lab_witness wit;
static int listener = -1;
/* What each behaviour's process found (MAP_SHARED: the behaviours play at
 * once, each on its own lab, in a process of its own). */
enum agreement { A_AGREE, A_UNSAID, A_BROKEN, A_DIFFER, A_KINDS };
struct tally {
    int table[BEHAVIOURS][RUNS][V_KINDS];
    int agree[BEHAVIOURS][A_KINDS]; /* the rules' prediction against the wire, per fact (lab runs) */
    int surprises[BEHAVIOURS];       /* A_BROKEN facts whose reveal leads with the surprise headline */
    int no_surprise[BEHAVIOURS];     /* A_BROKEN facts the engine answered without one (must stay 0) */
    double run_ms[BEHAVIOURS][RUNS]; /* wall time of each run's tests */
    double wall[BEHAVIOURS];
    int played[BEHAVIOURS];
    int views[BEHAVIOURS], views_bad[BEHAVIOURS]; /* partial path views checked against counterfactuals (issue 36 item 2) */
};
static struct tally *tally;
static pid_t players[BEHAVIOURS];

static void cleanup(void) {
    if (listener >= 0) close(listener);
    listener = -1;
    truth_lab_teardown(&wit, dumps, ndumps, prefix);
    for (int b = 0; b < BEHAVIOURS; b++)
        if (players[b] > 0) {
            kill(players[b], SIGTERM);
            waitpid(players[b], NULL, 0);
            players[b] = 0;
        }
}

static int behaviour_config(int b, struct probe_lab_config *cfg, char *err, size_t len) {
    probe_lab_config_default(cfg);
    snprintf(cfg->prefix, sizeof cfg->prefix, "fvp%d%c", (int)getpid() % 100000, behaviours[b].tag);
    switch (behaviours[b].tag) {
    case 'r':
        return probe_lab_config_add(cfg, PROBE_LAB_RATELIMIT, "r1", err, len) < 0 ? -1
               : probe_lab_config_add(cfg, PROBE_LAB_RATELIMIT, "r2", err, len);
    case 'd': return probe_lab_config_add(cfg, PROBE_LAB_DROPFRAG, "r2", err, len);
    case 'b':
        return probe_lab_parse_mtus("1500,1500,1280", cfg, err, len) < 0 ? -1
               : probe_lab_config_add(cfg, PROBE_LAB_BLACKHOLE, "r1", err, len);
    case 's': return probe_lab_config_add(cfg, PROBE_LAB_SILENT, "r2", err, len);
    case 'n': return probe_lab_config_add(cfg, PROBE_LAB_NAT, "r1", err, len);
    case 'c': return probe_lab_config_add(cfg, PROBE_LAB_CLEARDF, "r1", err, len);
    }
    return 0;
}

/* A TCP listener in dst for the tests that give a port (every TCP test but
 * the root lab runs, where the engine opens its own): IPv6 and IPv4. The
 * kernel completes the handshakes and takes the data; nobody accepts. */
static int listener_open(void *arg) {
    int *port = arg;
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), no = 0;
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
    socklen_t al = sizeof a;
    if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no) < 0 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4096) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) < 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    *port = ntohs(a.sin6_port);
    return fd;
}

static void plan(const struct probe_lab *lab, int tcp_port) {
    nitems = 0;
    for (int run = 0; run < RUNS; run++)
        for (int p = 0; p < PROBE_PROTO_COUNT; p++)
            for (int m = 1; m < MODES; m++) /* not PROBE_MODE_DEFAULT: Linux's default is WANT */
                for (int s = 0; s < SIZES; s++) {
                    enum probe_proto proto = (enum probe_proto)p;
                    if (runs[run].witness && probe_proto_is_icmp(proto)) continue;
                    struct item *it = &items[nitems];
                    memset(it, 0, sizeof *it);
                    it->run = run;
                    it->spec.proto = proto;
                    it->spec.mode = (enum probe_mode)m;
                    it->spec.size = sizes[s];
                    it->spec.ttl = PROBE_TTL_AUTO;
                    it->spec.port = probe_proto_is_icmp(proto) ? 0
                                    : probe_proto_is_tcp(proto) ? (runs[run].real || runs[run].unpriv ? tcp_port : 0)
                                                                 : UDP_PORT_BASE + nitems;
                    if (runs[run].real)
                        snprintf(it->spec.host, sizeof it->spec.host, "%s",
                                 probe_lab_dst_addr(lab, probe_proto_is_v6(proto)));
                    nitems++;
                }
}

struct one {
    const struct probe_run_opts *opts;
    struct item *it;
    char err[512];
};
static int one_run(void *arg) {
    struct one *o = arg;
    return probe_run(o->opts, &o->it->spec, &o->it->r, o->err, sizeof o->err);
}

/* Runs item i: as root from the lab's src (the engine enters it itself when
 * it knows the lab; a "real" run enters it here and tells the engine
 * nothing), or already inside src as the unprivileged child. */
static void run_item(const struct probe_lab *lab, int i, int inside) {
    struct item *it = &items[i];
    const struct run *rn = &runs[it->run];
    /* a real path's witness is an address the speaker gives (the lab's
     * witness target says "" for "the lab's dst") */
    struct probe_witness_target wt = wit.target;
    if (rn->real) snprintf(wt.host, sizeof wt.host, "%s", probe_lab_dst_addr(lab, probe_proto_is_v6(it->spec.proto)));
    struct probe_run_opts opts = {.observer = rn->unpriv ? PROBE_OBS_AUTO : PROBE_OBS_RAW, .timeout_ms = TIMEOUT_MS,
                                  .witness = rn->witness ? &wt : NULL};
    if (!rn->real && inside) opts.topology = lab;
    if (!rn->real && !inside) opts.lab = lab;
    struct one o = {.opts = &opts, .it = it};
    it->t0 = truth_now();
    if (inside || !rn->real) it->rc = one_run(&o);
    else it->rc = probe_netns_run(lab->ns[PROBE_LAB_SRC], one_run, &o, o.err, sizeof o.err);
    if (it->rc < 0) fprintf(stderr, "  %s, test %d: %s\n", rn->name, i, o.err);
}

/* The unprivileged runs in a child that enters src and drops root for good
 * (it cannot flush the PMTU cache: what earlier tests taught the kernel
 * stays, as on a speaker's laptop). */
static int run_unprivileged(const struct probe_lab *lab) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        check_lab_enter_unprivileged(lab->ns[PROBE_LAB_SRC]);
        for (int i = 0; i < nitems; i++)
            if (runs[items[i].run].unpriv) run_item(lab, i, 1);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "the unprivileged child failed (status %d)\n", st);
        return -1;
    }
    return 0;
}

/* The case against the wire: V_RIGHT, V_UNKNOWN or V_WRONG (why says which
 * answer differs). */
/* What the wire showed of one test. */
struct wire {
    int sent, df, frag;
    enum probe_fragmenter by;
};

static enum verdict judge(const struct item *it, int clears_unknown, double t1, int nl, const struct truth_cap *cap,
                          struct wire *w, char *why, size_t len) {
    const struct probe_result *r = &it->r;
    if (it->rc < 0) return V_NONE;
    int v6 = probe_proto_is_v6(r->spec.proto);
    int l4 = truth_l4_of(probe_proto_is_tcp(r->spec.proto), probe_proto_is_icmp(r->spec.proto), v6);
    int pk[LINKS] = {0}, fr[LINKS] = {0}, df[LINKS] = {0}, later = 0;
    for (int k = 0; k < nl; k++) truth_flow(&cap[k], it->t0, t1, v6, l4, r->spec.port, &pk[k], &fr[k], &df[k]);
    for (int k = 1; k < nl; k++) later += fr[k];
    int sent = pk[0] > 0, host = fr[0] > 0, router = !host && later > 0;
    enum probe_fragmenter by = host ? PROBE_FRAG_HOST : router ? PROBE_FRAG_ROUTER : PROBE_FRAG_NONE;
    snprintf(why, len, "wire: sent %d df %d frag %s (pkts/frags per link", sent, df[0],
             probe_fragmenter_name(by));
    for (int k = 0; k < nl; k++) {
        size_t n = strlen(why);
        snprintf(why + n, len - n, " %d/%d", pk[k], fr[k]);
    }
    size_t n = strlen(why);
    snprintf(why + n, len - n, ")");
    *w = (struct wire){sent, df[0], host || router, by};
    int wrong = 0, by_rule = 0;
    if (r->sent.answer != PROBE_ANS_UNKNOWN && r->sent.answer != (sent ? PROBE_ANS_YES : PROBE_ANS_NO)) wrong = 1;
    if (sent && !v6 && r->df.answer != PROBE_ANS_UNKNOWN && r->df.answer != (df[0] ? PROBE_ANS_YES : PROBE_ANS_NO))
        wrong = 1;
    if (!sent && r->df.basis == PROBE_BASIS_OBSERVED) wrong = 1;
    if (r->fragmented.answer != PROBE_ANS_UNKNOWN &&
        r->fragmented.answer != (host || router ? PROBE_ANS_YES : PROBE_ANS_NO)) {
        if (clears_unknown && !v6 && df[0] && router && r->fragmented.answer == PROBE_ANS_NO &&
            (r->fragmented.basis == PROBE_BASIS_INFERRED || r->fragmented.basis == PROBE_BASIS_RULE))
            by_rule = 1;
        else wrong = 1;
    }
    if (r->fragmented.answer == PROBE_ANS_YES && (r->fragmenter == PROBE_FRAG_HOST || r->fragmenter == PROBE_FRAG_ROUTER) &&
        r->fragmenter != by)
        wrong = 1;
    if (wrong) return V_WRONG;
    if (by_rule) return V_RULE;
    if (r->sent.answer == PROBE_ANS_UNKNOWN || r->fragmented.answer == PROBE_ANS_UNKNOWN ||
        (sent && !v6 && r->df.answer == PROBE_ANS_UNKNOWN))
        return V_UNKNOWN;
    return V_RIGHT;
}

static int lab_start(int b, struct probe_lab *lab, int *tcp_port) {
    char err[1024];
    struct probe_lab_config cfg;
    if (behaviour_config(b, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "config: %s\n", err);
        return -1;
    }
    if (check_lab_up_cfg(&cfg, lab, prefix, sizeof prefix) < 0 || check_lab_witness_start(lab, &wit) < 0) return -1;
    if ((listener = probe_netns_run(probe_lab_dst_ns(lab), listener_open, tcp_port, err, sizeof err)) < 0) {
        fprintf(stderr, "listener: %s\n", err);
        return -1;
    }
    ndumps = lab->nlinks;
    return truth_lab_capture_links(lab, prefix, dumps, paths);
}

/* Issue 37's consistency check: on the lab (its links known), what the
 * rules predicted (probe_predict, from what was known before the send)
 * against what the wire showed, per fact. A difference nobody explains
 * means the rules or the engine is wrong. */
static void predicted(int b, const struct item *it, const struct wire *w) {
    const struct probe_result *r = &it->r;
    struct probe_path_topology topo;
    struct probe_predict_in in;
    struct probe_prediction p;
    probe_predict_in_of(r, &topo, &in);
    probe_predict(&in, &p);
    int v6 = probe_proto_is_v6(r->spec.proto);
    const struct {
        const char *name;
        enum probe_answer want;
        int wire, asked;
    } f[3] = {{"sent", p.sent.answer, w->sent, 1},
              {"df", p.df.answer, w->df, w->sent && !v6},
              {"fragmented", p.fragmented.answer, w->frag, 1}};
    for (int k = 0; k < 3; k++) {
        if (!f[k].asked) continue;
        enum agreement a = f[k].want == PROBE_ANS_UNKNOWN ? A_UNSAID
                           : (f[k].want == PROBE_ANS_YES) == (f[k].wire != 0) ? A_AGREE : A_DIFFER;
        if (a == A_AGREE && k == 2 && w->frag && p.fragmenter != w->by) a = A_DIFFER;
        /* Explained: the rules said "with DF=1 no router may fragment it",
         * and a router of this path is known to clear DF (lab --cleardf). */
        int clears = in.topo ? probe_path_topology_clears_df(in.topo) : 0;
        if (a == A_DIFFER && k == 2 && clears && !v6 && p.df.answer == PROBE_ANS_YES && w->frag &&
            w->by == PROBE_FRAG_ROUTER) {
            a = A_BROKEN;
            char h[sizeof r->fragmented.why + 64];
            if (probe_predict_surprise(&p, PROBE_PREDICT_FRAGMENTED, &r->fragmented, h, sizeof h)) tally->surprises[b]++;
            else if (r->fragmented.answer != PROBE_ANS_UNKNOWN) {
                tally->no_surprise[b]++;
                printf("  NO SURPRISE %s %s %s %d: the rules and the wire differ, the engine said %s\n",
                       behaviours[b].name, probe_proto_name(r->spec.proto), probe_mode_name(r->spec.mode), r->spec.size,
                       probe_answer_name(r->fragmented.answer));
            }
        }
        tally->agree[b][a]++;
        if (a == A_AGREE) continue;
        char chain[PROBE_PREDICT_TEXT_MAX];
        probe_predict_text(&p, (enum probe_predict_fact)k, ~0u, chain, sizeof chain);
        if (a == A_BROKEN) continue; /* counted in the table, one line per behaviour */
        printf("  rules %-6s %-9s %-13s %-4s %-9s %4d ttl %d dev %d cache %d: %s said %s%s%s, the wire %d%s%s | %s\n",
               a == A_UNSAID ? "unsaid" : "DIFFER", behaviours[b].name, runs[it->run].name, probe_proto_name(r->spec.proto),
               probe_mode_name(r->spec.mode), r->spec.size, r->spec.ttl, in.dev_mtu, in.cached_pmtu, f[k].name,
               probe_answer_name(f[k].want), k == 2 ? " by " : "", k == 2 ? probe_fragmenter_name(p.fragmenter) : "",
               f[k].wire, k == 2 ? " by " : "", k == 2 ? probe_fragmenter_name(w->by) : "", chain);
    }
}

/* Plays every run on behaviour b's lab and fills its table row; -1 when the
 * lab or the captures could not be made. */
static int play_behaviour(int b) {
    struct probe_lab lab;
    int tcp_port = 0;
    if (lab_start(b, &lab, &tcp_port) < 0) return -1;
    plan(&lab, tcp_port);
    double t_all = truth_now();
    char err[256];
    for (int i = 0; i < nitems; i++) {
        if (runs[items[i].run].unpriv) continue;
        if (probe_lab_flush_pmtu(&lab, err, sizeof err) < 0) fprintf(stderr, "flush: %s\n", err);
        run_item(&lab, i, 0);
    }
    if (run_unprivileged(&lab) < 0) return -1;
    double wall = truth_now() - t_all;
    for (int i = 0; i < ndumps; i++) truth_dump_stop(&dumps[i]);
    static struct truth_cap cap[LINKS];
    for (int i = 0; i < ndumps; i++)
        if (truth_read(paths[i], &cap[i]) < 0) {
            fprintf(stderr, "cannot read %s\n", paths[i]);
            return -1;
        }
    printf("%s (%s): %d tests in %.1f s\n", behaviours[b].name, behaviours[b].says, nitems, wall);
    tally->wall[b] = wall;
    for (int i = 0; i < nitems; i++) {
        /* the next test in time ends this one's window (root runs first, then the child's) */
        double t1 = 1e18;
        for (int j = 0; j < nitems; j++)
            if (items[j].t0 > items[i].t0 && items[j].t0 < t1) t1 = items[j].t0;
        char why[256];
        struct wire w;
        int clears_unknown = behaviours[b].tag == 'c' && runs[items[i].run].real;
        enum verdict v = judge(&items[i], clears_unknown, t1, ndumps, cap, &w, why, sizeof why);
        tally->table[b][items[i].run][v]++;
        if (v != V_NONE && !runs[items[i].run].real) predicted(b, &items[i], &w);
        if (items[i].r.path.v) { /* every partial picture of this run's path: the same whatever the open answers */
            unsigned asked = 1u << QKIND_SENT | 1u << QKIND_FRAGMENTED;
            if (!probe_proto_is_v6(items[i].spec.proto)) asked |= 1u << QKIND_DF;
            int bad = check_path_views_all(&items[i].r.path, asked, &tally->views[b]);
            tally->views_bad[b] += bad;
            if (bad) printf("  VIEW %s %s %s %s %d: %d partial views depend on an open answer\n", behaviours[b].name,
                            runs[items[i].run].name, probe_proto_name(items[i].spec.proto),
                            probe_mode_name(items[i].spec.mode), items[i].spec.size, bad);
        }
        tally->run_ms[b][items[i].run] += (t1 < 1e17 ? t1 : truth_now()) * 1000 - items[i].t0 * 1000;
        if (v == V_RIGHT) continue;
        const struct probe_result *r = &items[i].r;
        printf("  %-9s %-9s %-22s %-4s %-9s %4d | %s | engine: sent %s df %s frag %s by %s | %s\n", verdict_name[v],
               behaviours[b].name, runs[items[i].run].name, probe_proto_name(items[i].spec.proto), probe_mode_name(items[i].spec.mode),
               items[i].spec.size, why, probe_answer_name(r->sent.answer), probe_answer_name(r->df.answer),
               probe_answer_name(r->fragmented.answer), probe_fragmenter_name(r->fragmenter),
               v == V_UNKNOWN ? r->fragmented.answer == PROBE_ANS_UNKNOWN ? r->fragmented.why : r->evidence
                              : r->evidence);
    }
    cleanup();
    return 0;
}

/* Behaviour b in a process of its own: 0 when its lab was played. */
static int play_alone(int b) {
    memset(players, 0, sizeof players); /* the siblings are the parent's */
    items = mmap(NULL, sizeof *items * TESTS_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (items == MAP_FAILED) return -1;
    int rc = play_behaviour(b);
    cleanup();
    tally->played[b] = rc == 0;
    return rc;
}

static void test_real_paths(void) {
    tally = mmap(NULL, sizeof *tally, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(tally != MAP_FAILED);
    memset(tally, 0, sizeof *tally);
    /* FRAGVOTE_REAL_PATHS=ratelimit plays one behaviour (while working on it) */
    const char *only = getenv("FRAGVOTE_REAL_PATHS");
    double t0 = truth_now();
    for (int b = 0; b < BEHAVIOURS; b++) {
        if (only && *only && strcmp(only, behaviours[b].name)) continue;
        fflush(stdout);
        if ((players[b] = fork()) == 0) _exit(play_alone(b) == 0 ? 0 : 1);
        CHECK(players[b] > 0);
    }
    for (int b = 0; b < BEHAVIOURS; b++) {
        int st = 0;
        if (players[b] <= 0) continue;
        CHECK(waitpid(players[b], &st, 0) == players[b] && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        players[b] = 0;
    }
    printf("\nall behaviours at once: %.1f s\n", truth_now() - t0);
    printf("\n| behaviour | run | right | unknown | rule broken | wrong | no answer | ms per test |\n"
           "|---|---|---|---|---|---|---|---|\n");
    int wrong = 0, none = 0, per_run[RUNS][V_KINDS] = {{0}};
    for (int b = 0; b < BEHAVIOURS; b++)
        for (int run = 0; run < RUNS && tally->played[b]; run++) {
            int *t = tally->table[b][run], total = t[V_RIGHT] + t[V_UNKNOWN] + t[V_RULE] + t[V_WRONG] + t[V_NONE];
            printf("| %s | %s | %d | %d | %d | %d | %d | %.0f |\n", behaviours[b].name, runs[run].name, t[V_RIGHT],
                   t[V_UNKNOWN], t[V_RULE], t[V_WRONG], t[V_NONE], total ? tally->run_ms[b][run] / total : 0);
            for (int v = 0; v < V_KINDS; v++) per_run[run][v] += t[v];
            wrong += t[V_WRONG];
            none += t[V_NONE];
        }
    printf("\n| every behaviour | right | unknown | rule broken | wrong | no answer | right %% |\n"
           "|---|---|---|---|---|---|---|\n");
    for (int run = 0; run < RUNS; run++) {
        int *t = per_run[run], total = t[V_RIGHT] + t[V_UNKNOWN] + t[V_RULE] + t[V_WRONG] + t[V_NONE];
        printf("| %s | %d | %d | %d | %d | %d | %.1f |\n", runs[run].name, t[V_RIGHT], t[V_UNKNOWN], t[V_RULE],
               t[V_WRONG], t[V_NONE], total ? 100.0 * t[V_RIGHT] / total : 0);
        /* with the witness at least 95 % right (the rows: a run over every behaviour) */
        if (runs[run].witness && total && t[V_RIGHT] * 100 < 95 * total) {
            check_cur_failed_ = 1;
            fprintf(stderr, "%s: %d of %d right with the witness (< 95 %%)\n", runs[run].name, t[V_RIGHT], total);
        }
    }
    CHECK_INT(wrong, 0);
    CHECK_INT(none, 0);
    printf("\n| behaviour | facts | the rules agree | the rules cannot say | differ: a router breaks the rule (surprise "
           "shown) | differ, unexplained |\n|---|---|---|---|---|---|\n");
    int differ = 0, no_surprise = 0;
    for (int b = 0; b < BEHAVIOURS; b++) {
        int *a = tally->agree[b];
        if (!tally->played[b]) continue;
        printf("| %s | %d | %d | %d | %d (%d) | %d |\n", behaviours[b].name,
               a[A_AGREE] + a[A_UNSAID] + a[A_BROKEN] + a[A_DIFFER], a[A_AGREE], a[A_UNSAID], a[A_BROKEN],
               tally->surprises[b], a[A_DIFFER]);
        differ += a[A_DIFFER];
        no_surprise += tally->no_surprise[b];
    }
    CHECK_INT(differ, 0);
    CHECK_INT(no_surprise, 0);
    /* the rule-breaking router is there: its differences are seen, and shown as surprises */
    for (int b = 0; b < BEHAVIOURS; b++)
        if (tally->played[b] && behaviours[b].tag == 'c') CHECK(tally->agree[b][A_BROKEN] > 0 && tally->surprises[b] > 0);
    int views = 0, views_bad = 0;
    for (int b = 0; b < BEHAVIOURS; b++) views += tally->views[b], views_bad += tally->views_bad[b];
    printf("\npartial path views checked against every counterfactual of their open facts: %d, %d depend on one\n",
           views, views_bad);
    CHECK(views > 0);
    CHECK_INT(views_bad, 0);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* the behaviours' processes print whole lines */
    check_root_begin("needs root: network namespaces, raw sockets, tcpdump, nft", "tcpdump ip nft", cleanup);
    RUN(test_real_paths);
    return check_summary();
}
