/* fragvote store: one SQLite file holding sessions, questions, voters, votes
 * and measurements; scores are computed by SQL views (db/schema.sql).
 *
 * Conventions: every function that can fail takes `char *err, size_t errlen`
 * and on failure returns a negative value (or NULL) with a sentence in err,
 * ending with SQLite's own message where there is one. IDs are int64_t > 0.
 * A struct db is used by one thread at a time. */
#ifndef FRAGVOTE_DB_H
#define FRAGVOTE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "confidence.h"
#include "qkind.h"

/* The schema version this build writes (the last "-- migration: N" in schema.sql). */
int db_schema_latest(void);

struct db;

/* Opens (creating if missing) and migrates the database at path.
 * Returns NULL with err filled on failure: unreadable/corrupt file,
 * read-only file, newer schema than this build, failed migration.
 * Caller owns the result; release with db_close(). */
struct db *db_open(const char *path, char *err, size_t errlen);
void db_close(struct db *db);
/* Opens now every connection the program will use on db's file until
 * db_close, each with its -wal open (and the -shm beside them): the
 * store's, the checkpointer's (db_ckpt_start then uses it) and one report
 * reader (db_report_open hands it out while it is free). Reads from the
 * room's resume (db_hub.h) go through the store's own. For a process about
 * to lose access to the file's directory (serve's hub dropping from a root
 * shell to nobody, docs/PRIVILEGES.md): all its later I/O goes through
 * descriptors opened here. SQLite's removal of the -wal and -shm at the
 * last close then fails, which it ignores: the next open recovers the log
 * (it holds only what was checkpointed already). 0, or -1 with err. */
int db_hold_files(struct db *db, char *err, size_t errlen);
int db_version(struct db *db);            /* schema version of the open file */
const char *db_path(const struct db *db);
/* How long a statement waits for another process's lock before failing
 * (default DB_BUSY_MS). A live room sets it short (DB_BUSY_LIVE_MS): the
 * hub's thread must not stall every phone for seconds; a batch that cannot
 * commit is refused to its phones (never acked) and they may vote again. */
#define DB_BUSY_MS 5000
#define DB_BUSY_LIVE_MS 200
void db_set_busy_timeout(struct db *db, int ms);

/* Explicit transactions for group commit (hub batches votes in one). */
int db_begin(struct db *db, char *err, size_t errlen);
int db_commit(struct db *db, char *err, size_t errlen);
void db_rollback(struct db *db);

/* Current wall-clock time as stored (Unix seconds, ms precision). */
double db_now(void);

/* ---- sessions ---- */
struct db_session_info {
    const char *title, *deck_json, *host, *kernel, *observer, *target, *lab_json, *room;
    const char *token_key;             /* hex key that authenticates the voter tokens (NULL: none) */
};
/* Creates a session and its live measurement set; returns its id. */
int64_t db_session_create(struct db *db, const struct db_session_info *info, char *err, size_t errlen);
int db_session_set_cursor(struct db *db, int64_t session_id, int position, char *err, size_t errlen);
int db_session_end(struct db *db, int64_t session_id, char *err, size_t errlen);
/* A session that has not started takes another deck (a remote prober's,
 * issue 17): its title and stored deck are replaced and its questions
 * removed (the caller adds the new deck's, in the same transaction). Only
 * for a session with no votes or measurements: they would go with the
 * questions. */
int db_session_redeck(struct db *db, int64_t session_id, const char *title, const char *deck_json, char *err,
                      size_t errlen);
/* The machine that measures the session: a remote prober's host, kernel,
 * observer, target and lab layout (f's other fields unused), as it says when
 * it connects (serve --prober remote). The session takes its host, kernel
 * and observer (its target stays "remote", which --resume checks); its live
 * measurement set takes host, kernel, target and lab, so an export and
 * `replay --remeasure` name the laptop, not the hub. */
int db_session_set_prober(struct db *db, int64_t session_id, const struct db_session_info *f, char *err,
                          size_t errlen);
/* Sets the session's token key (hex; a session made before keys had none).
 * Read it back with db_hub_token_key (db_hub.h). */
int db_session_set_token_key(struct db *db, int64_t session_id, const char *key_hex, char *err, size_t errlen);
/* The live measurement set of a session (created with it). */
int64_t db_session_live_set(struct db *db, int64_t session_id, char *err, size_t errlen);

/* A row of sessions, for listing and resuming. Strings are owned by the
 * struct; release with db_session_row_free(). */
struct db_session_row {
    int64_t id;
    char *title, *deck_json, *host, *kernel, *observer, *target, *lab_json, *room;
    int cursor;
    double started_at, ended_at; /* ended_at 0 while running */
    int questions, voters;       /* voters: who joined, those a purge deleted included */
    double collective;           /* collective score 0..1, or -1 if no question scored */
    double purged_at;            /* when its voters were last purged (db_session_purge), 0 never */
};
void db_session_row_free(struct db_session_row *row);
/* Fills *out for one session; returns 0, or -1 (not found / error). */
int db_session_get(struct db *db, int64_t session_id, struct db_session_row *out, char *err, size_t errlen);
/* Calls fn for every session, oldest first; stops early if fn returns non-zero. */
int db_session_each(struct db *db, int (*fn)(const struct db_session_row *row, void *arg), void *arg,
                    char *err, size_t errlen);

/* ---- retention (purge.c; docs/PRIVACY.md) ----
 * A purge deletes a session's voters (their rows: the hash of each phone's
 * token, when it joined) and the session's token key, and keeps every vote
 * as an anonymous row (voter_id NULL): answer, time, changes, round. What
 * the reports count per voter is kept first as numbers of the session: how
 * many voters joined (db_session_row.voters, db_sscore.voters count them
 * still) and the score distribution (report.h's db_report_dist). So every
 * tally, score, export and replay of the session reads as before; only
 * per-voter scores (db_voter_score) are gone. Only an ended session is
 * purged: a running one's room holds its voters in memory. The deleted
 * rows are overwritten (secure_delete) and the write-ahead log copied
 * back and truncated, so the file no longer holds them. */
struct db_purge {
    int sessions;      /* sessions purged */
    int voters;        /* voters deleted */
    int running;       /* db_purge_before: sessions old enough that have not ended, left alone */
    int scrubbed;      /* 1: the write-ahead log was emptied; 0: another connection (a running
                          serve, a reader) kept part of it, which the next checkpoint overwrites */
};
/* Purges one session (again: then no voter is left to delete). 0 with *out;
 * 1 refused: it has not ended (err says why); -1 no such session or an
 * error (nothing changed). */
int db_session_purge(struct db *db, int64_t session_id, struct db_purge *out, char *err, size_t errlen);
#define DB_PURGE_BATCH 64 /* sessions chosen per query of db_purge_before */
/* Purges every ended session that started before `before` (Unix seconds)
 * and was never purged, oldest first, each in its own transaction; fn(id,
 * voters deleted, arg) after each (NULL: none; non-zero stops). 0 with
 * *out; -1 with err (the sessions purged until then stay purged). */
int db_purge_before(struct db *db, double before, int (*fn)(int64_t id, int voters, void *arg), void *arg,
                    struct db_purge *out, char *err, size_t errlen);

/* ---- questions ---- */
/* A question's kind (sent, df, fragmented) is qkind.h's enum qkind; its
 * stored name is qkind_name's. */
int64_t db_question_add(struct db *db, int64_t session_id, int position, int test_index,
                        const char *spec_json, enum qkind kind, const char *text,
                        char *err, size_t errlen);
/* Records a state change ("pending", "voting", "closed", "measured",
 * "revealed", "skipped"); stamps opened_at/closed_at/revealed_at on the first
 * entry to voting/closed/revealed. */
int db_question_set_state(struct db *db, int64_t question_id, const char *state, char *err, size_t errlen);
/* Whether a measurement of the question is in flight (asked, not answered):
 * serve --resume asks again for those. */
int db_question_set_measuring(struct db *db, int64_t question_id, int measuring, char *err, size_t errlen);

/* Opens the second round of a closed question (re-vote, docs/SCORING.md):
 * in one transaction (a savepoint, so also inside a caller's) the question
 * goes to round 2 and state "voting", and its votes move to round_votes
 * (round 1), leaving votes empty for the final round. Returns 0; 1 refused
 * (not closed, or already in round 2) with the reason in err; -1 error
 * (nothing changed). */
int db_question_revote(struct db *db, int64_t question_id, char *err, size_t errlen);

/* ---- voters and votes ---- */
/* SHA-256 of len bytes (out: 32 bytes). */
void db_sha256(const void *data, size_t len, unsigned char out[32]);
/* HMAC-SHA256 (RFC 2104) of msg under key (out: 32 bytes). */
void db_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t msglen, unsigned char out[32]);
/* Hex SHA-256 of a token, as stored (out: 65 bytes). */
void db_token_hash(const char *token, char out[65]);
/* Finds or creates the voter with this token in the session; returns its
 * id. For tools and tests: the lookup reads every voter of the session (no
 * index by token since schema 6; the room keeps tokens in memory). */
int64_t db_voter_join(struct db *db, int64_t session_id, const char *token, char *err, size_t errlen);
/* Adds a voter with this token hash; returns its id, or -1. The caller
 * keeps a token to one voter per session (the room does, in memory): the
 * table does not check it. */
int64_t db_voter_add(struct db *db, int64_t session_id, const char *token_hash, char *err, size_t errlen);

enum db_vote_result { DB_VOTE_OK = 0, DB_VOTE_REFUSED = 1, DB_VOTE_ERROR = -1 };
/* Records (or changes) a voter's vote, its answer and its confidence in one
 * statement (CONFIDENCE_NONE: stored NULL; a changed vote takes the new
 * confidence, none included; `changes` counts changed answers only).
 * REFUSED (with a reason in err) when the question is not open for voting
 * or voter and question belong to different sessions. A vote is durable
 * once the enclosing transaction (or this statement, outside one) has
 * committed. */
enum db_vote_result db_vote_put(struct db *db, int64_t question_id, int64_t voter_id, int yes, enum confidence conf,
                                char *err, size_t errlen);
/* The voter's current vote on a question: 1 yes, 0 no, -1 none. */
int db_vote_get(struct db *db, int64_t question_id, int64_t voter_id);

/* ---- the self-paced replay (replay_store.c; docs/SERVE.md "After the talk") ----
 * A phone's answers to the replay of an ended session, apart from votes:
 * no score, export or league reads them. */
/* Records a phone's (token_hash's) answer to a revealed question; its first
 * answer is kept. OK with *stored the answer kept (1/0) and *added 1 when
 * this call stored it; REFUSED (err) when the question is not revealed;
 * ERROR (err). Durable once the enclosing transaction commits. */
enum db_vote_result db_replay_vote_put(struct db *db, int64_t question_id, const char *token_hash, int yes,
                                       int *stored, int *added, char *err, size_t errlen);
/* How many replay answers session_id has, or -1 with err. */
int64_t db_replay_count(struct db *db, int64_t session_id, char *err, size_t errlen);

/* ---- measurements ---- */
int64_t db_measurement_set_add(struct db *db, int64_t session_id, const char *kind, const char *host,
                               const char *kernel, const char *target, const char *lab_json,
                               char *err, size_t errlen);
int64_t db_measurement_add(struct db *db, int64_t set_id, int64_t question_id, const char *answer,
                           const char *basis, const char *evidence, const char *observation_json,
                           const char *observer, char *err, size_t errlen);

/* ---- scores (docs/SCORING.md) ---- */
struct db_qscore {
    int yes, no;
    char truth[8];     /* "yes" / "no" / "unknown" / "" (not measured) */
    char majority[4];  /* "yes" / "no" / "tie" / "" (no votes) */
    double correct;    /* 1, 0, 0.5 (tie), or -1 unscored */
};
int db_question_score(struct db *db, int64_t question_id, struct db_qscore *out, char *err, size_t errlen);

struct db_sscore {
    int questions;        /* questions in the session */
    int scored;           /* questions with votes and a known truth */
    double collective;    /* mean of question correctness over scored, or -1 */
    int votes_scored;     /* votes on questions with a known truth */
    int votes_correct;
    double vote_accuracy; /* votes_correct / votes_scored, or -1 */
    int voters;           /* voters who joined */
};
int db_session_score(struct db *db, int64_t session_id, struct db_sscore *out, char *err, size_t errlen);

struct db_vscore { int answered, scored, correct; };
int db_voter_score(struct db *db, int64_t voter_id, struct db_vscore *out, char *err, size_t errlen);

#endif
