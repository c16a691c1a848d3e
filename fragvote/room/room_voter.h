/* The room's voter table (private to the room, room_internal.h): voters in
 * memory, found by their token's hash through a chained hash table, each
 * with its vote per question. The functions here take the table alone; the
 * public ones (room_voter_find, _vote, _count, _score) are in room.h. */
#ifndef FRAGVOTE_ROOM_VOTER_H
#define FRAGVOTE_ROOM_VOTER_H

#include <stdint.h>

struct room_voter {
    int64_t id;                 /* voters.id */
    char hash[65];              /* SHA-256 of the token, as stored */
    int next;                   /* hash chain */
    signed char *votes;         /* per question: -1 none, 0 no, 1 yes */
    unsigned char *conf;        /* per question: the vote's enum confidence (the same allocation as votes) */
};

struct room_voters {
    struct room_voter *v;
    int n, cap;
    int *buckets;
    int nbuckets;               /* power of two */
};

/* A token hash's first 8 hex digits: random, so a table index as it is. */
unsigned room_voter_hash_prefix(const char *hash);
/* Index of the voter with this token hash, or -1. */
int room_voter_find_hash(const struct room_voters *vs, const char *hash);
/* Adds a voter with nq questions, none voted; its index, or -1 (full:
 * ROOM_VOTERS_MAX, or out of memory). */
int room_voter_add(struct room_voters *vs, int nq, int64_t id, const char *hash);
/* Index of the voter whose row is id (the table ordered by id, as resumed), or -1. */
int room_voter_by_id(const struct room_voters *vs, int64_t id);
/* Every voter's vote on pos cleared, its confidence with it (a re-vote's final round). */
void room_voter_clear_votes(struct room_voters *vs, int pos);
/* Frees every voter and the table (empty again). */
void room_voter_release(struct room_voters *vs);

#endif
