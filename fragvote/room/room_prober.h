/* The room side of the prober interface (private to the room, room_internal.h):
 * the asks in flight and the one cache of probe results, per deck test.
 * A prefetched result is never shown to anyone; once applied to a question
 * it is stored as a measurement and shown at the reveal (quiz_truth). The
 * public calls (room_set_prober, room_prober_result, ...) are in room.h. */
#ifndef FRAGVOTE_ROOM_PROBER_H
#define FRAGVOTE_ROOM_PROBER_H

#include <stddef.h>
#include <stdint.h>

#include "prober.h"
#include "qkind.h"
#include "room.h"

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
    int waiting[QKIND_N], nwaiting; /* questions of the test measuring (one per kind), waiting for that answer */
    int prefetched;                /* the ask in flight or the result held is a prefetch no measure used yet */
};

struct room_prober {
    struct prober prober;          /* valid when has_prober */
    int has_prober, no_prefetch;
    uint64_t last_rid;
    struct room_ask asks[ROOM_ASKS_MAX];
    int nasks;
    unsigned long measure_asks, prefetch_hits;
    struct room_test_probe tp[DECK_TESTS_MAX];
};

/* Voting opened on the current question: measure its test meanwhile,
 * unless it has a result or an ask already, or prefetch is off. */
void room_prober_prefetch(struct room *r);
/* ROOM_MEASURE / ROOM_RERUN (room_act): a held result at once (0), else
 * the answer of an ask (QUIZ_MEASURE_PROBE); -1 with err. */
int room_prober_measure(struct room *r, int rerun, char *err, size_t errlen);
/* Forgets every ask and result (a new deck adopted before anything happened). */
void room_prober_forget(struct room *r);

#endif
