/* The hub's broadcasts: the state and tally messages, one per viewer of
 * the room (room_view decides what each may see), coalesced to at most
 * HUB_TALLY_HZ tallies a second (HUB_T_TALLY), screens and the presenter
 * made writeable at once, phones visited by a rotation (HUB_T_ROTATION), a
 * state change fanned out to phones in chunks (hub_send.c). Runs on the
 * lws thread. */
#include <stdatomic.h>
#include <stdlib.h>

#include "hub_conn.h"
#include "hub_conns.h"
#include "fv_clock.h"
#include "hub.h"
#include "hub_loop.h"
#include "hub_msg.h"
#include "hub_send.h"
#include "hub_tally.h"

/* The broadcast state (hub_tally_new): the parts it reads, the newest
 * messages, the tally's version, the phones' rotation. */
struct hub_broadcast {
    struct hub *hub;               /* the loop (deadlines, the status) and the messages' builders (hub_msg.h) */
    struct room *room;
    struct hub_conns *conns;       /* who gets a state; the rotation's list and cursor */
    const struct hub_fanout *fanout; /* a state change still going out pauses the rotation */
    struct lws_context *ctx;
    const struct lws_protocols *screens, *presenters; /* made writeable at a new tally */
    int audience_rate;             /* tallies a second to phones (hub_config.audience_tallies_per_s; 0: the default) */
    struct hub_msg *state[ROOM_VIEWERS]; /* the newest state, one per viewer (hub_msg_state) */
    struct hub_msg *tally[ROOM_VIEWERS]; /* the newest tally, one per viewer (hub_msg_tally) */
    struct hub_msg *follow[QUIZ_QUESTIONS_MAX]; /* the newest state about question i for the screens that
                                                 * follow it (hub_msg_state_of), built when one is sent */
    unsigned long tally_version;
    int tally_dirty;
    int status_stale;              /* a tally was built since the last hub_status_update of the tick */
    /* Phones get the tally in a rotation: every HUB_ROTATION_MS it visits
     * the next connections and writes the newest tally to the phones among
     * them that are behind, HUB_AUDIENCE_SENDS_PER_S * HUB_ROTATION_MS / 1000
     * at most (never all at once; see audience_step). Its place in the
     * list is the connections' (hub_conns_rotation_next). */
    int rot_left;                  /* connections still to visit since the last tally change */
    double rot_credit;             /* visits the rotation may still make (HUB_PHONE_TALLY_HZ rounds a second) */
    long long rot_ms;              /* when the last step ran (its visits and sends follow the time since) */
    atomic_ulong phone_tallies;    /* tallies written to phones (hub_status.phone_tallies); read by any thread */
};

static void tally_tick(lws_sorted_usec_list_t *sul);

void hub_tally_schedule(struct hub_broadcast *b) {
    b->tally_dirty = 1;
    if (!hub_timer_armed(b->hub, HUB_T_TALLY)) hub_timer_in(b->hub, HUB_T_TALLY, tally_tick, b, 1000 / HUB_TALLY_HZ);
}

/* One rotation step (every HUB_ROTATION_MS while a round runs): the next
 * connections in the list; phones among them that have not had the newest
 * tally get it (written now when nothing of theirs waits, else at their
 * writeable). At most HUB_AUDIENCE_SENDS_PER_S sends a second, about
 * HUB_ROTATION_MS / 1000 of that per step (250), so the acks of votes never
 * wait behind more than that many tally writes; and a round over every
 * connection takes at least 1 / HUB_PHONE_TALLY_HZ s, so in a small room
 * a phone still gets at most HUB_PHONE_TALLY_HZ tallies a second. Both
 * follow the time since the last step, not the number of steps: a step
 * that runs late (the loop busy, or its own writes) does not slow them. */
static void audience_step(struct hub_broadcast *b) {
    int rate = b->audience_rate > 0 ? b->audience_rate : HUB_AUDIENCE_SENDS_PER_S;
    /* No question open: the count is only who is online. A slower pace
     * leaves the loop to a room joining all at once (every join changes
     * that count, so the rotation would otherwise never rest). */
    struct quiz *q = room_quiz(b->room);
    struct quiz_qinfo ci;
    if (rate > HUB_AUDIENCE_IDLE_SENDS_PER_S && (quiz_get(q, quiz_cursor(q), &ci) || ci.state != QUIZ_VOTING))
        rate = HUB_AUDIENCE_IDLE_SENDS_PER_S;
    long long now = fv_clock_coarse_ms(), dt = now - b->rot_ms;
    if (dt > 2 * HUB_ROTATION_MS) dt = 2 * HUB_ROTATION_MS; /* the first step of a round, or a stall: no catching up */
    if (dt < 1) dt = 1;
    b->rot_ms = now;
    long long sends = (long long)rate * dt / 1000;
    int total = hub_conns_total(b->conns);
    /* visits owed so far, fractions carried (a room of 5 visits one connection every 20 ms) */
    b->rot_credit += (double)total * (double)dt * HUB_PHONE_TALLY_HZ / 1000.0;
    if (b->rot_credit > total) b->rot_credit = total;
    long long visits = (long long)b->rot_credit;
    b->rot_credit -= (double)visits;
    if (sends < 1) sends = 1;
    while (sends > 0 && visits > 0 && b->rot_left > 0) {
        struct hub_conn *c = hub_conns_rotation_next(b->conns);
        if (!c) {
            b->rot_left = 0;
            break;
        }
        b->rot_left--;
        visits--;
        if (c->role != HUB_AUDIENCE || c->tally_sent >= b->tally_version || c->close_code) continue;
        sends--;
        c->tally_turn = 1;
        if (hub_conn_write_now(c, b->tally[hub_conn_viewer(c)])) hub_tally_take(b, c);
        else lws_callback_on_writable(c->wsi);
    }
}

static void rotation_tick(lws_sorted_usec_list_t *sul);

static void rotation_schedule(struct hub_broadcast *b) {
    if (hub_timer_armed(b->hub, HUB_T_ROTATION) || b->rot_left <= 0) return;
    hub_timer_in(b->hub, HUB_T_ROTATION, rotation_tick, b, HUB_ROTATION_MS);
}

/* The rotation's deadline came: one step, unless a state change is still
 * being fanned out (phones need the question more than a count). */
static void rotation_tick(lws_sorted_usec_list_t *sul) {
    struct hub_broadcast *b = hub_timer_owner(sul, HUB_T_ROTATION);
    if (!hub_fanout_busy(b->fanout)) audience_step(b);
    rotation_schedule(b);
}

/* One message per viewer of the room (what each may see is room_view's
 * rule, asked by the builder), each shared by every connection of that
 * viewer; they replace cur[] only when all were built. 0, or -1. */
int hub_build_views(struct hub *h, char *(*build)(struct hub *, enum room_viewer), struct hub_msg *cur[]) {
    struct hub_msg *m[ROOM_VIEWERS];
    int ok = 1;
    for (int v = 0; v < ROOM_VIEWERS; v++) ok &= (m[v] = hub_msg_new(build(h, (enum room_viewer)v))) != NULL;
    for (int v = 0; v < ROOM_VIEWERS; v++) {
        hub_msg_unref(ok ? cur[v] : m[v]);
        if (ok) cur[v] = m[v];
    }
    return ok ? 0 : -1;
}

void hub_drop_views(struct hub_msg *cur[]) {
    for (int v = 0; v < ROOM_VIEWERS; v++) hub_msg_unref(cur[v]), cur[v] = NULL;
}

/* A new tally message per kind of client, shared by every connection:
 * screens and presenters are made writeable now, phones are visited by the
 * rotation (every connection once more after this change). */
static void tally_build(struct hub_broadcast *b) {
    b->tally_dirty = 0;
    b->tally_version++; /* the messages carry it */
    if (hub_build_views(b->hub, hub_msg_tally, b->tally)) return;
    b->status_stale = 1;
    b->rot_left = hub_conns_total(b->conns);
    rotation_schedule(b);
    lws_callback_on_writable_all_protocol(b->ctx, b->screens);
    lws_callback_on_writable_all_protocol(b->ctx, b->presenters);
}

/* A group commit changed the counts (or a presenter just authed and needs
 * the split): the screens' tally is built now (one per commit at most),
 * not at the next tick, so the projector is up to date within a commit of
 * the vote; phones keep their rotation. */
void hub_tally_now(struct hub_broadcast *b) {
    tally_build(b);
    if (!hub_timer_armed(b->hub, HUB_T_TALLY)) hub_timer_in(b->hub, HUB_T_TALLY, tally_tick, b, 1000 / HUB_TALLY_HZ);
}

/* At most HUB_TALLY_HZ times a second: a tally for what changed outside a
 * commit (connections coming and going, states), and the status for the
 * console. The phones' rotation runs on its own deadline (rotation_tick). */
static void tally_tick(lws_sorted_usec_list_t *sul) {
    struct hub_broadcast *b = hub_timer_owner(sul, HUB_T_TALLY);
    if (b->tally_dirty) tally_build(b);
    if (b->status_stale) { /* the console and hub_snapshot follow at the tick's pace */
        b->status_stale = 0;
        hub_status_update(b->hub, NULL);
    }
}

/* The followed questions' states are built again when next sent. */
static void follow_drop(struct hub_broadcast *b) {
    for (int i = 0; i < QUIZ_QUESTIONS_MAX; i++) hub_msg_unref(b->follow[i]), b->follow[i] = NULL;
}

/* New state messages for every viewer, marked as states (hub_conn_send: a
 * newer one replaces an older one still queued). 0, or -1. */
static int state_views(struct hub_broadcast *b) {
    if (hub_build_views(b->hub, hub_msg_state, b->state)) return -1;
    for (int v = 0; v < ROOM_VIEWERS; v++) hub_msg_mark_state(b->state[v]);
    follow_drop(b);
    return 0;
}

/* The state for the screens that follow question pos: the screens' own
 * while it is the current one (or no longer in the deck), else one built
 * once per change for all of them (so a thousand screens cost one build
 * per question they follow). NULL: out of memory. */
static struct hub_msg *follow_state(struct hub_broadcast *b, int pos) {
    struct quiz *q = room_quiz(b->room);
    if (pos == quiz_cursor(q) || pos >= quiz_count(q) || pos >= QUIZ_QUESTIONS_MAX)
        return b->state[ROOM_VIEWER_SCREEN];
    if (!b->follow[pos] && (b->follow[pos] = hub_msg_new(hub_msg_state_of(b->hub, ROOM_VIEWER_SCREEN, pos))))
        hub_msg_mark_state(b->follow[pos]);
    return b->follow[pos];
}

static void state_tick(lws_sorted_usec_list_t *sul) { hub_state_changed(hub_timer_owner(sul, HUB_T_STATE)); }

void hub_state_soon(struct hub_broadcast *b) {
    if (!hub_timer_armed(b->hub, HUB_T_STATE)) hub_timer_in(b->hub, HUB_T_STATE, state_tick, b, HUB_STATE_DEBOUNCE_MS);
}

void hub_status_soon(struct hub_broadcast *b) {
    b->status_stale = 1;
    if (!hub_timer_armed(b->hub, HUB_T_TALLY)) hub_timer_in(b->hub, HUB_T_TALLY, tally_tick, b, 1000 / HUB_TALLY_HZ);
}

/* New state messages, sent to screens and presenters and, with phones, to
 * phones; the tally built again at once. Not at the next tick: until then
 * the rotation and a writeable would hand out the tally built for the
 * state before (a phone got the revealed question's tally after the next
 * question's voting state, fragvote/test_serve_open_frames under ASan). */
static void states_out(struct hub_broadcast *b, int phones) {
    if (state_views(b) == 0) {
        for (struct hub_conn *c = hub_conns_first(b->conns); c; c = c->next) {
            if (c->role != HUB_AUDIENCE)
                hub_conn_send(c, hub_tally_state(b, c));
            else if (phones)
                hub_conn_send_later(c, b->state[ROOM_VIEWER_PHONE]); /* in chunks: see hub_fanout_pump */
        }
    }
    hub_tally_now(b);
    hub_status_update(b->hub, NULL);
}

void hub_state_changed(struct hub_broadcast *b) { states_out(b, 1); }
void hub_state_changed_screens(struct hub_broadcast *b) { states_out(b, 0); }

struct hub_broadcast *hub_tally_new(struct hub *hub, struct room *room, struct hub_conns *conns,
                                    const struct hub_fanout *fanout, struct lws_context *ctx,
                                    const struct lws_protocols *screens, const struct lws_protocols *presenters,
                                    int audience_rate) {
    struct hub_broadcast *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->hub = hub;
    b->room = room;
    b->conns = conns;
    b->fanout = fanout;
    b->ctx = ctx;
    b->screens = screens;
    b->presenters = presenters;
    b->audience_rate = audience_rate;
    return b;
}

int hub_tally_start(struct hub_broadcast *b) { return state_views(b); }

void hub_tally_free(struct hub_broadcast *b) {
    if (!b) return;
    hub_drop_views(b->tally);
    hub_drop_views(b->state);
    follow_drop(b);
    free(b);
}

struct hub_msg *hub_tally_state(struct hub_broadcast *b, const struct hub_conn *c) {
    return c->follow >= 0 ? follow_state(b, c->follow) : b->state[hub_conn_viewer(c)];
}
int hub_tally_built(const struct hub_broadcast *b) { return b->tally[0] != NULL; }
unsigned long hub_tally_version(const struct hub_broadcast *b) { return b->tally_version; }

unsigned long hub_tally_phone_count(const struct hub_broadcast *b) {
    return atomic_load(&((struct hub_broadcast *)b)->phone_tallies);
}

/* Whether c has not yet been sent the newest tally meant for its kind
 * (a phone only once the rotation reached it). */
int hub_tally_pending(const struct hub_broadcast *b, const struct hub_conn *c) {
    if (c->role == HUB_AUDIENCE && !c->tally_turn) return 0;
    return b->tally[0] && c->tally_sent < b->tally_version;
}

/* c is writeable and owed the newest tally (hub_tally_pending): that
 * message, counted as sent. */
struct hub_msg *hub_tally_take(struct hub_broadcast *b, struct hub_conn *c) {
    c->tally_sent = b->tally_version;
    if (c->role == HUB_AUDIENCE) {
        c->tally_turn = 0;
        atomic_fetch_add_explicit(&b->phone_tallies, 1, memory_order_relaxed);
    }
    return b->tally[hub_conn_viewer(c)];
}
