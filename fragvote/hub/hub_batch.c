/* The group commit of joins and votes (see hub_store.c for its SQL
 * thread): collected for HUB_BATCH_MS (HUB_T_BATCH), planned from the
 * room's memory (room_write_plan), committed on the store thread, applied
 * (room_write_apply), then every phone of the batch answered: its welcome,
 * its ack only after the COMMIT, or the error. Runs on the lws thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fv_clock.h"
#include "hub.h"
#include "hub_acklat.h"
#include "hub_batch.h"
#include "hub_conn.h"
#include "hub_conns.h"
#include "hub_loop.h"
#include "hub_mailbox.h"
#include "hub_msg.h"
#include "hub_send.h"
#include "hub_store.h"
#include "hub_tally.h"
#include "leaderboard.h"

/* The group commit, in two halves around the store thread (hub_store.c):
 * hub_batch_flush plans the collected joins and votes from the room's
 * memory and hands their writes over; hub_batch_complete, once the thread
 * has committed, counts them and answers every phone of the batch. Ops
 * arriving meanwhile collect for the next batch, which starts when this one
 * is done. A batch with nothing to write is answered at once. */
/* The group commit's state (hub_batch_new); other files ask
 * hub_batch_pending and hub_batch_busy. Two arrays of ops swap: one
 * collects the next batch while the other is in flight. It is given the
 * parts a commit reads and answers (hub_batch_init). */
struct hub_batch {
    struct hub *hub;               /* the loop: the HUB_T_BATCH deadline, the status, the tally (hub_loop.h) */
    struct room *room;
    struct hub_store *store;       /* its store thread (hub_store.c) */
    struct hub_mailbox *mb;        /* the commits counted for the status */
    struct hub_conns *conns;       /* voters and newcomers online */
    struct hub_broadcast *bcast;   /* a commit's counts go out as a tally */
    struct hub_acklat *acklat;     /* vote read -> ack written */
    struct leaderboard *board;     /* a nickname given to the voter a first vote makes; NULL: none */
    struct hub_op *ops;            /* collecting for the next batch */
    int nops, capops;
    struct hub_op *job;            /* the batch in flight (or being answered) */
    int njob, capjob;
    struct room_write *writes;     /* its writes, the store thread's while store_busy */
    int nwrites, capwrites;
    int store_busy;                /* a batch is with the store thread */
};

enum hub_op_kind { HUB_OP_JOIN, HUB_OP_VOTE, HUB_OP_REPLAY }; /* replay: an answer to the self-paced replay */
/* One join, vote or replay answer of a batch (hub_batch_join, _vote, _replay). */
struct hub_op {
    enum hub_op_kind kind;
    struct hub_conn *conn;         /* NULL once it closed */
    long long id;                  /* vote: the phone's id (0..HUB_ID_MAX), -1 none */
    int pos, yes;
    enum confidence conf;          /* vote: its confidence (CONFIDENCE_NONE: none) */
    int voter;                     /* vote: the voter index, -1 while its token has none (the batch makes it) */
    char token[ROOM_TOKEN_HEX + 1];
    int result;                    /* after the batch: voter index / 0 ok / 1 refused / -1 error */
    int wi;                        /* vote: its write in hub_batch.writes, -1 none (refused before) */
    char err[160];
    long long read_us;             /* when the hub read it (fv_clock_us) */
};

static void batch_finish(struct hub_batch *b, int ok, const char *why);

/* The batch's deadline (HUB_T_BATCH) came. */
static void batch_due(lws_sorted_usec_list_t *sul) { hub_batch_flush(hub_timer_owner(sul, HUB_T_BATCH)); }

void hub_batch_init(struct hub_batch *b, struct hub *hub, struct room *room, struct hub_store *store,
                    struct hub_mailbox *mb, struct hub_conns *conns, struct hub_broadcast *bcast, struct hub_acklat *acklat,
                    struct leaderboard *board) {
    *b = (struct hub_batch){.hub = hub, .room = room, .store = store, .mb = mb, .conns = conns, .bcast = bcast,
                            .acklat = acklat, .board = board}; /* no op yet: its arrays start empty */
}

void hub_batch_flush(struct hub_batch *b) {
    hub_timer_cancel(b->hub, HUB_T_BATCH);
    if (!b->nops || b->store_busy) return; /* in flight: hub_batch_complete flushes again */
    struct hub_op *t = b->job; /* the batch moves aside; new ops collect in the other array */
    int tcap = b->capjob;
    b->job = b->ops, b->capjob = b->capops, b->njob = b->nops;
    b->ops = t, b->capops = tcap, b->nops = 0;
    if (b->njob > b->capwrites) {
        struct room_write *w = realloc(b->writes, sizeof *w * (size_t)b->capjob);
        if (!w) {
            batch_finish(b, 0, "out of memory for the batch");
            return;
        }
        b->writes = w;
        b->capwrites = b->capjob;
    }
    int nw = 0, nnew = 0, nreplay = 0;
    for (int i = 0; i < b->njob; i++) {
        struct hub_op *op = &b->job[i];
        op->err[0] = 0;
        op->wi = -1;
        if (op->kind == HUB_OP_JOIN) {
            /* A join writes nothing: a token is a voter only once it votes. */
            op->result = room_voter_find(b->room, op->token);
            continue;
        }
        struct room_write *w = &b->writes[nw];
        if (op->kind == HUB_OP_REPLAY) { /* apart from the votes (room_write_plan_replay) */
            if (room_write_plan_replay(b->room, w, op->token, op->pos, op->yes, nreplay, op->err, sizeof op->err)) {
                op->result = 1;
                continue;
            }
            nreplay++;
            op->wi = nw++;
            continue;
        }
        /* A token's first vote creates its voter, in the same transaction as
         * the vote: acked together after the COMMIT, or neither exists. */
        /* a phone's token was checked at its hello (hub_conn.c on_hello) */
        int voter = op->voter >= 0 ? op->voter : ROOM_VOTER_CHECKED;
        if (room_write_plan(b->room, w, voter, op->token, op->pos, op->yes, op->conf, nnew, op->err,
                            sizeof op->err)) {
            op->result = 1;
            continue;
        }
        nnew += w->voter < 0;
        op->wi = nw++;
    }
    if (!nw) {
        batch_finish(b, 1, "");
        return;
    }
    b->nwrites = nw;
    b->store_busy = 1;
    hub_store_submit(b->store, b->writes, nw);
}

int hub_batch_complete(struct hub_batch *b, int wait_ms) {
    if (!b->store_busy) return 0;
    char err[256] = "";
    int rc = hub_store_result(b->store, wait_ms, err, sizeof err);
    if (rc > 0) return -1; /* still running */
    b->store_busy = 0;
    if (rc == 0) {
        char aerr[256];
        if (room_write_apply(b->room, b->writes, b->nwrites, aerr, sizeof aerr)) hub_status_warn(b->hub, aerr);
        for (int i = 0; i < b->njob; i++) {
            struct hub_op *op = &b->job[i];
            if (op->wi < 0) continue;
            struct room_write *w = &b->writes[op->wi];
            op->result = w->result;
            if (op->kind == HUB_OP_REPLAY) op->yes = w->yes; /* the answer kept: the phone's first */
            else if (w->result == 0) op->voter = w->voter;
            else snprintf(op->err, sizeof op->err, "%s", w->err);
        }
    }
    batch_finish(b, rc == 0, err);
    if (b->nops) hub_timer_in(b->hub, HUB_T_BATCH, batch_due, b, 0); /* what came meanwhile: its batch now */
    return 0;
}

/* Waits for the batch in flight and answers it (the loop is about to change
 * the quiz or write to the database itself). */
int hub_batch_quiesce(struct hub_batch *b) { return hub_batch_complete(b, -1); }

int hub_batch_pending(const struct hub_batch *b) { return b->nops > 0; }
int hub_batch_busy(const struct hub_batch *b) { return b->store_busy; }

struct hub_batch *hub_batch_new(void) { return calloc(1, sizeof(struct hub_batch)); }

void hub_batch_free(struct hub_batch *b) {
    if (!b) return;
    free(b->ops);
    free(b->job);
    free(b->writes);
    free(b);
}

static void batch_finish(struct hub_batch *b, int ok, const char *err) {
    if (ok) hub_mailbox_commit(b->mb, b->njob);
    int changed = 0; /* joins and votes the commit stored */
    for (int i = 0; i < b->njob; i++) {
        struct hub_op *op = &b->job[i];
        struct hub_conn *c = op->conn;
        if (ok && op->kind != HUB_OP_REPLAY && (op->kind == HUB_OP_JOIN ? op->result >= 0 : op->result == 0)) changed++;
        if (c) c->joining = 0;
        if (!c) continue;
        if (!ok) {
            hub_conn_error(c, op->kind != HUB_OP_JOIN ? op->id : -1, "storage", "could not store it; try again");
            continue;
        }
        if (op->kind == HUB_OP_REPLAY) {
            if (op->result == 0) hub_conn_send_own(c, hub_msg_replay_ack(op->id, op->pos, op->yes));
            else hub_conn_error(c, op->id, op->result > 0 ? "refused" : "storage", op->err[0] ? op->err : "not stored");
            continue;
        }
        if (op->kind == HUB_OP_JOIN) {
            /* c had no token: on_hello refuses a second join */
            if (op->result >= 0 ? hub_conns_voter_add(b->conns, op->result) : hub_conns_newcomer_add(b->conns, op->token) < 0) {
                hub_conn_error(c, -1, "busy", "server out of memory");
                continue;
            }
            memcpy(c->token, op->token, sizeof c->token);
            c->voter = op->result;
            hub_conn_send_own(c, hub_msg_welcome(b->room, c->voter, op->token));
        } else if (op->result == 0) {
            if (c->voter < 0 && hub_conns_voter_add(b->conns, op->voter) == 0) { /* its first vote made it a voter */
                c->voter = op->voter;
                hub_conns_newcomer_remove(b->conns, c->token);
                char kept[LEADERBOARD_NICK_MAX + 1], nerr[128];
                if (b->board && c->nick[0]) leaderboard_set(b->board, c->voter, c->nick, kept, nerr, sizeof nerr);
            }
            /* the count with this vote in it: the phone shows it at once, and
             * fv_load knows which screen tally is the first to include it */
            int votes = quiz_votes(room_quiz(b->room), op->pos);
            hub_conn_send_own(c, hub_msg_ack(op->id, op->pos, op->yes, op->conf, votes));
            hub_acklat_add(b->acklat, op->read_us);
        } else {
            hub_conn_error(c, op->id, op->result > 0 ? "refused" : "storage", op->err[0] ? op->err : "vote not stored");
        }
    }
    if (!ok) hub_status_update(b->hub, err);
    b->njob = 0;
    if (changed) hub_tally_now(b->bcast);
    else hub_tally_schedule(b->bcast);
}

/* An op of c for the next batch (zeroed but for kind and conn; arms
 * HUB_T_BATCH), or NULL out of memory. */
static struct hub_op *op_add(struct hub_batch *b, struct hub_conn *c, enum hub_op_kind kind) {
    if (b->nops == b->capops) {
        int cap = b->capops ? b->capops * 2 : 256;
        struct hub_op *o = realloc(b->ops, sizeof *o * (size_t)cap);
        if (!o) return NULL;
        b->ops = o;
        b->capops = cap;
    }
    struct hub_op *op = &b->ops[b->nops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->conn = c;
    op->id = -1;
    op->read_us = fv_clock_us();
    if (b->nops >= HUB_BATCH_MAX)
        hub_timer_in(b->hub, HUB_T_BATCH, batch_due, b, 0);
    else if (!hub_timer_armed(b->hub, HUB_T_BATCH))
        hub_timer_in(b->hub, HUB_T_BATCH, batch_due, b, HUB_BATCH_MS);
    return op;
}

int hub_batch_join(struct hub_batch *b, struct hub_conn *c, const char *token, char *err, size_t errlen) {
    struct hub_op *op = op_add(b, c, HUB_OP_JOIN);
    if (!op) {
        snprintf(err, errlen, "server out of memory");
        return -1;
    }
    if (token) {
        memcpy(op->token, token, ROOM_TOKEN_HEX + 1);
    } else if (room_token_new(b->room, op->token, err, errlen)) {
        op->conn = NULL;
        return -1;
    }
    return 0;
}

/* A vote or replay answer of c (its token) for the next batch, or NULL out of memory. */
static struct hub_op *answer_add(struct hub_batch *b, struct hub_conn *c, enum hub_op_kind kind, long long id, int pos,
                                 int yes) {
    struct hub_op *op = op_add(b, c, kind);
    if (!op) return NULL;
    op->id = id;
    op->pos = pos;
    op->yes = yes;
    memcpy(op->token, c->token, sizeof op->token);
    return op;
}

int hub_batch_vote(struct hub_batch *b, struct hub_conn *c, long long id, int pos, int yes, enum confidence conf) {
    struct hub_op *op = answer_add(b, c, HUB_OP_VOTE, id, pos, yes);
    if (!op) return -1;
    op->conf = conf;
    op->voter = c->voter;
    return 0;
}

int hub_batch_replay(struct hub_batch *b, struct hub_conn *c, long long id, int pos, int yes) {
    return answer_add(b, c, HUB_OP_REPLAY, id, pos, yes) ? 0 : -1;
}

/* c closed: ops of it still collected or in flight are answered to no one. */
void hub_batch_forget(struct hub_batch *b, const struct hub_conn *c) {
    for (int i = 0; i < b->nops; i++)
        if (b->ops[i].conn == c) b->ops[i].conn = NULL;
    for (int i = 0; i < b->njob; i++) /* the batch in flight */
        if (b->job[i].conn == c) b->job[i].conn = NULL;
}
