/* The lab as other components use it from C: plan, up with options, status
 * read back from the system, two labs side by side, down, cleanup after a
 * failure half-way, and TTL discovery on it (with and without a reassembling
 * first hop, and on an ICMP-silent path). Needs root. */
#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"
#include "fragprobe.h"
#include "lab_internal.h"

static char prefixes[3][PROBE_LAB_PREFIX_MAX + 1];

static void cleanup(void) {
    char err[256];
    for (int i = 0; i < 3; i++)
        if (prefixes[i][0]) probe_lab_down(prefixes[i], err, sizeof err);
}

static int ns_count(const char *prefix) {
    int n = 0;
    const char *nodes[] = {"src", "r1", "r2", "dst"};
    for (int i = 0; i < 4; i++) {
        char p[128];
        struct stat st;
        snprintf(p, sizeof p, "/run/netns/%s-%s", prefix, nodes[i]);
        n += stat(p, &st) == 0;
    }
    return n;
}

static void test_plan_uses_documentation_prefixes_only(void) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    char err[256];
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "plan");
    REQUIRE(probe_lab_plan(&cfg, &lab, err, sizeof err) == 0);
    CHECK_STR(lab.ns[PROBE_LAB_SRC], "plan-src");
    CHECK_STR(probe_lab_dst_ns(&lab), "plan-dst");
    CHECK_INT(lab.link[0].mtu, 1500);
    CHECK_INT(lab.link[1].mtu, 1280);
    CHECK_INT(lab.link[2].mtu, 1500);
    CHECK_STR(lab.link[0].net4, "192.0.2.0/24");
    CHECK_STR(lab.link[1].net4, "198.51.100.0/24");
    CHECK_STR(lab.link[2].net4, "203.0.113.0/24");
    for (int i = 0; i < lab.nlinks; i++) CHECK(!strncmp(lab.link[i].a6, "2001:db8:", 9));
    CHECK_STR(probe_lab_dst_addr(&lab, 0), "203.0.113.2");
    CHECK_STR(probe_lab_dst_addr(&lab, 1), "2001:db8:3::2");
    CHECK_INT(probe_lab_node_of(&lab, "198.51.100.2"), PROBE_LAB_R2);
    CHECK_INT(probe_lab_node_of(&lab, "8.8.8.8"), -1);
    snprintf(cfg.prefix, sizeof cfg.prefix, "../x");
    CHECK(probe_lab_plan(&cfg, &lab, err, sizeof err) < 0);
    CHECK(probe_lab_parse_mtus("1500,1400,1300", &cfg, err, sizeof err) == 0);
    CHECK_INT(cfg.mtu[2], 1300);
    CHECK(probe_lab_parse_mtus("1500,1000,1500", &cfg, err, sizeof err) < 0);
    CHECK(probe_lab_parse_mtus("1500,1400", &cfg, err, sizeof err) < 0);
    CHECK(probe_lab_parse_mtus("1500,1400,1300,9000", &cfg, err, sizeof err) < 0);
}

static void test_plan_of_longer_labs_and_behaviours(void) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    char err[256];
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "plan");
    cfg.routers = 3;
    CHECK(probe_lab_parse_mtus("1500,1400,1280", &cfg, err, sizeof err) < 0); /* 3 routers: 4 links */
    CHECK_CONTAINS(err, "3 routers need 4");
    REQUIRE(probe_lab_parse_mtus("1500,1400,1280,1500", &cfg, err, sizeof err) == 0);
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_DROPFRAG, "r3", err, sizeof err) == 0);
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_SILENT, "r3", err, sizeof err) == 0);
    CHECK(probe_lab_config_add(&cfg, PROBE_LAB_NAT, "r9", err, sizeof err) < 0);
    CHECK(probe_lab_config_add(&cfg, PROBE_LAB_NAT, "dst", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "--nat wants a router");
    REQUIRE(probe_lab_plan(&cfg, &lab, err, sizeof err) == 0);
    CHECK_INT(lab.nnodes, 5);
    CHECK_STR(lab.ns[3], "plan-r3");
    CHECK_STR(probe_lab_dst_ns(&lab), "plan-dst");
    CHECK_STR(lab.link[1].net4, "198.51.100.0/28");
    CHECK_STR(lab.link[2].net4, "198.51.100.16/28");
    CHECK_STR(lab.link[2].b4, "198.51.100.18");
    CHECK_STR(lab.link[2].net6, "2001:db8:2:1::/64");
    CHECK_STR(lab.link[1].a6, "2001:db8:2::1");
    CHECK_STR(probe_lab_dst_addr(&lab, 0), "203.0.113.2");
    CHECK_STR(probe_lab_dst_addr(&lab, 1), "2001:db8:3::2");
    CHECK_INT(probe_lab_node_of(&lab, "198.51.100.18"), 3);
    char text[512];
    probe_lab_behaviours_text(&lab, 1, text, sizeof text);
    CHECK_STR(text, "r3 drops every fragment that reaches it and sends no Time Exceeded");
    unsigned bit;
    CHECK(probe_lab_behaviour_parse("blackhole", &bit) == 0 && bit == PROBE_LAB_BLACKHOLE);
    CHECK(probe_lab_behaviour_parse("firewall", &bit) < 0);
    cfg.routers = 2; /* r3 is gone, its behaviour is not */
    memset(cfg.mtu, 0, sizeof cfg.mtu);
    CHECK(probe_lab_plan(&cfg, &lab, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "--dropfrag r3: the lab has routers r1..r2");
    cfg.routers = PROBE_LAB_ROUTERS_MAX + 1;
    CHECK(probe_lab_plan(&cfg, &lab, err, sizeof err) < 0);
}

/* `lab set`: the same routers and MTUs change only the rules (and say so);
 * another router count rebuilds. Each time printed (docs/LAB.md). */
static void test_reconfigure_changes_only_what_differs(void) {
    char err[1024];
    struct probe_lab_config cfg;
    struct probe_lab lab, st;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefixes[1]);
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_DROPFRAG, "r2", err, sizeof err) == 0);
    REQUIRE(probe_lab_up(&cfg, &lab, err, sizeof err) == 0);
    CHECK_INT(probe_lab_status(cfg.prefix, &st, err, sizeof err), 1);
    CHECK_INT(st.cfg.behave[2], PROBE_LAB_DROPFRAG);
    CHECK_INT(st.cfg.behave[1], 0);
    struct probe_lab_config want;
    probe_lab_config_default(&want);
    REQUIRE(probe_lab_config_add(&want, PROBE_LAB_BLACKHOLE, "r1", err, sizeof err) == 0);
    REQUIRE(probe_lab_config_add(&want, PROBE_LAB_RATELIMIT, "r2", err, sizeof err) == 0);
    REQUIRE(probe_lab_config_add(&want, PROBE_LAB_NAT, "r2", err, sizeof err) == 0);
    want.reassemble = 1;
    int rebuilt = -1;
    double t0 = check_mono_s();
    REQUIRE(probe_lab_reconfigure(&lab, &want, &rebuilt, err, sizeof err) == 0);
    double rules_ms = (check_mono_s() - t0) * 1e3;
    CHECK_INT(rebuilt, 0);
    CHECK_STR(lab.cfg.prefix, prefixes[1]);
    CHECK_INT(lab.cfg.behave[1], PROBE_LAB_BLACKHOLE);
    CHECK_INT(probe_lab_status(cfg.prefix, &st, err, sizeof err), 1);
    CHECK_INT(st.cfg.behave[1], PROBE_LAB_BLACKHOLE);
    CHECK_INT(st.cfg.behave[2], PROBE_LAB_RATELIMIT | PROBE_LAB_NAT);
    CHECK_INT(st.cfg.reassemble, 1);
    want.routers = 3;
    t0 = check_mono_s();
    REQUIRE(probe_lab_reconfigure(&lab, &want, &rebuilt, err, sizeof err) == 0);
    double rebuild_ms = (check_mono_s() - t0) * 1e3;
    CHECK_INT(rebuilt, 1);
    CHECK_INT(probe_lab_status(cfg.prefix, &st, err, sizeof err), 1);
    CHECK_INT(st.cfg.routers, 3);
    CHECK_INT(st.cfg.behave[2], PROBE_LAB_RATELIMIT | PROBE_LAB_NAT);
    printf("  switch: rules only %.0f ms, rebuild to three routers %.0f ms\n", rules_ms, rebuild_ms);
    CHECK_INT(probe_lab_down(cfg.prefix, err, sizeof err), 5);
}

static void test_two_labs_coexist_and_status_reads_them_back(void) {
    char err[1024];
    struct probe_lab_config a, b;
    struct probe_lab la, lb, st;
    probe_lab_config_default(&a);
    probe_lab_config_default(&b);
    snprintf(a.prefix, sizeof a.prefix, "%s", prefixes[0]);
    snprintf(b.prefix, sizeof b.prefix, "%s", prefixes[1]);
    REQUIRE(probe_lab_parse_mtus("1500,1400,1300", &b, err, sizeof err) == 0);
    b.reassemble = 2;
    REQUIRE(probe_lab_up(&a, &la, err, sizeof err) == 0);
    REQUIRE(probe_lab_up(&b, &lb, err, sizeof err) == 0);
    CHECK_INT(ns_count(a.prefix), 4);
    CHECK_INT(ns_count(b.prefix), 4);
    CHECK_INT(probe_lab_status(b.prefix, &st, err, sizeof err), 1);
    CHECK_INT(st.link[1].mtu, 1400);
    CHECK_INT(st.link[2].mtu, 1300);
    CHECK_INT(st.cfg.reassemble, 2);
    CHECK_INT(probe_lab_status(a.prefix, &st, err, sizeof err), 1);
    CHECK_INT(st.link[1].mtu, 1280);
    CHECK_INT(st.cfg.reassemble, 0);
    char desc[768];
    probe_lab_describe(&st, desc, sizeof desc);
    CHECK_CONTAINS(desc, "mtu 1280");
    CHECK_INT(probe_lab_down(b.prefix, err, sizeof err), 4);
    CHECK_INT(ns_count(b.prefix), 0);
    CHECK_INT(probe_lab_status(b.prefix, &st, err, sizeof err), 0);
    CHECK_INT(probe_lab_down(b.prefix, err, sizeof err), 0);
    CHECK_INT(ns_count(a.prefix), 4); /* the other lab is untouched */
}

static void test_half_a_lab_is_reported_and_down_clears_it(void) {
    char err[1024], cmd[128];
    struct probe_lab st;
    REQUIRE(ns_count(prefixes[0]) == 4);
    snprintf(cmd, sizeof cmd, "ip netns del %s-r2", prefixes[0]);
    REQUIRE(system(cmd) == 0);
    CHECK_INT(probe_lab_status(prefixes[0], &st, err, sizeof err), PROBE_E_FAIL);
    CHECK_CONTAINS(err, "-r2");
    CHECK_INT(probe_lab_down(prefixes[0], err, sizeof err), 3);
    CHECK_INT(ns_count(prefixes[0]), 0);
}

/* The child's side of the test below: in a mount namespace of its own
 * (slave: nothing mounted here reaches the host), /bin/false mounted over
 * the lab's nft, then the lab up. Writes "RC ERR" to fd. */
static void up_without_nft(int fd) {
    char err[1024] = "", falsebin[256];
    int rc = -100;
    if (!realpath("/bin/false", falsebin) || unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 || mount(falsebin, lab_tool("nft"), NULL, MS_BIND, NULL) < 0) {
        snprintf(err, sizeof err, "cannot replace nft: %s", strerror(errno));
    } else {
        struct probe_lab_config cfg;
        struct probe_lab lab;
        probe_lab_config_default(&cfg);
        snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefixes[2]);
        cfg.reassemble = 1;
        rc = probe_lab_up(&cfg, &lab, err, sizeof err);
    }
    dprintf(fd, "%d %s", rc, err);
}

static void test_failed_up_removes_what_it_built(void) {
    /* nft fails: the reassembling router cannot be set up, after the
     * namespaces and links already exist. (The lab runs its tools by
     * absolute path, so a PATH without nft no longer hides it: a child
     * replaces nft in a mount namespace the host does not see.) */
    int p[2];
    REQUIRE(pipe(p) == 0);
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        up_without_nft(p[1]);
        _exit(0);
    }
    close(p[1]);
    char out[1200] = "";
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof out && (n = read(p[0], out + got, sizeof out - 1 - got)) > 0) got += (size_t)n;
    out[got] = 0;
    close(p[0]);
    waitpid(pid, NULL, 0);
    int rc = atoi(out);
    if (rc >= 0 || rc == -100) fprintf(stderr, "lab up without nft: %s\n", out);
    CHECK(rc < 0 && rc != -100);
    CHECK_CONTAINS(out, "nft");
    CHECK_INT(ns_count(prefixes[2]), 0);
}

static void discover(int reassemble, struct probe_ttl_discovery *d, int silent) {
    char err[1024];
    struct probe_lab_config cfg;
    struct probe_lab lab;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefixes[2]);
    cfg.reassemble = reassemble;
    memset(d, 0, sizeof *d);
    if (probe_lab_up(&cfg, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab up: %s\n", err);
        d->ttl = -1;
        return;
    }
    if (silent) {
        /* The routers (silent 1) or the routers and dst (silent 2) send no ICMP. */
        for (int n = PROBE_LAB_R1; n <= (silent == 2 ? lab.nnodes - 1 : PROBE_LAB_R2); n++) {
            char cmd[512];
            snprintf(cmd, sizeof cmd,
                     "ip netns exec %s nft -f - <<'E'\ntable inet quiet {\n chain out {\n"
                     "  type filter hook output priority 0;\n  meta l4proto { icmp, ipv6-icmp } drop\n }\n}\nE",
                     lab.ns[n]);
            if (system(cmd) != 0) d->ttl = -1;
        }
    }
    struct probe_run_opts o = {.observer = PROBE_OBS_RAW, .lab = &lab};
    if (probe_ttl_discover(&o, 0, "", d, err, sizeof err) < 0) {
        fprintf(stderr, "discover: %s\n", err);
        d->ttl = -1;
    }
    printf("  reassemble %d silent %d: ttl %d tried %d reassembled %d: %s\n", reassemble, silent, d->ttl, d->tried,
           d->nreassembled, d->why);
    probe_lab_down(cfg.prefix, err, sizeof err);
}

static void test_ttl_discovery_finds_the_first_hop_that_quotes_a_fragment(void) {
    struct probe_ttl_discovery d;
    discover(0, &d, 0);
    CHECK_INT(d.ttl, 1);
    CHECK_INT(d.nreassembled, 0);
    discover(1, &d, 0);
    CHECK_INT(d.ttl, 2);
    CHECK_INT(d.nreassembled, 1);
    CHECK_STR(d.reassembled[0], "192.0.2.2");
}

static void test_ttl_discovery_stops_at_the_destination_when_routers_are_silent(void) {
    struct probe_ttl_discovery d;
    discover(0, &d, 1);
    CHECK_INT(d.ttl, 0);
    CHECK_INT(d.reached_dst, 1);
    CHECK_INT(d.silent, 2);
    CHECK_CONTAINS(d.why, "destination answered");
}

static void test_ttl_discovery_gives_up_cleanly_on_an_icmp_silent_path(void) {
    struct probe_ttl_discovery d;
    discover(0, &d, 2);
    CHECK_INT(d.ttl, 0);
    CHECK(d.silent >= 3);
    CHECK_CONTAINS(d.why, "ICMP-silent");
}

int main(void) {
    if (geteuid() != 0) SKIP_ALL("needs root: network namespaces");
    if (system("command -v ip >/dev/null && command -v nft >/dev/null && command -v ethtool >/dev/null") != 0)
        SKIP_ALL("needs ip, nft and ethtool (scripts/apt-packages.txt)");
    int pid = (int)getpid() % 100000;
    for (int i = 0; i < 3; i++) snprintf(prefixes[i], sizeof prefixes[i], "fvl%d%c", pid, 'a' + i);
    atexit(cleanup);
    RUN(test_plan_uses_documentation_prefixes_only);
    RUN(test_plan_of_longer_labs_and_behaviours);
    RUN(test_two_labs_coexist_and_status_reads_them_back);
    RUN(test_reconfigure_changes_only_what_differs);
    RUN(test_half_a_lab_is_reported_and_down_clears_it);
    RUN(test_failed_up_removes_what_it_built);
    RUN(test_ttl_discovery_finds_the_first_hop_that_quotes_a_fragment);
    RUN(test_ttl_discovery_stops_at_the_destination_when_routers_are_silent);
    RUN(test_ttl_discovery_gives_up_cleanly_on_an_icmp_silent_path);
    return check_summary();
}
