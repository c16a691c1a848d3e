/* The store: open/migrate, reopen, votes, refusals, scores, bad files. */
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "db.h"
#include "db_ckpt.h"
#include "db_internal.h"

static char err[512];

static const char *path_in_tmp(const char *name) {
    static char buf[8][256];
    static int i;
    char *p = buf[i++ % 8];
    snprintf(p, 256, "%s/%s", check_tmpdir(), name);
    return p;
}

static struct db *fresh(const char *name) {
    const char *p = path_in_tmp(name);
    unlink(p);
    struct db *db = db_open(p, err, sizeof err);
    if (!db) fprintf(stderr, "db_open: %s\n", err);
    return db;
}

static int64_t session(struct db *db) {
    struct db_session_info in = {.title = "t", .deck_json = "{}", .host = "h", .kernel = "k",
                                 .observer = "raw", .target = "lab", .room = "ABCD"};
    return db_session_create(db, &in, err, sizeof err);
}

static void test_fresh_file_is_created_at_latest_schema(void) {
    struct db *db = fresh("fresh.db");
    REQUIRE(db);
    CHECK(db_schema_latest() >= 1);
    CHECK_INT(db_version(db), db_schema_latest());
    db_close(db);
}

static void test_reopen_keeps_data(void) {
    struct db *db = fresh("reopen.db");
    REQUIRE(db);
    int64_t s = session(db);
    REQUIRE(s > 0);
    db_close(db);
    db = db_open(path_in_tmp("reopen.db"), err, sizeof err);
    REQUIRE(db);
    struct db_session_row row;
    REQUIRE(db_session_get(db, s, &row, err, sizeof err) == 0);
    CHECK_STR(row.title, "t");
    CHECK_STR(row.room, "ABCD");
    CHECK_INT(db_version(db), db_schema_latest());
    db_session_row_free(&row);
    db_close(db);
}

static void test_vote_changed_twice_counts_once(void) {
    struct db *db = fresh("change.db");
    REQUIRE(db);
    int64_t s = session(db);
    int64_t q = db_question_add(db, s, 0, 0, "{}", QKIND_SENT, "sent?", err, sizeof err);
    REQUIRE(q > 0);
    REQUIRE(db_question_set_state(db, q, "voting", err, sizeof err) == 0);
    int64_t v = db_voter_join(db, s, "token-1", err, sizeof err);
    REQUIRE(v > 0);
    CHECK_INT(db_voter_join(db, s, "token-1", err, sizeof err), v); /* same token, same voter */
    CHECK_INT(db_vote_put(db, q, v, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    CHECK_INT(db_vote_put(db, q, v, 0, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    CHECK_INT(db_vote_put(db, q, v, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    struct db_qscore qs;
    REQUIRE(db_question_score(db, q, &qs, err, sizeof err) == 0);
    CHECK_INT(qs.yes, 1);
    CHECK_INT(qs.no, 0);
    CHECK_INT(db_vote_get(db, q, v), 1);
    db_close(db);
}

static void test_votes_refused_unless_voting(void) {
    struct db *db = fresh("closed.db");
    REQUIRE(db);
    int64_t s = session(db);
    int64_t q = db_question_add(db, s, 0, 0, "{}", QKIND_DF, "df?", err, sizeof err);
    int64_t v = db_voter_join(db, s, "tok", err, sizeof err);
    CHECK_INT(db_vote_put(db, q, v, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_REFUSED); /* still pending */
    CHECK_CONTAINS(err, "pending");
    db_question_set_state(db, q, "voting", err, sizeof err);
    CHECK_INT(db_vote_put(db, q, v, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    db_question_set_state(db, q, "closed", err, sizeof err);
    CHECK_INT(db_vote_put(db, q, v, 0, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_REFUSED);
    CHECK_CONTAINS(err, "closed");
    CHECK_INT(db_vote_get(db, q, v), 1); /* the refused change did not land */
    CHECK_INT(db_vote_put(db, 9999, v, 0, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_REFUSED);
    CHECK_CONTAINS(err, "no question");
    db_close(db);
}

static void test_voter_of_another_session_is_refused(void) {
    struct db *db = fresh("cross.db");
    REQUIRE(db);
    int64_t s1 = session(db), s2 = session(db);
    int64_t q = db_question_add(db, s1, 0, 0, "{}", QKIND_SENT, "?", err, sizeof err);
    db_question_set_state(db, q, "voting", err, sizeof err);
    int64_t v2 = db_voter_join(db, s2, "tok", err, sizeof err);
    CHECK_INT(db_vote_put(db, q, v2, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_REFUSED);
    db_close(db);
}

/* A hand-computed example (docs/SCORING.md):
 *   q0 truth yes: votes yes,yes,no      -> majority yes, right (1)
 *   q1 truth no : votes yes,yes,no      -> majority yes, wrong (0)
 *   q2 truth yes: votes yes,no          -> tie, counts half (0.5)
 *   q3 truth unknown: votes yes,yes,yes -> unscored
 *   q4 not measured: votes no           -> unscored
 * collective = (1 + 0 + 0.5) / 3 = 0.5
 * votes on q0..q2 = 8, correct = 2 + 1 + 1 = 4 -> vote accuracy 0.5
 * voter A (yes,yes,yes,yes,no): scored q0..q2 = 3, correct q0,q2 = 2
 * voter B (yes,yes,no,yes):     scored q0..q2 = 3, correct q0 + q2(no? B voted no on q2: wrong) = 1
 * voter C (no,no,-,yes):        scored q0,q1 = 2, correct q1 = 1 */
static void test_scores_on_hand_computed_example(void) {
    struct db *db = fresh("score.db");
    REQUIRE(db);
    int64_t s = session(db);
    int64_t set = db_session_live_set(db, s, err, sizeof err);
    REQUIRE(set > 0);
    int64_t q[5];
    for (int i = 0; i < 5; i++) {
        q[i] = db_question_add(db, s, i, i, "{}", QKIND_SENT, "?", err, sizeof err);
        REQUIRE(q[i] > 0);
        db_question_set_state(db, q[i], "voting", err, sizeof err);
    }
    int64_t a = db_voter_join(db, s, "A", err, sizeof err);
    int64_t b = db_voter_join(db, s, "B", err, sizeof err);
    int64_t c = db_voter_join(db, s, "C", err, sizeof err);
    /* -1 = no vote */
    int votes[3][5] = {{1, 1, 1, 1, 0}, {1, 1, 0, 1, -1}, {0, 0, -1, 1, -1}};
    int64_t who[3] = {a, b, c};
    for (int v = 0; v < 3; v++)
        for (int i = 0; i < 5; i++)
            if (votes[v][i] >= 0)
                CHECK_INT(db_vote_put(db, q[i], who[v], votes[v][i], CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    const char *truth[4] = {"yes", "no", "yes", "unknown"};
    for (int i = 0; i < 4; i++) {
        db_question_set_state(db, q[i], "closed", err, sizeof err);
        REQUIRE(db_measurement_add(db, set, q[i], truth[i], "observed", "e", "{}", "raw", err, sizeof err) > 0);
    }
    /* A later remeasure set must not change the score. */
    int64_t re = db_measurement_set_add(db, s, "remeasure", "h", "k", "lab", NULL, err, sizeof err);
    REQUIRE(re > 0);
    REQUIRE(db_measurement_add(db, re, q[1], "yes", "observed", "e", "{}", "raw", err, sizeof err) > 0);

    struct db_qscore qs;
    REQUIRE(db_question_score(db, q[0], &qs, err, sizeof err) == 0);
    CHECK_INT(qs.yes, 2); CHECK_INT(qs.no, 1); CHECK_STR(qs.majority, "yes"); CHECK_STR(qs.truth, "yes");
    CHECK(qs.correct == 1.0);
    REQUIRE(db_question_score(db, q[1], &qs, err, sizeof err) == 0);
    CHECK_STR(qs.truth, "no"); CHECK(qs.correct == 0.0);
    REQUIRE(db_question_score(db, q[2], &qs, err, sizeof err) == 0);
    CHECK_STR(qs.majority, "tie"); CHECK(qs.correct == 0.5);
    REQUIRE(db_question_score(db, q[3], &qs, err, sizeof err) == 0);
    CHECK_STR(qs.truth, "unknown"); CHECK(qs.correct == -1);
    REQUIRE(db_question_score(db, q[4], &qs, err, sizeof err) == 0);
    CHECK_STR(qs.truth, ""); CHECK(qs.correct == -1);

    struct db_sscore ss;
    REQUIRE(db_session_score(db, s, &ss, err, sizeof err) == 0);
    CHECK_INT(ss.questions, 5);
    CHECK_INT(ss.scored, 3);
    CHECK(ss.collective > 0.4999 && ss.collective < 0.5001);
    CHECK_INT(ss.votes_scored, 8);
    CHECK_INT(ss.votes_correct, 4);
    CHECK(ss.vote_accuracy > 0.4999 && ss.vote_accuracy < 0.5001);
    CHECK_INT(ss.voters, 3);

    struct db_vscore vs;
    REQUIRE(db_voter_score(db, a, &vs, err, sizeof err) == 0);
    CHECK_INT(vs.answered, 5); CHECK_INT(vs.scored, 3); CHECK_INT(vs.correct, 2);
    REQUIRE(db_voter_score(db, b, &vs, err, sizeof err) == 0);
    CHECK_INT(vs.answered, 4); CHECK_INT(vs.scored, 3); CHECK_INT(vs.correct, 1);
    REQUIRE(db_voter_score(db, c, &vs, err, sizeof err) == 0);
    CHECK_INT(vs.answered, 3); CHECK_INT(vs.scored, 2); CHECK_INT(vs.correct, 1);

    struct db_session_row row;
    REQUIRE(db_session_get(db, s, &row, err, sizeof err) == 0);
    CHECK(row.collective > 0.4999 && row.collective < 0.5001);
    CHECK_INT(row.questions, 5);
    CHECK_INT(row.voters, 3);
    db_session_row_free(&row);
    db_close(db);
}

static void test_group_commit_rollback_loses_uncommitted_votes_only(void) {
    struct db *db = fresh("batch.db");
    REQUIRE(db);
    int64_t s = session(db);
    int64_t q = db_question_add(db, s, 0, 0, "{}", QKIND_SENT, "?", err, sizeof err);
    db_question_set_state(db, q, "voting", err, sizeof err);
    int64_t v1 = db_voter_join(db, s, "1", err, sizeof err), v2 = db_voter_join(db, s, "2", err, sizeof err);
    REQUIRE(db_begin(db, err, sizeof err) == 0);
    CHECK_INT(db_vote_put(db, q, v1, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    REQUIRE(db_commit(db, err, sizeof err) == 0);
    REQUIRE(db_begin(db, err, sizeof err) == 0);
    CHECK_INT(db_vote_put(db, q, v2, 1, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
    db_rollback(db);
    CHECK_INT(db_vote_get(db, q, v1), 1);
    CHECK_INT(db_vote_get(db, q, v2), -1);
    db_close(db);
}

static void test_question_timestamps_are_stamped_once(void) {
    struct db *db = fresh("stamps.db");
    REQUIRE(db);
    int64_t s = session(db);
    int64_t q = db_question_add(db, s, 0, 0, "{}", QKIND_SENT, "?", err, sizeof err);
    CHECK(db_question_set_state(db, q, "voting", err, sizeof err) == 0);
    CHECK(db_question_set_state(db, q, "closed", err, sizeof err) == 0);
    CHECK(db_question_set_state(db, q, "revealed", err, sizeof err) == 0);
    CHECK(db_question_set_state(db, q, "bogus", err, sizeof err) < 0); /* CHECK constraint */
    CHECK_CONTAINS(err, "CHECK constraint");
    CHECK(db_question_set_state(db, 4242, "voting", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "no question");
    db_close(db);
}

static void test_corrupt_file_gives_clear_error(void) {
    const char *p = path_in_tmp("corrupt.db");
    FILE *f = fopen(p, "w");
    REQUIRE(f);
    for (int i = 0; i < 200; i++) fputs("this is not an sqlite database at all\n", f);
    fclose(f);
    struct db *db = db_open(p, err, sizeof err);
    CHECK(db == NULL);
    CHECK_CONTAINS(err, p);
    CHECK_CONTAINS(err, "not a database");
    db_close(db);
}

static void test_newer_schema_is_refused(void) {
    struct db *db = fresh("newer.db");
    REQUIRE(db);
    db_close(db);
    sqlite3 *h;
    REQUIRE(sqlite3_open(path_in_tmp("newer.db"), &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h, "UPDATE schema_version SET version = 999", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    db = db_open(path_in_tmp("newer.db"), err, sizeof err);
    CHECK(db == NULL);
    CHECK_CONTAINS(err, "newer fragvote");
    CHECK_CONTAINS(err, "999");
    db_close(db);
}

/* Root ignores file modes, so the read-only case runs as nobody in a child. */
static void test_read_only_file_gives_clear_error(void) {
    struct db *db = fresh("ro.db");
    REQUIRE(db);
    db_close(db);
    const char *p = path_in_tmp("ro.db");
    chmod(check_tmpdir(), 0755);
    chmod(p, 0444);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) || setuid(65534))) _exit(3);
        char e[512];
        struct db *d = db_open(p, e, sizeof e);
        if (d) _exit(1);
        _exit(strstr(e, "read-only") && strstr(e, p) ? 0 : 2);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_INT(WEXITSTATUS(st), 0);
}

static void test_missing_directory_gives_clear_error(void) {
    struct db *db = db_open("/nonexistent-dir-fragvote/x.db", err, sizeof err);
    CHECK(db == NULL);
    CHECK_CONTAINS(err, "cannot open database");
}

static void test_token_hash_is_sha256(void) {
    char h[65];
    db_token_hash("abc", h);
    CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    db_token_hash("", h);
    CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    db_token_hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", h);
    CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void hex32(const unsigned char *b, char out[65]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Lengths around the padding's edges (55, 56, 64) and a million bytes fed
 * through the block loop; the digests are FIPS 180-4's / Python hashlib's. */
static void test_sha256_of_bytes(void) {
    static char a[1000000];
    memset(a, 'a', sizeof a);
    unsigned char d[32];
    char h[65];
    struct { size_t n; const char *want; } cases[] = {
        {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {sizeof a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        db_sha256(a, cases[i].n, d);
        hex32(d, h);
        CHECK_STR(h, cases[i].want);
    }
}

/* RFC 4231 test cases 1, 2 and 6 (a key longer than the block is hashed first). */
static void test_hmac_sha256_rfc4231(void) {
    unsigned char k1[20], k6[131], d[32];
    char h[65];
    memset(k1, 0x0b, sizeof k1);
    memset(k6, 0xaa, sizeof k6);
    db_hmac_sha256(k1, sizeof k1, "Hi There", 8, d);
    hex32(d, h);
    CHECK_STR(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    db_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
    hex32(d, h);
    CHECK_STR(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    db_hmac_sha256(k6, sizeof k6, m6, strlen(m6), d);
    hex32(d, h);
    CHECK_STR(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

static int pragma_int(sqlite3 *h, const char *sql) {
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static long long file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) ? -1 : (long long)sb.st_size;
}

/* With the checkpointer the store's commits only append to the log: the
 * writer's automatic checkpoint is off, and the log still reaches the
 * database file -- by the thread, on its own connection. */
static void test_checkpoints_run_on_their_own_thread(void) {
    struct db *db = fresh("ckpt.db");
    REQUIRE(db);
    sqlite3 *w = db_sql_handle(db_conn(db));
    CHECK_INT(pragma_int(w, "PRAGMA wal_autocheckpoint"), DB_CKPT_FRAMES); /* SQLite's own, before */
    int64_t s = session(db);
    int64_t q = db_question_add(db, s, 0, 0, "{}", QKIND_SENT, "?", err, sizeof err);
    REQUIRE(q > 0);
    REQUIRE(db_question_set_state(db, q, "voting", err, sizeof err) == 0);
    long long before = file_size(path_in_tmp("ckpt.db"));
    REQUIRE(db_ckpt_start(db, err, sizeof err) == 0);
    REQUIRE(db_ckpt_start(db, err, sizeof err) == 0); /* again: a no-op */
    CHECK_INT(pragma_int(w, "PRAGMA wal_autocheckpoint"), 0); /* the commits no longer checkpoint */
    /* ~40 batches of 250 new voters and their votes: several thousand log
     * pages, each batch one transaction as the hub's group commit. */
    unsigned long done = 0;
    char why[256];
    int voters = 0;
    for (int b = 0; b < 40; b++) {
        REQUIRE(db_begin(db, err, sizeof err) == 0);
        for (int i = 0; i < 250; i++, voters++) {
            char token[64], hash[65];
            snprintf(token, sizeof token, "token-%08d-%032d", voters, voters * 7919);
            db_token_hash(token, hash);
            int64_t v = db_voter_add(db, s, hash, err, sizeof err); /* as the room's store: no lookup */
            REQUIRE(v > 0);
            CHECK_INT(db_vote_put(db, q, v, voters % 2, CONFIDENCE_NONE, err, sizeof err), DB_VOTE_OK);
        }
        REQUIRE(db_commit(db, err, sizeof err) == 0);
    }
    for (int i = 0; i < 500 && done == 0; i++) { /* a checkpoint takes milliseconds; 5 s at most */
        CHECK_INT(db_ckpt_status(db, &done, why, sizeof why), 1);
        if (!done) usleep(10000);
    }
    CHECK(done >= 1);
    CHECK_STR(why, "");
    long long after = file_size(path_in_tmp("ckpt.db"));
    if (after <= before + 1000000) fprintf(stderr, "database file %lld -> %lld bytes\n", before, after);
    CHECK(after > before + 1000000); /* the votes reached the file, not only the log */
    db_ckpt_stop(db);
    CHECK_INT(db_ckpt_status(db, &done, why, sizeof why), 0);
    CHECK_INT(pragma_int(w, "PRAGMA wal_autocheckpoint"), DB_CKPT_FRAMES); /* SQLite's own again */
    db_close(db);
    db = db_open(path_in_tmp("ckpt.db"), err, sizeof err);
    REQUIRE(db);
    CHECK_INT(pragma_int(db_sql_handle(db_conn(db)), "SELECT count(*) FROM votes"), voters);
    db_close(db);
}

int main(void) {
    RUN(test_fresh_file_is_created_at_latest_schema);
    RUN(test_reopen_keeps_data);
    RUN(test_vote_changed_twice_counts_once);
    RUN(test_votes_refused_unless_voting);
    RUN(test_voter_of_another_session_is_refused);
    RUN(test_scores_on_hand_computed_example);
    RUN(test_group_commit_rollback_loses_uncommitted_votes_only);
    RUN(test_checkpoints_run_on_their_own_thread);
    RUN(test_question_timestamps_are_stamped_once);
    RUN(test_corrupt_file_gives_clear_error);
    RUN(test_newer_schema_is_refused);
    RUN(test_read_only_file_gives_clear_error);
    RUN(test_missing_directory_gives_clear_error);
    RUN(test_token_hash_is_sha256);
    RUN(test_sha256_of_bytes);
    RUN(test_hmac_sha256_rfc4231);
    return check_summary();
}
