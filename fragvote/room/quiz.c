/* The talk's state machine (see quiz.h). No I/O. */
#include "quiz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_err.h"
#include "fv_names.h"

struct quiz_q {
    struct quiz_qinfo info;
    int has_truth;
    struct quiz_truth truth;          /* private until revealed */
};

struct quiz {
    int n, cursor, ended;
    struct deck_test tests[DECK_TESTS_MAX];
    struct probe_path test_path[DECK_TESTS_MAX]; /* the path of the test's last result: private until
                                                  * revealed, like a truth (quiz_path) */
    struct probe_prediction test_pred[DECK_TESTS_MAX]; /* what the rules said of its last result's
                                                        * test (probe_predict): private until revealed */
    struct quiz_q q[QUIZ_QUESTIONS_MAX];
};

static const char *const state_names[] = {"pending", "voting", "closed", "measured", "revealed", "skipped"};
_Static_assert(FV_NAMES_N(state_names) == QUIZ_SKIPPED + 1, "a name for each enum quiz_state");

FV_NAMES_DEFINE(quiz_state, enum quiz_state, state_names) /* quiz_state_name, quiz_state_parse */

const char *quiz_kind_name(enum qkind k) { return qkind_name(k); }

struct quiz *quiz_new(const struct deck *d, char *err, size_t errlen) {
    struct quiz *q = calloc(1, sizeof *q);
    if (!q) {
        fv_fail(err, errlen, "out of memory building the quiz");
        return NULL;
    }
    int nt = d->ntests < DECK_TESTS_MAX ? d->ntests : DECK_TESTS_MAX;
    for (int t = 0; t < nt; t++) {
        q->tests[t] = d->tests[t];
        for (int k = 0; k < QKIND_N; k++) {
            if (!d->tests[t].ask[k] || q->n >= QUIZ_QUESTIONS_MAX) continue;
            struct quiz_qinfo *i = &q->q[q->n].info;
            i->position = q->n;
            i->test_index = t;
            i->kind = (enum qkind)k;
            i->state = QUIZ_PENDING;
            i->round = 1;
            deck_question_text(&d->tests[t], (enum qkind)k, i->text, sizeof i->text);
            deck_test_summary(&d->tests[t], i->summary, sizeof i->summary);
            q->n++;
        }
    }
    if (!q->n) {
        free(q);
        fv_fail(err, errlen, "the deck asks no question (every test has an empty \"ask\")");
        return NULL;
    }
    return q;
}

void quiz_free(struct quiz *q) { free(q); }
int quiz_count(const struct quiz *q) { return q->n; }
int quiz_cursor(const struct quiz *q) { return q->cursor; }
int quiz_ended(const struct quiz *q) { return q->ended; }

static int settled(enum quiz_state s) { return s == QUIZ_REVEALED || s == QUIZ_SKIPPED; }

int quiz_first_open(const struct quiz *q) {
    for (int i = 0; i < q->n; i++)
        if (!settled(q->q[i].info.state)) return i;
    return -1;
}

int quiz_get(const struct quiz *q, int pos, struct quiz_qinfo *out) {
    if (pos < 0 || pos >= q->n) return -1;
    *out = q->q[pos].info;
    return 0;
}

int quiz_votes(const struct quiz *q, int pos) {
    if (pos < 0 || pos >= q->n) return -1;
    return q->q[pos].info.yes + q->q[pos].info.no;
}

const struct deck_test *quiz_test(const struct quiz *q, int pos) {
    if (pos < 0 || pos >= q->n) return NULL;
    return &q->tests[q->q[pos].info.test_index];
}


/* The other questions of pos's test that can still be revealed: whether one
 * comes before pos, and their kinds (bit 1 << kind). 0 when none is open. */
static unsigned open_siblings(const struct quiz *q, int pos, int *earlier_open) {
    unsigned kinds = 0;
    *earlier_open = 0;
    for (int i = 0; i < q->n; i++) {
        const struct quiz_qinfo *o = &q->q[i].info;
        if (i == pos || o->test_index != q->q[pos].info.test_index || settled(o->state)) continue;
        kinds |= 1u << o->kind;
        if (i < pos) *earlier_open = 1;
    }
    return kinds;
}

/* The rules' side of question pos's reveal: the chain of its fact without
 * the steps that tell a sibling still open (bits 1 << kind in `open`: the
 * same bits as PROBE_TELLS_*), and the surprise when the measurement
 * differs. */
static void explain(const struct quiz *q, int pos, unsigned open, struct quiz_truth *out) {
    const struct quiz_q *x = &q->q[pos];
    const struct probe_prediction *p = &q->test_pred[x->info.test_index];
    _Static_assert(PROBE_TELLS_SENT == 1u << QKIND_SENT && PROBE_TELLS_DF == 1u << QKIND_DF &&
                       PROBE_TELLS_FRAG == 1u << QKIND_FRAGMENTED && (int)PROBE_PREDICT_SENT == (int)QKIND_SENT &&
                       (int)PROBE_PREDICT_DF == (int)QKIND_DF && (int)PROBE_PREDICT_FRAGMENTED == (int)QKIND_FRAGMENTED,
                   "a question kind is its fact in the prediction, and its bit its PROBE_TELLS_* bit");
    enum probe_predict_fact f = (enum probe_predict_fact)x->info.kind;
    probe_predict_text(p, f, ~open, out->explain, sizeof out->explain);
    probe_predict_key(p, f, ~open, out->explain_key, sizeof out->explain_key);
    out->nexplain = probe_predict_msgs(p, f, ~open, out->explain_msg);
    struct probe_fact m = {.answer = out->answer, .basis = out->basis};
    snprintf(m.why, sizeof m.why, "%s", out->why);
    probe_predict_surprise(p, f, &m, out->surprise, sizeof out->surprise);
    probe_predict_surprise_msg(p, f, &m, &out->surprise_msg);
}

int quiz_truth(const struct quiz *q, int pos, struct quiz_truth *out) {
    if (pos < 0 || pos >= q->n) return -1;
    const struct quiz_q *x = &q->q[pos];
    if (x->info.state != QUIZ_REVEALED || !x->has_truth) return -1;
    *out = x->truth;
    int earlier_open;
    unsigned open = open_siblings(q, pos, &earlier_open);
    if (earlier_open) out->why[0] = '\0', out->nwhy = 0;
    if (open) out->evidence[0] = '\0', out->nevidence = 0;
    explain(q, pos, open, out);
    return 0;
}

/* A real path's nodes after its first gap are there because this packet's
 * ICMP answer named them (probe_path_topology_real: TTL discovery's hops
 * come first, unbroken): they go, with their events, and the gaps around
 * them become one. A lab's path has no gap: unchanged. */
static void path_nodes_before_the_send(struct probe_path *p) {
    int gap = -1;
    for (int i = 0; i < p->nnodes && gap < 0; i++)
        if (p->node[i].role == PROBE_PATH_GAP) gap = i;
    if (gap < 0) return;
    int map[PROBE_PATH_NODES_MAX], n = gap + 1;
    for (int i = 0; i <= gap; i++) map[i] = i;
    for (int i = gap + 1; i < p->nnodes; i++) {
        map[i] = -1;
        if (p->node[i].role == PROBE_PATH_TARGET) {
            map[i] = n;
            p->node[n++] = p->node[i];
        }
    }
    for (int i = gap; i + 1 < n; i++) p->link[i] = (struct probe_path_link){0, PROBE_PATH_MTU_NONE};
    int k = 0;
    for (int i = 0; i < p->nevents; i++)
        if (map[p->ev[i].node] >= 0) {
            p->ev[k] = p->ev[i];
            p->ev[k++].node = map[p->ev[i].node];
        }
    p->nevents = k;
    p->nnodes = n;
}

void quiz_path_view(struct probe_path *p, enum qkind kind, unsigned allowed) {
    int sent = allowed & (1u << QKIND_SENT), df = allowed & (1u << QKIND_DF), frag = allowed & (1u << QKIND_FRAGMENTED);
    snprintf(p->view, sizeof p->view, "%s", allowed ? qkind_name(kind) : "topology");
    p->shown = (sent ? PROBE_PATH_SHOW_LEFT | PROBE_PATH_SHOW_ERROR : 0u) | (df ? PROBE_PATH_SHOW_DF : 0u) |
               (frag ? PROBE_PATH_SHOW_PIECES : 0u);
    p->reached = -1;
    for (int i = 0; i + 1 < p->nnodes; i++)
        if (p->link[i].from == PROBE_PATH_MTU_ICMP) p->link[i] = (struct probe_path_link){0, PROBE_PATH_MTU_NONE};
    path_nodes_before_the_send(p);
    int n = 0;
    for (int i = 0; i < p->nevents; i++) {
        struct probe_path_event e = p->ev[i];
        int keep = 0;
        switch (e.what) {
        case PROBE_PATH_REFUSED: keep = sent && e.node == 0; e.shown = PROBE_PATH_EV_ICMP; break;
        /* Pieces made or joined by a router: only with "fragmented?" shown
         * (DF=0 follows from the verdict itself). How far it got whole, and
         * whether it arrived, can tell DF or fragments beside the link
         * MTUs: never while one of them is open. */
        case PROBE_PATH_FRAGMENTED: case PROBE_PATH_REASSEMBLED: keep = frag; e.shown = 0; break;
        default: break;
        }
        if (keep) p->ev[n++] = e;
    }
    p->nevents = n;
}

int quiz_path(const struct quiz *q, int pos, struct probe_path *out) {
    if (pos < 0 || pos >= q->n) return -1;
    const struct quiz_q *x = &q->q[pos];
    const struct probe_path *p = &q->test_path[x->info.test_index];
    if (x->info.state != QUIZ_REVEALED || !x->has_truth || !p->v) return -1;
    *out = *p;
    int earlier_open;
    unsigned open = open_siblings(q, pos, &earlier_open);
    if (open) quiz_path_view(out, x->info.kind, earlier_open ? 0u : 7u & ~open);
    return 0;
}

/* The current question, or NULL (with err) when the quiz has ended. */
static struct quiz_q *current(struct quiz *q, char *err, size_t errlen) {
    if (q->ended) {
        fv_fail(err, errlen, "the quiz has ended (use back to return to the last question)");
        return NULL;
    }
    return &q->q[q->cursor];
}

static int refuse(struct quiz_q *x, const char *action, const char *hint, char *err, size_t errlen) {
    return fv_fail(err, errlen, "cannot %s question %d: it is %s%s%s", action, x->info.position + 1,
                   quiz_state_name(x->info.state), hint ? "; " : "", hint ? hint : "");
}

int quiz_open(struct quiz *q, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    if (x->info.state != QUIZ_PENDING)
        return refuse(x, "open", x->info.state == QUIZ_SKIPPED ? "it was skipped" : "voting opens only once", err,
                      errlen);
    x->info.state = QUIZ_VOTING;
    return 0;
}

int quiz_close(struct quiz *q, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    if (x->info.state != QUIZ_VOTING) return refuse(x, "close", "only a question in voting can be closed", err, errlen);
    x->info.state = QUIZ_CLOSED;
    return 0;
}

void quiz_truth_from_probe(const struct probe_result *r, enum qkind kind, struct quiz_truth *out) {
    const struct probe_fact *f = kind == QKIND_SENT ? &r->sent : kind == QKIND_DF ? &r->df : &r->fragmented;
    memset(out, 0, sizeof *out);
    out->answer = f->answer;
    out->basis = f->basis;
    snprintf(out->why, sizeof out->why, "%s", f->why);
    out->nwhy = f->nmsg > 0 ? f->nmsg : 0;
    memcpy(out->why_msg, f->msg, sizeof out->why_msg);
    snprintf(out->evidence, sizeof out->evidence, "%s", r->evidence);
    out->nevidence = r->nev > 0 ? r->nev : 0;
    memcpy(out->evidence_msg, r->ev, sizeof out->evidence_msg);
}

static void apply_result(struct quiz_q *x, const struct probe_result *r) {
    quiz_truth_from_probe(r, x->info.kind, &x->truth);
    x->has_truth = 1;
    x->info.measuring = 0;
    if (x->info.state == QUIZ_CLOSED) x->info.state = QUIZ_MEASURED;
}

int quiz_measure(struct quiz *q, int rerun, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    enum quiz_state s = x->info.state;
    if (rerun) {
        if (s != QUIZ_CLOSED && s != QUIZ_MEASURED && s != QUIZ_REVEALED)
            return refuse(x, "re-run the test of", "close voting first", err, errlen);
    } else if (s != QUIZ_CLOSED) {
        return refuse(x, "measure", s == QUIZ_VOTING ? "close voting first" : NULL, err, errlen);
    }
    if (x->info.measuring) return fv_fail(err, errlen, "question %d is being measured already", x->info.position + 1);
    x->info.measuring = 1;
    return QUIZ_MEASURE_PROBE;
}

int quiz_measured(struct quiz *q, int pos, const struct probe_result *r, char *err, size_t errlen) {
    if (pos < 0 || pos >= q->n)
        return fv_fail(err, errlen, "measurement for unknown question %lld", (long long)pos + 1);
    struct quiz_q *x = &q->q[pos];
    enum quiz_state s = x->info.state;
    if (!x->info.measuring || (s != QUIZ_CLOSED && s != QUIZ_MEASURED && s != QUIZ_REVEALED)) {
        x->info.measuring = 0;
        return fv_fail(err, errlen, "measurement for question %d arrived but it is %s and none was asked for",
                       pos + 1, quiz_state_name(s));
    }
    q->test_path[x->info.test_index] = r->path;
    struct probe_path_topology topo;
    struct probe_predict_in in;
    probe_predict_in_of(r, &topo, &in);
    probe_predict(&in, &q->test_pred[x->info.test_index]);
    apply_result(x, r);
    return 0;
}

int quiz_reveal(struct quiz *q, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    if (x->info.state != QUIZ_MEASURED)
        return refuse(x, "reveal", x->info.state == QUIZ_CLOSED ? "measure first" : NULL, err, errlen);
    x->info.state = QUIZ_REVEALED;
    if (x->info.kind == QKIND_SENT && x->truth.answer == PROBE_ANS_NO) {
        /* Not sent: no DF bit, no fragments to ask about. */
        for (int i = 0; i < q->n; i++)
            if (q->q[i].info.test_index == x->info.test_index && q->q[i].info.state == QUIZ_PENDING)
                q->q[i].info.state = QUIZ_SKIPPED;
    }
    return 0;
}

/* To the next question not skipped, or the end after the last. */
static void forward(struct quiz *q) {
    int i = q->cursor + 1;
    while (i < q->n && q->q[i].info.state == QUIZ_SKIPPED) i++;
    if (i >= q->n)
        q->ended = 1;
    else
        q->cursor = i;
}

int quiz_next(struct quiz *q, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    enum quiz_state s = x->info.state;
    if (s == QUIZ_VOTING || s == QUIZ_CLOSED || s == QUIZ_MEASURED)
        return refuse(x, "leave", s == QUIZ_MEASURED ? "reveal or skip it first" : "close, measure and reveal or skip it first",
                      err, errlen);
    forward(q);
    return 0;
}

int quiz_back(struct quiz *q, char *err, size_t errlen) {
    if (q->ended) {
        q->ended = 0; /* the cursor still points at the last question shown */
        return 0;
    }
    struct quiz_q *x = &q->q[q->cursor];
    if (x->info.state == QUIZ_VOTING) return refuse(x, "leave", "close voting first", err, errlen);
    int i = q->cursor - 1;
    while (i >= 0 && q->q[i].info.state == QUIZ_SKIPPED) i--;
    if (i < 0) return fv_fail(err, errlen, "already at the first question");
    q->cursor = i;
    return 0;
}

int quiz_skip(struct quiz *q, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    if (x->info.state == QUIZ_REVEALED) return refuse(x, "skip", "use next", err, errlen);
    x->info.state = QUIZ_SKIPPED;
    x->info.measuring = 0;
    forward(q);
    return 0;
}

int quiz_answer_unvoted(struct quiz *q, char *err, size_t errlen) {
    struct quiz_q *x = current(q, err, errlen);
    if (!x) return -1;
    if (x->info.state != QUIZ_PENDING)
        return refuse(x, "show the answer to", "without a vote only before voting opens", err, errlen);
    x->info.state = QUIZ_CLOSED; /* closed without a vote: measured and revealed as any other */
    return 0;
}

int quiz_end(struct quiz *q, char *err, size_t errlen) {
    if (q->ended) return fv_fail(err, errlen, "the quiz has ended already");
    for (int i = 0; i < q->n; i++) {
        struct quiz_qinfo *o = &q->q[i].info;
        if (o->state == QUIZ_REVEALED || o->state == QUIZ_SKIPPED) continue;
        o->state = QUIZ_SKIPPED;
        o->measuring = 0;
    }
    q->ended = 1;
    return 0;
}

int quiz_revote_check(const struct quiz *q, char *err, size_t errlen) {
    if (q->ended) return fv_fail(err, errlen, "the quiz has ended (use back to return to the last question)");
    const struct quiz_q *x = &q->q[q->cursor];
    if (x->info.state != QUIZ_CLOSED || x->info.measuring)
        return fv_fail(err, errlen,
                       "cannot re-vote question %d: it is %s%s; a re-vote opens after close, before measure",
                       x->info.position + 1, quiz_state_name(x->info.state),
                       x->info.measuring ? " and being measured" : "");
    if (x->info.round != 1)
        return fv_fail(err, errlen, "cannot re-vote question %d: it had its second round already",
                       x->info.position + 1);
    return 0;
}

int quiz_revote(struct quiz *q, char *err, size_t errlen) {
    if (quiz_revote_check(q, err, errlen)) return -1;
    struct quiz_qinfo *i = &q->q[q->cursor].info;
    i->first_yes = i->yes;
    i->first_no = i->no;
    i->first_conf = i->conf;
    i->yes = i->no = 0;
    memset(&i->conf, 0, sizeof i->conf);
    i->round = 2;
    i->state = QUIZ_VOTING;
    return 0;
}

void quiz_vote_apply(struct quiz *q, int pos, int old, enum confidence old_conf, int yes, enum confidence conf) {
    if (pos < 0 || pos >= q->n) return;
    struct quiz_qinfo *i = &q->q[pos].info;
    if (old == 1) i->yes--;
    if (old == 0) i->no--;
    if (yes) i->yes++;
    else i->no++;
    confidence_split_apply(&i->conf, old, old_conf, yes ? 1 : 0, conf);
}

int quiz_restore(struct quiz *q, int pos, enum quiz_state s, int yes, int no, const struct quiz_truth *truth) {
    if (pos < 0 || pos >= q->n) return -1;
    struct quiz_q *x = &q->q[pos];
    x->info.state = s;
    x->info.yes = yes;
    x->info.no = no;
    memset(&x->info.conf, 0, sizeof x->info.conf);
    x->info.conf.yes[CONFIDENCE_NONE] = yes;
    x->info.conf.no[CONFIDENCE_NONE] = no;
    x->info.measuring = 0;
    x->has_truth = truth != NULL;
    if (truth) x->truth = *truth;
    return 0;
}

int quiz_restore_measuring(struct quiz *q, int pos) {
    if (pos < 0 || pos >= q->n) return -1;
    struct quiz_qinfo *i = &q->q[pos].info;
    if (i->state != QUIZ_CLOSED && i->state != QUIZ_MEASURED && i->state != QUIZ_REVEALED) return -1;
    i->measuring = 1;
    return 0;
}

int quiz_restore_path(struct quiz *q, int pos, const struct probe_path *p) {
    if (pos < 0 || pos >= q->n) return -1;
    q->test_path[q->q[pos].info.test_index] = *p;
    return 0;
}

int quiz_restore_round(struct quiz *q, int pos, enum confidence conf, int first_yes, int first_no) {
    if (pos < 0 || pos >= q->n || (int)conf < 0 || (int)conf >= CONFIDENCE_LEVELS) return -1;
    struct quiz_qinfo *i = &q->q[pos].info;
    i->round = 2;
    i->first_yes += first_yes;
    i->first_no += first_no;
    i->first_conf.yes[conf] += first_yes;
    i->first_conf.no[conf] += first_no;
    return 0;
}

void quiz_restore_cursor(struct quiz *q, int cursor, int ended) {
    if (cursor >= 0 && cursor < q->n) q->cursor = cursor;
    q->ended = ended ? 1 : 0;
}

enum score_truth quiz_score_truth(const struct quiz_truth *t) {
    return t->answer == PROBE_ANS_YES ? SCORE_TRUTH_YES : t->answer == PROBE_ANS_NO ? SCORE_TRUTH_NO : SCORE_TRUTH_NONE;
}

double quiz_collective(const struct quiz *q, int *scored) {
    struct score_sum s = {0};
    for (int p = 0; p < q->n; p++) {
        const struct quiz_q *x = &q->q[p];
        if (x->info.state != QUIZ_REVEALED || !x->has_truth) continue;
        score_sum_add(&s, x->info.yes, x->info.no, quiz_score_truth(&x->truth));
    }
    if (scored) *scored = s.scored;
    return score_collective(&s);
}
