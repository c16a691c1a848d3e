/* A room: quiz + store (see room.h): the session's lifecycle and resume,
 * the presenter's actions and the persistence of their transitions, a
 * remote prober's deck. Tokens are in room_token.c, voters in room_voter.c,
 * measurements in room_prober.c, the group commit in room_write.c. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "db_hub.h"
#include "fv_err.h"
#include "fv_names.h"
#include "msg_json.h"
#include "path_json.h"
#include "room_internal.h"
#include "room_token.h"

static const char *const action_names[] = {"open", "close", "measure", "rerun", "reveal", "next", "back", "skip",
                                           "revote", "end", "answer"};
_Static_assert(FV_NAMES_N(action_names) == ROOM_ANSWER + 1, "a name for each enum room_action");

FV_NAMES_DEFINE(room_action, enum room_action, action_names) /* room_action_name, room_action_parse */

static int make_code(char out[ROOM_CODE_LEN + 1], char *err, size_t errlen) {
    static const char alphabet[] = ROOM_CODE_ALPHABET;
    unsigned char b[ROOM_CODE_LEN];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return fv_fail(err, errlen, "getrandom failed");
    for (int i = 0; i < ROOM_CODE_LEN; i++) out[i] = alphabet[b[i] % (sizeof alphabet - 1)];
    out[ROOM_CODE_LEN] = 0;
    return 0;
}

/* ---- lifecycle ---- */

static struct room *room_alloc(struct db *db, const struct deck *d, char *err, size_t errlen) {
    struct room *r = calloc(1, sizeof *r);
    if (!r) {
        fv_fail(err, errlen, "out of memory creating the room");
        return NULL;
    }
    r->db = db;
    r->quiz = quiz_new(d, err, errlen);
    if (!r->quiz) {
        free(r);
        return NULL;
    }
    r->nq = quiz_count(r->quiz);
    snprintf(r->title, sizeof r->title, "%s", d->title);
    snprintf(r->lang, sizeof r->lang, "%s", d->lang);
    return r;
}

/* The session's question rows for quiz q (in the caller's transaction);
 * their ids into qid. */
static int questions_add(struct room *r, struct quiz *q, int64_t *qid, char *err, size_t errlen) {
    for (int p = 0; p < quiz_count(q); p++) {
        struct quiz_qinfo qi;
        quiz_get(q, p, &qi);
        char spec[512];
        if (deck_spec_json(&quiz_test(q, p)->spec, spec, sizeof spec)) snprintf(spec, sizeof spec, "{}");
        qid[p] = db_question_add(r->db, r->session_id, p, qi.test_index, spec, qi.kind, qi.text, err, errlen);
        if (qid[p] < 0) return -1;
    }
    return 0;
}

struct room *room_create(struct db *db, const struct deck *d, const struct room_info *info, char *err,
                         size_t errlen) {
    struct room *r = room_alloc(db, d, err, errlen);
    if (!r) return NULL;
    if (info && info->title && info->title[0]) snprintf(r->title, sizeof r->title, "%s", info->title);
    if (info && info->code && info->code[0])
        snprintf(r->code, sizeof r->code, "%s", info->code);
    else if (make_code(r->code, err, errlen))
        goto fail;
#define S(x) (info && info->x ? info->x : "")
    struct db_session_info si = {.title = r->title, .deck_json = d->json ? d->json : "{}", .host = S(host),
                                 .kernel = S(kernel), .observer = S(observer), .target = S(target),
                                 .lab_json = info ? info->lab_json : NULL, .room = r->code};
#undef S
    char key_hex[2 * ROOM_TOKEN_KEY_BYTES + 1];
    if (room_token_key_new(r->token_key, key_hex, err, errlen)) goto fail;
    si.token_key = key_hex;
    if (db_begin(db, err, errlen)) goto fail;
    r->session_id = db_session_create(db, &si, err, errlen);
    if (r->session_id < 0) goto rollback;
    r->live_set = db_session_live_set(db, r->session_id, err, errlen);
    if (r->live_set < 0) goto rollback;
    if (questions_add(r, r->quiz, r->qid, err, errlen)) goto rollback;
    for (int p = 0; p < r->nq; p++) r->saved_state[p] = QUIZ_PENDING;
    if (db_commit(db, err, errlen)) goto rollback;
    return r;
rollback:
    db_rollback(db);
fail:
    room_free(r);
    return NULL;
}

struct room_resume_ctx {
    struct room *r;
    int bad;
    char *err;
    size_t errlen;
};

static int position_of(struct room *r, int64_t qid) {
    for (int p = 0; p < r->nq; p++)
        if (r->qid[p] == qid) return p;
    return -1;
}

static int resume_question(int64_t id, int position, const char *state, int measuring, void *arg) {
    struct room_resume_ctx *c = arg;
    enum quiz_state s;
    if (position < 0 || position >= c->r->nq || quiz_state_parse(state, &s)) {
        c->bad = 1;
        fv_fail(c->err, c->errlen, "stored question at position %d (state %s) does not match the deck", position, state);
        return 1;
    }
    c->r->qid[position] = id;
    c->r->saved_state[position] = s;
    c->r->saved_measuring[position] = measuring ? 1 : 0;
    c->r->reask[position] = measuring && (s == QUIZ_CLOSED || s == QUIZ_MEASURED || s == QUIZ_REVEALED);
    return 0;
}

/* The question's own fact's why (and its message, where the row has one)
 * from the stored observation (either shape, probe_json.h), and the test's
 * path where the row has one (issue 20). */
static void stored_why(const char *observation, enum qkind kind, struct quiz_truth *t, struct probe_path *path) {
    json_t *o = json_loads(observation, 0, NULL);
    json_t *fact = json_object_get(o, qkind_name(kind));
    const char *w = json_string_value(json_object_get(fact, "why"));
    snprintf(t->why, sizeof t->why, "%s", w ? w : "");
    t->nwhy = msg_json_read_row(json_object_get(fact, "why_msg"), t->why_msg, PROBE_WHY_PARTS);
    t->nevidence = msg_json_read_row(json_object_get(o, "evidence_msg"), t->evidence_msg, PROBE_EVIDENCE_PARTS);
    if (t->nwhy < 0) t->nwhy = 0;
    if (t->nevidence < 0) t->nevidence = 0;
    char err[160];
    if (path_json_read(json_object_get(o, "path"), path, err, sizeof err) < 0) path->v = 0; /* drawn as none */
    json_decref(o);
}

static int resume_truth(int64_t qid, const char *answer, const char *basis, const char *evidence,
                        const char *observation, void *arg) {
    struct room_resume_ctx *c = arg;
    int p = position_of(c->r, qid);
    if (p < 0) return 0;
    struct quiz_truth t;
    memset(&t, 0, sizeof t);
    struct quiz_qinfo qi;
    quiz_get(c->r->quiz, p, &qi);
    struct probe_path path;
    stored_why(observation, qi.kind, &t, &path);
    t.answer = !strcmp(answer, "yes") ? PROBE_ANS_YES : !strcmp(answer, "no") ? PROBE_ANS_NO : PROBE_ANS_UNKNOWN;
    if (probe_basis_parse(basis, &t.basis) < 0) t.basis = PROBE_BASIS_UNKNOWN;
    snprintf(t.evidence, sizeof t.evidence, "%s", evidence);
    quiz_restore(c->r->quiz, p, c->r->saved_state[p], 0, 0, &t);
    if (path.v) quiz_restore_path(c->r->quiz, p, &path);
    return 0;
}

static int resume_voter(int64_t id, const char *hash, void *arg) {
    struct room_resume_ctx *c = arg;
    if (room_voter_add(&c->r->voters, c->r->nq, id, hash) < 0) {
        c->bad = 1;
        fv_fail(c->err, c->errlen, "out of memory (or more than %d voters) resuming", ROOM_VOTERS_MAX);
        return 1;
    }
    return 0;
}

/* A stored confidence ("" none; the column's CHECK allows nothing else). */
static enum confidence stored_confidence(const char *name) {
    enum confidence conf = CONFIDENCE_NONE;
    confidence_parse(name, &conf);
    return conf;
}

static int resume_vote(int64_t qid, int64_t voter_id, int answer, const char *confidence, void *arg) {
    struct room_resume_ctx *c = arg;
    int p = position_of(c->r, qid);
    if (p < 0) return 0;
    int v = room_voter_by_id(&c->r->voters, voter_id); /* voters come ordered by id */
    if (v >= 0) {
        enum confidence conf = stored_confidence(confidence);
        c->r->voters.v[v].votes[p] = (signed char)answer;
        c->r->voters.v[v].conf[p] = (unsigned char)conf;
        quiz_vote_apply(c->r->quiz, p, -1, CONFIDENCE_NONE, answer, conf);
    }
    return 0;
}

static int resume_first_round(int64_t qid, const char *confidence, int yes, int no, void *arg) {
    struct room_resume_ctx *c = arg;
    int p = position_of(c->r, qid);
    if (p >= 0) quiz_restore_round(c->r->quiz, p, stored_confidence(confidence), yes, no);
    return 0;
}

struct room *room_resume(struct db *db, int64_t session_id, const struct deck *d, char *err, size_t errlen) {
    struct room *r = room_alloc(db, d, err, errlen);
    if (!r) return NULL;
    struct db_session_row row;
    if (db_session_get(db, session_id, &row, err, errlen)) goto fail;
    r->session_id = session_id;
    snprintf(r->title, sizeof r->title, "%s", row.title);
    snprintf(r->code, sizeof r->code, "%s", row.room);
    int cursor = row.cursor, ended = row.ended_at > 0, nrows = row.questions;
    db_session_row_free(&row);
    if (nrows != r->nq) {
        fv_fail(err, errlen, "session %lld has %d questions but its deck gives %d: not the same deck",
             (long long)session_id, nrows, r->nq);
        goto fail;
    }
    r->live_set = db_session_live_set(db, session_id, err, errlen);
    if (r->live_set < 0) goto fail;
    char key_hex[2 * ROOM_TOKEN_KEY_BYTES + 1];
    if (db_hub_token_key(db, session_id, key_hex, sizeof key_hex, err, errlen)) goto fail;
    if (!key_hex[0]) { /* a session from before keyed tokens gets its key now */
        if (room_token_key_new(r->token_key, key_hex, err, errlen) ||
            db_session_set_token_key(db, session_id, key_hex, err, errlen))
            goto fail;
    } else if (room_token_key_read(key_hex, r->token_key)) {
        fv_fail(err, errlen, "session %lld has a malformed token key in %s", (long long)session_id, db_path(db));
        goto fail;
    }
    struct room_resume_ctx c = {r, 0, err, errlen};
    if (db_hub_questions_each(db, session_id, resume_question, &c, err, errlen) || c.bad) goto fail;
    for (int p = 0; p < r->nq; p++) quiz_restore(r->quiz, p, r->saved_state[p], 0, 0, NULL);
    if (db_hub_truths_each(db, session_id, resume_truth, &c, err, errlen) || c.bad) goto fail;
    if (db_hub_voters_each(db, session_id, resume_voter, &c, err, errlen) || c.bad) goto fail;
    if (db_hub_votes_each(db, session_id, resume_vote, &c, err, errlen) || c.bad) goto fail;
    if (db_hub_first_rounds_each(db, session_id, resume_first_round, &c, err, errlen) || c.bad) goto fail;
    /* A question left "voting" by a crash is still open: phones may go on
     * voting. One left measuring is asked again once a prober is set
     * (room_set_prober): the answer in flight died with the old process. */
    quiz_restore_cursor(r->quiz, cursor, ended);
    r->saved_cursor = cursor;
    return r;
fail:
    room_free(r);
    return NULL;
}

void room_free(struct room *r) {
    if (!r) return;
    room_voter_release(&r->voters);
    quiz_free(r->quiz);
    free(r);
}

struct quiz *room_quiz(struct room *r) { return r->quiz; }
struct db *room_db(struct room *r) { return r->db; }
int64_t room_session_id(const struct room *r) { return r->session_id; }
const char *room_code(const struct room *r) { return r->code; }

int room_token_new(const struct room *r, char out[ROOM_TOKEN_HEX + 1], char *err, size_t errlen) {
    return room_token_mint(r->token_key, out, err, errlen);
}

int room_token_issued(const struct room *r, const char *t) {
    /* A session from before keyed tokens: its voters' tokens are known by hash. */
    return room_token_valid(t) && (room_token_mac_ok(r->token_key, t) || room_voter_find(r, t) >= 0);
}
const char *room_title(const struct room *r) { return r->title; }
const char *room_lang(const struct room *r) { return r->lang; }

/* ---- persistence of transitions ---- */

int room_persist(struct room *r, char *err, size_t errlen) {
    int rc = 0;
    for (int p = 0; p < r->nq; p++) {
        struct quiz_qinfo qi;
        quiz_get(r->quiz, p, &qi);
        if (qi.state == r->saved_state[p]) continue;
        if (db_question_set_state(r->db, r->qid[p], quiz_state_name(qi.state), err, errlen)) {
            rc = -1;
            continue;
        }
        r->saved_state[p] = qi.state;
    }
    for (int p = 0; p < r->nq; p++) {
        struct quiz_qinfo qi;
        quiz_get(r->quiz, p, &qi);
        if (!qi.measuring == !r->saved_measuring[p]) continue;
        if (db_question_set_measuring(r->db, r->qid[p], qi.measuring, err, errlen)) {
            rc = -1;
            continue;
        }
        r->saved_measuring[p] = qi.measuring ? 1 : 0;
    }
    int cur = quiz_cursor(r->quiz);
    if (cur != r->saved_cursor) {
        if (db_session_set_cursor(r->db, r->session_id, cur, err, errlen))
            rc = -1;
        else
            r->saved_cursor = cur;
    }
    return rc;
}

/* ROOM_REVOTE: the store first (one transaction), then the quiz and the
 * voters' votes in memory. */
static int revote(struct room *r, char *err, size_t errlen) {
    if (quiz_revote_check(r->quiz, err, errlen)) return -1;
    int pos = quiz_cursor(r->quiz);
    if (db_question_revote(r->db, r->qid[pos], err, errlen)) return -1;
    if (quiz_revote(r->quiz, err, errlen)) return -1;
    room_voter_clear_votes(&r->voters, pos);
    r->saved_state[pos] = QUIZ_VOTING;
    return 0;
}

int room_act(struct room *r, enum room_action a, char *err, size_t errlen) {
    struct quiz *q = r->quiz;
    int rc;
    switch (a) {
    case ROOM_REVOTE:
        if (revote(r, err, errlen)) return -1;
        room_prober_prefetch(r);
        return 0;
    case ROOM_OPEN: rc = quiz_open(q, err, errlen); break;
    case ROOM_CLOSE: rc = quiz_close(q, err, errlen); break;
    case ROOM_MEASURE:
    case ROOM_RERUN: rc = room_prober_measure(r, a == ROOM_RERUN, err, errlen); break;
    case ROOM_REVEAL: rc = quiz_reveal(q, err, errlen); break;
    case ROOM_NEXT: rc = quiz_next(q, err, errlen); break;
    case ROOM_BACK: rc = quiz_back(q, err, errlen); break;
    case ROOM_SKIP: rc = quiz_skip(q, err, errlen); break;
    case ROOM_END: rc = quiz_end(q, err, errlen); break;
    case ROOM_ANSWER: /* closed without a vote, then measured as ROOM_MEASURE is */
        if (quiz_answer_unvoted(q, err, errlen)) return -1;
        rc = room_prober_measure(r, 0, err, errlen);
        if (rc < 0) { /* it stays closed, in the store too: measure may be asked again */
            char ignored[8];
            room_persist(r, ignored, sizeof ignored);
            return -1;
        }
        break;
    default: return fv_fail(err, errlen, "unknown action %d", (int)a);
    }
    if (rc < 0) return -1;
    if (a == ROOM_OPEN || a == ROOM_REVOTE) room_prober_prefetch(r);
    if (room_persist(r, err, errlen)) return -1;
    if ((a == ROOM_NEXT || a == ROOM_SKIP || a == ROOM_END) && quiz_ended(q) && room_end(r, err, errlen)) return -1;
    return rc;
}

int room_end(struct room *r, char *err, size_t errlen) { return db_session_end(r->db, r->session_id, err, errlen); }

/* ---- a remote prober's deck (issue 17) ---- */

/* Whether quizzes a and b ask the same questions of the same tests: count,
 * order, kinds, and each test's protocol, mode, size and TTL (the target,
 * title and notes are the prober's business). */
static int same_questions(const struct quiz *a, const struct quiz *b) {
    if (quiz_count(a) != quiz_count(b)) return 0;
    for (int p = 0; p < quiz_count(a); p++) {
        struct quiz_qinfo x, y;
        quiz_get(a, p, &x);
        quiz_get(b, p, &y);
        const struct probe_spec *s = &quiz_test(a, p)->spec, *t = &quiz_test(b, p)->spec;
        if (x.test_index != y.test_index || x.kind != y.kind || s->proto != t->proto || s->mode != t->mode ||
            s->size != t->size || s->ttl != t->ttl)
            return 0;
    }
    return 1;
}

/* Whether anything of the session has happened: a question left pending,
 * the cursor moved, a voter. */
static int room_started(const struct room *r) {
    if (quiz_cursor(r->quiz) != 0 || quiz_ended(r->quiz) || r->voters.n > 0) return 1;
    for (int p = 0; p < r->nq; p++) {
        struct quiz_qinfo qi;
        quiz_get(r->quiz, p, &qi);
        if (qi.state != QUIZ_PENDING) return 1;
    }
    return 0;
}

int room_deck_adopt(struct room *r, const struct deck *d, int *adopted, char *err, size_t errlen) {
    *adopted = 0;
    struct quiz *nq = quiz_new(d, err, errlen);
    if (!nq) return -1;
    if (room_started(r)) {
        int same = same_questions(r->quiz, nq);
        quiz_free(nq);
        if (same) return 0;
        return fv_fail(err, errlen,
                       "this session has started with deck '%s' (%d questions); run the laptop with that deck, "
                       "or start a new session on the hub",
                       r->title, r->nq);
    }
    int64_t qid[QUIZ_QUESTIONS_MAX];
    if (db_begin(r->db, err, errlen)) goto fail;
    if (db_session_redeck(r->db, r->session_id, d->title, d->json ? d->json : "{}", err, errlen) ||
        questions_add(r, nq, qid, err, errlen) || db_commit(r->db, err, errlen)) {
        db_rollback(r->db);
        goto fail;
    }
    quiz_free(r->quiz);
    r->quiz = nq;
    r->nq = quiz_count(nq);
    for (int p = 0; p < r->nq; p++) {
        r->qid[p] = qid[p];
        r->saved_state[p] = QUIZ_PENDING;
        r->saved_measuring[p] = r->reask[p] = 0;
    }
    r->saved_cursor = 0;
    room_prober_forget(r);
    snprintf(r->title, sizeof r->title, "%s", d->title);
    snprintf(r->lang, sizeof r->lang, "%s", d->lang);
    *adopted = 1;
    return 0;
fail:
    quiz_free(nq);
    return -1;
}

int room_prober_facts(struct room *r, const struct room_prober_facts *f, char *err, size_t errlen) {
    struct db_session_info si = {.host = f->host, .kernel = f->kernel, .observer = f->observer, .target = f->target,
                                 .lab_json = f->lab_json};
    return db_session_set_prober(r->db, r->session_id, &si, err, errlen);
}
