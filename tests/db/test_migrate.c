/* Opening databases of other schema versions with the read commands
 * (sessions, replay, export): an older file is migrated and its recorded
 * numbers read back; a newer file is refused with a clear message and left
 * as it was; a migration that fails leaves the file at its old version. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "db.h"
#include "hubfix.h"
#include "session_fixture.h"

/* Runs sql on the file at path (created if missing); returns 0 or -1. */
static int raw_exec(const char *path, const char *sql) {
    sqlite3 *h;
    if (sqlite3_open(path, &h) != SQLITE_OK) return -1;
    char *msg = NULL;
    int rc = sqlite3_exec(h, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) fprintf(stderr, "sql: %s\n", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(h);
    return rc == SQLITE_OK ? 0 : -1;
}

/* Each query of want (up to a NULL sql) on the file returns its number
 * (hubfix_sql_int: -1 when it returns none). */
struct sql_want {
    const char *sql;
    long long n;
};

static void check_sql(const char *path, const struct sql_want *want) {
    for (const struct sql_want *w = want; w->sql; w++) {
        long long got = hubfix_sql_int(path, w->sql);
        CHECK_INT(got, w->n);
        if (got != w->n) fprintf(stderr, "  (the query: %s)\n", w->sql);
    }
}

/* `fragvote ` and fmt with path for its %s: its exit status must be rc; its
 * stdout and stderr into *out and *errs (the caller frees both). */
static void cmd(const char *fmt, const char *path, int rc, char **out, char **errs) {
    char args[512];
    snprintf(args, sizeof args, fmt, path);
    CHECK_INT(fx_run(args, out, errs), rc);
}

/* The words a command's stdout (out) and stderr (errs) must hold, up to a
 * NULL each; "" as the only entry: that stream must be empty. */
struct says {
    const char *out[4], *errs[4];
};

static void check_stream(const char *text, const char *const want[]) {
    if (want[0] && !want[0][0]) CHECK_STR(text, "");
    for (int i = 0; want[i] && want[i][0]; i++) CHECK_CONTAINS(text, want[i]);
}

/* cmd, then what its streams say (struct says). */
static void cmd_says(const char *fmt, const char *path, int rc, struct says want) {
    char *out, *errs;
    cmd(fmt, path, rc, &out, &errs);
    check_stream(out, want.out);
    check_stream(errs, want.errs);
    free(out);
    free(errs);
}

/* The text of "-- migration: N" in the source tree's schema.sql (malloc'd). */
static char *migration_text(int n) {
    const char *src = getenv("FRAGVOTE_SRC");
    if (!src) return NULL;
    char path[512], mark[64];
    snprintf(path, sizeof path, "%s/db/schema.sql", src);
    char *all = fx_slurp(path);
    if (!all) return NULL;
    snprintf(mark, sizeof mark, "-- migration: %d\n", n);
    char *start = strstr(all, mark);
    if (!start) { free(all); return NULL; }
    start += strlen(mark);
    char *end = strstr(start, "-- migration: ");
    size_t len = end ? (size_t)(end - start) : strlen(start);
    char *out = malloc(len + 1);
    if (out) { memcpy(out, start, len); out[len] = '\0'; }
    free(all);
    return out;
}

/* Runs "-- migration: v" of the source tree's schema.sql on the file at
 * path, as written (the version row is the caller's). 0, or -1. */
static int apply_migration(const char *path, int v) {
    char *m = migration_text(v);
    if (!m) {
        fprintf(stderr, "cannot read migration %d from $FRAGVOTE_SRC/db/schema.sql\n", v);
        return -1;
    }
    int rc = raw_exec(path, m);
    free(m);
    return rc;
}

/* A file exactly as a version-1 fragvote wrote it: migration 1 applied, then
 * one session recorded with plain SQL (two questions, three voters):
 *   Q1 truth yes, votes Y Y N -> right ; Q2 truth yes, votes N N N -> wrong
 *   collective 0.5 ; vote accuracy (2 + 0) / 6 */
static int make_v1_file(const char *path) {
    if (apply_migration(path, 1)) return -1;
    return raw_exec(path,
        "UPDATE schema_version SET version = 1;"
        "INSERT INTO sessions(id, title, deck, host, kernel, observer, target, started_at, ended_at)"
        "  VALUES (1, 'Talk of last year', '{}', 'old-laptop', 'Linux 5.10', 'raw', 'lab', 1700000000.0, 1700003600.0);"
        "INSERT INTO questions(id, session_id, position, test_index, spec, kind, text, state, opened_at, closed_at, revealed_at)"
        "  VALUES (1, 1, 0, 0, '{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400}', 'sent', 'Is it sent?', 'revealed',"
        "          1700000060.0, 1700000090.5, 1700000100.0),"
        "         (2, 1, 1, 0, '{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400}', 'df', 'Is DF set?', 'revealed',"
        "          1700000200.0, 1700000230.0, 1700000240.0);"
        "INSERT INTO voters(id, session_id, token_hash, joined_at) VALUES"
        "  (1, 1, 'aa', 1700000001.0), (2, 1, 'bb', 1700000002.0), (3, 1, 'cc', 1700000003.0);"
        "INSERT INTO votes(question_id, voter_id, answer, voted_at) VALUES"
        "  (1, 1, 1, 1700000070.0), (1, 2, 1, 1700000071.0), (1, 3, 0, 1700000072.0),"
        "  (2, 1, 0, 1700000210.0), (2, 2, 0, 1700000211.0), (2, 3, 0, 1700000212.0);"
        "INSERT INTO measurement_sets(id, session_id, kind, host, kernel, target, created_at)"
        "  VALUES (1, 1, 'live', 'old-laptop', 'Linux 5.10', 'lab', 1700000000.0);"
        "INSERT INTO measurements(set_id, question_id, answer, basis, evidence, observation, observer, measured_at) VALUES"
        "  (1, 1, 'yes', 'observed', 'sent whole, DF=1', '{}', 'raw', 1700000095.0),"
        "  (1, 2, 'yes', 'observed', 'DF=1 on the wire', '{}', 'raw', 1700000235.0);");
}

/* `fragvote export 1 --format json` of the file at path, parsed; NULL (a
 * failed check) unless it exits 0 with nothing on stderr. */
static json_t *export_json(const char *path) {
    char *out, *errs;
    cmd("export 1 --format json --db '%s'", path, 0, &out, &errs);
    CHECK_STR(errs, "");
    json_t *root = json_loads(out ? out : "", 0, NULL);
    free(out);
    free(errs);
    return root;
}

static void test_v1_file_is_migrated_and_read(void) {
    const char *path = fx_path("v1.db");
    REQUIRE(make_v1_file(path) == 0);
    CHECK_INT(hubfix_sql_int(path, "SELECT version FROM schema_version"), 1);
    json_t *root = export_json(path);
    REQUIRE(root);
    json_t *s = json_array_get(json_object_get(root, "sessions"), 0);
    json_t *sc = json_object_get(s, "score");
    CHECK(json_real_value(json_object_get(sc, "collective")) == 0.5);
    CHECK(json_real_value(json_object_get(sc, "vote_accuracy")) == 2.0 / 6);
    CHECK_INT(json_integer_value(json_object_get(s, "voters")), 3);
    json_t *q0 = json_array_get(json_object_get(s, "questions"), 0);
    CHECK_INT(json_integer_value(json_object_get(q0, "yes")), 2);
    CHECK_INT(json_integer_value(json_object_get(q0, "no")), 1);
    CHECK_STR(json_string_value(json_object_get(q0, "truth")), "yes");
    CHECK_STR(json_string_value(json_object_get(q0, "opened_at")), "2023-11-14T22:14:20.000Z");
    CHECK_STR(json_string_value(json_object_get(q0, "closed_at")), "2023-11-14T22:14:50.500Z");
    json_decref(root);
    /* The file now carries this build's schema version. */
    CHECK_INT(hubfix_sql_int(path, "SELECT version FROM schema_version"), db_schema_latest());

    cmd_says("replay 1 --db '%s'", path, 0, (struct says){.out = {"votes     yes 2 · no 1 (3 votes) · majority yes", "votes     yes 0 · no 3 (3 votes) · majority no", "opened 1:00 · closed 1:31 (voting 30.5 s)"}, .errs = {NULL}});
}

/* The v1 file brought to version 5 by migrations 2-5 as they are written,
 * with a first round kept for question 1 (migration 3's round_votes). */
static int make_v5_file(const char *path) {
    if (make_v1_file(path)) return -1;
    for (int v = 2; v <= 5; v++)
        if (apply_migration(path, v)) return -1;
    return raw_exec(path, "UPDATE schema_version SET version = 5;"
                          "INSERT INTO round_votes(question_id, voter_id, round, answer, voted_at)"
                          "  VALUES (1, 3, 1, 1, 1700000065.0);");
}

/* Migration 6 rebuilds the voters table without its index by token hash
 * (a new voter's INSERT no longer dirties a random index page): every
 * voter keeps its id and hash, and no vote of either round goes with the
 * old table (foreign keys are off during migrations: with them on, the
 * DROP would cascade into votes and round_votes). */
static void test_v5_file_keeps_every_voter_and_vote_through_the_rebuild(void) {
    const char *path = fx_path("v5.db");
    REQUIRE(make_v5_file(path) == 0);
    CHECK_INT(hubfix_sql_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'voters'"), 1);
    cmd_says("sessions --db '%s'", path, 0, (struct says){.out = {"Talk of last year"}, .errs = {""}});
    check_sql(path, (const struct sql_want[]){
        {"SELECT version FROM schema_version", db_schema_latest()},
        {"SELECT count(*) FROM voters", 3},
        {"SELECT count(*) FROM voters WHERE (id, token_hash) IN (VALUES (1, 'aa'), (2, 'bb'), (3, 'cc'))", 3},
        {"SELECT count(*) FROM votes", 6},
        {"SELECT count(*) FROM round_votes", 1},
        {"SELECT count(*) FROM pragma_foreign_key_check", 0},
        /* one index on voters now, by session; the view over it still reads */
        {"SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'voters'", 1},
        {"SELECT count(*) FROM sqlite_master WHERE name = 'voters_session'", 1},
        {"SELECT sum(correct) FROM voter_score", 2},
        {NULL, 0}});
}

/* Migration 7 (issue 34) rebuilds the measurements table so its basis may
 * be 'rule': every measurement keeps its id and fields, the score views
 * read as before, and a truth decided by a rule is stored and replayed. */
static void test_v6_file_keeps_every_measurement_and_takes_a_rule(void) {
    const char *path = fx_path("v6.db");
    REQUIRE(make_v5_file(path) == 0);
    REQUIRE(apply_migration(path, 6) == 0);
    REQUIRE(raw_exec(path, "UPDATE schema_version SET version = 6;") == 0);
    CHECK(raw_exec(path, "INSERT INTO measurements(set_id, question_id, answer, basis, evidence, observation, observer,"
                         " measured_at) VALUES (1, 1, 'no', 'rule', 'e', '{}', 'raw', 1.0);") != 0); /* not yet */
    cmd_says("sessions --db '%s'", path, 0, (struct says){.out = {NULL}, .errs = {""}});
    check_sql(path, (const struct sql_want[]){
        {"SELECT version FROM schema_version", db_schema_latest()},
        {"SELECT count(*) FROM measurements WHERE (id, question_id, answer, basis) IN" " (VALUES (1, 1, 'yes', 'observed'), (2, 2, 'yes', 'observed'))", 2},
        {"SELECT count(*) FROM pragma_foreign_key_check", 0},
        {"SELECT sum(correct) FROM voter_score", 2},
        {"SELECT count(*) FROM question_score WHERE correct IS NOT NULL", 2},
        {NULL, 0}});
    /* A rule's truth is stored, scored and replayed as such. */
    REQUIRE(raw_exec(path, "INSERT INTO measurements(set_id, question_id, answer, basis, evidence, observation, observer,"
                           " measured_at) VALUES (1, 2, 'no', 'rule', 'it left the host whole and with DF=1 no router"
                           " may fragment it (rule)', '{}', 'raw', 1700000236.0);") == 0);
    cmd_says("replay 1 --db '%s'", path, 0, (struct says){.out = {"truth     no (rule, raw observer)"}, .errs = {NULL}});
    CHECK_INT(hubfix_sql_int(path, "SELECT sum(correct) FROM voter_score"), 5); /* question 2's truth is now no: 3 more right */
}

/* Migration 9 (issue 37, item 5) gives votes and round_votes a confidence:
 * a version-8 file's votes keep theirs as none, so the old session still
 * replays and exports as before with no calibration; the column takes only
 * the three levels. */
static void test_v8_file_has_votes_without_confidence(void) {
    const char *path = fx_path("v8.db");
    REQUIRE(make_v5_file(path) == 0);
    for (int v = 6; v <= 8; v++) REQUIRE(apply_migration(path, v) == 0);
    REQUIRE(raw_exec(path, "UPDATE schema_version SET version = 8;") == 0);
    CHECK_INT(hubfix_sql_int(path, "SELECT count(*) FROM pragma_table_info('votes') WHERE name = 'confidence'"), 0);
    char args[512], *out, *errs;
    json_t *root = export_json(path);
    REQUIRE(root);
    json_t *s = json_array_get(json_object_get(root, "sessions"), 0);
    CHECK(json_is_null(json_object_get(s, "calibration")));
    CHECK(json_real_value(json_object_get(json_object_get(s, "score"), "collective")) == 0.5);
    json_t *q0 = json_array_get(json_object_get(s, "questions"), 0);
    CHECK(json_is_null(json_object_get(q0, "confidence")));
    CHECK_INT(json_integer_value(json_object_get(q0, "yes")), 2);
    json_decref(root);
    check_sql(path, (const struct sql_want[]){
        {"SELECT version FROM schema_version", db_schema_latest()},
        {"SELECT count(*) FROM votes WHERE confidence IS NULL", 6},
        {"SELECT count(*) FROM round_votes WHERE confidence IS NULL", 1},
        {NULL, 0}});
    CHECK(raw_exec(path, "UPDATE votes SET confidence = 'maybe' WHERE id = 1;") != 0);
    CHECK(raw_exec(path, "UPDATE votes SET confidence = 'think_so' WHERE id = 1;") == 0);
    CHECK(raw_exec(path, "UPDATE votes SET confidence = NULL WHERE id = 1;") == 0);
    cmd_says("replay 1 --db '%s'", path, 0, (struct says){.out = {"votes     yes 2 · no 1 (3 votes) · majority yes"}, .errs = {NULL}});
    const char *formats[] = {"csv", "markdown", "svg"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "export 1 --format %s --db '%s'", formats[i], path);
        CHECK_INT(fx_run(args, &out, &errs), 0);
        CHECK(!strstr(out ? out : "", "calibration,") && !strstr(out ? out : "", "Brier") &&
              !strstr(out ? out : "", "class=\"calibration\""));
        free(out);
        free(errs);
    }
}

/* A migration that would leave a reference dangling is rolled back: a
 * vote of a voter that is not there (written around fragvote, with the
 * foreign keys off) stops migration 6, which says so, and the file stays
 * at version 5 as it was. */
static void test_a_migration_leaving_a_reference_dangling_is_rolled_back(void) {
    const char *path = fx_path("dangling.db");
    REQUIRE(make_v5_file(path) == 0);
    REQUIRE(raw_exec(path, "INSERT INTO votes(question_id, voter_id, answer, voted_at) VALUES (2, 99, 1, 1700000213.0);") == 0);
    cmd_says("sessions --db '%s'", path, 7, (struct says){.out = {NULL}, .errs = {"migration to version 6: a row of votes refers to a missing row of voters"}});
    check_sql(path, (const struct sql_want[]){
        {"SELECT version FROM schema_version", 5},
        {"SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_autoindex_voters_1'", 1},
        {"SELECT count(*) FROM votes", 7},
        {NULL, 0}});
}

/* Version 0: an SQLite file fragvote never wrote to (no schema_version). */
static void test_version0_file_is_migrated(void) {
    const char *path = fx_path("v0.db");
    REQUIRE(raw_exec(path, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('keep me');") == 0);
    cmd_says("sessions --db '%s'", path, 0, (struct says){.out = {"No sessions"}, .errs = {NULL}});
    check_sql(path, (const struct sql_want[]){
        {"SELECT version FROM schema_version", db_schema_latest()},
        {"SELECT count(*) FROM sqlite_master WHERE name = 'question_score'", 1},
        {"SELECT count(*) FROM notes", 1},
        {NULL, 0}});
}

/* A version-0 file whose own "sessions" table collides with migration 1:
 * the migration fails, the message says which, and the file stays at version 0. */
static void test_failed_migration_leaves_file_unchanged(void) {
    const char *path = fx_path("clash.db");
    REQUIRE(raw_exec(path, "CREATE TABLE sessions (who TEXT); INSERT INTO sessions VALUES ('mine');") == 0);
    cmd_says("export --all --db '%s'", path, 7, (struct says){.out = {""}, .errs = {"migration to version 1", "sessions"}});
    check_sql(path, (const struct sql_want[]){
        {"SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'", 0},
        {"SELECT count(*) FROM sqlite_master WHERE name = 'questions'", 0},
        {"SELECT count(*) FROM sessions", 1},
        {NULL, 0}});
}

static void test_newer_file_is_refused_by_every_read_command(void) {
    const char *path = fx_path("newer.db");
    char err[256];
    struct db *db = db_open(path, err, sizeof err);
    REQUIRE(db);
    int64_t q[FX_NQ];
    REQUIRE(fx_record(db, "From the future", q) > 0);
    db_close(db);
    int newer = db_schema_latest() + 1;
    char sql[128], want[128];
    snprintf(sql, sizeof sql, "UPDATE schema_version SET version = %d", newer);
    REQUIRE(raw_exec(path, sql) == 0);
    snprintf(want, sizeof want, "schema version %d; this build knows up to %d", newer, db_schema_latest());
    static const char *const cmds[] = {"sessions", "replay 1", "export 1", "export --all -f json"};
    for (int i = 0; i < 4; i++) {
        char args[512], *out, *errs;
        snprintf(args, sizeof args, "%s --db '%s'", cmds[i], path);
        CHECK_INT(fx_run(args, &out, &errs), 7);
        CHECK_CONTAINS(errs, "newer fragvote");
        CHECK_CONTAINS(errs, want);
        CHECK_STR(out, "");
        free(out);
        free(errs);
    }
    check_sql(path, (const struct sql_want[]){
        {"SELECT version FROM schema_version", newer},
        {"SELECT count(*) FROM votes", 16},
        {NULL, 0}});
}

int main(void) {
    RUN(test_v1_file_is_migrated_and_read);
    RUN(test_v5_file_keeps_every_voter_and_vote_through_the_rebuild);
    RUN(test_v6_file_keeps_every_measurement_and_takes_a_rule);
    RUN(test_v8_file_has_votes_without_confidence);
    RUN(test_a_migration_leaving_a_reference_dangling_is_rolled_back);
    RUN(test_version0_file_is_migrated);
    RUN(test_failed_migration_leaves_file_unchanged);
    RUN(test_newer_file_is_refused_by_every_read_command);
    return check_summary_and_clean();
}
