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

static void test_same_lab_same_answer_is_unchanged(void) {
    struct db_report_set a = set("live", "Linux 6.1.0", "lab", LAB_1280), b = set("remeasure", "Linux 6.1.0", "lab", LAB_1280);
    struct db_report_measure t = meas("yes", "raw", "r1 fragmented it", OBS_ROUTER),
                             n = meas("yes", "raw", "r1 fragmented it", OBS_ROUTER);
    struct replay_diff d;
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_INT(d.comparable, 1);
    CHECK_INT(d.changed, 0);
    CHECK_STR(d.then_answer, "yes");
    CHECK_STR(d.now_answer, "yes");
    CHECK_STR(d.reason, "");
}

static void test_other_lab_mtu_is_named(void) {
    struct db_report_set a = set("live", "Linux 6.1.0", "lab", LAB_1280), b = set("remeasure", "Linux 6.1.0", "lab", LAB_1400);
    struct db_report_measure t = meas("yes", "raw", "r1 fragmented it", OBS_ROUTER),
                             n = meas("no", "raw", "one whole packet reached dst", OBS_NONE);
    struct replay_diff d;
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_INT(d.changed, 1);
    CHECK_CONTAINS(d.reason, "different path MTU (lab links 1500/1280/1500 then, 1500/1400/1500 now)");
    CHECK_CONTAINS(d.reason, "fragmented by router then, by none now");
    CHECK_CONTAINS(d.reason, "evidence now: one whole packet reached dst");
    CHECK(!strstr(d.reason, "kernel"));
}

static void test_kernel_and_cache_are_named(void) {
    struct db_report_set a = set("live", "Linux 6.1.0", "lab", LAB_1280), b = set("remeasure", "Linux 6.9.2", "lab", LAB_1280);
    struct db_report_measure t = meas("yes", "raw", "kernel fragmented locally", OBS_HOST_CACHED),
                             n = meas("no", "recverr", "sent whole", OBS_NONE);
    struct replay_diff d;
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_INT(d.changed, 1);
    CHECK_CONTAINS(d.reason, "different kernel (Linux 6.1.0 then, Linux 6.9.2 now)");
    CHECK_CONTAINS(d.reason, "a cached PMTU of 1280 was in effect then (learned earlier), none now");
    CHECK_CONTAINS(d.reason, "observer raw then, recverr now");
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

static void test_unexplained_change_says_so(void) {
    struct db_report_set a = set("live", "Linux 6.1.0", "lab", LAB_1280), b = set("remeasure", "Linux 6.1.0", "lab", LAB_1280);
    struct db_report_measure t = meas("yes", "raw", "x", "{}"), n = meas("unknown", "raw", "no answer in 1 s", "{}");
    struct replay_diff d;
    replay_diff_explain(&t, &a, &n, &b, &d);
    CHECK_INT(d.changed, 1);
    CHECK_CONTAINS(d.reason, "same host, kernel and target: the network answered differently (evidence now: no answer in 1 s)");
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
    RUN(test_same_lab_same_answer_is_unchanged);
    RUN(test_other_lab_mtu_is_named);
    RUN(test_kernel_and_cache_are_named);
    RUN(test_unexplained_change_says_so);
    RUN(test_device_mtu_is_not_a_cached_pmtu);
    RUN(test_unmeasured_sides);
    RUN(test_lab_summary);
    return check_summary();
}
