/* A room: quiz + store (see room.h). */
#include "room.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "db_ckpt.h"
#include "db_hub.h"
#include "fv_err.h"
#include "fv_names.h"
#include "path_json.h"
#include "probe_json.h"
#include "prober.h"

/* room.h keeps the store out of its includers' reach, so it spells the live
 * busy timeout itself; it is the store's. */
_Static_assert(ROOM_BUSY_LIVE_MS == DB_BUSY_LIVE_MS, "the room's live busy timeout is db.h's DB_BUSY_LIVE_MS");

struct room_voter {
    int64_t id;                 /* voters.id */
    char hash[65];              /* SHA-256 of the token, as stored */
    int next;                   /* hash chain */
    signed char *votes;         /* per question: -1 none, 0 no, 1 yes */
};

struct pending_vote { int voter, pos, yes; };

/* An ask handed to the prober and not answered yet. A superseded one (a
 * rerun asked again before it came back) is no longer listed as pending;
 * its answer is taken and dropped. */
struct room_ask {
    uint64_t rid;
    int test_index, position, rerun, superseded;
    struct probe_spec spec;
};

/* Per deck test: the one cache of probe results (prober.h). */
struct room_test_probe {
    int have;                      /* res is the test's latest result (held after a prefetch, or used) */
    struct probe_result res;
    uint64_t rid;                  /* the ask in flight whose answer counts; 0 none */
    int waiting[3], nwaiting;      /* questions of the test measuring, waiting for that answer */
    int prefetched;                /* the ask in flight or the result held is a prefetch no measure used yet */
};

struct room {
    struct db *db;
    struct quiz *quiz;
    int64_t session_id, live_set;
    char code[ROOM_CODE_LEN + 1];
    unsigned char token_key[ROOM_TOKEN_KEY_BYTES]; /* authenticates the voter tokens (stored with the session) */
    char title[DECK_TEXT_MAX];
    int nq;
    int64_t qid[QUIZ_QUESTIONS_MAX];
    enum quiz_state saved_state[QUIZ_QUESTIONS_MAX]; /* as last written to the db */
    unsigned char saved_measuring[QUIZ_QUESTIONS_MAX]; /* likewise: a measurement asked, not answered */
    unsigned char reask[QUIZ_QUESTIONS_MAX]; /* resumed with a measurement in flight: ask the next prober again */
    int saved_cursor;
    /* measurements */
    struct prober prober;
    int has_prober, no_prefetch;
    uint64_t last_rid;
    struct room_ask asks[ROOM_ASKS_MAX];
    int nasks;
    unsigned long measure_asks, prefetch_hits;
    struct room_test_probe tp[DECK_TESTS_MAX];
    /* voters */
    struct room_voter *voters;
    int nvoters, capvoters;
    int *buckets;
    int nbuckets;               /* power of two */
    /* current batch */
    int in_batch;
    int batch_first_new;        /* voters at or above this index were created in the batch */
    struct pending_vote *pend;
    int npend, cappend;
};

static const char *const action_names[] = {"open", "close", "measure", "rerun", "reveal", "next", "back", "skip",
                                           "revote"};
_Static_assert(FV_NAMES_N(action_names) == ROOM_REVOTE + 1, "a name for each enum room_action");

FV_NAMES_DEFINE(room_action, enum room_action, action_names) /* room_action_name, room_action_parse */

/* ---- tokens ---- */

static int random_bytes(unsigned char *b, size_t n, char *err, size_t errlen) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(b + got, n - got, 0);
        if (k < 0) {
            if (errno == EINTR) continue;
            return fv_fail(err, errlen, "getrandom failed: %s", strerror(errno));
        }
        got += (size_t)k;
    }
    return 0;
}

static void to_hex(const unsigned char *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int hex_digit(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

/* n bytes from 2n lower-case hex digits (and nothing after them); 0 or -1. */
static int from_hex(const char *hex, unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hi < 0 ? -1 : hex_digit(hex[2 * i + 1]);
        if (lo < 0) return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return hex[2 * n] ? -1 : 0;
}

/* The MAC half of a token for its id half: HMAC-SHA256 under the room's key,
 * truncated to ROOM_TOKEN_MAC_BYTES. */
static void token_mac(const struct room *r, const unsigned char id[ROOM_TOKEN_ID_BYTES],
                      unsigned char mac[ROOM_TOKEN_MAC_BYTES]) {
    unsigned char full[32];
    db_hmac_sha256(r->token_key, sizeof r->token_key, id, ROOM_TOKEN_ID_BYTES, full);
    memcpy(mac, full, ROOM_TOKEN_MAC_BYTES);
}

int room_token_new(const struct room *r, char out[ROOM_TOKEN_HEX + 1], char *err, size_t errlen) {
    unsigned char b[ROOM_TOKEN_ID_BYTES + ROOM_TOKEN_MAC_BYTES];
    if (random_bytes(b, ROOM_TOKEN_ID_BYTES, err, errlen)) return -1;
    token_mac(r, b, b + ROOM_TOKEN_ID_BYTES);
    to_hex(b, sizeof b, out);
    return 0;
}

int room_token_valid(const char *t) {
    if (!t) return 0;
    size_t i = 0;
    for (; t[i]; i++)
        if (i >= ROOM_TOKEN_HEX || hex_digit(t[i]) < 0) return 0;
    return i == ROOM_TOKEN_HEX;
}

int room_token_issued(const struct room *r, const char *t) {
    unsigned char b[ROOM_TOKEN_ID_BYTES + ROOM_TOKEN_MAC_BYTES], mac[ROOM_TOKEN_MAC_BYTES];
    if (!room_token_valid(t) || from_hex(t, b, sizeof b)) return 0;
    token_mac(r, b, mac);
    unsigned char diff = 0; /* constant time: a timing oracle must not tell how much of a guess was right */
    for (int i = 0; i < ROOM_TOKEN_MAC_BYTES; i++) diff |= mac[i] ^ b[ROOM_TOKEN_ID_BYTES + i];
    /* A session from before keyed tokens: its voters' tokens are known by hash. */
    return diff == 0 || room_voter_find(r, t) >= 0;
}

/* A fresh key for the session's tokens, stored with it. */
static int make_token_key(struct room *r, char hex[2 * ROOM_TOKEN_KEY_BYTES + 1], char *err, size_t errlen) {
    if (random_bytes(r->token_key, sizeof r->token_key, err, errlen)) return -1;
    to_hex(r->token_key, sizeof r->token_key, hex);
    return 0;
}

static int make_code(char out[ROOM_CODE_LEN + 1], char *err, size_t errlen) {
    static const char alphabet[] = ROOM_CODE_ALPHABET;
    unsigned char b[ROOM_CODE_LEN];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) return fv_fail(err, errlen, "getrandom failed");
    for (int i = 0; i < ROOM_CODE_LEN; i++) out[i] = alphabet[b[i] % (sizeof alphabet - 1)];
    out[ROOM_CODE_LEN] = 0;
    return 0;
}

/* ---- voter table ---- */

/* A token hash's first 8 hex digits: random, so a table index as it is. */
static unsigned hash_prefix(const char *hash) {
    unsigned h = 0;
    for (int i = 0; i < 8; i++) h = h * 16 + (unsigned)(hash[i] <= '9' ? hash[i] - '0' : hash[i] - 'a' + 10);
    return h;
}

static unsigned hash_bucket(const struct room *r, const char *hash) {
    return hash_prefix(hash) & (unsigned)(r->nbuckets - 1);
}

static int find_hash(const struct room *r, const char *hash) {
    if (!r->nbuckets) return -1;
    for (int i = r->buckets[hash_bucket(r, hash)]; i >= 0; i = r->voters[i].next)
        if (!strcmp(r->voters[i].hash, hash)) return i;
    return -1;
}

static int rehash(struct room *r, int nb) {
    int *b = malloc(sizeof *b * (size_t)nb);
    if (!b) return -1;
    for (int i = 0; i < nb; i++) b[i] = -1;
    free(r->buckets);
    r->buckets = b;
    r->nbuckets = nb;
    for (int i = 0; i < r->nvoters; i++) {
        unsigned k = hash_bucket(r, r->voters[i].hash);
        r->voters[i].next = b[k];
        b[k] = i;
    }
    return 0;
}

static int add_voter(struct room *r, int64_t id, const char *hash) {
    if (r->nvoters >= ROOM_VOTERS_MAX) return -1;
    if (r->nvoters == r->capvoters) {
        int cap = r->capvoters ? r->capvoters * 2 : 256;
        struct room_voter *v = realloc(r->voters, sizeof *v * (size_t)cap);
        if (!v) return -1;
        r->voters = v;
        r->capvoters = cap;
    }
    if (r->nvoters * 2 >= r->nbuckets && rehash(r, r->nbuckets ? r->nbuckets * 2 : 1024)) return -1;
    struct room_voter *v = &r->voters[r->nvoters];
    v->votes = malloc((size_t)r->nq);
    if (!v->votes) return -1;
    memset(v->votes, -1, (size_t)r->nq);
    v->id = id;
    snprintf(v->hash, sizeof v->hash, "%s", hash);
    unsigned k = hash_bucket(r, hash);
    v->next = r->buckets[k];
    r->buckets[k] = r->nvoters;
    return r->nvoters++;
}

/* Drops voters added since index `from` (newest first: each is its chain's head). */
static void drop_voters_from(struct room *r, int from) {
    while (r->nvoters > from) {
        struct room_voter *v = &r->voters[--r->nvoters];
        r->buckets[hash_bucket(r, v->hash)] = v->next;
        free(v->votes);
    }
}

int room_voter_find(const struct room *r, const char *token) {
    char hash[65];
    db_token_hash(token, hash);
    return find_hash(r, hash);
}

int room_voter_vote(const struct room *r, int voter, int pos) {
    if (voter < 0 || voter >= r->nvoters || pos < 0 || pos >= r->nq) return -1;
    return r->voters[voter].votes[pos];
}

int room_voter_count(const struct room *r) { return r->nvoters; }

void room_voter_score(const struct room *r, int voter, int *answered, int *scored, int *correct) {
    *answered = *scored = *correct = 0;
    if (voter < 0 || voter >= r->nvoters) return;
    for (int p = 0; p < r->nq; p++) {
        int v = r->voters[voter].votes[p];
        if (v < 0) continue;
        (*answered)++;
        struct quiz_truth t;
        if (quiz_truth(r->quiz, p, &t)) continue;
        int right = score_vote(v, quiz_score_truth(&t));
        if (right < 0) continue;
        (*scored)++;
        *correct += right;
    }
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
    if (make_token_key(r, key_hex, err, errlen)) goto fail;
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

/* The question's own fact's why from the stored observation (either shape,
 * probe_json.h), and the test's path where the row has one (issue 20). */
static void stored_why(const char *observation, enum qkind kind, char *why, size_t len, struct probe_path *path) {
    json_t *o = json_loads(observation, 0, NULL);
    const char *w = json_string_value(json_object_get(json_object_get(o, qkind_name(kind)), "why"));
    snprintf(why, len, "%s", w ? w : "");
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
    stored_why(observation, qi.kind, t.why, sizeof t.why, &path);
    t.answer = !strcmp(answer, "yes") ? PROBE_ANS_YES : !strcmp(answer, "no") ? PROBE_ANS_NO : PROBE_ANS_UNKNOWN;
    if (probe_basis_parse(basis, &t.basis) < 0) t.basis = PROBE_BASIS_UNKNOWN;
    snprintf(t.evidence, sizeof t.evidence, "%s", evidence);
    quiz_restore(c->r->quiz, p, c->r->saved_state[p], 0, 0, &t);
    if (path.v) quiz_restore_path(c->r->quiz, p, &path);
    return 0;
}

static int resume_voter(int64_t id, const char *hash, void *arg) {
    struct room_resume_ctx *c = arg;
    if (add_voter(c->r, id, hash) < 0) {
        c->bad = 1;
        fv_fail(c->err, c->errlen, "out of memory (or more than %d voters) resuming", ROOM_VOTERS_MAX);
        return 1;
    }
    return 0;
}

static int resume_vote(int64_t qid, int64_t voter_id, int answer, void *arg) {
    struct room_resume_ctx *c = arg;
    int p = position_of(c->r, qid);
    if (p < 0) return 0;
    /* voters come ordered by id, so a binary search finds the index */
    int lo = 0, hi = c->r->nvoters - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->r->voters[mid].id == voter_id) {
            c->r->voters[mid].votes[p] = (signed char)answer;
            quiz_vote_apply(c->r->quiz, p, -1, answer);
            return 0;
        }
        if (c->r->voters[mid].id < voter_id) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

static int resume_first_round(int64_t qid, int yes, int no, void *arg) {
    struct room_resume_ctx *c = arg;
    int p = position_of(c->r, qid);
    if (p >= 0) quiz_restore_round(c->r->quiz, p, yes, no);
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
        if (make_token_key(r, key_hex, err, errlen) ||
            db_session_set_token_key(db, session_id, key_hex, err, errlen))
            goto fail;
    } else if (from_hex(key_hex, r->token_key, sizeof r->token_key)) {
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
    drop_voters_from(r, 0);
    free(r->voters);
    free(r->buckets);
    free(r->pend);
    quiz_free(r->quiz);
    free(r);
}

struct quiz *room_quiz(struct room *r) { return r->quiz; }
struct db *room_db(struct room *r) { return r->db; }
int64_t room_session_id(const struct room *r) { return r->session_id; }
const char *room_code(const struct room *r) { return r->code; }
const char *room_title(const struct room *r) { return r->title; }

/* ---- persistence of transitions ---- */

/* Writes every state that differs from the stored one, and the cursor. */
static int persist(struct room *r, char *err, size_t errlen) {
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

static int store_measurement(struct room *r, int pos, const struct probe_result *res, char *err, size_t errlen) {
    struct quiz_qinfo qi;
    quiz_get(r->quiz, pos, &qi);
    struct quiz_truth t;
    quiz_truth_from_probe(res, qi.kind, &t);
    char *obs = probe_observation_json(res);
    const char *ev = t.evidence[0] ? t.evidence : t.why[0] ? t.why : "(no evidence)";
    int64_t id = db_measurement_add(r->db, r->live_set, r->qid[pos], probe_answer_name(t.answer),
                                    probe_basis_name(t.basis), ev, obs ? obs : "{}",
                                    res->egress.observer[0] ? res->egress.observer : "unknown", err, errlen);
    free(obs);
    return id < 0 ? -1 : 0;
}

/* ---- measurements: the prober seam (prober.h) ---- */

static void prefetch(struct room *r);
static void reask_resumed(struct room *r);

void room_set_prober(struct room *r, const struct prober *p) {
    r->has_prober = p && p->ask;
    if (r->has_prober) r->prober = *p;
    reask_resumed(r);
    prefetch(r);
}

void room_set_prefetch(struct room *r, int on) { r->no_prefetch = !on; }
int room_has_prober(const struct room *r) { return r->has_prober; }
void room_measure_counts(const struct room *r, unsigned long *measures, unsigned long *prefetch_hits) {
    *measures = r->measure_asks;
    *prefetch_hits = r->prefetch_hits;
}

static int find_ask(const struct room *r, uint64_t rid) {
    for (int i = 0; i < r->nasks; i++)
        if (r->asks[i].rid == rid) return i;
    return -1;
}

static void drop_ask(struct room *r, int i) {
    memmove(&r->asks[i], &r->asks[i + 1], sizeof r->asks[0] * (size_t)(r->nasks - i - 1));
    r->nasks--;
}

/* A new ask for the test of question pos; waiting is pos for a measure, -1
 * for a prefetch. Questions already waiting for an earlier ask of the test
 * (superseded by a rerun) wait for this one. 0 asked, -1 refused (too many
 * asks in flight, or the prober said no). */
static int ask(struct room *r, int pos, int waiting, int rerun) {
    struct quiz_qinfo qi;
    quiz_get(r->quiz, pos, &qi);
    struct room_test_probe *tp = &r->tp[qi.test_index];
    if (r->nasks == ROOM_ASKS_MAX) { /* make room by forgetting the oldest superseded ask */
        int i = 0;
        while (i < r->nasks && !r->asks[i].superseded) i++;
        if (i == r->nasks) return -1;
        drop_ask(r, i);
    }
    struct room_ask *a = &r->asks[r->nasks];
    *a = (struct room_ask){.rid = ++r->last_rid, .test_index = qi.test_index, .position = waiting, .rerun = rerun,
                           .spec = quiz_test(r->quiz, pos)->spec};
    if (r->has_prober) {
        struct prober_ask pa = {a->rid, a->test_index, a->position, &a->spec, a->rerun};
        if (r->prober.ask(r->prober.ctx, &pa) < 0) return -1;
    }
    r->nasks++;
    int old = tp->rid ? find_ask(r, tp->rid) : -1;
    if (old >= 0) r->asks[old].superseded = 1;
    tp->rid = a->rid;
    tp->prefetched = waiting < 0;
    if (waiting >= 0 && tp->nwaiting < 3) tp->waiting[tp->nwaiting++] = waiting;
    return 0;
}

/* Voting opened on the current question: measure its test meanwhile, unless
 * it has a result or an ask already. The answer is held by the room. */
static void prefetch(struct room *r) {
    if (!r->has_prober || r->no_prefetch || quiz_ended(r->quiz)) return;
    struct quiz_qinfo qi;
    quiz_get(r->quiz, quiz_cursor(r->quiz), &qi);
    struct room_test_probe *tp = &r->tp[qi.test_index];
    if (qi.state == QUIZ_VOTING && !tp->have && !tp->rid) ask(r, qi.position, -1, 0); /* refused: not prefetched */
}

/* The test's result for question pos: its truth in the quiz, stored as a measurement. */
static int apply_result(struct room *r, int pos, const struct probe_result *res, char *err, size_t errlen) {
    if (quiz_measured(r->quiz, pos, res, err, errlen)) return -1;
    int rc = store_measurement(r, pos, res, err, errlen);
    if (persist(r, err, errlen)) rc = -1;
    return rc;
}

/* The answer to the test's ask in flight: held, and given to every question waiting for it. */
static int take_result(struct room *r, struct room_test_probe *tp, const struct probe_result *res, char *err,
                       size_t errlen) {
    tp->res = *res;
    tp->have = 1;
    tp->rid = 0;
    int rc = 0, n = tp->nwaiting;
    tp->nwaiting = 0;
    for (int i = 0; i < n; i++) {
        char e2[256];
        if (apply_result(r, tp->waiting[i], &tp->res, e2, sizeof e2) && !rc) rc = fv_fail(err, errlen, "%s", e2);
    }
    return rc;
}

/* Asks for question pos's test (pos waits): QUIZ_MEASURE_PROBE; if nobody
 * will answer, an honest "unknown" at once (0, -1 if it could not be taken). */
static int ask_or_unknown(struct room *r, int pos, int rerun, char *err, size_t errlen) {
    if (ask(r, pos, pos, rerun) == 0) return QUIZ_MEASURE_PROBE;
    struct quiz_qinfo qi;
    quiz_get(r->quiz, pos, &qi);
    struct room_test_probe *tp = &r->tp[qi.test_index];
    struct probe_result u;
    prober_result_unknown(&quiz_test(r->quiz, pos)->spec,
                          r->nasks == ROOM_ASKS_MAX ? "too many measurements in flight" : "the prober refused it", &u);
    if (tp->nwaiting < 3) tp->waiting[tp->nwaiting++] = pos;
    tp->rid = 0;
    return take_result(r, tp, &u, err, errlen) ? -1 : 0;
}

/* ROOM_MEASURE / ROOM_RERUN: a held result at once (0), else the answer of
 * an ask (QUIZ_MEASURE_PROBE). */
static int measure(struct room *r, int rerun, char *err, size_t errlen) {
    if (quiz_measure(r->quiz, rerun, err, errlen) < 0) return -1;
    r->measure_asks++;
    int pos = quiz_cursor(r->quiz);
    struct quiz_qinfo qi;
    quiz_get(r->quiz, pos, &qi);
    struct room_test_probe *tp = &r->tp[qi.test_index];
    if (!rerun && tp->prefetched && (tp->rid || tp->have)) r->prefetch_hits++;
    if (!rerun) tp->prefetched = 0;
    if (!rerun && tp->rid) { /* a prefetch (or another question's ask) is on its way */
        if (tp->nwaiting < 3) tp->waiting[tp->nwaiting++] = pos;
        return QUIZ_MEASURE_PROBE;
    }
    if (!rerun && tp->have) return apply_result(r, pos, &tp->res, err, errlen) ? -1 : 0;
    return ask_or_unknown(r, pos, rerun, err, errlen);
}

/* A resumed room's questions that were measuring when the old process
 * stopped: measuring again, their test asked afresh (a re-run for a
 * question measured or revealed already), once there is a prober. */
static void reask_resumed(struct room *r) {
    if (!r->has_prober) return;
    for (int p = 0; p < r->nq; p++) {
        if (!r->reask[p]) continue;
        r->reask[p] = 0;
        struct quiz_qinfo qi;
        if (quiz_get(r->quiz, p, &qi) || quiz_restore_measuring(r->quiz, p)) continue;
        char err[256];
        ask_or_unknown(r, p, qi.state != QUIZ_CLOSED, err, sizeof err); /* an unknown could not be stored: as a measure */
    }
}

int room_prober_result(struct room *r, uint64_t rid, const struct probe_result *res, char *err, size_t errlen) {
    int i = find_ask(r, rid);
    if (i < 0)
        return fv_fail(err, errlen, rid && rid <= r->last_rid ? "measurement %llu was answered already"
                                                              : "no measurement %llu was asked for",
                       (unsigned long long)rid);
    struct room_ask a = r->asks[i];
    if (!prober_result_matches(&a.spec, res))
        return fv_fail(err, errlen, "the result for measurement %llu is of another test (%s %s %d bytes, not %s %s %d)",
                       (unsigned long long)rid, probe_proto_name(res->spec.proto), probe_mode_name(res->spec.mode),
                       res->spec.size, probe_proto_name(a.spec.proto), probe_mode_name(a.spec.mode), a.spec.size);
    drop_ask(r, i);
    struct room_test_probe *tp = &r->tp[a.test_index];
    if (a.superseded || tp->rid != rid) return 0; /* a rerun asked again: this answer no longer counts */
    return take_result(r, tp, res, err, errlen);
}

int room_prober_result_awaited(const struct room *r, uint64_t rid) {
    int i = find_ask(r, rid);
    if (i < 0 || r->asks[i].superseded) return 0;
    const struct room_test_probe *tp = &r->tp[r->asks[i].test_index];
    int measuring = 0;
    for (int w = 0; w < tp->nwaiting && tp->rid == rid; w++) {
        struct quiz_qinfo qi;
        measuring |= !quiz_get(r->quiz, tp->waiting[w], &qi) && qi.measuring; /* not one skipped meanwhile */
    }
    return measuring;
}

int room_prober_pending(const struct room *r, struct prober_ask *out, int max) {
    int n = 0;
    for (int i = 0; i < r->nasks && n < max; i++) {
        const struct room_ask *a = &r->asks[i];
        if (!a->superseded) out[n++] = (struct prober_ask){a->rid, a->test_index, a->position, &a->spec, a->rerun};
    }
    return n;
}

int room_measured(struct room *r, int pos, const struct probe_result *res, char *err, size_t errlen) {
    struct quiz_qinfo qi;
    if (quiz_get(r->quiz, pos, &qi)) return fv_fail(err, errlen, "measurement for unknown question %d", pos + 1);
    struct room_test_probe *tp = &r->tp[qi.test_index];
    int waits = 0;
    for (int i = 0; i < tp->nwaiting; i++) waits |= tp->waiting[i] == pos;
    int ai = tp->rid ? find_ask(r, tp->rid) : -1;
    if (!waits || ai < 0)
        return fv_fail(err, errlen, "measurement for question %d arrived but it is %s and none was asked for", pos + 1,
                       quiz_state_name(qi.state));
    drop_ask(r, ai);
    return take_result(r, tp, res, err, errlen);
}

/* ROOM_REVOTE: the store first (one transaction), then the quiz and the
 * voters' votes in memory. */
static int revote(struct room *r, char *err, size_t errlen) {
    if (quiz_revote_check(r->quiz, err, errlen)) return -1;
    int pos = quiz_cursor(r->quiz);
    if (db_question_revote(r->db, r->qid[pos], err, errlen)) return -1;
    if (quiz_revote(r->quiz, err, errlen)) return -1;
    for (int v = 0; v < r->nvoters; v++) r->voters[v].votes[pos] = -1;
    r->saved_state[pos] = QUIZ_VOTING;
    return 0;
}

int room_act(struct room *r, enum room_action a, char *err, size_t errlen) {
    struct quiz *q = r->quiz;
    int rc;
    switch (a) {
    case ROOM_REVOTE:
        if (revote(r, err, errlen)) return -1;
        prefetch(r);
        return 0;
    case ROOM_OPEN: rc = quiz_open(q, err, errlen); break;
    case ROOM_CLOSE: rc = quiz_close(q, err, errlen); break;
    case ROOM_MEASURE:
    case ROOM_RERUN: rc = measure(r, a == ROOM_RERUN, err, errlen); break;
    case ROOM_REVEAL: rc = quiz_reveal(q, err, errlen); break;
    case ROOM_NEXT: rc = quiz_next(q, err, errlen); break;
    case ROOM_BACK: rc = quiz_back(q, err, errlen); break;
    case ROOM_SKIP: rc = quiz_skip(q, err, errlen); break;
    default: return fv_fail(err, errlen, "unknown action %d", (int)a);
    }
    if (rc < 0) return -1;
    if (a == ROOM_OPEN || a == ROOM_REVOTE) prefetch(r);
    if (persist(r, err, errlen)) return -1;
    if ((a == ROOM_NEXT || a == ROOM_SKIP) && quiz_ended(q) && room_end(r, err, errlen)) return -1;
    return rc;
}

int room_end(struct room *r, char *err, size_t errlen) { return db_session_end(r->db, r->session_id, err, errlen); }

/* ---- group commit ---- */

int room_batch_begin(struct room *r, char *err, size_t errlen) {
    if (r->in_batch) return fv_fail(err, errlen, "a batch is already open");
    if (db_begin(r->db, err, errlen)) return -1;
    r->in_batch = 1;
    r->batch_first_new = r->nvoters;
    r->npend = 0;
    return 0;
}

int room_batch_join(struct room *r, const char *token, char *err, size_t errlen) {
    if (!room_token_issued(r, token)) return fv_fail(err, errlen, "not a voter token of this room");
    char hash[65];
    db_token_hash(token, hash);
    int i = find_hash(r, hash);
    if (i >= 0) return i;
    if (r->nvoters >= ROOM_VOTERS_MAX) return fv_fail(err, errlen, "the room is full (%d voters)", ROOM_VOTERS_MAX);
    int64_t id = db_voter_add(r->db, r->session_id, hash, err, errlen); /* the room knows every voter */
    if (id < 0) return -1;
    i = add_voter(r, id, hash);
    if (i < 0) return fv_fail(err, errlen, "out of memory adding a voter");
    return i;
}

int room_vote_check(const struct room *r, long long pos, char *err, size_t errlen) {
    const struct quiz *q = r->quiz;
    struct quiz_qinfo i;
    if (pos < 0 || pos >= quiz_count(q) || quiz_get(q, (int)pos, &i))
        return fv_fail(err, errlen, "there is no question %lld", pos + (pos < LLONG_MAX));
    if (i.state != QUIZ_VOTING || quiz_ended(q) || pos != quiz_cursor(q))
        return fv_fail(err, errlen, "question %lld is %s, not open for voting", pos + 1, quiz_state_name(i.state));
    return 0;
}

int room_batch_vote(struct room *r, int voter, int pos, int yes, char *err, size_t errlen) {
    if (voter < 0 || voter >= r->nvoters) return fv_fail(err, errlen, "unknown voter"), 1;
    if (room_vote_check(r, pos, err, errlen)) return 1;
    enum db_vote_result v = db_vote_put(r->db, r->qid[pos], r->voters[voter].id, yes ? 1 : 0, err, errlen);
    if (v == DB_VOTE_ERROR) return -1;
    if (v == DB_VOTE_REFUSED) return 1;
    if (r->npend == r->cappend) {
        int cap = r->cappend ? r->cappend * 2 : 256;
        struct pending_vote *p = realloc(r->pend, sizeof *p * (size_t)cap);
        if (!p) return fv_fail(err, errlen, "out of memory"), -1;
        r->pend = p;
        r->cappend = cap;
    }
    r->pend[r->npend++] = (struct pending_vote){voter, pos, yes ? 1 : 0};
    return 0;
}

int room_batch_commit(struct room *r, char *err, size_t errlen) {
    if (!r->in_batch) return fv_fail(err, errlen, "no batch open");
    r->in_batch = 0;
    if (db_commit(r->db, err, errlen)) {
        db_rollback(r->db);
        drop_voters_from(r, r->batch_first_new);
        r->npend = 0;
        return -1;
    }
    for (int i = 0; i < r->npend; i++) {
        struct pending_vote *p = &r->pend[i];
        signed char *cur = &r->voters[p->voter].votes[p->pos];
        if (*cur == p->yes) continue;
        quiz_vote_apply(r->quiz, p->pos, *cur, p->yes);
        *cur = (signed char)p->yes;
    }
    r->npend = 0;
    return 0;
}

/* ---- the group commit on a store thread ---- */

int room_write_plan(struct room *r, struct room_write *w, int voter, const char *token, int pos, int yes,
                    int new_in_batch, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    w->pos = pos;
    w->yes = yes ? 1 : 0;
    if (voter < 0 && token) { /* hashed once: the store and room_write_apply use w->hash */
        db_token_hash(token, w->hash);
        voter = find_hash(r, w->hash);
    }
    w->voter = voter;
    if (voter < 0) {
        if (!token || !room_token_issued(r, token)) return fv_fail(err, errlen, "not a voter token of this room"), 1;
        if (r->nvoters + new_in_batch >= ROOM_VOTERS_MAX)
            return fv_fail(err, errlen, "the room is full (%d voters)", ROOM_VOTERS_MAX), 1;
    } else if (voter >= r->nvoters) {
        return fv_fail(err, errlen, "unknown voter"), 1;
    } else {
        w->voter_id = r->voters[voter].id;
    }
    if (room_vote_check(r, pos, err, errlen)) return 1;
    w->qid = r->qid[pos];
    return 0;
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
        if (w[i].voter_id) continue;
        unsigned s = hash_prefix(w[i].hash) & (size - 1);
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
        x->new_id = x->voter_id;
        if (first[i] == i) {
            x->new_id = db_voter_add(r->db, r->session_id, x->hash, x->err, sizeof x->err);
        } else if (first[i] >= 0) { /* the same new voter as an earlier write of this batch */
            const struct room_write *f = &w[first[i]];
            x->new_id = f->new_id;
            if (x->new_id < 0) memcpy(x->err, f->err, sizeof x->err); /* f is earlier in w: never x */
        }
        if (x->new_id < 0) {
            x->result = -1;
            continue;
        }
        enum db_vote_result v = db_vote_put(r->db, x->qid, x->new_id, x->yes, x->err, sizeof x->err);
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
        /* A new voter is in memory once its row is committed, even if its
         * vote was refused: the room is what keeps a token to one voter. */
        if (x->voter < 0 && x->new_id > 0) {
            if ((x->voter = find_hash(r, x->hash)) < 0 && (x->voter = add_voter(r, x->new_id, x->hash)) < 0) {
                rc = fv_fail(err, errlen, "out of memory adding a voter (%s)",
                             x->result ? "it is stored" : "the vote is stored");
                x->result = -1;
                continue;
            }
        }
        if (x->result) continue;
        signed char *cur = &r->voters[x->voter].votes[x->pos];
        if (*cur == x->yes) continue;
        quiz_vote_apply(r->quiz, x->pos, *cur, x->yes);
        *cur = (signed char)x->yes;
    }
    return rc;
}

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
    if (quiz_cursor(r->quiz) != 0 || quiz_ended(r->quiz) || r->nvoters > 0) return 1;
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
    memset(r->tp, 0, sizeof r->tp); /* nothing asked yet (nothing has happened), but never keep a stale result */
    r->nasks = 0;
    snprintf(r->title, sizeof r->title, "%s", d->title);
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
