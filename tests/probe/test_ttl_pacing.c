/* Pacing for rate limits (issue 34) on the real lab: TTL discovery finds the
 * path of routers that keep Linux's default ICMP limits even after earlier
 * sends drained their budget (a hop that answered nothing is asked again
 * after a pause: "rate-limited"), finds the same TTL as on the kind lab, and
 * tells a silent router (--silent: never answers) from a rate-limited one.
 * Each lab has prefix fvt<pid><letter>. Needs root (namespaces, nft). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "check.h"
#include "check_lab.h"
#include "fragprobe.h"
#include "fv_clock.h"

static char prefix[24];

static void cleanup(void) {
    char err[256];
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
    prefix[0] = 0;
}

static int lab_start(char tag, struct probe_lab_config *cfg, struct probe_lab *lab) {
    snprintf(cfg->prefix, sizeof cfg->prefix, "fvt%d%c", (int)getpid() % 100000, tag);
    if (check_lab_up_cfg(cfg, lab, prefix, sizeof prefix) < 0) return -1;
    return 0;
}

/* 20 small IPv4 datagrams with TTL 1, then 20 with TTL 2, from src: more
 * than the burst of 6 each router allows, so both budgets are spent. */
static int drain(void *p) {
    const struct probe_lab *lab = p;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in s4;
    memset(&s4, 0, sizeof s4);
    s4.sin_family = AF_INET;
    inet_pton(AF_INET, probe_lab_dst_addr(lab, 0), &s4.sin_addr);
    char payload[64] = {0};
    int sent = 0;
    for (int ttl = 1; ttl <= 2; ttl++) {
        setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl);
        for (int i = 0; i < 20; i++) {
            s4.sin_port = htons((uint16_t)(44000 + ttl * 100 + i));
            if (sendto(fd, payload, sizeof payload, 0, (struct sockaddr *)&s4, sizeof s4) == (ssize_t)sizeof payload)
                sent++;
        }
    }
    close(fd);
    return sent == 40 ? 0 : -1;
}

static int discover(struct probe_lab *lab, int drained, struct probe_ttl_discovery *d) {
    char err[256];
    if (drained && probe_netns_run(lab->ns[PROBE_LAB_SRC], drain, lab, err, sizeof err) < 0) return -1;
    struct probe_run_opts o = {0};
    o.lab = lab;
    double t0 = fv_clock_ms_frac();
    int rc = probe_ttl_discover(&o, 0, "", d, err, sizeof err);
    printf("  %.1f s: TTL %d, %d tried, %d rate-limited, %d silent: %s\n", (fv_clock_ms_frac() - t0) / 1e3, d->ttl, d->tried,
           d->ratelimited, d->silent, rc < 0 ? err : d->why);
    cleanup();
    return rc;
}

static int kind_ttl = -1;

static void test_kind_lab_reference(void) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    probe_lab_config_default(&cfg);
    REQUIRE(lab_start('k', &cfg, &lab) == 0);
    struct probe_ttl_discovery d;
    REQUIRE(discover(&lab, 0, &d) == 0);
    CHECK(d.ttl > 0);
    CHECK_INT(d.ratelimited, 0);
    CHECK_INT(d.silent, 0);
    kind_ttl = d.ttl;
}

/* (a) every router keeps the kernel's limits, and earlier sends drained
 * them: today's engine heard nothing and called the path ICMP-silent. */
static void test_drained_ratelimited_path_is_found(void) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    probe_lab_config_default(&cfg);
    char err[256];
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_RATELIMIT, "r1", err, sizeof err) == 0);
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_RATELIMIT, "r2", err, sizeof err) == 0);
    REQUIRE(lab_start('r', &cfg, &lab) == 0);
    struct probe_ttl_discovery d;
    REQUIRE(discover(&lab, 1, &d) == 0);
    CHECK_INT(d.ttl, kind_ttl);
    CHECK_INT(d.silent, 0);
    CHECK(d.ratelimited >= 1);
    CHECK_INT(d.hop_state[0], PROBE_HOP_RATELIMITED);
    CHECK(strstr(d.why, "rate-limited") != NULL);
    CHECK(strstr(d.why, "silent") == NULL);
}

/* (c) r1 keeps the kernel's limits and is drained, r2 never sends Time
 * Exceeded (--silent); r1 reassembles, so its quote is of the whole packet
 * and discovery goes on to r2 and dst: r1 is rate-limited, r2 silent. */
static void test_silent_hop_is_not_ratelimited(void) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    probe_lab_config_default(&cfg);
    char err[256];
    cfg.reassemble = 1;
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_RATELIMIT, "r1", err, sizeof err) == 0);
    REQUIRE(probe_lab_config_add(&cfg, PROBE_LAB_SILENT, "r2", err, sizeof err) == 0);
    REQUIRE(lab_start('s', &cfg, &lab) == 0);
    struct probe_ttl_discovery d;
    REQUIRE(discover(&lab, 1, &d) == 0);
    CHECK_INT(d.hop_state[0], PROBE_HOP_RATELIMITED);
    CHECK(d.hop[0][0] != 0);
    CHECK_INT(d.hop_state[1], PROBE_HOP_SILENT);
    CHECK_STR(d.hop[1], "");
    CHECK_INT(d.reached_dst, 1);
    CHECK_INT(d.silent, 1);
    CHECK_INT(d.ratelimited, 1);
    CHECK(strstr(d.why, "rate-limited") != NULL);
    CHECK(strstr(d.why, "silent") != NULL);
}

int main(void) {
    check_root_begin("needs root: network namespaces", "ip nft", cleanup);
    RUN(test_kind_lab_reference);
    RUN(test_drained_ratelimited_path_is_found);
    RUN(test_silent_hop_is_not_ratelimited);
    return check_summary_and_clean();
}
