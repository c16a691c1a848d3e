/* The remeasure comparison on canned stored measurements: unchanged answers
 * say so, changed ones name the difference (kernel, lab path MTU, cached
 * PMTU, fragmenter, observer) that explains them. */
#include <string.h>

#include "check.h"
#include "replay.h"

static struct db_report_measure meas(const char *answer, const char *observer, const char *evidence, const char *obs) {
    struct db_report_measure m;
    memset(&m, 0, sizeof m);
    m.measured = answer != NULL;
    if (answer) snprintf(m.answer, sizeof m.answer, "%s", answer);
    snprintf(m.basis, sizeof m.basis, "observed");
    snprintf(m.observer, sizeof m.observer, "%s", observer);
    m.evidence = (char *)evidence;
    m.observation_json = (char *)obs;
    return m;
}

static struct db_report_set set(const char *kind, const char *kernel, const char *target, const char *lab) {
    struct db_report_set s;
    memset(&s, 0, sizeof s);
    snprintf(s.kind, sizeof s.kind, "%s", kind);
    s.host = (char *)"laptop";
    s.kernel = (char *)kernel;
    s.target = (char *)target;
    s.lab_json = (char *)lab;
    return s;
}

#define LAB_1280 "{\"prefix\":\"fv\",\"links\":[{\"mtu\":1500},{\"mtu\":1280},{\"mtu\":1500}],\"reassemble\":0}"
#define LAB_1400 "{\"prefix\":\"fv\",\"links\":[{\"mtu\":1500},{\"mtu\":1400},{\"mtu\":1500}],\"reassemble\":0}"
#define OBS_ROUTER "{\"fragmenter\":\"router\",\"cached_pmtu_before\":0,\"kernel_mtu\":0}"
#define OBS_NONE "{\"fragmenter\":\"none\",\"cached_pmtu_before\":0,\"kernel_mtu\":0}"
#define OBS_HOST_CACHED "{\"fragmenter\":\"host\",\"cached_pmtu_before\":1280,\"kernel_mtu\":0}"

/* One comparison: the talk's side (then) and the remeasure's (now), each a
 * set (kernel, target, lab) and a measurement (answer, observer, evidence,
 * observation); what the diff must say. ANY, NULL: not checked. */
#define ANY (-1)
struct diff_case {
    const char *name;
    const char *kernel[2], *target[2], *lab[2];
    const char *answer[2], *observer[2], *evidence[2], *obs[2];
    int comparable, changed;
    const char *then_answer, *now_answer, *reason_is;
    const char *reason_has[3], *reason_lacks;
};

static const struct diff_case diff_cases[] = {
    {"same lab, same answer: unchanged",
     {"Linux 6.1.0", "Linux 6.1.0"}, {"lab", "lab"}, {LAB_1280, LAB_1280},
     {"yes", "yes"}, {"raw", "raw"}, {"r1 fragmented it", "r1 fragmented it"}, {OBS_ROUTER, OBS_ROUTER},
     1, 0, "yes", "yes", "", {NULL}, NULL},
    {"another lab MTU is named",
     {"Linux 6.1.0", "Linux 6.1.0"}, {"lab", "lab"}, {LAB_1280, LAB_1400},
     {"yes", "no"}, {"raw", "raw"}, {"r1 fragmented it", "one whole packet reached dst"}, {OBS_ROUTER, OBS_NONE},
     ANY, 1, NULL, NULL, NULL,
     {"different path MTU (lab links 1500/1280/1500 then, 1500/1400/1500 now)",
      "fragmented by router then, by none now", "evidence now: one whole packet reached dst"},
     "kernel"},
    {"kernel and cache are named",
     {"Linux 6.1.0", "Linux 6.9.2"}, {"lab", "lab"}, {LAB_1280, LAB_1280},
     {"yes", "no"}, {"raw", "recverr"}, {"kernel fragmented locally", "sent whole"}, {OBS_HOST_CACHED, OBS_NONE},
     ANY, 1, NULL, NULL, NULL,
     {"different kernel (Linux 6.1.0 then, Linux 6.9.2 now)", "observer raw then, recverr now",
      "a cached PMTU of 1280 was in effect then (learned earlier), none now"}, NULL},
    {"an unexplained change says so",
     {"Linux 6.1.0", "Linux 6.1.0"}, {"lab", "lab"}, {LAB_1280, LAB_1280},
     {"yes", "unknown"}, {"raw", "raw"}, {"x", "no answer in 1 s"}, {"{}", "{}"},
     ANY, 1, NULL, NULL, NULL,
     {"same host, kernel and target: the network answered differently (evidence now: no answer in 1 s)"}, NULL},
};

static void test_diffs_name_what_changed(void) {
    for (size_t i = 0; i < sizeof diff_cases / sizeof diff_cases[0]; i++) {
        const struct diff_case *c = &diff_cases[i];
        printf("  %s\n", c->name);
        struct db_report_set a = set("live", c->kernel[0], c->target[0], c->lab[0]),
                             b = set("remeasure", c->kernel[1], c->target[1], c->lab[1]);
        struct db_report_measure t = meas(c->answer[0], c->observer[0], c->evidence[0], c->obs[0]),
                                 n = meas(c->answer[1], c->observer[1], c->evidence[1], c->obs[1]);
        struct replay_diff d;
        replay_diff_explain(&t, &a, &n, &b, &d);
        if (c->comparable != ANY) CHECK_INT(d.comparable, c->comparable);
        CHECK_INT(d.changed, c->changed);
        if (c->then_answer) CHECK_STR(d.then_answer, c->then_answer);
        if (c->now_answer) CHECK_STR(d.now_answer, c->now_answer);
        if (c->reason_is) CHECK_STR(d.reason, c->reason_is);
        for (int k = 0; k < 3 && c->reason_has[k]; k++) CHECK_CONTAINS(d.reason, c->reason_has[k]);
        if (c->reason_lacks) CHECK(!strstr(d.reason, c->reason_lacks));
    }
}

/* A "cached PMTU" equal to the device MTU (loopback's 65535) is no cache. */
static void test_device_mtu_is_not_a_cached_pmtu(void) {
    struct db_report_set a = set("live", "k", "lab", LAB_1280), b = set("remeasure", "k", "127.0.0.1", NULL);
    struct db_report_measure t = meas("yes", "raw", "r1", "{\"cached_pmtu_before\":null,\"dev_mtu\":1500}"),
                             n = meas("no", "raw", "lo", "{\"cached_pmtu_before\":65535,\"dev_mtu\":65535}");
    struct replay_diff d;
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_INT(d.changed, 1);
    CHECK_CONTAINS(d.reason, "different target (lab then, 127.0.0.1 now)");
    CHECK(!strstr(d.reason, "cached PMTU"));
    /* a real learned PMTU below the device MTU is still named */
    n = meas("no", "raw", "lo", "{\"cached_pmtu_before\":1280,\"dev_mtu\":1500}");
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_CONTAINS(d.reason, "a cached PMTU of 1280 is in effect now, none then");
}

static void test_unmeasured_sides(void) {
    struct db_report_set a = set("live", "k", "lab", NULL), b = set("remeasure", "k", "lab", NULL);
    struct db_report_measure t = meas(NULL, "", "", ""), n = meas("no", "raw", "e", "{}");
    struct replay_diff d;
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_INT(d.comparable, 0);
    CHECK_INT(d.changed, 0);
    CHECK_STR(d.reason, "not measured during the talk");
    replay_diff_explain(&n, &a, &t, &b, &d);
    CHECK_STR(d.reason, "could not be measured now");
}

static void test_lab_summary(void) {
    char buf[64];
    replay_lab_summary(LAB_1280, buf, sizeof buf);
    CHECK_STR(buf, "1500/1280/1500");
    replay_lab_summary("{\"links\":[{\"mtu\":1500},{\"mtu\":1280},{\"mtu\":1500}],\"reassemble\":1}", buf, sizeof buf);
    CHECK_STR(buf, "1500/1280/1500 reassembling at r1");
    replay_lab_summary(NULL, buf, sizeof buf);
    CHECK_STR(buf, "");
    replay_lab_summary("not json", buf, sizeof buf);
    CHECK_STR(buf, "");
}

int main(void) {
    RUN(test_diffs_name_what_changed);
    RUN(test_device_mtu_is_not_a_cached_pmtu);
    RUN(test_unmeasured_sides);
    RUN(test_lab_summary);
    return check_summary();
}
