/* The SQL score views (db/schema.sql) and the pure rule (score/score.h) agree:
 * random sessions go into a real SQLite file (random votes, changed votes,
 * re-vote rounds, truths yes / no / unknown / never measured, newer live
 * measurements and re-measurements that must not count, ties on purpose),
 * and every question's majority and correct, every voter's score and each
 * session's collective score and vote accuracy, as the store reports them,
 * equal what score_* computes from the votes the test itself cast. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "db.h"
#include "report.h"
#include "score.h"

#define SESSIONS 60
#define QMAX 8
#define VMAX 7

static unsigned rng = 20261203;
static unsigned rnd(unsigned n) {
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

static const char *const truth_names[] = {"yes", "no", "unknown", NULL /* never measured */};

struct gen_q {
    int64_t id;
    int vote[VMAX]; /* final round: 1 yes, 0 no, -1 none */
    enum score_truth truth;
};

static int ties, unscored, scored_sessions;

static void close_enough(double a, double b, const char *what, int64_t id) {
    if (a - b > 1e-9 || b - a > 1e-9) {
        check_cur_failed_ = 1;
        fprintf(stderr, "%s of %lld: store %.6f, score.h %.6f\n", what, (long long)id, a, b);
    }
}

/* One generated session; checks it and returns 0, or -1 when the store refused a step. */
static int gen_session(struct db *db, struct db_report *rep, int n) {
    char err[256];
    char title[32];
    snprintf(title, sizeof title, "generated %d", n);
    struct db_session_info info = {.title = title, .deck_json = "{}", .host = "h", .kernel = "k",
                                   .observer = "raw", .target = "lab", .room = "ABCDEF"};
    int64_t sid = db_session_create(db, &info, err, sizeof err);
    int64_t live = db_session_live_set(db, sid, err, sizeof err);
    int64_t later = db_measurement_set_add(db, sid, "remeasure", "h", "k", "lab", NULL, err, sizeof err);
    if (sid < 0 || live < 0 || later < 0) return -1;
    int nv = (int)rnd(VMAX + 1), nq = 1 + (int)rnd(QMAX);
    int64_t voter[VMAX];
    for (int v = 0; v < nv; v++) {
        char tok[48];
        snprintf(tok, sizeof tok, "%016llx%08x", (unsigned long long)sid, v);
        if ((voter[v] = db_voter_join(db, sid, tok, err, sizeof err)) < 0) return -1;
    }
    struct gen_q q[QMAX];
    for (int p = 0; p < nq; p++) {
        q[p].id = db_question_add(db, sid, p, p, "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400}", QKIND_SENT,
                                  "sent?", err, sizeof err);
        if (q[p].id < 0 || db_question_set_state(db, q[p].id, "voting", err, sizeof err)) return -1;
        int rounds = rnd(4) == 0 ? 2 : 1;
        for (int round = 1; round <= rounds; round++) {
            for (int v = 0; v < nv; v++) {
                q[p].vote[v] = (int)rnd(3) - 1;
                if (q[p].vote[v] < 0) continue;
                if (rnd(3) == 0 && db_vote_put(db, q[p].id, voter[v], !q[p].vote[v], CONFIDENCE_NONE, err, sizeof err) != DB_VOTE_OK)
                    return -1; /* changed later: the last vote counts */
                if (db_vote_put(db, q[p].id, voter[v], q[p].vote[v], CONFIDENCE_NONE, err, sizeof err) != DB_VOTE_OK) return -1;
            }
            if (db_question_set_state(db, q[p].id, "closed", err, sizeof err)) return -1;
            if (round < rounds && db_question_revote(db, q[p].id, err, sizeof err)) return -1;
        }
        const char *t = truth_names[rnd(4)];
        if (t) {
            /* an older live measurement first: only the newest is the truth */
            if (rnd(2) && db_measurement_add(db, live, q[p].id, truth_names[rnd(3)], "observed", "old", "{}", "raw",
                                             err, sizeof err) < 0)
                return -1;
            if (db_measurement_add(db, live, q[p].id, t, "observed", "ev", "{}", "raw", err, sizeof err) < 0) return -1;
        }
        /* a re-measurement never changes the score */
        if (rnd(2) && db_measurement_add(db, later, q[p].id, truth_names[rnd(3)], "observed", "re", "{}", "raw", err,
                                         sizeof err) < 0)
            return -1;
        q[p].truth = score_truth_parse(t);
        if (db_question_set_state(db, q[p].id, "revealed", err, sizeof err)) return -1;
    }
    if (db_session_end(db, sid, err, sizeof err)) return -1;

    struct score_sum sum = {0};
    for (int p = 0; p < nq; p++) {
        int yes = 0, no = 0;
        for (int v = 0; v < nv; v++) yes += q[p].vote[v] == 1, no += q[p].vote[v] == 0;
        score_sum_add(&sum, yes, no, q[p].truth);
        ties += yes + no > 0 && yes == no;
        struct db_qscore qs;
        if (db_question_score(db, q[p].id, &qs, err, sizeof err)) return -1;
        CHECK_INT(qs.yes, yes);
        CHECK_INT(qs.no, no);
        CHECK_STR(qs.majority, score_majority_name(score_majority(yes, no)));
        close_enough(qs.correct, score_correct(yes, no, q[p].truth), "correct", q[p].id);
        CHECK_INT(score_truth_parse(qs.truth), q[p].truth);
        unscored += score_correct(yes, no, q[p].truth) < 0;
    }
    for (int v = 0; v < nv; v++) {
        int answered = 0, vscored = 0, right = 0;
        for (int p = 0; p < nq; p++) {
            answered += q[p].vote[v] >= 0;
            int r = score_vote(q[p].vote[v], q[p].truth);
            if (r >= 0) vscored++, right += r;
        }
        struct db_vscore vs;
        if (db_voter_score(db, voter[v], &vs, err, sizeof err)) return -1;
        CHECK_INT(vs.answered, answered);
        CHECK_INT(vs.scored, vscored);
        CHECK_INT(vs.correct, right);
    }
    struct db_sscore ss;
    if (db_session_score(db, sid, &ss, err, sizeof err)) return -1;
    CHECK_INT(ss.questions, nq);
    CHECK_INT(ss.scored, sum.scored);
    close_enough(ss.collective, score_collective(&sum), "collective", sid);
    CHECK_INT(ss.votes_scored, sum.votes_scored);
    CHECK_INT(ss.votes_correct, sum.votes_correct);
    close_enough(ss.vote_accuracy, score_vote_accuracy(&sum), "vote accuracy", sid);
    scored_sessions += sum.scored > 0;

    struct db_report_session rs;
    if (db_report_session_load(db, rep, sid, &rs, err, sizeof err)) return -1;
    close_enough(rs.score.collective, ss.collective, "report collective", sid);
    CHECK_INT(rs.score.votes_correct, ss.votes_correct);
    for (int p = 0; p < rs.nquestions && p < nq; p++) {
        const struct db_report_question *rq = &rs.questions[p];
        CHECK_INT(rq->correct_votes, score_correct_votes(rq->yes, rq->no, q[p].truth));
    }
    db_report_session_free(&rs);
    return 0;
}

static void test_views_agree_with_the_rule_on_generated_sessions(void) {
    char path[128], err[256];
    snprintf(path, sizeof path, "%s/generated.db", check_tmpdir());
    struct db *db = db_open(path, err, sizeof err);
    REQUIRE(db);
    struct db_report *rep = db_report_open(db, err, sizeof err);
    REQUIRE(rep);
    for (int n = 0; n < SESSIONS; n++) {
        int rc = gen_session(db, rep, n);
        if (rc) fprintf(stderr, "session %d: %s\n", n, err);
        REQUIRE(rc == 0);
    }
    /* the generator really made the cases the rule has */
    CHECK(ties > 0);
    CHECK(unscored > 0);
    CHECK(scored_sessions > 0);
    printf("%d sessions, %d ties, %d unscored questions\n", SESSIONS, ties, unscored);
    db_report_close(rep);
    db_close(db);
}

/* The worked example of docs/SCORING.md, through the pure rule alone. */
static void test_rule_worked_example(void) {
    CHECK(score_correct(2, 1, SCORE_TRUTH_YES) == 1);
    CHECK(score_correct(2, 1, SCORE_TRUTH_NO) == 0);
    CHECK(score_correct(1, 1, SCORE_TRUTH_YES) == 0.5);
    CHECK(score_correct(3, 0, score_truth_parse("unknown")) < 0);
    CHECK(score_correct(0, 1, score_truth_parse(NULL)) < 0);
    CHECK(score_correct(0, 0, SCORE_TRUTH_YES) < 0);
    CHECK_STR(score_majority_name(score_majority(1, 1)), "tie");
    CHECK_STR(score_majority_name(score_majority(0, 0)), "");
    struct score_sum s = {0};
    score_sum_add(&s, 2, 1, SCORE_TRUTH_YES);
    score_sum_add(&s, 2, 1, SCORE_TRUTH_NO);
    score_sum_add(&s, 1, 1, SCORE_TRUTH_YES);
    score_sum_add(&s, 3, 0, SCORE_TRUTH_NONE);
    score_sum_add(&s, 0, 1, SCORE_TRUTH_NONE);
    CHECK_INT(s.scored, 3);
    CHECK(score_collective(&s) == 0.5);
    CHECK_INT(s.votes_scored, 8);
    CHECK_INT(s.votes_correct, 4);
}

int main(void) {
    RUN(test_rule_worked_example);
    RUN(test_views_agree_with_the_rule_on_generated_sessions);
    return check_summary();
}
