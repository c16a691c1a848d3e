/* The self-paced replay's answers (db.h "the self-paced replay"; schema
 * migration 10): stored apart from votes, read by no score. */
#include <sqlite3.h>
#include <stdint.h>

#include "db.h"
#include "db_internal.h"

/* The first answer is kept: the phone is shown the truth right after it. */
static const char replay_put_sql[] =
    "INSERT INTO replay_votes(question_id, token_hash, answer, voted_at) "
    "SELECT id, ?2, ?3, ?4 FROM questions WHERE id = ?1 AND state = 'revealed' "
    "ON CONFLICT(question_id, token_hash) DO NOTHING";
static const char replay_get_sql[] = "SELECT answer FROM replay_votes WHERE question_id = ? AND token_hash = ?";
static const char replay_count_sql[] =
    "SELECT count(*) FROM replay_votes r JOIN questions q ON q.id = r.question_id WHERE q.session_id = ?";

enum db_vote_result db_replay_vote_put(struct db *db, int64_t question_id, const char *token_hash, int yes,
                                       int *stored, int *added, char *err, size_t errlen) {
    struct db_sql_conn *c = db_conn(db);
    sqlite3 *h = db_sql_handle(c);
    sqlite3_stmt *st = NULL;
    *added = 0;
    if (sqlite3_prepare_v2(h, replay_put_sql, -1, &st, NULL) != SQLITE_OK)
        return (enum db_vote_result)db_sql_fail(c, err, errlen, "recording a replay answer");
    sqlite3_bind_int64(st, 1, question_id);
    sqlite3_bind_text(st, 2, token_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, yes ? 1 : 0);
    sqlite3_bind_double(st, 4, db_now());
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return (enum db_vote_result)db_sql_fail(c, err, errlen, "recording a replay answer");
    *added = sqlite3_changes(h) == 1;
    if (sqlite3_prepare_v2(h, replay_get_sql, -1, &st, NULL) != SQLITE_OK)
        return (enum db_vote_result)db_sql_fail(c, err, errlen, "reading a replay answer");
    sqlite3_bind_int64(st, 1, question_id);
    sqlite3_bind_text(st, 2, token_hash, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    *stored = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return DB_VOTE_OK;
    if (rc != SQLITE_DONE) return (enum db_vote_result)db_sql_fail(c, err, errlen, "reading a replay answer");
    db_seterr(err, errlen, "question %lld was not revealed: the replay has only the revealed ones",
              (long long)question_id);
    return DB_VOTE_REFUSED;
}

int64_t db_replay_count(struct db *db, int64_t session_id, char *err, size_t errlen) {
    struct db_sql_conn *c = db_conn(db);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db_sql_handle(c), replay_count_sql, -1, &st, NULL) != SQLITE_OK)
        return db_sql_fail(c, err, errlen, "counting the replay's answers");
    sqlite3_bind_int64(st, 1, session_id);
    int rc = sqlite3_step(st);
    int64_t n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return db_sql_fail(c, err, errlen, "counting the replay's answers");
    return n;
}
