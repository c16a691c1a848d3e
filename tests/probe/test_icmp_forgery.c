/* Forged and unrelated ICMP arriving at the probe's raw socket never change
 * a test's answer: only quotes that match the test (addresses, protocol,
 * ports, or an IP ID the test used) count.
 *
 * In the namespace lab (src - r1 - r2 - dst), r1 runs icmp_inject.py: a
 * stream of ICMP aimed at src while a probe runs there -- echo traffic,
 * errors quoting other traffic (right addresses and port, another source
 * port) dressed to flip each answer (fragment quotes, DF quotes, tiny
 * MTUs), non-first fragments with foreign IDs, another source address, and
 * truncated or malformed quotes. For each test spec the answers with the
 * injection must equal the answers without it (run before and after), and a
 * raw socket of our own in src proves the forged packets did arrive. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_lab.h"
#include "check_probe.h"
#include "fragprobe.h"

#define PORT 33434
#define INJECT_RATE 2000          /* forged packets per second */
#define INJECT_S "2.5"            /* seconds of injection around one probe run */

static char prefix[24];
static struct probe_lab lab;
static pid_t injector = -1;

static void cleanup(void) {
    char err[256];
    if (injector > 0) {
        kill(injector, SIGKILL);
        waitpid(injector, NULL, 0);
        injector = -1;
    }
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
    prefix[0] = 0;
}

/* ---- our own raw socket in src: do the forged packets arrive? ---- */

struct counter {
    int v6;
    const char *from;             /* r1's address on the src link */
    int ms;
    atomic_int ready;
    atomic_int seen;
};

static int count_fn(void *arg) {
    struct counter *c = arg;
    int fd = c->v6 ? socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6) : socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    if (fd < 0) {
        atomic_store(&c->ready, 1);
        return -1;
    }
    uint8_t want[16];
    inet_pton(c->v6 ? AF_INET6 : AF_INET, c->from, want);
    atomic_store(&c->ready, 1);
    long long t0 = check_mono_ms();
    for (;;) {
        long left = (long)(c->ms - (check_mono_ms() - t0));
        if (left <= 0) break;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)left) <= 0) continue;
        uint8_t buf[2048];
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        if (recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl) <= 0) continue;
        const void *a = c->v6 ? (const void *)&((struct sockaddr_in6 *)&from)->sin6_addr
                              : (const void *)&((struct sockaddr_in *)&from)->sin_addr;
        if (!memcmp(a, want, c->v6 ? 16 : 4)) atomic_fetch_add(&c->seen, 1);
    }
    close(fd);
    return 0;
}

static void *count_thread(void *arg) {
    struct counter *c = arg;
    char err[256];
    if (probe_netns_run(lab.ns[PROBE_LAB_SRC], count_fn, c, err, sizeof err) < 0) {
        fprintf(stderr, "counter: %s\n", err);
        atomic_store(&c->ready, 1);
    }
    return NULL;
}

/* ---- the injector in r1 ---- */

static int start_injector(int v6) {
    char script[1024];
    snprintf(script, sizeof script, "%s/tests/probe/icmp_inject.py", getenv("FRAGVOTE_SRC"));
    char dport[16], rate[16];
    snprintf(dport, sizeof dport, "%d", PORT);
    snprintf(rate, sizeof rate, "%d", INJECT_RATE);
    const struct probe_lab_link *l = &lab.link[0];
    int out[2];
    if (pipe(out)) return -1;
    injector = fork();
    if (injector < 0) return -1;
    if (injector == 0) {
        dup2(out[1], 1);
        close(out[0]);
        close(out[1]);
        if (v6)
            execlp("ip", "ip", "netns", "exec", lab.ns[PROBE_LAB_R1], "python3", script, "-6", l->b6, l->a6,
                   probe_lab_dst_addr(&lab, 1), dport, INJECT_S, rate, (char *)NULL);
        else
            execlp("ip", "ip", "netns", "exec", lab.ns[PROBE_LAB_R1], "python3", script, l->b4, l->a4,
                   probe_lab_dst_addr(&lab, 0), dport, INJECT_S, rate, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    /* Wait until the stream flows ("ready"), then let it run on its own. */
    FILE *f = fdopen(out[0], "r");
    char line[64] = "";
    int ok = f && fgets(line, sizeof line, f) && !strncmp(line, "ready", 5);
    if (f) fclose(f);
    return ok ? 0 : -1;
}

static int wait_injector(void) {
    int st = 0;
    if (injector <= 0) return -1;
    waitpid(injector, &st, 0);
    injector = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- runs ---- */

static int run(const struct probe_spec *s, struct probe_result *r) {
    struct probe_run_opts o = {.observer = PROBE_OBS_RAW, .lab = &lab, .flush_pmtu = 1};
    char err[512];
    int rc = probe_run(&o, s, r, err, sizeof err);
    if (rc < 0) fprintf(stderr, "probe_run: %s\n", err);
    return rc;
}

static void describe(const char *label, const struct probe_result *r) {
    printf("    %-9s sent %-7s df %-7s fragmented %-7s by %-6s icmp %d/%d quote len %d df %d mf %d, %d answers\n",
           label, probe_answer_name(r->sent.answer), probe_answer_name(r->df.answer),
           probe_answer_name(r->fragmented.answer), probe_fragmenter_name(r->fragmenter), r->icmp.type, r->icmp.code,
           r->icmp.quoted_len, r->icmp.quoted_df, r->icmp.quoted_mf, r->icmp.answers);
}

static int same(const struct probe_result *a, const struct probe_result *b) {
    return a->sent.answer == b->sent.answer && a->df.answer == b->df.answer &&
           a->fragmented.answer == b->fragmented.answer && a->fragmenter == b->fragmenter &&
           a->icmp.type == b->icmp.type && a->icmp.code == b->icmp.code && a->icmp.mtu == b->icmp.mtu &&
           a->icmp.quoted_len == b->icmp.quoted_len && a->icmp.quoted_df == b->icmp.quoted_df && a->icmp.quoted_mf == b->icmp.quoted_mf &&
           a->icmp.answers == b->icmp.answers;
}

static void check_spec(enum probe_proto p, enum probe_mode m, int size) {
    struct probe_spec s = check_probe_spec(p, m, size, PORT);
    int v6 = probe_proto_is_v6(p);
    printf("  %s %s %d:\n", probe_proto_name(p), probe_mode_name(m), size);
    struct probe_result before, during, after;
    REQUIRE(run(&s, &before) == 0);
    describe("before", &before);

    struct counter c = {.v6 = v6, .from = v6 ? lab.link[0].b6 : lab.link[0].b4, .ms = 4000};
    pthread_t th;
    pthread_create(&th, NULL, count_thread, &c);
    while (!atomic_load(&c.ready)) usleep(1000);
    REQUIRE(start_injector(v6) == 0);
    usleep(200000); /* the stream is flowing when the probe starts */
    int seen0 = atomic_load(&c.seen);
    int rc = run(&s, &during);
    int seen_during = atomic_load(&c.seen) - seen0;
    pthread_join(th, NULL);
    CHECK_INT(wait_injector(), 0);
    REQUIRE(rc == 0);
    describe("injected", &during);
    printf("    (%d forged packets reached a raw socket in src while the probe ran %.0f ms; %d in all)\n", seen_during,
           during.elapsed_ms, atomic_load(&c.seen));

    REQUIRE(run(&s, &after) == 0);
    describe("after", &after);
    CHECK(seen0 > 0);                        /* the attack was under way before the send */
    CHECK(seen_during > 0);                  /* and went on while the probe listened */
    CHECK(same(&before, &after));            /* the spec answers the same way on its own */
    CHECK(same(&before, &during));           /* and the forged stream changed nothing */
    CHECK(during.icmp.answers >= 0 && during.icmp.answers <= PROBE_ANSWERS_MAX);
}

static void test_ipv4_forged_icmp_changes_no_answer(void) {
    check_spec(PROBE_UDP4, PROBE_MODE_WANT, 1000);   /* whole, Time Exceeded from r2 */
    check_spec(PROBE_UDP4, PROBE_MODE_DO, 1400);     /* Frag Needed from r1 */
    check_spec(PROBE_UDP4, PROBE_MODE_DONT, 3000);   /* fragmented by the host */
}

static void test_ipv6_forged_icmp_changes_no_answer(void) {
    check_spec(PROBE_UDP6, PROBE_MODE_WANT, 1000);
    check_spec(PROBE_UDP6, PROBE_MODE_DO, 1400);     /* Packet Too Big from r1 */
    check_spec(PROBE_UDP6, PROBE_MODE_DONT, 3000);
}

int main(void) {
    if (geteuid() != 0) SKIP_ALL("needs root: network namespaces and raw sockets");
    if (!getenv("FRAGVOTE_SRC")) SKIP_ALL("run through ctest (FRAGVOTE_SRC unset)");
    if (system("command -v ip >/dev/null && command -v python3 >/dev/null") != 0)
        SKIP_ALL("needs ip and python3 (scripts/apt-packages.txt)");
    check_cleanup_on_signals(cleanup);
    atexit(cleanup);
    if (check_lab_up("fvz", &lab, prefix, sizeof prefix)) return 1;
    RUN(test_ipv4_forged_icmp_changes_no_answer);
    RUN(test_ipv6_forged_icmp_changes_no_answer);
    cleanup();
    return check_summary();
}
