/* The room's group commit (room.h): the one "may vote" rule and the one
 * way votes and voters are written, room_write_plan/run/apply (the SQL on
 * the hub's store thread; room_write_commit runs and applies at once). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "db_ckpt.h"
#include "db_hub.h"
#include "fv_err.h"
#include "room_internal.h"

/* room.h keeps the store out of its includers' reach, so it spells the live
 * busy timeout itself; it is the store's. */
_Static_assert(ROOM_BUSY_LIVE_MS == DB_BUSY_LIVE_MS, "the room's live busy timeout is db.h's DB_BUSY_LIVE_MS");

int room_vote_check(const struct room *r, long long pos, char *err, size_t errlen) {
    const struct quiz *q = r->quiz;
    struct quiz_qinfo i;
    if (pos < 0 || pos >= quiz_count(q) || quiz_get(q, (int)pos, &i))
        return fv_fail(err, errlen, "there is no question %lld", pos + (pos < LLONG_MAX));
    if (i.state != QUIZ_VOTING || quiz_ended(q) || pos != quiz_cursor(q))
        return fv_fail(err, errlen, "question %lld is %s, not open for voting", pos + 1, quiz_state_name(i.state));
    return 0;
}

/* The voter of a write: voter (the room's index), or when -1 token's (a
 * voter the room does not know is new: w->voter stays -1, and token must be
 * one the room issued), or when ROOM_VOTER_CHECKED the same without that
 * check (the caller made it: room.h). 0, or 1 refused with err. */
static int plan_voter(struct room *r, struct room_write *w, int voter, const char *token, int new_in_batch,
                      char *err, size_t errlen) {
    int checked = voter == ROOM_VOTER_CHECKED;
    if (checked) voter = -1;
    if (voter < 0 && token) { /* hashed once: the store and room_write_apply use w->hash */
        db_token_hash(token, w->hash);
        voter = room_voter_find_hash(&r->voters, w->hash);
    }
    w->voter = voter;
    if (voter < 0) {
        if (!token || (!checked && !room_token_issued(r, token)))
            return fv_fail(err, errlen, "not a voter token of this room"), 1;
        if (r->voters.n + new_in_batch >= ROOM_VOTERS_MAX)
            return fv_fail(err, errlen, "the room is full (%d voters)", ROOM_VOTERS_MAX), 1;
    } else if (voter >= r->voters.n) {
        return fv_fail(err, errlen, "unknown voter"), 1;
    } else {
        w->voter_id = r->voters.v[voter].id;
    }
    return 0;
}

int room_write_plan(struct room *r, struct room_write *w, int voter, const char *token, int pos, int yes,
                    enum confidence conf, int new_in_batch, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    w->pos = pos;
    w->yes = yes ? 1 : 0;
    if ((unsigned)conf >= CONFIDENCE_LEVELS) return fv_fail(err, errlen, "not a confidence level"), 1;
    w->conf = conf;
    if (plan_voter(r, w, voter, token, new_in_batch, err, errlen)) return 1;
    if (room_vote_check(r, pos, err, errlen)) return 1;
    w->qid = r->qid[pos];
    return 0;
}

int room_write_plan_join(struct room *r, struct room_write *w, const char *token, int new_in_batch, char *err,
                         size_t errlen) {
    memset(w, 0, sizeof *w);
    w->pos = -1; /* no vote: room_vote_check refuses -1, so only a join carries it */
    return plan_voter(r, w, -1, token, new_in_batch, err, errlen);
}

/* A batch may carry a new voter's first vote twice (the phone changed it
 * within the batch, or two tabs share the token), and the voters table
 * does not keep tokens unique (schema 6): the room does. first[i] is the
 * earliest write of the batch with w[i]'s hash, i itself for the first,
 * -1 for a known voter. An open-addressing table over the batch: linear,
 * not a comparison of every pair. 0, or -1 (out of memory). */
static int link_new_voters(const struct room_write *w, int n, int *first) {
    unsigned size = 16;
    while (size < 2u * (unsigned)n) size *= 2;
    int *slot = malloc(sizeof *slot * size);
    if (!slot) return -1;
    for (unsigned s = 0; s < size; s++) slot[s] = -1;
    for (int i = 0; i < n; i++) {
        first[i] = -1;
        if (w[i].voter_id || w[i].replay) continue; /* a replay answer makes no voter */
        unsigned s = room_voter_hash_prefix(w[i].hash) & (size - 1);
        while (slot[s] >= 0 && strcmp(w[slot[s]].hash, w[i].hash)) s = (s + 1) & (size - 1);
        if (slot[s] < 0) slot[s] = i;
        first[i] = slot[s];
    }
    free(slot);
    return 0;
}

/* room_write_run's transaction. */
static int write_run(struct room *r, struct room_write *w, int n, char *err, size_t errlen) {
    int *first = malloc(sizeof *first * (size_t)(n > 0 ? n : 1));
    if (!first || link_new_voters(w, n, first)) {
        free(first);
        return fv_fail(err, errlen, "out of memory planning the batch's new voters");
    }
    if (db_begin(r->db, err, errlen)) {
        free(first);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct room_write *x = &w[i];
        x->err[0] = 0;
        if (x->replay) { /* apart from the votes: room_replay.c */
            room_replay_run(r, x);
            continue;
        }
        x->new_id = x->voter_id;
        if (first[i] == i) {
            x->new_id = db_voter_add(r->db, r->session_id, x->hash, x->err, sizeof x->err);
        } else if (first[i] >= 0) { /* the same new voter as an earlier write of this batch */
            const struct room_write *f = &w[first[i]];
            x->new_id = f->new_id;
            if (x->new_id < 0) memcpy(x->err, f->err, sizeof x->err); /* f is earlier in w: never x */
        }
        if (x->new_id < 0 || x->pos < 0) { /* the voter's row failed, or a join: no vote */
            x->result = x->new_id < 0 ? -1 : 0;
            continue;
        }
        enum db_vote_result v = db_vote_put(r->db, x->qid, x->new_id, x->yes, x->conf, x->err, sizeof x->err);
        x->result = v == DB_VOTE_OK ? 0 : v == DB_VOTE_REFUSED ? 1 : -1;
    }
    free(first);
    if (db_commit(r->db, err, errlen)) {
        db_rollback(r->db);
        return -1;
    }
    return 0;
}

int room_write_run(struct room *r, struct room_write *w, int n, int wait_ms, char *err, size_t errlen) {
    db_set_busy_timeout(r->db, wait_ms);
    int rc = write_run(r, w, n, err, errlen);
    db_set_busy_timeout(r->db, ROOM_BUSY_LIVE_MS);
    return rc;
}

int room_write_checkpoints_apart(struct room *r, char *err, size_t errlen) {
    return db_ckpt_start(r->db, err, errlen);
}

int room_write_apply(struct room *r, struct room_write *w, int n, char *err, size_t errlen) {
    int rc = 0;
    for (int i = 0; i < n; i++) {
        struct room_write *x = &w[i];
        if (x->replay) {
            room_replay_apply(r, x);
            continue;
        }
        /* A new voter is in memory once its row is committed, even if its
         * vote was refused: the room is what keeps a token to one voter. */
        if (x->voter < 0 && x->new_id > 0) {
            if ((x->voter = room_voter_find_hash(&r->voters, x->hash)) < 0 &&
                (x->voter = room_voter_add(&r->voters, r->nq, x->new_id, x->hash)) < 0) {
                rc = fv_fail(err, errlen, "out of memory adding a voter (%s)",
                             x->result ? "it is stored" : "the vote is stored");
                x->result = -1;
                continue;
            }
        }
        if (x->result || x->pos < 0) continue;
        struct room_voter *v = &r->voters.v[x->voter];
        signed char *cur = &v->votes[x->pos];
        unsigned char *conf = &v->conf[x->pos];
        if (*cur == x->yes && *conf == x->conf) continue;
        quiz_vote_apply(r->quiz, x->pos, *cur, (enum confidence)*conf, x->yes, x->conf);
        *cur = (signed char)x->yes;
        *conf = (unsigned char)x->conf;
    }
    return rc;
}

int room_write_commit(struct room *r, struct room_write *w, int n, char *err, size_t errlen) {
    if (write_run(r, w, n, err, errlen) || room_write_apply(r, w, n, err, errlen)) return -1;
    for (int i = 0; i < n; i++)
        if (w[i].result) return fv_fail(err, errlen, "%s", w[i].err), 1;
    return 0;
}
