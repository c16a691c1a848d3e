/* The remote prober (serve --prober remote; docs/PROTOCOL.md "The remote
 * prober", issue 17): an authed presenter connection that said `prober` is
 * the room's prober. The hub implements the room's prober interface (prober.h)
 * with it: each ask becomes a `measure` frame to that connection, or waits
 * in the room (room_prober_pending) while none is connected and is sent
 * when one says `prober`; each `result` goes to room_prober_result, which
 * stores it and holds it until the reveal like a local result. Runs on the
 * lws thread. */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "hub.h"
#include "hub_action.h"
#include "hub_conns.h"
#include "hub_guard.h"
#include "hub_loop.h"
#include "hub_mailbox.h"
#include "hub_batch.h"
#include "hub_msg.h"
#include "hub_prober.h"
#include "hub_send.h"
#include "hub_tally.h"
#include "hub_parse.h"
#include "probe_json.h"
#include "prober.h"

#define HUB_PROBER_PENDING_MAX 256 /* asks sent again to a prober that (re)connects, oldest first */
_Static_assert(HUB_PROBER_INSTANCE_MAX == HUB_PARSE_STR_MAX, "hub_remote keeps the decoded \"instance\" whole");

/* The peer's address as text, for the console. */
static void peer_text(const struct hub_conn *c, char *out, size_t len) {
    const struct hub_peer *p = hub_conn_peer(c);
    if (hub_peer_is_v4(p->addr))
        inet_ntop(AF_INET, p->addr + 12, out, (socklen_t)len);
    else
        inet_ntop(AF_INET6, p->addr, out, (socklen_t)len);
}

/* A line for serve's console (connects, disconnects, take-overs). */
static void note(struct hub_remote *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct hub_remote *r, const char *fmt, ...) {
    char line[sizeof ((struct hub_status *)0)->prober_line];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    hub_mailbox_prober(r->mb, line, r->conn ? 1 : 0);
    if (r->cfg->on_note) r->cfg->on_note(r->cfg->ctx, line);
    if (!atomic_load(r->stop)) hub_status_update(r->hub, NULL); /* not while the context is being destroyed */
}

static char *dump(json_t *o) {
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

/* An error answer to the prober that names the rid it is about (rid < 0: none). */
static void prober_error(struct hub_conn *c, long long rid, const char *code, const char *message) {
    json_t *o = json_pack("{s:s, s:s, s:s}", "t", "error", "code", code, "message", message);
    if (o && rid >= 0) json_object_set_new(o, "rid", json_integer((json_int_t)rid));
    hub_conn_send_own(c, dump(o));
}

static void send_measure(struct hub_remote *r, struct hub_conn *c, const struct prober_ask *a) {
    json_t *o = json_pack("{s:s, s:i, s:s, s:I, s:i, s:i, s:b, s:o}", "t", "measure", "v", HUB_PROTOCOL_VERSION,
                          "epoch", r->epoch, "rid", (json_int_t)a->rid, "test", a->test_index, "q", a->position,
                          "rerun", a->rerun, "spec", probe_spec_to_json(a->spec));
    hub_conn_send_own(c, dump(o));
    r->sent++;
}

/* The room's prober interface: an ask goes to the prober now, or waits in the
 * room until one connects (room_prober_pending finds it then). */
static int remote_ask(void *ctx, const struct prober_ask *a) {
    struct hub_remote *r = ctx;
    if (r->conn) send_measure(r, r->conn, a);
    return 0;
}

int hub_prober_init(struct hub_remote *r, struct hub *hub, const struct hub_config *cfg, const atomic_int *stop,
                    struct room *room, struct hub_mailbox *mb, struct hub_batch *batch, struct hub_broadcast *bcast,
                    struct hub_actions *act, char *err, size_t errlen) {
    *r = (struct hub_remote){.hub = hub, .cfg = cfg, .stop = stop, .room = room, .mb = mb, .batch = batch,
                             .bcast = bcast, .act = act};
    unsigned char b[8];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        snprintf(err, errlen, "getrandom failed making the hub's epoch");
        return -1;
    }
    for (size_t i = 0; i < sizeof b; i++) snprintf(r->epoch + 2 * i, 3, "%02x", b[i]);
    hub_mailbox_lock(r->mb)->prober = r->cfg->prober_remote ? 0 : -1;
    hub_mailbox_unlock(r->mb);
    if (r->cfg->prober_remote) room_set_prober(r->room, &(struct prober){remote_ask, r});
    return 0;
}

/* Sends what the room still waits for, oldest first; returns how many. */
static int send_pending(struct hub_remote *r, struct hub_conn *c, int count_only) {
    struct prober_ask asks[HUB_PROBER_PENDING_MAX];
    int n = room_prober_pending(r->room, asks, HUB_PROBER_PENDING_MAX);
    if (!count_only)
        for (int i = 0; i < n; i++) send_measure(r, c, &asks[i]);
    return n;
}

void hub_prober_hello(struct hub_remote *r, struct hub_conn *c, const struct hub_client_msg *m) {
    char err[512], who[INET6_ADDRSTRLEN], old[INET6_ADDRSTRLEN];
    if (hub_conn_forbidden(c, "only the presenter's laptop can be the prober")) return;
    if (!r->cfg->prober_remote) {
        hub_conn_error(c, -1, "not_remote",
                       "this hub measures on its own host (serve --prober local); start it with --prober remote "
                       "to measure from the laptop");
        return;
    }
    peer_text(c, who, sizeof who);
    /* The same laptop again (its instance): a reconnect after a cut link
     * while its old connection lingers (TCP has not noticed yet). */
    int same = r->conn && r->conn != c && m->prober_instance[0] && !strcmp(r->instance, m->prober_instance);
    if (r->conn && r->conn != c && !m->take_over && !same) {
        peer_text(r->conn, old, sizeof old);
        snprintf(err, sizeof err,
                 "another prober (%s) is connected to this room; send \"take_over\": true to replace it", old);
        note(r, "prober from %s refused: the prober at %s is connected (no take_over)", who, old);
        hub_conn_error(c, -1, "prober_busy", err); /* after the note: its reader may look at the status at once */
        return;
    }
    if (!m->deck_json) {
        hub_conn_error(c, -1, "bad_deck", "the prober hello needs \"deck\": the laptop's deck as a JSON object");
        return;
    }
    struct deck *d = calloc(1, sizeof *d);
    if (!d) {
        hub_conn_error(c, -1, "busy", "server out of memory");
        return;
    }
    int adopted = 0;
    if (deck_load_string(m->deck_json, "the prober's deck", d, err, sizeof err)) {
        hub_conn_error(c, -1, "bad_deck", err);
        free(d);
        return;
    }
    /* Adopting writes the session's questions: no batch may be in flight. */
    if (hub_batch_complete(r->batch, ROOM_BUSY_LIVE_MS)) {
        hub_conn_error(c, -1, "busy", "the database is busy (votes are waiting for it); say prober again");
        deck_free(d);
        free(d);
        return;
    }
    int rc = room_deck_adopt(r->room, d, &adopted, err, sizeof err);
    deck_free(d);
    free(d);
    if (rc) {
        hub_conn_error(c, -1, "deck_mismatch", err);
        note(r, "prober from %s refused: %s", who, err);
        return;
    }
    const char *verb = "connected";  /* the console's line says how it became the prober */
    char how[160] = "";
    if (r->conn && r->conn != c) {
        struct hub_conn *gone = r->conn;
        peer_text(gone, old, sizeof old);
        if (same) {
            hub_conn_kill(gone, LWS_CLOSE_STATUS_GOINGAWAY, "the same laptop connected again");
            verb = "reconnected";
            snprintf(how, sizeof how, "; the same laptop: its old connection from %s is closed", old);
        } else {
            snprintf(err, sizeof err, "the laptop at %s took over as this room's prober", who);
            hub_conn_send_own(gone, dump(json_pack("{s:s, s:s, s:s}", "t", "prober_gone", "reason", "taken_over",
                                                   "message", err)));
            verb = "took over";
            snprintf(how, sizeof how, "; the prober at %s is taken over and told", old);
        }
    }
    struct room_prober_facts f = {.host = m->prober_host, .kernel = m->prober_kernel, .observer = m->prober_observer,
                                  .target = m->prober_target, .lab_json = m->prober_lab_json};
    if (m->prober_host[0] && room_prober_facts(r->room, &f, err, sizeof err))
        hub_status_warn(r->hub, err); /* the session's description only: the prober is taken all the same */
    r->conn = c;
    snprintf(r->instance, sizeof r->instance, "%s", m->prober_instance);
    int n = send_pending(r, c, 1);
    hub_conn_send_own(c, dump(json_pack("{s:s, s:i, s:I, s:s, s:s, s:s, s:i}", "t", "prober_ok", "v",
                                        HUB_PROTOCOL_VERSION, "session", (json_int_t)room_session_id(r->room), "room",
                                        room_code(r->room), "epoch", r->epoch, "deck", adopted ? "adopted" : "kept",
                                        "pending", n)));
    send_pending(r, c, 0);
    char desc[4 * HUB_PARSE_STR_MAX + 64] = "";
    if (m->prober_host[0] || m->prober_observer[0] || m->prober_target[0])
        snprintf(desc, sizeof desc, " (%s%s%s%s%s%s%s)", m->prober_host[0] ? m->prober_host : "laptop",
                 m->prober_kernel[0] ? ", " : "", m->prober_kernel, m->prober_observer[0] ? ", observer " : "",
                 m->prober_observer,
                 m->prober_target[0] ? ", target " : "", m->prober_target);
    note(r, "prober %s from %s%s%s; deck %s; %d measurement%s waiting", verb, who, desc, how,
         adopted ? "adopted" : "kept", n, n == 1 ? "" : "s");
    hub_state_changed(r->bcast); /* presenters see "prober": true (and the laptop's questions when adopted) */
}

void hub_prober_result(struct hub_remote *r, struct hub_conn *c, const struct hub_client_msg *m, size_t len) {
    char err[512];
    long long rid = m->rid;
    if (c != r->conn) {
        prober_error(c, rid, "forbidden", "only the room's prober sends results (say prober first)");
        return;
    }
    if (len > HUB_PROBER_RESULT_MAX) {
        snprintf(err, sizeof err, "result larger than %d bytes", HUB_PROBER_RESULT_MAX);
        prober_error(c, rid, "bad_result", err);
        return;
    }
    if (rid < 0) {
        prober_error(c, -1, "bad_result", "\"rid\" must be the integer of the measure it answers");
        return;
    }
    if (!m->has_epoch || strcmp(m->epoch, r->epoch)) {
        snprintf(err, sizeof err, "rid %lld was asked by an earlier hub process (this one's epoch is %s): "
                 "measure the asks sent after prober_ok", rid, r->epoch);
        prober_error(c, rid, "unknown_rid", err);
        return;
    }
    if (!m->result_ok) {
        prober_error(c, rid, "bad_result", m->result_err);
        return;
    }
    struct prober_ask asks[HUB_PROBER_PENDING_MAX];
    int n = room_prober_pending(r->room, asks, HUB_PROBER_PENDING_MAX), at = -1;
    for (int i = 0; i < n && at < 0; i++)
        if (asks[i].rid == (uint64_t)rid) at = i;
    if (at < 0) {
        snprintf(err, sizeof err, "rid %lld is not a measurement this room waits for (never asked, or answered)", rid);
        prober_error(c, rid, "unknown_rid", err);
        return;
    }
    if (!prober_result_matches(asks[at].spec, &m->result)) {
        snprintf(err, sizeof err, "rid %lld asked for %s %s %d bytes; this result is of another test", rid,
                 probe_proto_name(asks[at].spec->proto), probe_mode_name(asks[at].spec->mode), asks[at].spec->size);
        prober_error(c, rid, "bad_result", err);
        return;
    }
    if (hub_measured(r->act, (uint64_t)rid, &m->result, err, sizeof err)) { /* as a local result */
        prober_error(c, rid, "bad_result", err);
        return;
    }
    r->results++;
    hub_conn_send_own(c, dump(json_pack("{s:s, s:I}", "t", "result_ok", "rid", (json_int_t)rid)));
}

void hub_prober_closed(struct hub_remote *r, struct hub_conn *c) {
    if (r->conn != c) return;
    char who[INET6_ADDRSTRLEN];
    peer_text(c, who, sizeof who);
    r->conn = NULL;
    note(r, "prober at %s disconnected; the room keeps voting, measurements wait for it (%d waiting)", who,
         send_pending(r, c, 1));
    if (!atomic_load(r->stop)) hub_state_changed(r->bcast); /* presenters see "prober": false */
}

int hub_prober_connected(const struct hub_remote *r) { return r->conn != NULL; }
