/* The room's side of the prober interface (prober.h) on a real SQLite file:
 * request ids, the one cache of results (a prefetch held until measure, a
 * result reused by the test's other questions, a rerun asking afresh), the
 * pending list a reconnecting prober reads, the results refused, and a
 * resumed room asking again for what was in flight when it stopped. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_probe.h"
#include "hubfix.h"
#include "room.h"

static struct deck deck;

/* Test 0 asks sent? and DF?, test 1 fragmented?. */
static const char deck_json[] =
    "{\"title\": \"prober deck\", \"tests\": ["
    "{\"proto\": \"udp4\", \"mode\": \"do\", \"size\": 1400, \"ask\": [\"sent\", \"df\"]},"
    "{\"proto\": \"tcp4\", \"mode\": \"want\", \"size\": 2000, \"ask\": [\"fragmented\"]}]}";

/* A prober that writes down what it is asked (and may refuse). */
struct rec {
    int n, refuse;
    struct prober_ask a[16];
    struct probe_spec spec[16];
};

static int rec_ask(void *ctx, const struct prober_ask *a) {
    struct rec *r = ctx;
    if (r->refuse || r->n == 16) return -1;
    r->a[r->n] = *a;
    r->spec[r->n] = *a->spec;
    r->a[r->n].spec = &r->spec[r->n];
    r->n++;
    return 0;
}

static char path[256];

static long long count(const char *sql) { return hubfix_sql_int(path, sql); }

static long long measurements(void) { return count("SELECT count(*) FROM measurements"); }

/* The answer a prober would give to ask a: yes/yes/no with a's spec. */
static struct probe_result answer(const struct prober_ask *a, const char *evidence) {
    struct probe_result r = check_probe_result(1, 1, 0, evidence);
    r.spec = *a->spec;
    return r;
}

static struct db *db;
static struct room *room;
static struct rec rec;

static void open_room(const char *name, int with_prober) {
    char err[256];
    snprintf(path, sizeof path, "%s/%s", check_tmpdir(), name);
    db = db_open(path, err, sizeof err);
    REQUIRE(db);
    room = room_create(db, &deck, NULL, err, sizeof err);
    REQUIRE(room);
    memset(&rec, 0, sizeof rec);
    if (with_prober) room_set_prober(room, &(struct prober){rec_ask, &rec});
}

static void close_room(void) {
    room_free(room);
    db_close(db);
}

static int act(enum room_action a) {
    char err[256];
    int rc = room_act(room, a, err, sizeof err);
    if (rc < 0) fprintf(stderr, "  %s: %s\n", room_action_name(a), err);
    return rc;
}

static enum quiz_state state(int pos) {
    struct quiz_qinfo qi;
    quiz_get(room_quiz(room), pos, &qi);
    return qi.state;
}

static void test_a_prefetch_is_held_unseen_and_used_by_measure(void) {
    char err[256];
    open_room("prefetch.db", 1);
    CHECK_INT(act(ROOM_OPEN), 0);
    REQUIRE(rec.n == 1); /* voting opened: the test is asked for */
    CHECK(rec.a[0].rid > 0);
    CHECK_INT(rec.a[0].position, -1);
    CHECK_INT(rec.a[0].test_index, 0);
    CHECK_INT(rec.a[0].rerun, 0);
    CHECK_INT(rec.spec[0].size, 1400);
    struct probe_result res = answer(&rec.a[0], "held evidence");
    CHECK_INT(room_prober_result_awaited(room, rec.a[0].rid), 0); /* no question waits: the hub sends nothing */
    CHECK_INT(room_prober_result(room, rec.a[0].rid, &res, err, sizeof err), 0);
    /* Held: no measurement stored, no truth anywhere, still voting. */
    CHECK_INT(measurements(), 0);
    CHECK_INT(state(0), QUIZ_VOTING);
    struct quiz_truth t;
    CHECK_INT(quiz_truth(room_quiz(room), 0, &t), -1);
    struct prober_ask pend[4];
    CHECK_INT(room_prober_pending(room, pend, 4), 0);
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), 0); /* at once: the held result */
    CHECK_INT(rec.n, 1);             /* nothing asked again */
    CHECK_INT(state(0), QUIZ_MEASURED);
    CHECK_INT(measurements(), 1);
    CHECK_INT(count("SELECT count(*) FROM measurements WHERE evidence = 'held evidence'"), 1);
    unsigned long measures, hits;
    room_measure_counts(room, &measures, &hits);
    CHECK_INT(measures, 1);
    CHECK_INT(hits, 1);
    /* The test's second question: no prefetch, measured from the same result. */
    CHECK_INT(act(ROOM_REVEAL), 0);
    CHECK_INT(act(ROOM_NEXT), 0);
    CHECK_INT(act(ROOM_OPEN), 0);
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), 0);
    CHECK_INT(rec.n, 1);
    CHECK_INT(measurements(), 2);
    close_room();
}

static void test_measure_waits_for_the_prefetch_in_flight(void) {
    char err[256];
    open_room("inflight.db", 1);
    CHECK_INT(act(ROOM_OPEN), 0);
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), QUIZ_MEASURE_PROBE);
    CHECK_INT(rec.n, 1); /* the prefetch answers it */
    struct quiz_qinfo qi;
    quiz_get(room_quiz(room), 0, &qi);
    CHECK_INT(qi.measuring, 1);
    struct probe_result res = answer(&rec.a[0], "prefetched");
    CHECK_INT(room_prober_result_awaited(room, rec.a[0].rid), 1); /* measure waits for it now */
    CHECK_INT(room_prober_result(room, rec.a[0].rid, &res, err, sizeof err), 0);
    CHECK_INT(state(0), QUIZ_MEASURED);
    CHECK_INT(measurements(), 1);
    close_room();
}

static void test_unknown_repeated_and_foreign_results_are_refused(void) {
    char err[256];
    open_room("refused.db", 1);
    room_set_prefetch(room, 0);
    CHECK_INT(act(ROOM_OPEN), 0);
    CHECK_INT(rec.n, 0); /* prefetch off */
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), QUIZ_MEASURE_PROBE);
    REQUIRE(rec.n == 1);
    CHECK_INT(rec.a[0].position, 0);
    uint64_t rid = rec.a[0].rid;
    struct probe_result res = answer(&rec.a[0], "first");
    CHECK_INT(room_prober_result(room, 0, &res, err, sizeof err), -1);
    CHECK_CONTAINS(err, "no measurement 0 was asked for");
    CHECK_INT(room_prober_result(room, rid + 7, &res, err, sizeof err), -1);
    CHECK_CONTAINS(err, "was asked for");
    struct probe_result other = res;
    other.spec = deck.tests[1].spec; /* another test's result */
    CHECK_INT(room_prober_result(room, rid, &other, err, sizeof err), -1);
    CHECK_CONTAINS(err, "another test");
    CHECK_INT(measurements(), 0);
    CHECK_INT(state(0), QUIZ_CLOSED);
    CHECK_INT(room_prober_result(room, rid, &res, err, sizeof err), 0);
    CHECK_INT(state(0), QUIZ_MEASURED);
    struct probe_result again = answer(&rec.a[0], "second");
    CHECK_INT(room_prober_result(room, rid, &again, err, sizeof err), -1);
    CHECK_CONTAINS(err, "answered already");
    CHECK_INT(measurements(), 1);
    CHECK_INT(count("SELECT count(*) FROM measurements WHERE evidence = 'first'"), 1);
    close_room();
}

static void test_rerun_asks_afresh_and_a_superseded_answer_is_dropped(void) {
    char err[256];
    open_room("rerun.db", 1);
    CHECK_INT(act(ROOM_OPEN), 0);
    REQUIRE(rec.n == 1);
    CHECK_INT(act(ROOM_CLOSE), 0);
    /* Rerun before the prefetch came back: asked again, the prefetch no longer pending. */
    CHECK_INT(act(ROOM_RERUN), QUIZ_MEASURE_PROBE);
    REQUIRE(rec.n == 2);
    CHECK(rec.a[1].rid > rec.a[0].rid);
    CHECK_INT(rec.a[1].rerun, 1);
    CHECK_INT(rec.a[1].position, 0);
    struct prober_ask pend[4];
    REQUIRE(room_prober_pending(room, pend, 4) == 1);
    CHECK_INT(pend[0].rid, rec.a[1].rid);
    struct probe_result late = answer(&rec.a[0], "stale prefetch");
    CHECK_INT(room_prober_result_awaited(room, rec.a[0].rid), 0); /* superseded */
    CHECK_INT(room_prober_result_awaited(room, rec.a[1].rid), 1);
    CHECK_INT(room_prober_result(room, rec.a[0].rid, &late, err, sizeof err), 0); /* taken, dropped */
    CHECK_INT(measurements(), 0);
    CHECK_INT(state(0), QUIZ_CLOSED);
    struct probe_result res = answer(&rec.a[1], "fresh run");
    CHECK_INT(room_prober_result(room, rec.a[1].rid, &res, err, sizeof err), 0);
    CHECK_INT(state(0), QUIZ_MEASURED);
    /* Revealed, then rerun again: a third ask, a second measurement row. */
    CHECK_INT(act(ROOM_REVEAL), 0);
    CHECK_INT(act(ROOM_RERUN), QUIZ_MEASURE_PROBE);
    REQUIRE(rec.n == 3);
    CHECK_INT(rec.a[2].rerun, 1);
    res = answer(&rec.a[2], "third run");
    CHECK_INT(room_prober_result(room, rec.a[2].rid, &res, err, sizeof err), 0);
    CHECK_INT(state(0), QUIZ_REVEALED);
    CHECK_INT(measurements(), 2);
    CHECK_INT(count("SELECT count(*) FROM measurements WHERE evidence = 'stale prefetch'"), 0);
    close_room();
}

static void test_pending_lists_unanswered_asks_oldest_first_without_a_prober(void) {
    char err[256];
    open_room("pending.db", 0); /* no prober: a remote one not connected yet */
    CHECK_INT(act(ROOM_OPEN), 0);
    struct prober_ask pend[4];
    CHECK_INT(room_prober_pending(room, pend, 4), 0); /* no prober, no prefetch */
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), QUIZ_MEASURE_PROBE);
    REQUIRE(room_prober_pending(room, pend, 4) == 1);
    CHECK_INT(pend[0].position, 0);
    CHECK_INT(pend[0].test_index, 0);
    CHECK_INT(pend[0].spec->size, 1400);
    uint64_t first = pend[0].rid;
    CHECK_INT(act(ROOM_SKIP), 0); /* on to test 1, its question asked too */
    CHECK_INT(act(ROOM_SKIP), 0);
    CHECK_INT(quiz_cursor(room_quiz(room)), 2);
    CHECK_INT(act(ROOM_OPEN), 0);
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), QUIZ_MEASURE_PROBE);
    REQUIRE(room_prober_pending(room, pend, 4) == 2);
    CHECK_INT(pend[0].rid, first);
    CHECK(pend[1].rid > first);
    CHECK_INT(pend[1].test_index, 1);
    CHECK_INT(room_prober_pending(room, pend, 1), 1); /* max respected */
    /* A prober connecting now is handed the list, answers the newest. */
    room_set_prober(room, &(struct prober){rec_ask, &rec});
    room_prober_pending(room, pend, 4);
    struct probe_result res = check_probe_result(1, -1, 1, "late prober");
    res.spec = *pend[1].spec;
    CHECK_INT(room_prober_result(room, pend[1].rid, &res, err, sizeof err), 0);
    CHECK_INT(state(2), QUIZ_MEASURED);
    REQUIRE(room_prober_pending(room, pend, 4) == 1);
    CHECK_INT(pend[0].rid, first);
    /* The skipped question's answer is taken but cannot apply. */
    res = check_probe_result(1, 1, 0, "skipped meanwhile");
    res.spec = *pend[0].spec;
    CHECK_INT(room_prober_result_awaited(room, first), 0); /* its question is no longer measuring */
    CHECK_INT(room_prober_result_awaited(room, first + 1000), 0); /* never asked */
    CHECK_INT(room_prober_result(room, first, &res, err, sizeof err), -1);
    CHECK_CONTAINS(err, "skipped");
    CHECK_INT(room_prober_pending(room, pend, 4), 0);
    CHECK_INT(measurements(), 1);
    close_room();
}

static void test_a_refused_ask_is_answered_unknown_at_once(void) {
    open_room("refusing.db", 1);
    rec.refuse = 1;
    CHECK_INT(act(ROOM_OPEN), 0); /* the prefetch is refused: nothing held */
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), 0);
    CHECK_INT(state(0), QUIZ_MEASURED);
    CHECK_INT(count("SELECT count(*) FROM measurements WHERE answer = 'unknown' "
                    "AND evidence LIKE 'not measured: %'"),
              1);
    close_room();
}

/* The room stops (a crash: freed without an answer) while a measure, then a
 * rerun, waits for its answer; the room resumed from the same file asks its
 * new prober again as soon as it has one (serve --resume: the local worker
 * or the remote prober), and the answer lands as a measure's would. */
static void test_a_resumed_room_asks_again_for_the_measurement_in_flight(void) {
    char err[256];
    open_room("resume.db", 1);
    int64_t sid = room_session_id(room);
    CHECK_INT(act(ROOM_OPEN), 0);
    CHECK_INT(act(ROOM_CLOSE), 0);
    CHECK_INT(act(ROOM_MEASURE), QUIZ_MEASURE_PROBE); /* waits for the prefetch in flight */
    CHECK_INT(count("SELECT measuring FROM questions WHERE position = 0"), 1);
    room_free(room);
    for (int round = 0; round < 2; round++) { /* a measure, then a rerun of the revealed question */
        room = room_resume(db, sid, &deck, err, sizeof err);
        REQUIRE(room);
        struct quiz_qinfo qi;
        quiz_get(room_quiz(room), 0, &qi);
        CHECK_INT(qi.measuring, 0); /* nobody to ask yet */
        memset(&rec, 0, sizeof rec);
        room_set_prober(room, &(struct prober){rec_ask, &rec});
        REQUIRE(rec.n == 1);
        CHECK_INT(rec.a[0].position, 0);
        CHECK_INT(rec.a[0].test_index, 0);
        CHECK_INT(rec.a[0].rerun, round);
        quiz_get(room_quiz(room), 0, &qi);
        CHECK_INT(qi.measuring, 1);
        CHECK_INT(state(0), round ? QUIZ_REVEALED : QUIZ_CLOSED);
        struct probe_result res = answer(&rec.a[0], round ? "rerun after resume" : "measured after resume");
        CHECK_INT(room_prober_result(room, rec.a[0].rid, &res, err, sizeof err), 0);
        CHECK_INT(state(0), round ? QUIZ_REVEALED : QUIZ_MEASURED);
        CHECK_INT(measurements(), round + 1);
        CHECK_INT(count("SELECT measuring FROM questions WHERE position = 0"), 0);
        if (round) break;
        CHECK_INT(act(ROOM_REVEAL), 0); /* no m pressed again */
        CHECK_INT(act(ROOM_RERUN), QUIZ_MEASURE_PROBE);
        CHECK_INT(count("SELECT measuring FROM questions WHERE position = 0"), 1);
        room_free(room);
    }
    CHECK_INT(count("SELECT count(*) FROM measurements WHERE evidence = 'rerun after resume'"), 1);
    /* Nothing in flight: a resumed room asks nothing. */
    room_free(room);
    room = room_resume(db, sid, &deck, err, sizeof err);
    REQUIRE(room);
    memset(&rec, 0, sizeof rec);
    room_set_prober(room, &(struct prober){rec_ask, &rec});
    CHECK_INT(rec.n, 0);
    close_room();
}

int main(void) {
    char err[256];
    if (deck_load_string(deck_json, "prober deck", &deck, err, sizeof err)) return fprintf(stderr, "deck: %s\n", err), 1;
    RUN(test_a_prefetch_is_held_unseen_and_used_by_measure);
    RUN(test_measure_waits_for_the_prefetch_in_flight);
    RUN(test_unknown_repeated_and_foreign_results_are_refused);
    RUN(test_rerun_asks_afresh_and_a_superseded_answer_is_dropped);
    RUN(test_pending_lists_unanswered_asks_oldest_first_without_a_prober);
    RUN(test_a_refused_ask_is_answered_unknown_at_once);
    RUN(test_a_resumed_room_asks_again_for_the_measurement_in_flight);
    deck_free(&deck);
    return check_summary();
}
