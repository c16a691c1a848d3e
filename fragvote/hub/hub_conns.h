/* The hub's connections (hub_conns.c): the list of open websockets, the
 * counts per role, the walks over the list (the keepalive sweep, the
 * phones' tally rotation), who is online (voters and newcomers), the
 * phones per address, admission and eviction. On the loop's thread, but
 * the counts per role, which any thread may read. Internal to
 * fragvote/hub. */
#ifndef FRAGVOTE_HUB_CONNS_H
#define FRAGVOTE_HUB_CONNS_H

struct hub_conn;
struct hub_msg;
struct hub_peer;
struct hub_status;

enum hub_role { HUB_AUDIENCE, HUB_SCREEN, HUB_PRESENTER, HUB_NROLES };

/* What a phone asked on its connection, counted (hub_conn_asks). */
enum hub_conn_ask {
    HUB_ASK_REPLAY,                /* replay messages sent to it (at most HUB_REPLAY_ASKS; hub_replay.c) */
    HUB_ASK_RTT,                   /* round-trip reports relayed (at most one; hub_rtt.c) */
    HUB_ASKS
};

/* The connections' state (hub_conns.c), opaque: hub_conns_new. */
struct hub_conns;

/* The connections for cap websockets (hub_fd.conn_cap), per_addr phones
 * per address (0: no cap), pinged after ping_ms quiet and closed after
 * idle_ms (HUB_PING_S, HUB_IDLE_S); NULL when getrandom or memory failed. */
struct hub_conns *hub_conns_new(int cap, int per_addr, int ping_ms, int idle_ms);
void hub_conns_free(struct hub_conns *cs); /* NULL: nothing */
int hub_conns_total(const struct hub_conns *cs); /* open websockets of every role */
/* Open websockets of role r: an atomic read, any thread may ask (hub_snapshot). */
int hub_conns_role_count(const struct hub_conns *cs, enum hub_role r);
/* The status's counts of the connections (struct hub_status: connections,
 * screens, presenters, newcomers, tokens_minted, voters_refused,
 * conns_refused, conns_evicted, resumes_refused), on the loop's thread;
 * hub_conns_status_live: only the open websockets per role, from any
 * thread (atomic reads). */
void hub_conns_status(const struct hub_conns *cs, struct hub_status *s);
void hub_conns_status_live(const struct hub_conns *cs, struct hub_status *s);
/* Counted for the status: a fresh token issued by hello; a first vote
 * refused by the per-address new-voter cap (or the room full); a hello
 * refused, one identity reconnecting too often (HUB_RESUME_RATE). */
void hub_conns_token_minted(struct hub_conns *cs);
void hub_conns_voter_refused(struct hub_conns *cs);
void hub_conns_resume_refused(struct hub_conns *cs);
/* Who is online: voters with an open connection, and the newcomers (the
 * tally's `online` is their sum). */
int hub_conns_voters_online(const struct hub_conns *cs);
int hub_conns_newcomers(const struct hub_conns *cs);
/* One more open connection of voter v (hub_voters_add): 0, or -1 out of memory. */
int hub_conns_voter_add(struct hub_conns *cs, int v);
/* One more connection of a newcomer's token (hub_online_add): 1 new, 0
 * known, -1 out of memory; and one fewer (hub_online_remove). */
int hub_conns_newcomer_add(struct hub_conns *cs, const char *token);
int hub_conns_newcomer_remove(struct hub_conns *cs, const char *token);
/* Whether a websocket upgrade may proceed (issue 36, item 4): a phone
 * (audience) from peer only within its address's share (hub_addrs,
 * HUB_WS_PER_ADDR) and below the HUB_CONN_RESERVE places kept for screens
 * and presenter pages; anyone while the room has a place, or one a phone
 * that never said hello gives up (it is closed with 1013). 0 admitted, 1
 * admitted in an evicted phone's place (conns_evicted), -1 refused
 * (conns_refused). */
int hub_conns_admit(struct hub_conns *cs, const struct hub_peer *peer, int audience);
int hub_conns_full(const struct hub_conns *cs); /* the backstop after hub_conns_admit: so many open that no more */
/* c (established, its role and peer set) joins the list and the counts.
 * 0, or -1 when its address filled its share meanwhile: c is being closed
 * and counted in conns_refused. */
int hub_conns_add(struct hub_conns *cs, struct hub_conn *c);
void hub_conns_remove(struct hub_conns *cs, struct hub_conn *c); /* c closed: out of the list (cursors move on) */
void hub_conns_closed(struct hub_conns *cs, struct hub_conn *c); /* ... then out of the counts and the online */
/* The keepalive sweep (HUB_T_SWEEP): hub_conns_sweep_plan sizes the next
 * step (its slice of the connections) and returns in how many ms the step
 * after it is due; hub_conns_sweep then visits that slice (pings the quiet,
 * closes the silent and the byte flooders). */
long long hub_conns_sweep_plan(struct hub_conns *cs);
void hub_conns_sweep(struct hub_conns *cs);
/* The walks of the others, on the list as it is (newest first, linked
 * through hub_conn.next): hub_conns_first, its head (NULL: none open);
 * hub_conns_rotation_next, the connection the phones' tally rotation
 * visits next (from the cursor HUB_CUR_ROTATION, the head when a round is
 * new), the cursor moved past it; NULL when none is open. */
struct hub_conn *hub_conns_first(const struct hub_conns *cs);
struct hub_conn *hub_conns_rotation_next(struct hub_conns *cs);
/* m (not taken) to every authed presenter connection that is not closing. */
void hub_conns_presenters_send(const struct hub_conns *cs, struct hub_msg *m);
unsigned long long hub_conn_rx_bytes(struct hub_conn *c); /* its socket's bytes received (TCP_INFO); 0 unknown */

/* A connection's fields, for the files that do not see struct hub_conn (hub_conn.h). */
const struct hub_peer *hub_conn_peer(const struct hub_conn *c); /* its client's address (the throttles') */
enum hub_role hub_conn_role(const struct hub_conn *c);
const char *hub_conn_token(const struct hub_conn *c); /* its token after the welcome, "" before */
int hub_conn_asks(const struct hub_conn *c, enum hub_conn_ask k); /* how many times it asked k */
void hub_conn_asked(struct hub_conn *c, enum hub_conn_ask k);    /* ... one more */
/* Whether an answer of c would be its token's first as a voter, not yet
 * let through by the per-address new-voter cap on this connection (no
 * voter index yet); hub_conn_new_voter_passed: the cap let it through. */
int hub_conn_new_voter(const struct hub_conn *c);
void hub_conn_new_voter_passed(struct hub_conn *c);

#endif
