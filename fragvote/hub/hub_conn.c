/* The hub's wire side, receiving: caps on what clients send, the client
 * messages (a vote goes on to the group commit, hub_batch.c), the
 * connections' lifecycle and writeables (see hub.h, docs/PROTOCOL.md). The
 * list they are in, who is online and the keepalive sweep are hub_conns.c's;
 * what is sent is queued by hub_send.c. Runs on the lws thread. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub_internal.h"
#include "fv_clock.h"
#include "hub_batch.h"
#include "hub_conn.h"
#include "hub_conns.h"
#include "hub_export.h"
#include "hub_guard.h"
#include "hub_replay.h"
#include "hub_msg.h"
#include "hub_prober.h"
#include "hub_proxy.h"
#include "hub_send.h"
#include "hub_tally.h"
#include "leaderboard.h"
#include "hub_parse.h"
#include "hub_rtt.h"
#include "hub_ws.h"
#include "room_view.h"

const size_t hub_conn_size = sizeof(struct hub_conn);

/* ---- client messages ---- */

/* Constant-time comparison of the presenter secret (length leaks nothing
 * useful: every candidate is compared over HUB_SECRET_MAX bytes). */

static int secret_ok(const char *want, const char *got) {
    unsigned char diff = 0;
    size_t wl = strlen(want), gl = strlen(got);
    for (size_t i = 0; i < HUB_SECRET_MAX; i++) {
        unsigned char a = i < wl ? (unsigned char)want[i] : 0, b = i < gl ? (unsigned char)got[i] : 0;
        diff |= a ^ b;
    }
    return diff == 0 && wl == gl && gl < HUB_SECRET_MAX;
}

static void on_hello(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m) {
    if (c->role != HUB_AUDIENCE) {
        /* a screen may follow one question ("q", 0-based: docs/SLIDES.md) */
        if (c->role == HUB_SCREEN && m->hello_q &&
            (m->hello_q < 0 || m->q >= quiz_count(room_quiz(h->room)))) {
            hub_conn_error(c, -1, "bad_question", "no such question in this deck");
            return;
        }
        if (c->role == HUB_SCREEN && m->hello_q) c->follow = (int)m->q;
        hub_conn_send(c, hub_tally_state(h->bcast, c));
        return;
    }
    if (m->has_room && m->room[0] && strcasecmp(m->room, room_code(h->room))) {
        hub_conn_error(c, -1, "bad_room", "no such room here: check the code on the screen");
        return;
    }
    if (c->joining) return;
    if (c->token[0]) {
        /* One voter per connection: a new identity needs a new connection. */
        hub_conn_error(c, -1, "already_joined", "this connection has joined already");
        return;
    }
    const char *token = m->has_token ? m->token : NULL;
    int issued = token && room_token_issued(h->room, token); /* once: an HMAC (and a join storm has 20,000) */
    if (issued && hub_guard_resume_take(h->guard, token, fv_clock_coarse_ms())) {
        hub_conns_resume_refused(h->conns);
        hub_status_soon(h->bcast);
        hub_conn_kill(c, HUB_CLOSE_TRY_AGAIN_LATER, "this phone reconnects too often: trying again shortly");
        return;
    }
    char err[128];
    if (hub_batch_join(h->batch, c, issued ? token : NULL, err, sizeof err)) { /* made-up tokens get a fresh one */
        hub_conn_error(c, -1, "busy", err);
        return;
    }
    if (!issued) hub_conns_token_minted(h->conns); /* costs nothing to remember: see hub_status.tokens_minted */
    c->joining = 1;
}

/* 1 after answering error bad_vote when m (a vote, or a replay answer:
 * what names it) cannot be read: an id out of range (not echoed: not an id
 * the phone could match), or no "q" and "yes"; else 0. */
static int vote_unreadable(struct hub_conn *c, const struct hub_client_msg *m, const char *what) {
    char why[112];
    if (m->id_bad) {
        snprintf(why, sizeof why, "\"id\" must be an integer 0..%lld (2^53-1)", HUB_ID_MAX);
        hub_conn_error(c, -1, "bad_vote", why);
        return 1;
    }
    if (m->vote_ok) return 0;
    snprintf(why, sizeof why, "%s needs \"q\" (question position) and \"yes\" (true/false)", what);
    hub_conn_error(c, m->id, "bad_vote", why);
    return 1;
}

static void on_vote(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m) {
    long long id = m->id;
    if (c->role != HUB_AUDIENCE) {
        hub_conn_error(c, id, "forbidden", "only phones vote");
        return;
    }
    if (vote_unreadable(c, m, "a vote")) return;
    if (m->conf_bad) {
        hub_conn_error(c, id, "bad_vote",
                       "\"confidence\" must be \"sure\", \"think_so\" or \"guessing\" (or left out); "
                       "the vote is not counted");
        return;
    }
    if (!c->token[0]) {
        hub_conn_error(c, id, "hello_first", "join first (hello), then vote");
        return;
    }
    long long q = m->q;
    char err[160];
    if (room_vote_check(h->room, q, err, sizeof err)) {
        hub_conn_error(c, id, "refused", err);
        return;
    }
    if (c->voter < 0 && !c->new_voter_ok && room_voter_find(h->room, c->token) < 0) {
        /* This vote would create a voter: capped per source address, so one
         * client cannot fill the room (ROOM_VOTERS_MAX) with minted tokens. */
        int max = h->cfg.voters_max > 0 ? h->cfg.voters_max : ROOM_VOTERS_MAX, n = room_voter_count(h->room);
        int reserve = n >= max - max / HUB_VOTER_RESERVE_DIV;
        if (n >= max || hub_guard_voter_take(h->guard, &c->peer, fv_clock_coarse_ms(), reserve)) {
            hub_conns_voter_refused(h->conns);
            hub_tally_schedule(h->bcast); /* the console sees the count at the next tick */
            hub_conn_error(c, id, "busy",
                           n >= max ? "the room is full"
                           : reserve ? "the room keeps its last places for networks new to it; vote again later"
                                     : "too many new voters from your network just now; vote again in a few seconds");
            return;
        }
        c->new_voter_ok = 1;
    }
    if (hub_batch_vote(h->batch, c, id, (int)q, m->yes, m->conf)) hub_conn_error(c, id, "busy", "server out of memory");
}

static void on_auth(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m) {
    if (c->role != HUB_PRESENTER) {
        hub_conn_error(c, -1, "forbidden", "audience and screen connections cannot control the quiz");
        return;
    }
    /* Throttled per source address, so a wrong guess a second from a phone
     * does not lock out the presenter page on the laptop; the room-wide
     * ceiling keeps many addresses from guessing fast (docs/SECURITY.md). */
    long long t = fv_clock_coarse_ms();
    int long_attempt = m->has_secret && strlen(m->secret) >= HUB_SECRET_LONG; /* skips the room-wide ceiling */
    if (hub_guard_secret_throttled(h->guard, &c->peer, t, long_attempt)) {
        hub_conn_error(c, -1, "throttled", "too many wrong secrets; wait a second and try again");
        return;
    }
    if (m->has_secret && secret_ok(h->secret, m->secret)) {
        c->authed = 1;
        hub_conn_send_own(c, hub_msg_simple("auth_ok", NULL, NULL));
        hub_conn_send(c, hub_tally_state(h->bcast, c));
        if (hub_tally_built(h->bcast)) hub_tally_now(h->bcast); /* a new version, now with the split (versions never repeat) */
        return;
    }
    hub_guard_secret_failed(h->guard, &c->peer, t, long_attempt);
    if (++c->bad_secrets >= HUB_SECRET_FAILS) {
        hub_conn_kill(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too many wrong presenter secrets");
        return;
    }
    hub_conn_error(c, -1, "bad_secret", "wrong presenter secret (it is printed in the console)");
}

static void on_cmd(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m) {
    const char *name = m->has_cmd ? m->cmd : NULL;
    if (c->role != HUB_PRESENTER || !c->authed) {
        hub_conn_error(c, -1, "forbidden",
                   c->role == HUB_PRESENTER ? "send the presenter secret first (auth)"
                                            : "audience and screen connections cannot control the quiz");
        return;
    }
    enum room_action a;
    char err[256];
    if (name && !strcmp(name, "why")) { /* the projectors' view, not a move of the quiz (hub_why) */
        if (hub_why(&h->act, err, sizeof err)) hub_conn_error(c, -1, "refused", err);
        else hub_conn_send_own(c, hub_msg_simple("cmd_ok", "cmd", name));
        return;
    }
    if (!name || room_action_parse(name, &a)) {
        hub_conn_error(c, -1, "bad_cmd", "unknown command (open close revote measure rerun reveal next back skip end answer why)");
        return;
    }
    if (m->has_seconds && !m->seconds_ok) {
        snprintf(err, sizeof err, "\"seconds\" must be an integer 1..%d", HUB_COUNTDOWN_MAX_S);
        hub_conn_error(c, -1, "bad_cmd", err);
        return;
    }
    int seconds = m->has_seconds ? m->seconds : 0;
    if (hub_act(&h->act, a, seconds, err, sizeof err))
        hub_conn_error(c, -1, "refused", err);
    else
        hub_conn_send_own(c, hub_msg_simple("cmd_ok", "cmd", name));
}

/* A phone picks a nickname (serve --leaderboard only). The answer carries
 * the nickname as kept, to that phone alone; the final state lists the top. */
static void on_nick(struct hub *h, struct hub_conn *c, const struct hub_client_msg *m) {
    if (!h->board) {
        hub_conn_error(c, -1, "leaderboard_off", "this room has no leaderboard: nicknames are not kept");
        return;
    }
    if (c->role != HUB_AUDIENCE || !c->token[0]) {
        hub_conn_error(c, -1, c->role != HUB_AUDIENCE ? "forbidden" : "hello_first",
                       c->role != HUB_AUDIENCE ? "only phones have nicknames" : "say hello before picking a nickname");
        return;
    }
    char kept[LEADERBOARD_NICK_MAX + 1], err[128];
    if (c->voter < 0) { /* not a voter until its first vote: the connection keeps it till then */
        if (leaderboard_nick_clean(m->has_nick ? m->nick : "", kept, sizeof kept) < 0)
            snprintf(err, sizeof err, "a nickname needs at least one visible character");
        else if (c->nick_sets >= LEADERBOARD_NICK_SETS_MAX)
            snprintf(err, sizeof err, "a nickname can be changed %d times", LEADERBOARD_NICK_SETS_MAX);
        else {
            c->nick_sets++;
            memcpy(c->nick, kept, sizeof c->nick);
            hub_conn_send_own(c, hub_msg_simple("nick_ok", "nick", kept));
            return;
        }
        hub_conn_error(c, -1, "bad_nick", err);
        return;
    }
    if (leaderboard_set(h->board, c->voter, m->has_nick ? m->nick : "", kept, err, sizeof err)) {
        hub_conn_error(c, -1, "bad_nick", err);
        return;
    }
    hub_conn_send_own(c, hub_msg_simple("nick_ok", "nick", kept));
    if (quiz_ended(room_quiz(h->room))) hub_state_soon(h->bcast); /* the final screen's list changed */
}

/* Closes c with a close frame, from its writeable: lws sends the frame at
 * the next one, then waits for the peer's (both up to 5 s). Returns -1, for
 * the callback. */
static int close_now(struct hub_conn *c, enum lws_close_status code, const char *why) {
    lws_close_reason(c->wsi, code, (unsigned char *)why, strlen(why));
    c->closing = 1;
    return -1;
}

/* Cuts c for what it sent: closed at its next writeable (close_now), what
 * it sends until then ignored. Never -1 from a receive callback: lws 4.1.6
 * then drops the rest of the bytes it has read, mid-frame, its parser loses
 * its place, and the protocol error it finds in what follows kills the
 * socket before the close frame goes out (the client saw 1006 instead of
 * 1009 about once in five runs of test_hostile_ws under load). Returns 0. */
static int cut(struct hub_conn *c, enum lws_close_status code, const char *why) {
    hub_conn_kill(c, code, why);
    return 0;
}

/* One whole client message. Returns 0 (a bad one cuts c). */
static int on_message(struct hub *h, struct hub_conn *c, const char *text, size_t len) {
    struct hub_client_msg m;
    char why[96];
    /* A client that sends on while its queue is (all but) full outruns its
     * own replies: cut as the rate cap cuts ("too many messages"), before its
     * reply could overflow the queue. "too slow" stays the reason for a client
     * that does not read what everyone gets (hub_send.c). Which of the two a
     * flooder met first used to depend on how many of its frames one read
     * held (the sanitizer build read more, and got "too slow"). */
    if (c->qlen >= HUB_CONN_QUEUE - 1) return cut(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too many messages");
    if (hub_parse_client(text, len, HUB_COUNTDOWN_MAX_S, &m, why, sizeof why) < 0) {
        return cut(c, LWS_CLOSE_STATUS_INVALID_PAYLOAD, why);
    }
    c->in_rx = 1; /* its replies wait for its writeable (hub_conn_write_now) */
    switch (m.type) {
    case HUB_C_HELLO: on_hello(h, c, &m); break;
    case HUB_C_VOTE: on_vote(h, c, &m); break;
    case HUB_C_AUTH: on_auth(h, c, &m); break;
    case HUB_C_CMD: on_cmd(h, c, &m); break;
    case HUB_C_NICK: on_nick(h, c, &m); break;
    case HUB_C_PROBER: hub_prober_hello(&h->remote, c, &m); break;
    case HUB_C_RESULT: hub_prober_result(&h->remote, c, &m, len); break;
    case HUB_C_EXPORT: hub_export(&h->cfg, h->room, h->batch, c, m.has_format ? m.format : NULL); break;
    case HUB_C_REPLAY: hub_replay_ask(&h->replay, c); break;
    case HUB_C_REPLAY_VOTE:
        if (!vote_unreadable(c, &m, "a replay answer")) hub_replay_vote(&h->replay, c, m.id, m.q, m.yes);
        break;
    case HUB_C_RTT: hub_rtt_report(&h->rtt, h->conns, c, &m); break;
    case HUB_C_PING: hub_conn_send_own(c, hub_msg_simple("pong", NULL, NULL)); break;
    default: hub_conn_error(c, -1, "unknown_type", "unknown message type"); break;
    }
    c->in_rx = 0;
    hub_client_msg_free(&m);
    return 0;
}

/* The longest message c may send: the authed presenter's laptop sends its
 * deck and the probe's observations (HUB_PROBER_MSG_MAX), everyone else
 * HUB_MSG_MAX. */
static size_t msg_max(const struct hub_conn *c) {
    return (hub_conn_viewer(c) == ROOM_VIEWER_PRESENTER) ? HUB_PROBER_MSG_MAX : HUB_MSG_MAX;
}

/* The rate cap: one token per received frame (HUB_MSG_RATE, burst
 * HUB_MSG_BURST). Returns 0, or -1 when c is over it. */
static int frame_take(struct hub_conn *c) {
    long long t = fv_clock_coarse_ms();
    c->tokens += (double)(t - c->last_ms) * HUB_MSG_RATE / 1000.0;
    if (c->tokens > HUB_MSG_BURST) c->tokens = HUB_MSG_BURST;
    c->last_ms = t;
    if (c->tokens < 1) return -1;
    c->tokens -= 1;
    return 0;
}

/* ---- lws callbacks ---- */

/* A websocket of role established: c starts, joins the list, gets the state. */
static void on_established(struct hub *h, struct hub_conn *c, struct lws *wsi, enum hub_role role) {
    memset(c, 0, sizeof *c);
    c->wsi = wsi;
    c->fanout = h->fanout;
    c->role = role;
    c->voter = -1;
    c->follow = -1;
    hub_proxy_peer(&h->proxy, wsi, &c->peer); /* the upgrade's headers are still there */
    c->tokens = HUB_MSG_BURST;
    c->last_ms = c->last_rx_ms = c->opened_ms = c->bytes_ms = fv_clock_coarse_ms();
    c->byte_tokens = HUB_MSG_BYTES_BURST;
    c->rx_bytes = hub_conn_rx_bytes(c);
    c->want_ping = 1; /* its pong is the first frame a page that never speaks sends (HUB_FIRST_FRAME_S) */
    if (hub_conns_add(h->conns, c)) { /* its address filled its share meanwhile */
        hub_conn_kill(c, HUB_CLOSE_TRY_AGAIN_LATER, "too many connections from your address");
        hub_status_soon(h->bcast);
    }
    hub_conn_send(c, hub_tally_state(h->bcast, c));
    hub_tally_schedule(h->bcast);
}

static void on_closed(struct hub *h, struct hub_conn *c) {
    if (!c->wsi) return;
    hub_fanout_remove(c);
    hub_conns_remove(h->conns, c);
    hub_prober_closed(&h->remote, c); /* after the unlink: its state change goes to the others */
    hub_conns_closed(h->conns, c);
    hub_batch_forget(h->batch, c);
    while (c->qlen) hub_msg_unref(hub_conn_dequeue(c));
    free(c->rx);
    c->rx = NULL;
    c->wsi = NULL;
    hub_tally_schedule(h->bcast);
}

/* A piece of a frame (len bytes at in): capped, reassembled, handled once whole. */
static int on_receive(struct hub *h, struct hub_conn *c, struct lws *wsi, void *in, size_t len) {
    if (c->close_code) return 0; /* being cut: ignored */
    c->last_rx_ms = fv_clock_coarse_ms();
    c->heard = 1;
    if (lws_frame_is_binary(wsi))
        return cut(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "binary messages are not part of the protocol");
    /* Rate cap, once per frame (at its end: lws hands a long frame over
     * in pieces), so empty continuation frames count like any other. */
    if (!lws_remaining_packet_payload(wsi) && frame_take(c))
        return cut(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too many messages");
    size_t total = c->rxlen + len + lws_remaining_packet_payload(wsi), max = msg_max(c);
    if (total > max) {
        char why[64];
        snprintf(why, sizeof why, "message larger than %zu bytes", max);
        return cut(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, why);
    }
    int final = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
    if (final && !c->rx) return on_message(h, c, in, len);
    if (!c->rx && !(c->rx = malloc(max))) return -1;
    memcpy(c->rx + c->rxlen, in, len);
    c->rxlen += len;
    if (!final) return 0;
    int rc = on_message(h, c, (const char *)c->rx, c->rxlen);
    free(c->rx);
    c->rx = NULL;
    c->rxlen = 0;
    return rc;
}

/* c is writeable: its close, a ping, the next fragment of its queue, or
 * the tally it is owed. */
static int on_writeable(struct hub *h, struct hub_conn *c, struct lws *wsi) {
    if (c->close_code) return close_now(c, (enum lws_close_status)c->close_code, c->close_reason);
    if (c->want_ping) {
        unsigned char ping[LWS_PRE + 1];
        ping[LWS_PRE] = 'k';
        c->want_ping = 0;
        if (lws_write(wsi, ping + LWS_PRE, 1, LWS_WRITE_PING) < 0) return -1;
        if (c->qlen || hub_tally_pending(h->bcast, c)) lws_callback_on_writable(wsi);
        return 0;
    }
    if (hub_conn_write_next(c, h->bcast, h->txbuf) < 0) return -1;
    if (c->qlen || hub_tally_pending(h->bcast, c)) lws_callback_on_writable(wsi);
    return 0;
}

int hub_ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    const struct lws_protocols *proto = lws_get_protocol(wsi);
    struct hub *h = proto ? proto->user : NULL;
    struct hub_conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        /* hub_http.c decided at the upgrade (hub_conns_admit); this is the backstop (a
         * silent phone made way and has not closed yet: a few over) */
        return hub_conns_full(h->conns);
    case LWS_CALLBACK_ESTABLISHED: on_established(h, c, wsi, (enum hub_role)proto->id); break;
    case LWS_CALLBACK_CLOSED: on_closed(h, c); break;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        c->closing = 1; /* lws answers it; nothing more is written to c */
        break;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (c->close_code) break; /* being cut: ignored */
        c->last_rx_ms = fv_clock_coarse_ms();
        c->heard = 1;
        if (frame_take(c)) return cut(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too many messages");
        break;
    case LWS_CALLBACK_RECEIVE: return on_receive(h, c, wsi, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE: return on_writeable(h, c, wsi);
    default: break;
    }
    return 0;
}

/* The keepalive sweep's deadline (HUB_T_SWEEP): its next step (hub_conns.c). */
static void keepalive_sweep(lws_sorted_usec_list_t *sul) {
    struct hub *h = hub_timer_owner(sul, HUB_T_SWEEP);
    hub_timer_in(h, HUB_T_SWEEP, keepalive_sweep, h, hub_conns_sweep_plan(h->conns));
    hub_conns_sweep(h->conns);
}

void hub_keepalive_start(struct hub *h) { hub_timer_in(h, HUB_T_SWEEP, keepalive_sweep, h, 1000); }
