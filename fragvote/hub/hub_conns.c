/* The hub's connections (hub_conns.h): the list, the counts per role, the
 * cursors that walk it, who is online, admission and the keepalive sweep.
 * Runs on the lws thread. */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fv_clock.h"
#include "hub.h"
#include "hub_addrs.h"
#include "hub_conn.h"
#include "hub_conns.h"
#include "hub_online.h"
#include "hub_send.h"

#define HUB_CONN_OVERSHOOT 16          /* admitted beyond the cap while the phones making way close */

/* Walks over the list that outlive a connection: when the one a cursor
 * points at leaves, the cursor moves on to the next. */
enum hub_cursor {
    HUB_CUR_SWEEP,                 /* the keepalive sweep's next connection (NULL: a new round) */
    HUB_CUR_ROTATION,              /* the phones' tally rotation's next (NULL: the list's head; hub_tally.c) */
    HUB_CURSORS
};

struct hub_conns {
    struct hub_conn *head;         /* all open connections, newest first (linked through hub_conn.prev/next) */
    struct hub_conn *cursor[HUB_CURSORS];
    atomic_int n_role[HUB_NROLES]; /* open websockets per role; hub_snapshot reads them live */
    int cap;                       /* websockets the descriptors allow (hub_fd.conn_cap) */
    int ping_ms, idle_ms;          /* keepalive, see HUB_PING_S / HUB_IDLE_S */
    int sweep_slice;               /* connections the sweep's next step visits (hub_conns_sweep_plan) */
    /* The tables, each its file's own (seen through its functions here only):
     * open audience websockets per address (hub_addrs.c); per voter index its
     * open connections (a phone back after a wifi blip, or a second tab,
     * while the old one lingers; hub_online.c); the tokens welcomed on an
     * open connection that have not voted (hub_online.c). */
    struct hub_addrs *addrs;
    struct hub_voters *voters;
    struct hub_online *newcomers;
    unsigned long tokens_minted;   /* fresh tokens issued by hello */
    unsigned long voters_refused;  /* first votes refused by the per-address new-voter cap */
    unsigned long conns_refused;   /* upgrades refused: the address's share, or the room full */
    unsigned long resumes_refused; /* hellos refused: one identity reconnecting too often (HUB_RESUME_RATE) */
    unsigned long conns_evicted;   /* phones that never said hello closed to make room */
};

struct hub_conns *hub_conns_new(int cap, int per_addr, int ping_ms, int idle_ms) {
    struct hub_conns *cs = calloc(1, sizeof *cs);
    if (!cs) return NULL;
    cs->cap = cap;
    cs->ping_ms = ping_ms;
    cs->idle_ms = idle_ms;
    if (!(cs->addrs = calloc(1, sizeof *cs->addrs)) || !(cs->voters = calloc(1, sizeof *cs->voters)) ||
        !(cs->newcomers = calloc(1, sizeof *cs->newcomers)) || hub_addrs_init(cs->addrs, cap, per_addr)) {
        hub_conns_free(cs); /* releases what was made */
        return NULL;
    }
    return cs;
}

void hub_conns_free(struct hub_conns *cs) {
    if (!cs) return;
    if (cs->voters) hub_voters_free(cs->voters);
    if (cs->addrs) hub_addrs_free(cs->addrs);
    if (cs->newcomers) hub_online_free(cs->newcomers);
    free(cs->voters);
    free(cs->addrs);
    free(cs->newcomers);
    free(cs);
}

int hub_conns_role_count(const struct hub_conns *cs, enum hub_role r) { return atomic_load(&cs->n_role[r]); }

void hub_conns_status_live(const struct hub_conns *cs, struct hub_status *s) {
    s->connections = hub_conns_role_count(cs, HUB_AUDIENCE);
    s->screens = hub_conns_role_count(cs, HUB_SCREEN);
    s->presenters = hub_conns_role_count(cs, HUB_PRESENTER);
}

void hub_conns_status(const struct hub_conns *cs, struct hub_status *s) {
    hub_conns_status_live(cs, s);
    s->newcomers = hub_conns_newcomers(cs);
    s->tokens_minted = cs->tokens_minted;
    s->voters_refused = cs->voters_refused;
    s->conns_refused = cs->conns_refused;
    s->conns_evicted = cs->conns_evicted;
    s->resumes_refused = cs->resumes_refused;
}

void hub_conns_token_minted(struct hub_conns *cs) { cs->tokens_minted++; }
void hub_conns_voter_refused(struct hub_conns *cs) { cs->voters_refused++; }
void hub_conns_resume_refused(struct hub_conns *cs) { cs->resumes_refused++; }

int hub_conns_voters_online(const struct hub_conns *cs) { return cs->voters->joined; }
int hub_conns_newcomers(const struct hub_conns *cs) { return (int)cs->newcomers->used; }
int hub_conns_voter_add(struct hub_conns *cs, int v) { return hub_voters_add(cs->voters, v); }
int hub_conns_newcomer_add(struct hub_conns *cs, const char *token) { return hub_online_add(cs->newcomers, token); }
int hub_conns_newcomer_remove(struct hub_conns *cs, const char *token) {
    return hub_online_remove(cs->newcomers, token);
}

int hub_conns_total(const struct hub_conns *cs) {
    return cs->n_role[HUB_AUDIENCE] + cs->n_role[HUB_SCREEN] + cs->n_role[HUB_PRESENTER];
}

/* The websockets screens and presenter pages may take that phones may not:
 * HUB_CONN_RESERVE, an eighth of a smaller room. */
static int conn_reserve(const struct hub_conns *cs) {
    return cs->cap >= 8 * HUB_CONN_RESERVE ? HUB_CONN_RESERVE : cs->cap / 8;
}

/* Makes room by closing the audience connection open longest that never
 * said hello (a phone joins with hello at once; one that does not is a
 * script holding a place): 1 when one was closed. */
static int evict_silent(struct hub_conns *cs) {
    struct hub_conn *old = NULL;
    for (struct hub_conn *c = cs->head; c; c = c->next)
        if (c->role == HUB_AUDIENCE && !c->token[0] && c->voter < 0 && !c->close_code && !c->closing &&
            (!old || c->opened_ms <= old->opened_ms))
            old = c;
    if (!old) return 0;
    hub_conn_kill(old, HUB_CLOSE_TRY_AGAIN_LATER, "the room is full: a phone that never joined makes way");
    cs->conns_evicted++;
    return 1;
}

int hub_conns_admit(struct hub_conns *cs, const struct hub_peer *peer, int audience) {
    int total = hub_conns_total(cs), limit = cs->cap;
    if (audience) {
        if (!peer->self && cs->addrs->per_addr > 0 && hub_addrs_count(cs->addrs, peer) >= cs->addrs->per_addr) {
            cs->conns_refused++;
            return -1;
        }
        limit -= conn_reserve(cs);
    }
    if (total < limit) return 0;
    if (evict_silent(cs)) return 1;
    cs->conns_refused++;
    return -1;
}

int hub_conns_full(const struct hub_conns *cs) { return hub_conns_total(cs) >= cs->cap + HUB_CONN_OVERSHOOT; }

int hub_conns_add(struct hub_conns *cs, struct hub_conn *c) {
    int rc = 0;
    if (c->role == HUB_AUDIENCE) {
        if (hub_addrs_take(cs->addrs, &c->peer)) { /* its address filled its share meanwhile */
            cs->conns_refused++;
            rc = -1;
        } else {
            c->addr_counted = 1;
        }
    }
    c->next = cs->head;
    if (cs->head) cs->head->prev = c;
    cs->head = c;
    cs->n_role[c->role]++;
    return rc;
}

void hub_conns_remove(struct hub_conns *cs, struct hub_conn *c) {
    for (int k = 0; k < HUB_CURSORS; k++)
        if (cs->cursor[k] == c) cs->cursor[k] = c->next;
    if (c->prev) c->prev->next = c->next;
    else if (cs->head == c) cs->head = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

void hub_conns_closed(struct hub_conns *cs, struct hub_conn *c) {
    cs->n_role[c->role]--;
    if (c->addr_counted) hub_addrs_put(cs->addrs, &c->peer);
    if (c->voter >= 0) hub_voters_remove(cs->voters, c->voter);
    else if (c->token[0]) hub_online_remove(cs->newcomers, c->token);
}

struct hub_conn *hub_conns_first(const struct hub_conns *cs) { return cs->head; }

struct hub_conn *hub_conns_rotation_next(struct hub_conns *cs) {
    struct hub_conn **next = &cs->cursor[HUB_CUR_ROTATION];
    struct hub_conn *c = *next ? *next : cs->head;
    if (c) *next = c->next;
    return c;
}

void hub_conns_presenters_send(const struct hub_conns *cs, struct hub_msg *m) {
    for (struct hub_conn *p = cs->head; p; p = p->next)
        if (p->role == HUB_PRESENTER && p->authed && !p->closing) hub_conn_send(p, m);
}

const struct hub_peer *hub_conn_peer(const struct hub_conn *c) { return &c->peer; }
enum hub_role hub_conn_role(const struct hub_conn *c) { return c->role; }
const char *hub_conn_token(const struct hub_conn *c) { return c->token; }
int hub_conn_asks(const struct hub_conn *c, enum hub_conn_ask k) { return c->asks[k]; }
void hub_conn_asked(struct hub_conn *c, enum hub_conn_ask k) { c->asks[k]++; }
int hub_conn_new_voter(const struct hub_conn *c) { return c->voter < 0 && !c->new_voter_ok; }
void hub_conn_new_voter_passed(struct hub_conn *c) { c->new_voter_ok = 1; }

unsigned long long hub_conn_rx_bytes(struct hub_conn *c) {
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(lws_get_socket_fd(c->wsi), IPPROTO_TCP, TCP_INFO, &ti, &len)) return 0;
    return len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof ti.tcpi_bytes_received
               ? ti.tcpi_bytes_received
               : 0;
}

/* Charges c the bytes its socket received since the last sweep; a flooder
 * is ended at once. 1 when it was. */
static int bytes_charge(struct hub_conn *c, long long now) {
    unsigned long long got = hub_conn_rx_bytes(c);
    if (got <= c->rx_bytes) return 0;
    /* the laptop: its deck and observations have a budget of their own */
    int laptop = hub_conn_viewer(c) == ROOM_VIEWER_PRESENTER;
    double rate = laptop ? HUB_PROBER_BYTES_PER_S : HUB_MSG_BYTES_PER_S;
    double burst = laptop ? HUB_PROBER_BYTES_BURST : HUB_MSG_BYTES_BURST;
    c->byte_tokens += (double)(now - c->bytes_ms) * rate / 1000.0;
    if (c->byte_tokens > burst) c->byte_tokens = burst;
    c->byte_tokens -= (double)(got - c->rx_bytes);
    c->bytes_ms = now;
    c->rx_bytes = got;
    if (c->byte_tokens >= 0) return 0;
    /* No close handshake: it would wait for a writeable (or the abuser's
     * ack) up to 5 s while the flood goes on. The shutdown ends the socket
     * now; lws sees it and closes. */
    shutdown(lws_get_socket_fd(c->wsi), SHUT_RDWR);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    return 1;
}

/* Keepalive without per-connection timers: lws's own (retry policy) are
 * re-sorted into one list on every received message, O(connections) each.
 * Instead one sweep a second pings the quiet, closes the silent (and those
 * that never sent a frame within HUB_FIRST_FRAME_S), and charges every
 * connection the bytes its socket received since the last sweep: pings
 * and empty pongs never reach our callback (lws answers pings itself), so
 * a ping flood is only visible there. An abuser is killed at once, not at
 * its next writeable: under a ping flood lws spends every writeable on a
 * pong and never calls us.
 *
 * One round visits every connection once per period; the round goes in
 * steps of a slice each, from a cursor (HUB_CUR_SWEEP, moved on by
 * hub_conns_remove), so 20,000 TCP_INFO reads never stop the loop in one
 * burst of ~100 ms (acks and tallies wait behind such a burst). */
long long hub_conns_sweep_plan(struct hub_conns *cs) {
    long long period = cs->ping_ms / 2 < 1000 ? cs->ping_ms / 2 : 1000;
    int total = hub_conns_total(cs);
    long long steps = period / HUB_SWEEP_STEP_MS;
    if (steps > total) steps = total;
    if (steps < 1) steps = 1;
    cs->sweep_slice = (int)((total + steps - 1) / steps);
    return period / steps;
}

void hub_conns_sweep(struct hub_conns *cs) {
    int slice = cs->sweep_slice;
    if (!cs->cursor[HUB_CUR_SWEEP]) cs->cursor[HUB_CUR_SWEEP] = cs->head; /* a new round */
    long long now = fv_clock_coarse_ms();
    struct hub_conn *next;
    for (struct hub_conn *c = cs->cursor[HUB_CUR_SWEEP]; c && slice-- > 0; c = next) {
        next = cs->cursor[HUB_CUR_SWEEP] = c->next;
        if (bytes_charge(c, now)) continue;
        long long quiet = now - c->last_rx_ms;
        if (!c->heard && now - c->opened_ms >= HUB_FIRST_FRAME_S * 1000LL)
            hub_conn_kill(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "nothing received: not a fragvote client");
        else if (quiet >= cs->idle_ms)
            hub_conn_kill(c, LWS_CLOSE_STATUS_GOINGAWAY, "no answer to pings");
        else if (quiet >= cs->ping_ms && !c->want_ping) {
            c->want_ping = 1;
            lws_callback_on_writable(c->wsi);
        }
    }
}
