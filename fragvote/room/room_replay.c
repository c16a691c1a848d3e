/* The self-paced replay after the talk (room.h "the self-paced replay";
 * docs/SERVE.md "After the talk"): when a phone may play it, and its
 * answers through the group commit, stored apart from the votes (db.h
 * db_replay_vote_put) so nothing of the live room changes. */
#include <limits.h>
#include <string.h>

#include "db.h"
#include "fv_err.h"
#include "room_internal.h"

void room_set_recorded(struct room *r) { r->replay.recorded = 1; }

int room_replay_open(const struct room *r) { return r->replay.recorded || quiz_ended(r->quiz); }

int room_replay_check(const struct room *r, long long pos, char *err, size_t errlen) {
    struct quiz_qinfo i;
    if (!room_replay_open(r)) return fv_fail(err, errlen, "the replay opens when the talk has ended");
    if (pos < 0 || pos >= quiz_count(r->quiz) || quiz_get(r->quiz, (int)pos, &i))
        return fv_fail(err, errlen, "there is no question %lld", pos + (pos < LLONG_MAX));
    if (i.state != QUIZ_REVEALED)
        return fv_fail(err, errlen, "question %lld was not revealed: the replay has only the revealed ones", pos + 1);
    return 0;
}

int room_write_plan_replay(struct room *r, struct room_write *w, const char *token, int pos, int yes,
                           int in_batch, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    w->replay = 1;
    w->voter = -1;
    w->pos = pos;
    w->yes = yes ? 1 : 0;
    if (!token || !room_token_issued(r, token)) return fv_fail(err, errlen, "not a voter token of this room"), 1;
    if (room_replay_check(r, pos, err, errlen)) return 1;
    if (!r->replay.counted) { /* first asked: the answers stored before (a resumed session's) */
        char derr[256];
        int64_t n = db_replay_count(r->db, r->session_id, derr, sizeof derr);
        if (n < 0) return fv_fail(err, errlen, "%s", derr), 1;
        r->replay.answers = n;
        r->replay.counted = 1;
    }
    if (r->replay.answers + in_batch >= ROOM_REPLAY_ANSWERS_MAX)
        return fv_fail(err, errlen, "the replay is full (%d answers kept)", ROOM_REPLAY_ANSWERS_MAX), 1;
    db_token_hash(token, w->hash);
    w->qid = r->qid[pos];
    return 0;
}

void room_replay_run(struct room *r, struct room_write *w) {
    int stored = -1, added = 0;
    enum db_vote_result v = db_replay_vote_put(r->db, w->qid, w->hash, w->yes, &stored, &added, w->err, sizeof w->err);
    w->result = v == DB_VOTE_OK ? 0 : v == DB_VOTE_REFUSED ? 1 : -1;
    if (v == DB_VOTE_OK) w->yes = stored;
    w->new_id = added;
}

void room_replay_apply(struct room *r, const struct room_write *w) {
    if (!w->result && w->new_id > 0) r->replay.answers++;
}
