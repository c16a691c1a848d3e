/* Reads the hub needs to resume a session after a restart (db/store_hub.c).
 * Each reads through the store's own connection (so a hub that opened its
 * files before dropping privileges opens none later, db_hold_files), calls fn per row, and stops early when fn returns
 * non-zero. Return 0, or -1 with err filled. */
#ifndef FRAGVOTE_DB_HUB_H
#define FRAGVOTE_DB_HUB_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* Questions of the session, by position (measuring: 1 if a measurement
 * was asked for and had not come back, db_question_set_measuring). */
int db_hub_questions_each(struct db *db, int64_t session_id,
                          int (*fn)(int64_t id, int position, const char *state, int measuring, void *arg), void *arg,
                          char *err, size_t errlen);
/* The newest live measurement of each measured question (observation: the
 * probe's result as stored, JSON text). */
int db_hub_truths_each(struct db *db, int64_t session_id,
                       int (*fn)(int64_t question_id, const char *answer, const char *basis, const char *evidence,
                                 const char *observation, void *arg),
                       void *arg, char *err, size_t errlen);
/* Voters of the session, ordered by id. */
int db_hub_voters_each(struct db *db, int64_t session_id, int (*fn)(int64_t id, const char *token_hash, void *arg),
                       void *arg, char *err, size_t errlen);
/* Votes of the session (confidence: its name, "" for none). */
int db_hub_votes_each(struct db *db, int64_t session_id,
                      int (*fn)(int64_t question_id, int64_t voter_id, int answer, const char *confidence, void *arg),
                      void *arg, char *err, size_t errlen);
/* Questions in their second round (re-vote), with the first round's yes/no
 * counts per confidence: a row per confidence among its first round's votes
 * ("" for those without one), one row ("", 0, 0) when it had none (the
 * final round's votes come with db_hub_votes_each). */
int db_hub_first_rounds_each(struct db *db, int64_t session_id,
                             int (*fn)(int64_t question_id, const char *confidence, int yes, int no, void *arg),
                             void *arg, char *err, size_t errlen);
/* Votes without a voter (a purged session's, db_session_purge), per
 * question position and confidence ("" none): how many said yes and no
 * (final round). The room resumes no voter to hold them; a replay of the
 * session adds them to its tallies. */
int db_hub_anonymous_votes_each(struct db *db, int64_t session_id,
                                int (*fn)(int position, const char *confidence, int yes, int no, void *arg), void *arg,
                                char *err, size_t errlen);

/* The session's token key (hex) into out; "" for a session made before
 * tokens were keyed. -1 when there is no such session. */
int db_hub_token_key(struct db *db, int64_t session_id, char *out, size_t outlen, char *err, size_t errlen);

#endif
