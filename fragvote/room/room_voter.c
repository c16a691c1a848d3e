/* The room's voters (room_voter.h, room.h): the table in memory, and what a
 * voter's votes say. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_hub.h"
#include "room_internal.h"

unsigned room_voter_hash_prefix(const char *hash) {
    unsigned h = 0;
    for (int i = 0; i < 8; i++) h = h * 16 + (unsigned)(hash[i] <= '9' ? hash[i] - '0' : hash[i] - 'a' + 10);
    return h;
}

static unsigned hash_bucket(const struct room_voters *vs, const char *hash) {
    return room_voter_hash_prefix(hash) & (unsigned)(vs->nbuckets - 1);
}

int room_voter_find_hash(const struct room_voters *vs, const char *hash) {
    if (!vs->nbuckets) return -1;
    for (int i = vs->buckets[hash_bucket(vs, hash)]; i >= 0; i = vs->v[i].next)
        if (!strcmp(vs->v[i].hash, hash)) return i;
    return -1;
}

static int rehash(struct room_voters *vs, int nb) {
    int *b = malloc(sizeof *b * (size_t)nb);
    if (!b) return -1;
    for (int i = 0; i < nb; i++) b[i] = -1;
    free(vs->buckets);
    vs->buckets = b;
    vs->nbuckets = nb;
    for (int i = 0; i < vs->n; i++) {
        unsigned k = hash_bucket(vs, vs->v[i].hash);
        vs->v[i].next = b[k];
        b[k] = i;
    }
    return 0;
}

int room_voter_add(struct room_voters *vs, int nq, int64_t id, const char *hash) {
    if (vs->n >= ROOM_VOTERS_MAX) return -1;
    if (vs->n == vs->cap) {
        int cap = vs->cap ? vs->cap * 2 : 256;
        struct room_voter *v = realloc(vs->v, sizeof *v * (size_t)cap);
        if (!v) return -1;
        vs->v = v;
        vs->cap = cap;
    }
    if (vs->n * 2 >= vs->nbuckets && rehash(vs, vs->nbuckets ? vs->nbuckets * 2 : 1024)) return -1;
    struct room_voter *v = &vs->v[vs->n];
    v->votes = malloc(2 * (size_t)nq); /* the answers, then the confidences */
    if (!v->votes) return -1;
    memset(v->votes, -1, (size_t)nq);
    v->conf = (unsigned char *)v->votes + nq;
    memset(v->conf, CONFIDENCE_NONE, (size_t)nq);
    v->id = id;
    snprintf(v->hash, sizeof v->hash, "%s", hash);
    unsigned k = hash_bucket(vs, hash);
    v->next = vs->buckets[k];
    vs->buckets[k] = vs->n;
    return vs->n++;
}

int room_voter_by_id(const struct room_voters *vs, int64_t id) {
    int lo = 0, hi = vs->n - 1; /* ordered by id: a binary search */
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (vs->v[mid].id == id) return mid;
        if (vs->v[mid].id < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

void room_voter_clear_votes(struct room_voters *vs, int pos) {
    for (int v = 0; v < vs->n; v++) {
        vs->v[v].votes[pos] = -1;
        vs->v[v].conf[pos] = CONFIDENCE_NONE;
    }
}

void room_voter_release(struct room_voters *vs) {
    for (int i = 0; i < vs->n; i++) free(vs->v[i].votes);
    free(vs->v);
    free(vs->buckets);
    memset(vs, 0, sizeof *vs);
}

int room_voter_find(const struct room *r, const char *token) {
    char hash[65];
    db_token_hash(token, hash);
    return room_voter_find_hash(&r->voters, hash);
}

int room_voter_vote(const struct room *r, int voter, int pos) {
    if (voter < 0 || voter >= r->voters.n || pos < 0 || pos >= r->nq) return -1;
    return r->voters.v[voter].votes[pos];
}

enum confidence room_voter_confidence(const struct room *r, int voter, int pos) {
    if (voter < 0 || voter >= r->voters.n || pos < 0 || pos >= r->nq) return CONFIDENCE_NONE;
    return (enum confidence)r->voters.v[voter].conf[pos];
}

int room_voter_count(const struct room *r) { return r->voters.n; }

void room_voter_score(const struct room *r, int voter, int *answered, int *scored, int *correct) {
    *answered = *scored = *correct = 0;
    if (voter < 0 || voter >= r->voters.n) return;
    for (int p = 0; p < r->nq; p++) {
        int v = r->voters.v[voter].votes[p];
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
