/* A recorded session whose measurements carry paths (issue 20), for the
 * exports' and the replay's path tables: recorded through the db_* API with
 * canned results (check_path.h). */
#ifndef FRAGVOTE_TEST_FIXTURE_PATHS_H
#define FRAGVOTE_TEST_FIXTURE_PATHS_H

#include <stdio.h>
#include <stdlib.h>

#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "probe_json.h"
#include "session_fixture.h"

/* A measured, revealed question whose observation is r's (with its path). */
static inline int64_t fx_path_question(struct db *db, int64_t sid_, int64_t live, int pos, int test,
                                       enum qkind k, const struct probe_result *r) {
    char err[256];
    int64_t q = fx_question(db, sid_, pos, test, "{\"proto\":\"udp4\",\"mode\":\"dont\",\"size\":1400,\"ttl\":2}", k,
                            "path question");
    char *obs = r ? probe_observation_json(r) : NULL;
    int bad = q < 0 || db_question_set_state(db, q, "voting", err, sizeof err) ||
              db_question_set_state(db, q, "closed", err, sizeof err) ||
              db_measurement_add(db, live, q, "yes", "observed", "evidence", obs ? obs : "{\"quoted_len\":1400}", "raw",
                                 err, sizeof err) < 0 ||
              db_question_set_state(db, q, "measured", err, sizeof err) ||
              db_question_set_state(db, q, "revealed", err, sizeof err);
    free(obs);
    if (bad) fprintf(stderr, "path fixture: %s\n", err);
    return bad ? -1 : q;
}

/* Test 1: r1 fragments (two questions share it); test 2: r1 drops it with
 * Frag Needed; test 3: a row from before issue 20 (no path). */
static inline int64_t fx_record_paths(const char *file) {
    char err[256];
    struct db *db = db_open(file, err, sizeof err);
    if (!db) return -1;
    struct db_session_info info = {.title = "paths", .deck_json = "{\"title\":\"paths\"}", .host = "laptop",
                                   .kernel = "Linux", .observer = "raw", .target = "lab", .room = "P4THS2"};
    int64_t s_ = db_session_create(db, &info, err, sizeof err), live = s_ < 0 ? -1 : db_session_live_set(db, s_, err, sizeof err);
    struct probe_result frag = check_probe_result(1, 0, 1, "r1 fragmented it"), fn = frag;
    check_path_fragmented_by_r1(&frag);
    check_path_dropped_at_r1(&fn);
    int bad = live < 0 || fx_path_question(db, s_, live, 0, 0, QKIND_SENT, &frag) < 0 ||
              fx_path_question(db, s_, live, 1, 0, QKIND_FRAGMENTED, &frag) < 0 ||
              fx_path_question(db, s_, live, 2, 1, QKIND_DF, &fn) < 0 || fx_path_question(db, s_, live, 3, 2, QKIND_SENT, NULL) < 0 ||
              db_session_end(db, s_, err, sizeof err);
    db_close(db);
    return bad ? -1 : s_;
}

/* Records the path session in fx_path("paths.db") (its path into file) and
 * runs `fragvote <command> ID <opts> --db file` (fx_run: *out, *errs).
 * Returns the session id, or -1 when recording or the run failed. */
static inline int64_t fx_paths_run(const char *command, const char *opts, char *file, size_t filelen, char **out,
                                   char **errs) {
    char args[700];
    snprintf(file, filelen, "%s", fx_path("paths.db"));
    int64_t id = fx_record_paths(file);
    if (id <= 0) return -1;
    snprintf(args, sizeof args, "%s %lld %s --db '%s'", command, (long long)id, opts, file);
    return fx_run(args, out, errs) == 0 && *out ? id : -1;
}

#endif
