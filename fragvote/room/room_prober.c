/* The room side of the prober interface (room_prober.h, room.h): asks with
 * request ids, the one cache of probe results per deck test, and the
 * measurements stored as they are applied. */
#include "room_prober.h"

#include <stdlib.h>
#include <string.h>

#include "db_hub.h"
#include "fv_err.h"
#include "probe_json.h"
#include "room_internal.h"

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

static void reask_resumed(struct room *r);

void room_set_prober(struct room *r, const struct prober *p) {
    r->pr.has_prober = p && p->ask;
    if (r->pr.has_prober) r->pr.prober = *p;
    reask_resumed(r);
    room_prober_prefetch(r);
}

void room_set_prefetch(struct room *r, int on) { r->pr.no_prefetch = !on; }
int room_has_prober(const struct room *r) { return r->pr.has_prober; }
void room_measure_counts(const struct room *r, unsigned long *measures, unsigned long *prefetch_hits) {
    *measures = r->pr.measure_asks;
    *prefetch_hits = r->pr.prefetch_hits;
}

void room_prober_forget(struct room *r) {
    memset(r->pr.tp, 0, sizeof r->pr.tp); /* nothing asked yet (nothing has happened), but never keep a stale result */
    r->pr.nasks = 0;
}

static int find_ask(const struct room_prober *m, uint64_t rid) {
    for (int i = 0; i < m->nasks; i++)
        if (m->asks[i].rid == rid) return i;
    return -1;
}

static void drop_ask(struct room_prober *m, int i) {
    memmove(&m->asks[i], &m->asks[i + 1], sizeof m->asks[0] * (size_t)(m->nasks - i - 1));
    m->nasks--;
}

/* Question pos waits for its test's answer (one question per kind). */
static void wait_for(struct room_test_probe *tp, int pos) {
    if (tp->nwaiting < QKIND_N) tp->waiting[tp->nwaiting++] = pos;
}

/* A new ask for the test of question pos; waiting is pos for a measure, -1
 * for a prefetch. Questions already waiting for an earlier ask of the test
 * (superseded by a rerun) wait for this one. 0 asked, -1 refused (too many
 * asks in flight, or the prober said no). */
static int ask(struct room *r, int pos, int waiting, int rerun) {
    struct room_prober *m = &r->pr;
    struct quiz_qinfo qi;
    quiz_get(r->quiz, pos, &qi);
    struct room_test_probe *tp = &m->tp[qi.test_index];
    if (m->nasks == ROOM_ASKS_MAX) { /* make room by forgetting the oldest superseded ask */
        int i = 0;
        while (i < m->nasks && !m->asks[i].superseded) i++;
        if (i == m->nasks) return -1;
        drop_ask(m, i);
    }
    struct room_ask *a = &m->asks[m->nasks];
    *a = (struct room_ask){.rid = ++m->last_rid, .test_index = qi.test_index, .position = waiting, .rerun = rerun,
                           .spec = quiz_test(r->quiz, pos)->spec};
    if (m->has_prober) {
        struct prober_ask pa = {a->rid, a->test_index, a->position, &a->spec, a->rerun};
        if (m->prober.ask(m->prober.ctx, &pa) < 0) return -1;
    }
    m->nasks++;
    int old = tp->rid ? find_ask(m, tp->rid) : -1;
    if (old >= 0) m->asks[old].superseded = 1;
    tp->rid = a->rid;
    tp->prefetched = waiting < 0;
    if (waiting >= 0) wait_for(tp, waiting);
    return 0;
}

/* The answer is held by the room. */
void room_prober_prefetch(struct room *r) {
    if (!r->pr.has_prober || r->pr.no_prefetch || quiz_ended(r->quiz)) return;
    struct quiz_qinfo qi;
    quiz_get(r->quiz, quiz_cursor(r->quiz), &qi);
    struct room_test_probe *tp = &r->pr.tp[qi.test_index];
    if (qi.state == QUIZ_VOTING && !tp->have && !tp->rid) ask(r, qi.position, -1, 0); /* refused: not prefetched */
}

/* The test's result for question pos: its truth in the quiz, stored as a measurement. */
static int apply_result(struct room *r, int pos, const struct probe_result *res, char *err, size_t errlen) {
    if (quiz_measured(r->quiz, pos, res, err, errlen)) return -1;
    int rc = store_measurement(r, pos, res, err, errlen);
    if (room_persist(r, err, errlen)) rc = -1;
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
    struct room_test_probe *tp = &r->pr.tp[qi.test_index];
    struct probe_result u;
    prober_result_unknown(&quiz_test(r->quiz, pos)->spec,
                          r->pr.nasks == ROOM_ASKS_MAX ? "too many measurements in flight" : "the prober refused it",
                          &u);
    wait_for(tp, pos);
    tp->rid = 0;
    return take_result(r, tp, &u, err, errlen) ? -1 : 0;
}

int room_prober_measure(struct room *r, int rerun, char *err, size_t errlen) {
    if (quiz_measure(r->quiz, rerun, err, errlen) < 0) return -1;
    r->pr.measure_asks++;
    int pos = quiz_cursor(r->quiz);
    struct quiz_qinfo qi;
    quiz_get(r->quiz, pos, &qi);
    struct room_test_probe *tp = &r->pr.tp[qi.test_index];
    if (!rerun && tp->prefetched && (tp->rid || tp->have)) r->pr.prefetch_hits++;
    if (!rerun) tp->prefetched = 0;
    if (!rerun && tp->rid) { /* a prefetch (or another question's ask) is on its way */
        wait_for(tp, pos);
        return QUIZ_MEASURE_PROBE;
    }
    if (!rerun && tp->have) return apply_result(r, pos, &tp->res, err, errlen) ? -1 : 0;
    return ask_or_unknown(r, pos, rerun, err, errlen);
}

/* A resumed room's questions that were measuring when the old process
 * stopped: measuring again, their test asked afresh (a re-run for a
 * question measured or revealed already), once there is a prober. */
static void reask_resumed(struct room *r) {
    if (!r->pr.has_prober) return;
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
    struct room_prober *m = &r->pr;
    int i = find_ask(m, rid);
    if (i < 0)
        return fv_fail(err, errlen, rid && rid <= m->last_rid ? "measurement %llu was answered already"
                                                              : "no measurement %llu was asked for",
                       (unsigned long long)rid);
    struct room_ask a = m->asks[i];
    if (!prober_result_matches(&a.spec, res))
        return fv_fail(err, errlen, "the result for measurement %llu is of another test (%s %s %d bytes, not %s %s %d)",
                       (unsigned long long)rid, probe_proto_name(res->spec.proto), probe_mode_name(res->spec.mode),
                       res->spec.size, probe_proto_name(a.spec.proto), probe_mode_name(a.spec.mode), a.spec.size);
    drop_ask(m, i);
    struct room_test_probe *tp = &m->tp[a.test_index];
    if (a.superseded || tp->rid != rid) return 0; /* a rerun asked again: this answer no longer counts */
    return take_result(r, tp, res, err, errlen);
}

int room_prober_result_awaited(const struct room *r, uint64_t rid) {
    int i = find_ask(&r->pr, rid);
    if (i < 0 || r->pr.asks[i].superseded) return 0;
    const struct room_test_probe *tp = &r->pr.tp[r->pr.asks[i].test_index];
    int measuring = 0;
    for (int w = 0; w < tp->nwaiting && tp->rid == rid; w++) {
        struct quiz_qinfo qi;
        measuring |= !quiz_get(r->quiz, tp->waiting[w], &qi) && qi.measuring; /* not one skipped meanwhile */
    }
    return measuring;
}

int room_prober_pending(const struct room *r, struct prober_ask *out, int max) {
    int n = 0;
    for (int i = 0; i < r->pr.nasks && n < max; i++) {
        const struct room_ask *a = &r->pr.asks[i];
        if (!a->superseded) out[n++] = (struct prober_ask){a->rid, a->test_index, a->position, &a->spec, a->rerun};
    }
    return n;
}

int room_measured(struct room *r, int pos, const struct probe_result *res, char *err, size_t errlen) {
    struct quiz_qinfo qi;
    if (quiz_get(r->quiz, pos, &qi)) return fv_fail(err, errlen, "measurement for unknown question %d", pos + 1);
    struct room_test_probe *tp = &r->pr.tp[qi.test_index];
    int waits = 0;
    for (int i = 0; i < tp->nwaiting; i++) waits |= tp->waiting[i] == pos;
    int ai = tp->rid ? find_ask(&r->pr, tp->rid) : -1;
    if (!waits || ai < 0)
        return fv_fail(err, errlen, "measurement for question %d arrived but it is %s and none was asked for", pos + 1,
                       quiz_state_name(qi.state));
    drop_ask(&r->pr, ai);
    return take_result(r, tp, res, err, errlen);
}
