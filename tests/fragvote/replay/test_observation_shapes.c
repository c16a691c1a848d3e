/* One writer of measurement JSON: a live measurement the room stores and a
 * re-measurement have the same shape (probe_observation_json), and a file
 * that also holds a live row in the older flat shape (written here by hand,
 * as the room wrote it before) still reads: resume takes the question's why
 * from both shapes, and replay's diff explains old-against-new. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "hubfix.h"
#include "deck_fixture.h"
#include "probe_json.h"
#include "replay.h"
#include "report.h"
#include "room.h"

/* A live observation as serve stored it before the one writer: flat spec and quote fields. */
#define OLD_FLAT_OBSERVATION                                                                                      \
    "{\"proto\":\"tcp4\",\"mode\":\"want\",\"size\":2000,\"ttl\":2,\"host\":\"\","                                \
    "\"sent\":{\"answer\":\"yes\",\"basis\":\"observed\",\"why\":\"it left\"},"                                   \
    "\"df\":{\"answer\":\"no\",\"basis\":\"observed\",\"why\":\"DF clear\"},"                                     \
    "\"fragmented\":{\"answer\":\"yes\",\"basis\":\"observed\",\"why\":\"the host sent 2 fragments\"},"          \
    "\"fragmenter\":\"host\",\"witness\":null,\"send_errno\":0,\"kernel_mtu\":0,\"cached_pmtu_before\":1280,"    \
    "\"quoted_len\":-1,\"quoted_df\":-1,\"quoted_mf\":-1,\"quoted_offset\":-1,\"hop\":\"\",\"observer\":\"raw\"," \
    "\"evidence\":\"old evidence\",\"elapsed_ms\":3.5}"

static struct deck deck;

/* Test 0 asks sent? and df?, test 1 fragmented? (three questions). */
static const struct probe_spec specs[] = {
    {.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = 1400, .ttl = 2},
    {.proto = PROBE_TCP4, .mode = PROBE_MODE_WANT, .size = 2000, .ttl = 2},
};

static void make_deck(struct deck *d) {
    deck_fixture(d, "shapes");
    deck_fixture_test(d, specs[0].proto, specs[0].mode, specs[0].size, DECK_FIXTURE_SENT | DECK_FIXTURE_DF);
    deck_fixture_test(d, specs[1].proto, specs[1].mode, specs[1].size, DECK_FIXTURE_FRAG);
}

static struct probe_result result(int cached_pmtu, enum probe_fragmenter fr, const char *why) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.spec = deck.tests[0].spec;
    r.sent = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = ""};
    snprintf(r.sent.why, sizeof r.sent.why, "%s", why);
    r.df = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "DF set"};
    r.fragmented = (struct probe_fact){.answer = PROBE_ANS_NO, .basis = PROBE_BASIS_OBSERVED, .why = "one packet"};
    r.fragmenter = fr;
    r.icmp.quoted_len = r.icmp.quoted_df = r.icmp.quoted_mf = r.icmp.quoted_offset = r.icmp.quoted_frag_hdr = -1;
    r.icmp.type = -1;
    r.egress.kernel_mtu = 1280;
    r.egress.cached_pmtu_before = cached_pmtu;
    snprintf(r.evidence, sizeof r.evidence, "new evidence");
    snprintf(r.egress.observer, sizeof r.egress.observer, "raw");
    return r;
}

/* Whether a and b (JSON object texts) have the same top-level keys. */
static int same_keys(const char *a, const char *b) {
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
    int same = json_is_object(ja) && json_is_object(jb) && json_object_size(ja) == json_object_size(jb);
    const char *k;
    json_t *v;
    if (same) json_object_foreach(ja, k, v) if (!json_object_get(jb, k)) same = 0;
    json_decref(ja);
    json_decref(jb);
    return same;
}

static void test_live_and_remeasured_rows_share_one_shape_and_old_rows_read(void) {
    char err[256];
    struct db *db;
    struct room *r = hubfix_room(check_tmp_path("shapes.db"), &deck, NULL, &db);
    REQUIRE(r);
    int64_t sid = room_session_id(r);
    /* question 0 (test 0, sent?): measured live by the room, the new shape */
    REQUIRE(room_act(r, ROOM_OPEN, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_CLOSE, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_MEASURE, err, sizeof err) == QUIZ_MEASURE_PROBE);
    struct probe_result live0 = result(0, PROBE_FRAG_NONE, "the new row's why");
    REQUIRE(room_measured(r, 0, &live0, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_REVEAL, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_NEXT, err, sizeof err) == 0);
    REQUIRE(room_act(r, ROOM_SKIP, err, sizeof err) == 0); /* question 1 (df?) */
    room_free(r);

    /* question 2 (test 1, fragmented?): a live row in the old flat shape */
    struct db_report *rep = db_report_open(db, err, sizeof err);
    REQUIRE(rep);
    struct db_report_session s;
    REQUIRE(db_report_session_load(db, rep, sid, &s, err, sizeof err) == 0);
    REQUIRE(s.nquestions == 3);
    int64_t q0 = s.questions[0].id, q2 = s.questions[2].id;
    int64_t live = db_session_live_set(db, sid, err, sizeof err);
    REQUIRE(live > 0);
    REQUIRE(db_question_set_state(db, q2, "voting", err, sizeof err) == 0);
    REQUIRE(db_question_set_state(db, q2, "closed", err, sizeof err) == 0);
    REQUIRE(db_measurement_add(db, live, q2, "yes", "observed", "old evidence", OLD_FLAT_OBSERVATION, "raw", err,
                               sizeof err) > 0);
    REQUIRE(db_question_set_state(db, q2, "revealed", err, sizeof err) == 0);
    /* a re-measurement of both, through the one writer */
    int64_t later = db_measurement_set_add(db, sid, "remeasure", "", "", "", NULL, err, sizeof err);
    REQUIRE(later > 0);
    struct probe_result now0 = result(1280, PROBE_FRAG_NONE, "now"), now2 = result(0, PROBE_FRAG_NONE, "now");
    char *o0 = probe_observation_json(&now0), *o2 = probe_observation_json(&now2);
    REQUIRE(o0 && o2);
    REQUIRE(db_measurement_add(db, later, q0, "yes", "observed", "e", o0, "raw", err, sizeof err) > 0);
    REQUIRE(db_measurement_add(db, later, q2, "no", "observed", "e", o2, "raw", err, sizeof err) > 0);
    free(o0);
    free(o2);

    struct db_report_measure then0, then2, re0, re2;
    REQUIRE(db_report_measure_get(rep, live, q0, &then0, err, sizeof err) == 0);
    REQUIRE(db_report_measure_get(rep, live, q2, &then2, err, sizeof err) == 0);
    REQUIRE(db_report_measure_get(rep, later, q0, &re0, err, sizeof err) == 0);
    REQUIRE(db_report_measure_get(rep, later, q2, &re2, err, sizeof err) == 0);
    /* one shape: what the room stored live is what a re-measurement stores */
    CHECK(same_keys(then0.observation_json, re0.observation_json));
    CHECK(!same_keys(then2.observation_json, re2.observation_json)); /* the old row is the other shape */

    /* replay's diff reads both shapes */
    struct db_report_set set = {.host = "h", .kernel = "k", .target = "lab"};
    struct replay_diff d;
    replay_diff_explain(&then2, &set, &re2, &set, &d);
    CHECK_CONTAINS(d.reason, "a cached PMTU of 1280 was in effect then (learned earlier), none now");
    CHECK_CONTAINS(d.reason, "fragmented by host then, by none now");
    replay_diff_explain(&then0, &set, &re0, &set, &d);
    CHECK_CONTAINS(d.reason, "a cached PMTU of 1280 is in effect now, none then");
    db_report_measure_free(&then0);
    db_report_measure_free(&then2);
    db_report_measure_free(&re0);
    db_report_measure_free(&re2);
    db_report_session_free(&s);
    db_report_close(rep);

    /* resume reads the question's why from either shape */
    r = room_resume(db, sid, &deck, err, sizeof err);
    REQUIRE(r);
    struct quiz_truth t;
    REQUIRE(quiz_truth(room_quiz(r), 0, &t) == 0);
    CHECK_STR(t.why, "the new row's why");
    REQUIRE(quiz_truth(room_quiz(r), 2, &t) == 0);
    CHECK_STR(t.why, "the host sent 2 fragments");
    CHECK_INT(t.answer, PROBE_ANS_YES);
    room_free(r);
    db_close(db);
}

int main(void) {
    make_deck(&deck);
    RUN(test_live_and_remeasured_rows_share_one_shape_and_old_rows_read);
    return check_summary();
}
