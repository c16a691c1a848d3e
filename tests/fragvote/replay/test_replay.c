/* fragvote replay on a real SQLite file recorded through the db_* API: the
 * terminal timeline shows exactly the stored tallies, truths and evidence
 * (compared with the hand-worked numbers of session_fixture.h and with the
 * store's own db_question_score), and each question's stored path as the
 * hop table `fragvote probe` prints (session_fixture_paths.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "db.h"
#include "session_fixture.h"
#include "session_fixture_paths.h"

static char dbfile[256];
static int64_t sid;
static int64_t qids[FX_NQ];

struct seen {
    int found, votes_line, yes, no;
    char truth[32];
    char evidence[256];
    char verdict[16];
};

/* Parses replay output into per-question facts (index = Q number - 1). */
static int parse_replay(char *text, struct seen *seen, int max) {
    int cur = -1, questions = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int n;
        if (l[0] == 'Q' && sscanf(l, "Q%d ", &n) == 1) {
            cur = n - 1;
            if (cur >= 0 && cur < max) {
                seen[cur].found++;
                questions++;
            } else {
                cur = -1;
            }
            continue;
        }
        if (cur < 0) continue;
        struct seen *s = &seen[cur];
        if (!strncmp(l, "    votes     ", 14)) {
            s->votes_line++;
            if (sscanf(l + 14, "yes %d · no %d", &s->yes, &s->no) != 2) s->yes = s->no = -99;
        } else if (!strncmp(l, "    truth     ", 14)) {
            if (!strncmp(l + 14, "not measured", 12)) snprintf(s->truth, sizeof s->truth, "%s", "");
            else sscanf(l + 14, "%31s", s->truth);
        } else if (!strncmp(l, "    evidence  ", 14)) {
            snprintf(s->evidence, sizeof s->evidence, "%s", l + 14);
        } else if (!strncmp(l, "    verdict   ", 14)) {
            sscanf(l + 14, "%15s", s->verdict);
        }
    }
    return questions;
}

static void test_replay_reproduces_tallies_and_truth(void) {
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "replay %lld --db '%s'", (long long)sid, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    CHECK_CONTAINS(out, "Session 1: " FX_TITLE);
    CHECK_CONTAINS(out, "collective score 50% (3 scored) · vote accuracy 43% (6 of 14)");
    CHECK_CONTAINS(out, "Remeasured 1 time(s)");
    CHECK_CONTAINS(out, "(skipped: not asked)");
    /* parse_replay cuts out into lines: checks on the whole text come first. */
    struct seen seen[FX_NQ];
    memset(seen, 0, sizeof seen);
    CHECK_INT(parse_replay(out, seen, FX_NQ), FX_NQ);

    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    REQUIRE(db);
    static const char *const verdicts[FX_NQ] = {"right", "wrong", "tie", "unscored", "unscored"};
    for (int i = 0; i < FX_NQ; i++) {
        struct db_qscore qs;
        REQUIRE(db_question_score(db, qids[i], &qs, err, sizeof err) == 0);
        CHECK_INT(seen[i].found, 1);
        CHECK_INT(seen[i].votes_line, 1);
        /* the hand-worked numbers */
        CHECK_INT(seen[i].yes, fx_q[i].yes);
        CHECK_INT(seen[i].no, fx_q[i].no);
        CHECK_STR(seen[i].truth, fx_q[i].truth);
        CHECK_STR(seen[i].verdict, verdicts[i]);
        /* and the store's */
        CHECK_INT(seen[i].yes, qs.yes);
        CHECK_INT(seen[i].no, qs.no);
        CHECK_STR(seen[i].truth, qs.truth);
    }
    CHECK_STR(seen[0].evidence, FX_EVIDENCE_Q1);
    CHECK_STR(seen[1].evidence, FX_EVIDENCE_Q2);
    /* Q3's truth is the newest live measurement, not the superseded one nor the remeasure. */
    CHECK_STR(seen[2].evidence, "one 1400-byte packet on the wire, MF=0 offset 0");
    db_close(db);
    free(out);
    free(errs);
}

/* Votes cast after the replayed state are what the next replay shows: the
 * replay reads the store, it does not cache or invent. */
static void test_replay_follows_the_store(void) {
    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    REQUIRE(db);
    int64_t v = db_voter_join(db, sid, "feedfacefeedfacefeedfacefeedface", err, sizeof err);
    REQUIRE(v > 0);
    REQUIRE(db_question_set_state(db, qids[4], "voting", err, sizeof err) == 0);
    REQUIRE(db_vote_put(db, qids[4], v, 0, CONFIDENCE_NONE, err, sizeof err) == DB_VOTE_OK);
    REQUIRE(db_question_set_state(db, qids[4], "closed", err, sizeof err) == 0);
    db_close(db);

    char args[512], *out, *errs;
    snprintf(args, sizeof args, "replay %lld --db '%s'", (long long)sid, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    struct seen seen[FX_NQ];
    memset(seen, 0, sizeof seen);
    CHECK_INT(parse_replay(out, seen, FX_NQ), FX_NQ);
    CHECK_INT(seen[4].yes, 0);
    CHECK_INT(seen[4].no, 1);
    CHECK_STR(seen[4].truth, "");
    free(out);
    free(errs);
}

/* The block of question n (from "Q<n>  " to the next question), malloc'd. */
static char *question_block(const char *out, int n) {
    char mark[16];
    snprintf(mark, sizeof mark, "\nQ%d  ", n);
    const char *a = strstr(out, mark);
    if (!a) return NULL;
    const char *b = strstr(a + 1, "\nQ");
    size_t len = b ? (size_t)(b - a) : strlen(a);
    char *blk = malloc(len + 1);
    if (blk) memcpy(blk, a, len), blk[len] = 0;
    return blk;
}

/* Issue 20's gap: each measured question shows its test's stored path as a
 * hop table; a measurement stored before paths shows none. */
static void test_replay_prints_each_questions_path(void) {
    char file[256], *out, *errs;
    REQUIRE(fx_paths_run("replay", "", file, sizeof file, &out, &errs) > 0);
    static const char *const header = "\n    path\n      hop  node  address         mtu  seen there\n";
    static const char *const src = "\n        0  src   192.0.2.1      1500  sent 1400 bytes whole, DF=0 [capture]\n";
    char *q1 = question_block(out, 1), *q2 = question_block(out, 2), *q3 = question_block(out, 3),
         *q4 = question_block(out, 4);
    REQUIRE(q1 && q2 && q3 && q4);
    for (char **q = (char *[]){q1, q2, NULL}; *q; q++) { /* the test's two questions, each with the path */
        CHECK_CONTAINS(*q, header);
        CHECK_CONTAINS(*q, src);
        CHECK_CONTAINS(*q, "\n        1  r1    192.0.2.2      1280  fragmented into 2 pieces: 1276 + 144 "
                           "(next link MTU 1280) [icmp]\n");
        CHECK_CONTAINS(*q, "\n        3  dst   203.0.113.2          ");
    }
    CHECK_CONTAINS(q3, header);
    CHECK_CONTAINS(q3, "\n        1  r1    192.0.2.2      1280  dropped: Frag Needed, MTU 1280 [icmp]\n");
    CHECK(!strstr(q4, "    path\n")); /* no path stored: none printed */
    CHECK_CONTAINS(q4, "    truth     yes");
    free(q1), free(q2), free(q3), free(q4);
    free(out);
    free(errs);
}

static void test_replay_misuse(void) {
    static const struct fx_misuse misuse[] = {
        {"replay", 2, "give a session id"}, {"replay 77", 1, "no session 77"}, {"replay 1 --bogus", 2, NULL}};
    fx_check_misuse(misuse, sizeof misuse / sizeof *misuse, dbfile);
    char *out, *errs;
    CHECK_INT(fx_run("replay --help", &out, &errs), 0);
    CHECK_CONTAINS(out, "Usage: fragvote replay ID");
    free(out); free(errs);
}

int main(void) {
    snprintf(dbfile, sizeof dbfile, "%s", fx_path("replay.db"));
    char err[512];
    struct db *db = db_open(dbfile, err, sizeof err);
    if (!db) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    sid = fx_record(db, FX_TITLE, qids);
    db_close(db);
    if (sid <= 0) return 1;
    RUN(test_replay_reproduces_tallies_and_truth);
    RUN(test_replay_follows_the_store);
    RUN(test_replay_misuse);
    RUN(test_replay_prints_each_questions_path);
    return check_summary_and_clean();
}
