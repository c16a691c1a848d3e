/* The hub's wire side, sending: messages shared by every connection that
 * sends them, per-connection send queues and what a writeable writes of
 * them, the fan-out of a state change to the phones in chunks, closing a
 * connection at its next writeable. Runs
 * on the lws thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "hub_conn.h"
#include "hub_msg.h"
#include "hub_send.h"
#include "hub_tally.h"

/* A serialized message shared by every connection that sends it. */
struct hub_msg {
    int refs;
    int is_state;                  /* a state: a newer one queued for a connection replaces it there */
    size_t len;
    unsigned char buf[];           /* LWS_PRE bytes of headroom, then len bytes */
};

/* Wraps a malloc'd JSON string (freed here) in a message with one reference. */
struct hub_msg *hub_msg_new(char *json) {
    if (!json) return NULL;
    size_t n = strlen(json);
    struct hub_msg *m = malloc(sizeof *m + LWS_PRE + n);
    if (m) {
        m->refs = 1;
        m->is_state = 0;
        m->len = n;
        memcpy(m->buf + LWS_PRE, json, n);
    }
    free(json);
    return m;
}

void hub_msg_unref(struct hub_msg *m) {
    if (m && --m->refs == 0) free(m);
}

void hub_msg_ref(struct hub_msg *m) { m->refs++; }
void hub_msg_mark_state(struct hub_msg *m) { m->is_state = 1; }
int hub_msg_refs(const struct hub_msg *m) { return m->refs; }

const char *hub_msg_text(const struct hub_msg *m, size_t *len) {
    *len = m->len;
    return (const char *)m->buf + LWS_PRE;
}

/* Closes c at its next writeable with a close code and a reason. */
void hub_conn_kill(struct hub_conn *c, int code, const char *reason) {
    if (c->close_code) return;
    c->close_code = code;
    snprintf(c->close_reason, sizeof c->close_reason, "%s", reason);
    lws_callback_on_writable(c->wsi);
}

/* c leaves the fan-out list (if it is in it). */
/* The fan-out list (hub_fanout_new): phones with a queued state, not yet
 * made writeable (FIFO, linked through hub_conn.fo_prev/fo_next). Every
 * connection points at it (hub_conn.fanout). */
struct hub_fanout {
    struct hub_conn *head, *tail;
    struct lws_context *ctx;       /* woken when a fan-out begins: the pump runs between the loop's turns */
    const struct hub_broadcast *bcast; /* asked whether a phone written now is owed a tally too */
};

struct hub_fanout *hub_fanout_new(struct lws_context *ctx) {
    struct hub_fanout *fo = calloc(1, sizeof *fo);
    if (fo) fo->ctx = ctx;
    return fo;
}

void hub_fanout_set_bcast(struct hub_fanout *fo, const struct hub_broadcast *bcast) { fo->bcast = bcast; }

void hub_fanout_free(struct hub_fanout *fo) { free(fo); }

void hub_fanout_remove(struct hub_conn *c) {
    struct hub_fanout *fo = c->fanout;
    if (!c->deferred) return;
    if (c->fo_prev) c->fo_prev->fo_next = c->fo_next;
    else fo->head = c->fo_next;
    if (c->fo_next) c->fo_next->fo_prev = c->fo_prev;
    else fo->tail = c->fo_prev;
    c->fo_prev = c->fo_next = NULL;
    c->deferred = 0;
}

/* Whether m may be written to c now rather than at a writeable, apart
 * from c's queue (see hub_conn_write_now). */
static int write_now_ok(const struct hub_conn *c, const struct hub_msg *m) {
    return !c->in_rx && !c->close_code && !c->closing && c->heard && m->len <= HUB_TX_CHUNK &&
           !lws_partial_buffered(c->wsi);
}

/* One frame written now; a socket that failed is killed. 0, or -1. */
static int write_msg(struct hub_conn *c, const struct hub_msg *m) {
    if (lws_write(c->wsi, (unsigned char *)m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) >= 0) return 0;
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    return -1;
}

/* A state change to 20,000 phones is 20,000 writes; asking for all of them
 * at once would make the loop do nothing else until the last is written,
 * and votes from the phones that got it first would wait behind the rest.
 * The loop calls this between iterations: one chunk at a time. */
void hub_fanout_pump(struct hub_fanout *fo) {
    for (int i = 0; i < HUB_FANOUT_CHUNK && fo->head; i++) {
        struct hub_conn *c = fo->head;
        hub_fanout_remove(c);
        /* The state alone in its queue is written now (hub_conn_write_now's
         * rule): a writeable costs two epoll_ctl calls and a turn more. */
        struct hub_msg *m = c->qlen == 1 && !c->q_off ? c->q[c->qhead] : NULL;
        if (m && write_now_ok(c, m)) {
            hub_conn_dequeue(c);
            if (write_msg(c, m) == 0 && hub_tally_pending(fo->bcast, c)) lws_callback_on_writable(c->wsi);
            hub_msg_unref(m);
        } else
            lws_callback_on_writable(c->wsi);
    }
}

int hub_fanout_busy(const struct hub_fanout *fo) { return fo->head != NULL; }

unsigned hub_queue_drop_states(struct hub_msg *q[], unsigned cap, unsigned head, unsigned *len, int head_busy) {
    unsigned kept = 0, dropped = 0;
    for (unsigned i = 0; i < *len; i++) {
        struct hub_msg *m = q[(head + i) % cap];
        if (m->is_state && !(i == 0 && head_busy)) {
            hub_msg_unref(m);
            dropped++;
        } else {
            q[(head + kept++) % cap] = m;
        }
    }
    *len = kept;
    return dropped;
}

static int enqueue(struct hub_conn *c, struct hub_msg *m) {
    if (!m || c->close_code) return -1;
    if (m->is_state && c->qlen) { /* one pending state per connection: the newest */
        unsigned len = c->qlen;
        hub_queue_drop_states(c->q, HUB_CONN_QUEUE, c->qhead, &len, c->q_off > 0);
        c->qlen = (unsigned char)len;
    }
    if (c->qlen == HUB_CONN_QUEUE) {
        hub_conn_kill(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too slow: messages piled up");
        return -1;
    }
    hub_msg_ref(m);
    c->q[(c->qhead + c->qlen) % HUB_CONN_QUEUE] = m;
    c->qlen++;
    return 0;
}

/* Writes m to c now instead of at a writeable (asking for one costs two
 * epoll_ctl calls and a loop turn per message: ~10 % of the server's CPU
 * while 19,900 phones vote). Only when nothing of c waits before m (its
 * queue empty, lws holding no unsent bytes of it), c is open (closing
 * neither way) and has spoken (the upgrade's answer is out), m is one
 * frame, and c's own message is not being handled: a reply written from
 * inside c's receive callback made lws 4.1.6 lose the close frame of a
 * flooder cut right after (test_hub's flooder saw a reset, every run), so
 * replies to c's messages (pong, errors) still go at its writeable. lws
 * keeps what the kernel does not take and sends that first at the next
 * writeable, as it does for a write in the callback. 1 if written (or the
 * socket failed: it is killed), 0 if m must be queued. */
int hub_conn_write_now(struct hub_conn *c, struct hub_msg *m) {
    if (!m || c->qlen || !write_now_ok(c, m)) return 0;
    write_msg(c, m);
    return 1;
}

/* One write per writeable (lws keeps what the kernel did not take and sends
 * it before calling us again), so no choke check: that would be one more
 * syscall per message. */
int hub_conn_write_next(struct hub_conn *c, struct hub_broadcast *bcast, unsigned char *txbuf) {
    int n = 0;
    if (c->qlen) {
        struct hub_msg *m = c->q[c->qhead];
        int done;
        if (c->q_off == 0 && m->len <= HUB_TX_CHUNK) {
            n = lws_write(c->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
            done = 1;
        } else {
            /* One fragment per writeable, copied out: lws writes the frame
             * header in front of the payload, and m is shared. */
            size_t chunk = m->len - c->q_off < HUB_TX_CHUNK ? m->len - c->q_off : HUB_TX_CHUNK;
            memcpy(txbuf + LWS_PRE, m->buf + LWS_PRE + c->q_off, chunk);
            int flags = lws_write_ws_flags(LWS_WRITE_TEXT, c->q_off == 0, c->q_off + chunk == m->len);
            n = lws_write(c->wsi, txbuf + LWS_PRE, chunk, (enum lws_write_protocol)flags);
            c->q_off += (unsigned)chunk;
            done = c->q_off == m->len;
        }
        if (done) hub_msg_unref(hub_conn_dequeue(c));
    } else if (hub_tally_pending(bcast, c)) {
        struct hub_msg *m = hub_tally_take(bcast, c);
        n = lws_write(c->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT);
    }
    return n;
}

/* Sends m to c: written now if it can be (hub_conn_write_now), else queued
 * (a reference of its own) for c's next writeable. */
void hub_conn_send(struct hub_conn *c, struct hub_msg *m) {
    if (hub_conn_write_now(c, m)) return;
    if (enqueue(c, m)) return;
    hub_fanout_remove(c); /* writeable now: what was deferred goes first */
    lws_callback_on_writable(c->wsi);
}

struct hub_msg *hub_conn_dequeue(struct hub_conn *c) {
    struct hub_msg *m = c->q[c->qhead];
    c->qhead = (c->qhead + 1) % HUB_CONN_QUEUE;
    c->qlen--;
    c->q_off = 0;
    return m;
}

/* Queues m for c; the connection is made writeable by hub_fanout_pump. */
void hub_conn_send_later(struct hub_conn *c, struct hub_msg *m) {
    if (enqueue(c, m) || c->deferred) return;
    struct hub_fanout *fo = c->fanout;
    c->deferred = 1;
    c->fo_next = NULL;
    c->fo_prev = fo->tail;
    if (fo->tail) fo->tail->fo_next = c;
    else {
        fo->head = c;
        lws_cancel_service(fo->ctx); /* a deadline's callback may have begun it: the pump runs between turns */
    }
    fo->tail = c;
}

/* Sends a one-off message built from json (freed). */
void hub_conn_send_own(struct hub_conn *c, char *json) {
    struct hub_msg *m = hub_msg_new(json);
    hub_conn_send(c, m);
    hub_msg_unref(m);
}

void hub_conn_error(struct hub_conn *c, long long id, const char *code, const char *message) {
    hub_conn_send_own(c, hub_msg_error(id, code, message));
}

int hub_conn_forbidden(struct hub_conn *c, const char *why_not_audience) {
    if (hub_conn_viewer(c) == ROOM_VIEWER_PRESENTER) return 0;
    hub_conn_error(c, -1, "forbidden",
                   c->role == HUB_PRESENTER ? "send the presenter secret first (auth)" : why_not_audience);
    return 1;
}
