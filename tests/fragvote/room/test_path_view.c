/* Issue 36, item 2: a reveal's path picture while siblings of its test are
 * open (quiz_path_view) is the same whatever the open questions' answers
 * are. Each partial view of canned paths -- the lab's "fragmented by r1"
 * and "dropped at r1", a real path whose Frag Needed came from a router
 * TTL discovery never heard -- is compared with the views of counterfactual
 * paths (check_path_view.h). Before, the "sent?" view kept the far end's
 * arrival beside the lab's link MTUs (a 1400-byte packet that left and did
 * not arrive behind a 1280 link: DF=1), and a real path's node list gained
 * the router that sent the Frag Needed. The lab's runs get the same check
 * in probe/test_real_paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_path.h"
#include "check_path_view.h"

#define ALL (1u << QKIND_SENT | 1u << QKIND_DF | 1u << QKIND_FRAGMENTED)

static void test_lab_paths_views_do_not_depend_on_open_answers(void) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    check_path_fragmented_by_r1(&r);
    int checked = 0;
    CHECK_INT(check_path_views_all(&r.path, ALL, &checked), 0);
    memset(&r, 0, sizeof r);
    check_path_dropped_at_r1(&r);
    CHECK_INT(check_path_views_all(&r.path, ALL, &checked), 0);
    printf("lab paths: %d partial views, each against every counterfactual of its open facts\n", checked);
    CHECK(checked >= 2 * 9);
}

/* r->path on a real path whose TTL discovery heard two hops. */
static void build_real(struct probe_result *r) {
    struct probe_ttl_discovery d;
    memset(&d, 0, sizeof d);
    d.tried = 2;
    snprintf(d.hop[0], sizeof d.hop[0], "192.0.2.1");
    snprintf(d.hop[1], sizeof d.hop[1], "192.0.2.9");
    struct probe_path_topology t;
    probe_path_topology_real(&d, r, &t);
    probe_path_build(r, &t, &r->path);
}

/* host, two hops discovery heard, then the answering router (Frag Needed,
 * MTU 1280) beyond a gap, a gap, the target. */
static struct probe_result real_path_frag_needed(void) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    check_path_dropped_at_r1(&r); /* the observations; the topology below replaces the lab's */
    snprintf(r.spec.host, sizeof r.spec.host, "198.51.100.77");
    check_path_answer(&r, "203.0.113.5", "", 3, 4, 1280, 1400, 1, 0);
    build_real(&r);
    return r;
}

static void test_a_real_paths_answering_router_is_not_drawn_early(void) {
    struct probe_result r = real_path_frag_needed();
    int found = 0;
    for (int i = 0; i < r.path.nnodes; i++) found |= !strcmp(r.path.node[i].addr, "203.0.113.5");
    REQUIRE(found); /* the full picture has it */
    struct probe_path v = r.path;
    quiz_path_view(&v, QKIND_SENT, 1u << QKIND_SENT);
    CHECK_INT(v.nnodes, 5); /* host, hop 1, hop 2, gap, target */
    for (int i = 0; i < v.nnodes; i++) CHECK(strcmp(v.node[i].addr, "203.0.113.5") != 0);
    CHECK_INT(v.node[3].role, PROBE_PATH_GAP);
    CHECK_INT(v.node[4].role, PROBE_PATH_TARGET);
    int checked = 0;
    CHECK_INT(check_path_views_all(&r.path, ALL, &checked), 0);
    /* the same path without the answer (nothing came back): the same views */
    struct probe_result quiet = r;
    quiet.icmp.hop[0] = '\0';
    quiet.icmp.type = quiet.icmp.code = quiet.icmp.mtu = 0;
    build_real(&quiet);
    char *a = check_path_view_text(&r.path, QKIND_SENT, 1u << QKIND_SENT);
    char *b = check_path_view_text(&quiet.path, QKIND_SENT, 1u << QKIND_SENT);
    REQUIRE(a && b);
    CHECK_STR(a, b);
    free(a);
    free(b);
}

/* The checker can fail: the full picture of "dropped at r1" differs from
 * its counterfactuals (DF flipped, the Frag Needed, the arrival). */
static void test_the_check_sees_a_full_picture_change(void) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    check_path_dropped_at_r1(&r);
    struct probe_path cf;
    int differ = 0;
    char *full = check_path_json_text(&r.path);
    for (int m = 0; m < CHECK_PATH_VIEW_MUTATIONS; m++) {
        if (!check_path_view_mutate(&r.path, ALL, m, &cf)) continue;
        char *t = check_path_json_text(&cf);
        differ += t && full && strcmp(t, full);
        free(t);
    }
    free(full);
    CHECK(differ >= 10);
}

int main(void) {
    RUN(test_lab_paths_views_do_not_depend_on_open_answers);
    RUN(test_a_real_paths_answering_router_is_not_drawn_early);
    RUN(test_the_check_sees_a_full_picture_change);
    return check_summary();
}
