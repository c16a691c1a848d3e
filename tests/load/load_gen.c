/* The load generator's engine: one libwebsockets client context holding every
 * phone, the screen and the presenter, driven on one thread by a libev loop
 * (epoll) that we own, as fragvote/hub/hub.c does for the server; a ticker
 * thread only wakes the loop (lws_cancel_service) every millisecond so the
 * vote schedule and the phase deadlines run on time.
 *
 * Phases: connect (ramped, bounded in flight) -> all joined -> idle hold ->
 * presenter opens the question -> phones vote at random times in the window
 * -> every vote acked and seen in a tally (or the drain deadline) ->
 * presenter closes the question -> SQLite check -> with --rejoin, the
 * reconnect storm (load_rejoin.c). */
#include <dlfcn.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "load_internal.h"

#define LOAD_RX_BUFFER 2048          /* lws receive buffer per connection; longer messages come in pieces */
#define LOAD_TICK_MS 1               /* loop wake-up period while anything is scheduled */
#define LOAD_CLOSE_WAIT_MS 30000     /* presenter open/skip/close: wait this long for cmd_ok */

double load_cpu_self_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

void load_failf(struct lrun *r, const char *fmt, ...) {
    r->res->errors++;
    if (r->res->first_error[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->first_error, sizeof r->res->first_error, fmt, ap);
    va_end(ap);
}

void load_verdict(struct lrun *r, const char *fmt, ...) {
    if (r->res->verdict[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->verdict, sizeof r->res->verdict, fmt, ap);
    va_end(ap);
}

uint32_t load_rnd_next(uint32_t *s) { /* xorshift32: reproducible schedules from --seed */
    uint32_t x = *s ? *s : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static void send_later(struct lrun *r, struct conn *c, const char *fmt, ...) {
    r->cmd_written = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->out, sizeof c->out, fmt, ap);
    va_end(ap);
    if (c->wsi) lws_callback_on_writable(c->wsi);
}

/* ---- messages from the server (not NUL-terminated: print at most len bytes) ---- */

#define SHOWN(len) ((int)((len) < 160 ? (len) : 160))

/* Writes c's vote, stamped as it goes out: 0, or -1 (the run fails). */
static int write_vote(struct lrun *r, struct conn *c) {
    unsigned char buf[LWS_PRE + LOAD_OUT_MAX];
    char *p = (char *)buf + LWS_PRE;
    int n = snprintf(p, LOAD_OUT_MAX, "{\"t\":\"vote\",\"id\":%d,\"q\":%d,\"yes\":%s}", (int)(c - r->c) + 1, c->q,
                     load_phone_yes((int)(c - r->c)) ? "true" : "false");
    c->vote_due = 0;
    double t = fv_clock_ms_frac();
    if (lws_write(c->wsi, (unsigned char *)p, (size_t)n, LWS_WRITE_TEXT) < n) {
        load_failf(r, "write failed on connection %d", (int)(c - r->c));
        return -1;
    }
    c->voted = 1;
    c->t_sent = t;
    r->votes_sent++;
    r->res->voted++;
    r->last_vote_sent = t;
    return 0;
}

/* c's vote is due: written at once when lws holds no unsent bytes of c (a
 * joined phone has nothing else queued: its hello went out before the
 * welcome, and only the screen and the presenter use c->out), as the hub
 * writes its acks; else at c's writeable. Asking for a writeable costs two
 * epoll_ctl calls and a loop turn per vote, the generator's own time, which
 * lands in every latency it measures. */
static void phone_vote_now(struct lrun *r, struct conn *c) {
    if (c->voted || c->vote_due || c->st != C_JOINED) return;
    c->vote_due = 1;
    if (!lws_partial_buffered(c->wsi)) write_vote(r, c);
    else lws_callback_on_writable(c->wsi);
}

static void on_state(struct lrun *r, struct conn *c, const char *m, size_t len) {
    const char *q;
    size_t ql;
    long long pos = -1;
    if (load_json_field(m, len, "q", &q, &ql) < 0 || load_json_int(q, ql, "pos", &pos) < 0) return;
    int voting = load_json_str_is(q, ql, "state", "voting") == 1;
    if (c->role == R_PHONE) {
        if (voting && !c->voting_seen) {
            c->voting_seen = 1;
            c->t_state = fv_clock_ms_frac();
            c->q = (int)pos;
            if (c->vote_time_passed) phone_vote_now(r, c);
        }
    } else if (c->role == R_PRESENTER) {
        if (r->phase <= P_NEXT) {
            r->question = (int)pos;
            r->q_pending = load_json_str_is(q, ql, "state", "pending") == 1;
            r->state_seen++;
        }
    }
}

static void on_tally(struct lrun *r, struct conn *c, const char *m, size_t len) {
    long long ver, q, votes;
    if (load_json_int(m, len, "ver", &ver) < 0 || load_json_int(m, len, "q", &q) < 0 ||
        load_json_int(m, len, "votes", &votes) < 0) {
        load_failf(r, "tally without ver/q/votes: %.*s", SHOWN(len), m);
        return;
    }
    if (ver <= c->last_ver) load_failf(r, "tally version went from %lld to %lld on one connection", c->last_ver, ver);
    c->last_ver = ver;
    if (r->phase == P_REJOIN) load_rejoin_tally(r, m, len);
    if (r->phase < P_VOTING || r->phase > P_CLOSING || q != r->question) return;
    if (c->role == R_SCREEN) {
        if (r->sc_n < LOAD_SCREEN_LOG_MAX) {
            r->sc_t[r->sc_n] = fv_clock_ms_frac();
            r->sc_votes[r->sc_n++] = votes;
        }
    } else if (c->role == R_PRESENTER) {
        if (r->pr_n < LOAD_SCREEN_LOG_MAX) {
            r->pr_t[r->pr_n] = fv_clock_ms_frac();
            r->pr_votes[r->pr_n++] = votes;
        }
    } else if (c->role == R_PHONE && c->acked && !c->tallied && votes >= c->need_votes) {
        c->tallied = 1;
        c->t_tally = fv_clock_ms_frac();
        r->res->tallied++;
    }
}

static void on_message(struct lrun *r, struct conn *c, const char *m, size_t len) {
    const char *t;
    size_t tl;
    if (load_json_field(m, len, "t", &t, &tl) < 0 || tl < 3 || t[0] != '"') {
        load_failf(r, "message without a type: %.*s", SHOWN(len), m);
        return;
    }
    t++;
    tl -= 2;
#define IS(s) (tl == sizeof(s) - 1 && !memcmp(t, s, tl))
    int ph = r->phase >= P_REJOIN ? 2 : r->phase >= P_VOTING;
    if (IS("tally")) r->res->rx_tally[ph]++;
    else if (IS("state")) r->res->rx_state[ph]++;
    else r->res->rx_other[ph]++;
    if (IS("tally")) on_tally(r, c, m, len);
    else if (IS("ack")) {
        long long id = -1, q = -1;
        int idx = (int)(c - r->c);
        if (c->role != R_PHONE || !c->voted || c->answered) {
            load_failf(r, "unexpected ack: %.*s", SHOWN(len), m);
            return;
        }
        const char *want = load_phone_yes(idx) ? "true" : "false", *yv;
        size_t yl;
        int yes_ok = load_json_field(m, len, "yes", &yv, &yl) == 0 && yl == strlen(want) && !memcmp(yv, want, yl);
        if (load_json_int(m, len, "id", &id) < 0 || load_json_int(m, len, "q", &q) < 0 || id != idx + 1 ||
            q != c->q || !yes_ok) {
            load_failf(r, "phone %d: the ack does not echo its vote (id %d, q %d, yes %s): %.*s", idx, idx + 1, c->q,
                       want, SHOWN(len), m);
            return;
        }
        c->answered = c->acked = 1;
        c->t_ack = fv_clock_ms_frac();
        r->t_last_ack = c->t_ack;
        c->need_votes = r->votes_sent - r->res->refused;
        if (load_json_int(m, len, "votes", &c->ack_votes) < 0) c->ack_votes = -1;
        r->res->acked++;
    } else if (IS("state")) on_state(r, c, m, len);
    else if (IS("welcome")) {
        if (c->role != R_PHONE || c->st != C_OPEN) return;
        c->st = C_JOINED;
        if (r->phase == P_REJOIN) {
            load_rejoin_welcome(r, c, m, len);
            return;
        }
        r->joined++;
        r->res->joined++;
        c->t_welcome = fv_clock_ms_frac();
        load_rejoin_remember(r, c, m, len);
    } else if (IS("error")) {
        long long id;
        if (c->role == R_PHONE && load_json_int(m, len, "id", &id) == 0 && c->voted && !c->answered) {
            c->answered = 1;
            r->res->refused++;
        }
        if (c->role == R_PRESENTER && (r->phase == P_OPENING || r->phase == P_NEXT))
            load_verdict(r, "the presenter could not %s: %.*s", r->phase == P_NEXT ? "move on" : "open", SHOWN(len), m);
        load_failf(r, "server error: %.*s", SHOWN(len), m);
    } else if (IS("auth_ok")) {
        if (c->role == R_PRESENTER) r->authed = 1;
    } else if (IS("cmd_ok")) {
        if (c->role != R_PRESENTER) return;
        if (load_json_str_is(m, len, "cmd", "open") == 1 && !r->opened) {
            r->opened = 1;
            r->res->open_ms = fv_clock_ms_frac() - r->t_cmd;
        } else if (load_json_str_is(m, len, "cmd", "close") == 1) {
            r->closed = 1;
            r->res->close_ms = fv_clock_ms_frac() - r->t_cmd;
        }
        else if (load_json_str_is(m, len, "cmd", "skip") == 1) r->nexted = 1;
    }
#undef IS
}

/* ---- the lws callback shared by the three protocols ---- */

/* Into p (LOAD_OUT_MAX bytes): the hello of a phone; coming back from the
 * storm it sends what the real phone page keeps (room and token). */
static int phone_hello(const struct lrun *r, const struct conn *c, char *p) {
    if (c->rj == RJ_CONNECTING && r->cfg->rejoin_forget_token)
        return snprintf(p, LOAD_OUT_MAX, "{\"t\":\"hello\",\"v\":1,\"room\":\"%s\"}", r->room);
    if (c->rj == RJ_CONNECTING)
        return snprintf(p, LOAD_OUT_MAX, "{\"t\":\"hello\",\"v\":1,\"room\":\"%s\",\"token\":\"%s\"}", r->room,
                        c->token);
    return snprintf(p, LOAD_OUT_MAX, "{\"t\":\"hello\"}");
}

static void conn_gone(struct lrun *r, struct conn *c) {
    if (c->st == C_CONNECTING) r->inflight--;
    if (c->st != C_GONE && c->st != C_NONE) r->gone++;
    c->st = C_GONE;
    c->wsi = NULL;
    free(c->rx);
    c->rx = NULL;
    c->rxlen = 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    (void)user;
    struct lrun *r = lws_context_user(lws_get_context(wsi));
    struct conn *c = lws_get_opaque_user_data(wsi);
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        if (!c) break;
        conn_gone(r, c);
        if (!load_rejoin_closed(r, c) && r->phase < P_DONE)
            load_failf(r, "connection %d failed: %s", (int)(c - r->c), in ? (const char *)in : "(no reason)");
        break;
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if (!c) break;
        r->inflight--;
        r->established++;
        r->res->connected += c->role == R_PHONE && r->phase == P_CONNECT;
        c->st = C_OPEN;
        if (c->role == R_PHONE) c->hello_due = 1;
        else if (c->role == R_SCREEN) snprintf(c->out, sizeof c->out, "{\"t\":\"hello\"}");
        else snprintf(c->out, sizeof c->out, "{\"t\":\"auth\",\"secret\":\"%s\"}", r->cfg->secret);
        lws_callback_on_writable(wsi);
        break;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (c && r->phase < P_DONE && c->rj != RJ_CLOSING) {
            int code = len >= 2 ? ((const unsigned char *)in)[0] << 8 | ((const unsigned char *)in)[1] : 1005;
            load_failf(r, "the server closed connection %d (%s): %d %.*s", (int)(c - r->c),
                       c->role == R_PHONE ? "phone" : c->role == R_SCREEN ? "screen" : "presenter", code,
                       len > 2 ? (int)(len - 2) : 0, len > 2 ? (const char *)in + 2 : "");
        }
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (!c) break;
        conn_gone(r, c);
        if (load_rejoin_closed(r, c)) break;
        if (r->phase < P_DONE) {
            load_failf(r, "connection %d closed during the run", (int)(c - r->c));
            if (r->phase == P_IDLE && c->role == R_PHONE) r->res->idle_drops++;
        }
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        if (!c) break;
        int final = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
        if (!c->rx && final) {
            on_message(r, c, in, len);
            break;
        }
        if (c->rxlen + len > LOAD_MSG_MAX) {
            load_failf(r, "server message larger than %d bytes", LOAD_MSG_MAX);
            return -1;
        }
        char *nb = realloc(c->rx, c->rxlen + len + 1);
        if (!nb) return -1;
        c->rx = nb;
        memcpy(c->rx + c->rxlen, in, len);
        c->rxlen += len;
        if (final) {
            on_message(r, c, c->rx, c->rxlen);
            free(c->rx);
            c->rx = NULL;
            c->rxlen = 0;
        }
        break;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (!c) break;
        unsigned char buf[LWS_PRE + LOAD_OUT_MAX];
        char *p = (char *)buf + LWS_PRE;
        int n = 0;
        if (c->role != R_PHONE) {
            if (!c->out[0]) break;
            n = snprintf(p, LOAD_OUT_MAX, "%s", c->out);
            c->out[0] = 0;
        } else if (c->rj == RJ_CLOSE_DUE) { /* the wifi blip: a clean close, then back with the token */
            c->rj = RJ_CLOSING;
            lws_close_reason(wsi, LWS_CLOSE_STATUS_GOINGAWAY, (unsigned char *)"wifi blip", 9);
            return -1;
        } else if (c->hello_due) {
            n = phone_hello(r, c, p);
            c->hello_due = 0;
        } else if (c->vote_due) {
            if (write_vote(r, c)) return -1;
            break;
        } else
            break;
        double t = fv_clock_ms_frac();
        if (c->role == R_PRESENTER) {
            r->t_cmd = t;
            r->cmd_written = 1;
        }
        if (lws_write(wsi, (unsigned char *)p, (size_t)n, LWS_WRITE_TEXT) < n) {
            load_failf(r, "write failed on connection %d", (int)(c - r->c));
            return -1;
        }
        if (c->vote_due) lws_callback_on_writable(wsi);
        break;
    }
    default: break;
    }
    return 0;
}

/* ---- SQLite, read-only ---- */

int load_db_count(struct lrun *r, long long *votes, long long *voters, char *err, size_t errlen) {
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int rc = -1;
    if (sqlite3_open_v2(r->cfg->db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", r->cfg->db_path, db ? sqlite3_errmsg(db) : "cannot open");
        goto done;
    }
    sqlite3_busy_timeout(db, 5000);
    /* the newest session is the one being served */
    if (sqlite3_prepare_v2(db,
                           "SELECT (SELECT count(*) FROM votes v JOIN questions q ON q.id = v.question_id "
                           "        WHERE q.session_id = s.id AND q.position = ?1), "
                           "       (SELECT count(*) FROM voters vr WHERE vr.session_id = s.id) "
                           "FROM sessions s ORDER BY s.id DESC LIMIT 1",
                           -1, &s, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", r->cfg->db_path, sqlite3_errmsg(db));
        goto done;
    }
    sqlite3_bind_int(s, 1, r->question);
    if (sqlite3_step(s) != SQLITE_ROW) {
        snprintf(err, errlen, "%s: no session in the database", r->cfg->db_path);
        goto done;
    }
    *votes = sqlite3_column_int64(s, 0);
    *voters = sqlite3_column_int64(s, 1);
    rc = 0;
done:
    sqlite3_finalize(s);
    sqlite3_close(db);
    return rc;
}

/* Votes in SQLite must equal votes acknowledged (fills res->db_votes/db_voters). */
static void check_votes_stored(struct lrun *r) {
    struct load_result *res = r->res;
    char dberr[256];
    if (!r->cfg->db_path || !r->cfg->db_path[0]) return;
    if (load_db_count(r, &res->db_votes, &res->db_voters, dberr, sizeof dberr) < 0)
        load_verdict(r, "database check failed: %s", dberr);
    else if (res->db_votes != res->acked)
        load_verdict(r, "%lld votes in SQLite but %d acknowledged: %s", res->db_votes, res->acked,
                     res->db_votes < res->acked ? "LOST VOTES" : "votes stored without an ack");
}

/* ---- the schedule ---- */

void load_connect_one(struct lrun *r, int i) {
    struct conn *c = &r->c[i];
    static const char *const names[] = {"fragvote-audience", "fragvote-screen", "fragvote-presenter"};
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = r->ctx;
    ci.address = r->cfg->host;
    ci.port = r->cfg->port;
    ci.path = "/";
    ci.host = r->cfg->host;
    ci.origin = r->cfg->host;
    ci.protocol = names[c->role];
    ci.iface = r->src[i % r->cfg->sources];
    if (r->cfg->tls)
        ci.ssl_connection = LCCSCF_USE_SSL | LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK |
                            LCCSCF_ALLOW_EXPIRED | LCCSCF_ALLOW_INSECURE;
    ci.opaque_user_data = c;
    ci.pwsi = &c->wsi;
    ci.retry_and_idle_policy = &r->no_validity;
    c->st = C_CONNECTING;
    r->inflight++;
    if (!lws_client_connect_via_info(&ci) && c->st == C_CONNECTING) {
        load_failf(r, "cannot start connection %d", i);
        conn_gone(r, c);
    }
}

static int cmp_due(const void *a, const void *b, void *arg) {
    const struct conn *c = arg;
    double x = c[*(const int *)a].due, y = c[*(const int *)b].due;
    return x < y ? -1 : x > y;
}

/* Each phone's time in the window (an offset from the open) and the order
 * they come due in: drawn and sorted before the open, not as it is sent
 * (sorting 19,900 took the generator ~8 ms just as the question went out). */
static void plan_votes(struct lrun *r) {
    uint32_t s = r->cfg->seed;
    for (int i = 0; i < r->n; i++) {
        r->c[i].due = (double)(load_rnd_next(&s) % (uint32_t)(r->cfg->window_ms * 1000)) / 1000.0;
        r->order[i] = i;
    }
    qsort_r(r->order, (size_t)r->n, sizeof *r->order, cmp_due, r->c);
}

static void start_voting(struct lrun *r) {
    r->next_vote = 0;
    r->res->gen_cpu_vote_s = load_cpu_self_s();
    r->t_vote_deadline = r->t_open + r->cfg->window_ms + r->cfg->drain_ms;
    r->phase = P_VOTING;
}

static int voting_finished(struct lrun *r) {
    if (r->next_vote < r->n) return 0;
    for (int i = 0; i < r->n; i++) {
        const struct conn *c = &r->c[i];
        if (c->st != C_JOINED) continue;
        if (!c->voted || !c->answered || (c->acked && !c->tallied)) return 0;
    }
    /* the screen and the presenter must have seen every acknowledged vote too */
    return r->sc_n && r->sc_votes[r->sc_n - 1] >= r->res->acked && r->pr_n && r->pr_votes[r->pr_n - 1] >= r->res->acked;
}

static void tick(struct lrun *r) {
    double now = fv_clock_ms_frac();
    switch (r->phase) {
    case P_CONNECT: {
        int total = r->n + 2;
        while (r->started < total && r->inflight < r->cfg->connect_inflight) {
            /* the screen and the presenter go first; in a storm, phones once their page is loaded */
            int i = r->started < 2 ? r->n + r->started : r->cfg->storm ? load_storm_next_ready(r) : r->started - 2;
            if (i < 0) break;
            r->started++;
            load_connect_one(r, i);
        }
        int ready = r->joined == r->n && r->authed && r->screen->st == C_OPEN;
        if (ready || now > r->t_connect_deadline) {
            r->res->connect_s = (now - r->t0) / 1e3;
            if (!ready)
                load_verdict(r, "only %d of %d phones joined within %d s (screen %s, presenter %s)", r->joined, r->n,
                             r->cfg->connect_timeout_s, r->screen->st == C_OPEN ? "ok" : "not connected",
                             r->authed ? "ok" : "not authenticated");
            if (r->cfg->server_pid) load_proc_sample(r->cfg->server_pid, &r->res->srv_joined);
            if (!r->authed || !r->joined) {
                r->phase = P_DONE;
                break;
            }
            if (r->cfg->verbose) fprintf(stderr, "fv_load: %d phones joined in %.1f s\n", r->joined, r->res->connect_s);
            r->t_idle_end = now + r->cfg->idle_s * 1000.0;
            plan_votes(r);
            r->phase = P_IDLE;
        }
        break;
    }
    case P_IDLE:
        if (now < r->t_idle_end) break;
        if (r->cfg->server_pid) load_proc_sample(r->cfg->server_pid, &r->res->srv_idle);
        r->t_close_deadline = now + LOAD_CLOSE_WAIT_MS;
        if (r->q_pending) {
            r->res->question = r->question;
            send_later(r, r->presenter, "{\"t\":\"cmd\",\"cmd\":\"open\"}");
            r->phase = P_OPENING;
        } else { /* an earlier run used this question: skip to the next pending one */
            r->state_seen = 0;
            send_later(r, r->presenter, "{\"t\":\"cmd\",\"cmd\":\"skip\"}");
            r->phase = P_NEXT;
        }
        break;
    case P_NEXT:
        if (r->nexted && r->state_seen && r->q_pending) {
            r->res->question = r->question;
            send_later(r, r->presenter, "{\"t\":\"cmd\",\"cmd\":\"open\"}");
            r->t_close_deadline = now + LOAD_CLOSE_WAIT_MS;
            r->phase = P_OPENING;
        } else if (r->res->verdict[0] || now > r->t_close_deadline) {
            load_verdict(r, "the presenter could not move on to a pending question within %d ms", LOAD_CLOSE_WAIT_MS);
            r->phase = P_DONE;
        }
        break;
    case P_OPENING:
        /* The audience's window starts when the presenter opens, not when
         * the server confirms it: a phone votes once it has both seen the
         * question open and reached its random time. */
        if (r->cmd_written) {
            r->t_open = r->t_cmd;
            start_voting(r);
        }
        else if (r->res->verdict[0] || now > r->t_close_deadline) {
            load_verdict(r, "the presenter's open was not confirmed within %d ms", LOAD_CLOSE_WAIT_MS);
            r->phase = P_DONE;
        }
        break;
    case P_VOTING:
        while (r->next_vote < r->n && r->t_open + r->c[r->order[r->next_vote]].due <= now) {
            struct conn *c = &r->c[r->order[r->next_vote++]];
            c->vote_time_passed = 1;
            if (c->voting_seen) phone_vote_now(r, c); /* else: as soon as its state says voting */
        }
        if (voting_finished(r) || now > r->t_vote_deadline) {
            if (now > r->t_vote_deadline) load_verdict(r, "votes, acks or tallies still missing %d ms after the window",
                                                       r->cfg->drain_ms);
            r->res->vote_s = (r->t_last_ack - r->t_open) / 1e3;
            r->res->gen_cpu_vote_s = load_cpu_self_s() - r->res->gen_cpu_vote_s;
            send_later(r, r->presenter, "{\"t\":\"cmd\",\"cmd\":\"close\"}");
            r->t_close_deadline = now + LOAD_CLOSE_WAIT_MS;
            r->phase = P_CLOSING;
        }
        break;
    case P_CLOSING:
        if (r->closed || now > r->t_close_deadline) {
            if (!r->closed) load_verdict(r, "the presenter's close was not confirmed within %d ms", LOAD_CLOSE_WAIT_MS);
            if (r->cfg->server_pid) load_proc_sample(r->cfg->server_pid, &r->res->srv_end);
            check_votes_stored(r);
            r->phase = P_DONE;
            /* the storm only after a clean vote: its checks compare with it */
            if (r->cfg->rejoin && !r->res->verdict[0]) load_rejoin_start(r);
        }
        break;
    case P_REJOIN: load_rejoin_tick(r, now); break;
    case P_DONE: break;
    }
}

static void *ticker_main(void *arg) {
    struct lrun *r = arg;
    struct timespec ts = {0, LOAD_TICK_MS * 1000000L};
    while (!atomic_load(&r->ticker_stop)) {
        nanosleep(&ts, NULL);
        lws_cancel_service(r->ctx);
    }
    return NULL;
}

/* ---- libev through its C ABI, loaded at run time (no headers or link flags) ---- */

#define LOAD_EVFLAG_AUTO 0u
#define LOAD_EVRUN_ONCE 2
static int ev_open(struct lrun *r) {
    r->ev_lib = dlopen("libev.so.4", RTLD_NOW | RTLD_GLOBAL);
    if (!r->ev_lib) return -1;
    void *(*loop_new)(unsigned) = (void *(*)(unsigned))dlsym(r->ev_lib, "ev_loop_new");
    if (!loop_new || !dlsym(r->ev_lib, "ev_run") || !dlsym(r->ev_lib, "ev_loop_destroy") ||
        !(r->ev_loop = loop_new(LOAD_EVFLAG_AUTO))) {
        r->ev_loop = NULL;
        return -1;
    }
    return 0;
}

static void ev_close(struct lrun *r) {
    if (r->ev_loop) ((void (*)(void *))dlsym(r->ev_lib, "ev_loop_destroy"))(r->ev_loop);
    r->ev_loop = NULL;
}

/* ---- after the run ---- */

/* One line per phone, times in ms after the presenter's open (-1: never). */
static int write_csv(struct lrun *r, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "phone,planned,seen,sent,ack,tally,rejoin\n");
    for (int i = 0; i < r->n; i++) {
        const struct conn *c = &r->c[i];
#define T(cond, t) ((cond) ? (t) - r->t_open : -1.0)
        double rejoin = c->rj == RJ_BACK ? c->t_rj_welcome - (r->rj.t_blip + c->rj_at) : -1.0;
        fprintf(f, "%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", i, r->opened || r->phase >= P_VOTING ? c->due : -1.0,
                T(c->voting_seen, c->t_state), T(c->voted, c->t_sent), T(c->acked, c->t_ack), T(c->tallied, c->t_tally),
                rejoin);
#undef T
    }
    return fclose(f);
}

/* Per acked vote: sent -> the first tally on that log that counts it. The
 * ack's count says exactly which that is (exact); without it, or with
 * exact 0, the first that counts every vote sent before the ack arrived
 * (an upper bound: it waits for the commits of votes still in flight). */
static void screen_lat(struct lrun *r, const double *t, const long long *votes, int n, int exact, struct load_lat *out) {
    double *v = malloc(sizeof(double) * (size_t)(r->n + 1));
    size_t nv = 0;
    for (int i = 0; v && i < r->n; i++) {
        const struct conn *c = &r->c[i];
        if (!c->acked) continue;
        long long need = exact && c->ack_votes >= 0 ? c->ack_votes : c->need_votes;
        int k = load_first_tally(t, votes, n, c->t_sent, need);
        if (k < n) v[nv++] = t[k] - c->t_sent;
    }
    load_lat_summarize(v, nv, out);
    free(v);
}

static void summarize(struct lrun *r) {
    struct load_result *res = r->res;
    size_t sz = sizeof(double) * (size_t)(r->n + 1);
    double *ack = malloc(sz), *tal = malloc(sz), *lag = malloc(sz), *seen = malloc(sz);
    size_t na = 0, nt = 0, nl = 0, ns = 0;
    for (int i = 0; ack && tal && lag && seen && i < r->n; i++) {
        const struct conn *c = &r->c[i];
        if (c->acked) ack[na++] = c->t_ack - c->t_sent;
        if (c->tallied) tal[nt++] = c->t_tally - c->t_sent;
        if (c->voting_seen) seen[ns++] = c->t_state - r->t_open;
        if (c->voted) {
            double planned = r->t_open + c->due;
            lag[nl++] = c->t_sent - (c->t_state > planned ? c->t_state : planned);
        }
    }
    load_lat_summarize(ack, na, &res->ack);
    load_lat_summarize(tal, nt, &res->tally);
    load_lat_summarize(lag, nl, &res->send_lag);
    load_lat_summarize(seen, ns, &res->open_seen);
    free(seen);
    free(ack);
    free(tal);
    free(lag);
    res->screen_exact = 1;
    for (int i = 0; i < r->n; i++)
        if (r->c[i].acked && r->c[i].ack_votes < 0) res->screen_exact = 0;
    screen_lat(r, r->sc_t, r->sc_votes, r->sc_n, 1, &res->screen);
    screen_lat(r, r->pr_t, r->pr_votes, r->pr_n, 1, &res->presenter);
    screen_lat(r, r->sc_t, r->sc_votes, r->sc_n, 0, &res->screen_sent);
    res->screen_last_ms = -1;
    for (int i = 0; i < r->sc_n; i++)
        if (res->acked && r->sc_votes[i] >= res->acked) {
            res->screen_last_ms = r->sc_t[i] - r->last_vote_sent;
            break;
        }
}

int load_run(const struct load_config *cfg, struct load_result *res, char *err, size_t errlen) {
    memset(res, 0, sizeof *res);
    res->phones = cfg->phones;
    res->db_votes = res->db_voters = -1;
    res->screen_last_ms = res->open_ms = res->close_ms = -1;
    res->rejoin.total_s = res->rejoin.online_ms = -1;
    res->rejoin.db_votes = res->rejoin.db_voters = -1;
    res->rejoin.online_min = res->rejoin.online_max = res->rejoin.online_end = -1;
    if (!load_is_loopback4(cfg->host)) {
        snprintf(err, errlen, "refusing %s: the generator talks to 127.0.0.0/8 only", cfg->host ? cfg->host : "(none)");
        return -1;
    }
    struct lrun *r = calloc(1, sizeof *r);
    int rc = -1;
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->cfg = cfg;
    r->res = res;
    r->n = cfg->phones;
    r->c = calloc((size_t)r->n + 2, sizeof *r->c);
    r->order = calloc((size_t)r->n + 1, sizeof *r->order);
    r->sc_t = calloc(LOAD_SCREEN_LOG_MAX, sizeof *r->sc_t);
    r->sc_votes = calloc(LOAD_SCREEN_LOG_MAX, sizeof *r->sc_votes);
    r->pr_t = calloc(LOAD_SCREEN_LOG_MAX, sizeof *r->pr_t);
    r->pr_votes = calloc(LOAD_SCREEN_LOG_MAX, sizeof *r->pr_votes);
    if (!r->c || !r->order || !r->sc_t || !r->sc_votes || !r->pr_t || !r->pr_votes) {
        snprintf(err, errlen, "out of memory for %d phones", r->n);
        goto out;
    }
    for (int i = 0; i < r->n; i++) r->c[i].role = R_PHONE;
    r->screen = &r->c[r->n];
    r->screen->role = R_SCREEN;
    r->presenter = &r->c[r->n + 1];
    r->presenter->role = R_PRESENTER;
    for (int i = 0; i < cfg->sources; i++) snprintf(r->src[i], sizeof r->src[i], "127.0.0.%d", i + 2);

    /* Every phone is one socket: the soft open-files limit must allow them
     * all. The hard limit, but at most LOAD_NOFILE_MAX: lws sizes its
     * descriptor table from the soft limit and reads all of it at every
     * close (as the hub does, hub_fd_nofile_target). */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rlim_t want = rl.rlim_max < LOAD_NOFILE_MAX ? rl.rlim_max : LOAD_NOFILE_MAX;
        if (rl.rlim_cur != want) {
            rl.rlim_cur = want;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (rlim_t)r->n + 64 > rl.rlim_cur) {
        snprintf(err, errlen, "%d phones need %d open files; the limit is %llu", r->n, r->n + 64,
                 (unsigned long long)rl.rlim_cur);
        goto out;
    }

    lws_set_log_level(cfg->verbose > 1 ? LLL_ERR | LLL_WARN | LLL_NOTICE : LLL_ERR, NULL);
    static const char *const names[] = {"fragvote-audience", "fragvote-screen", "fragvote-presenter"};
    for (int i = 0; i < 3; i++)
        r->protocols[i] = (struct lws_protocols){names[i], callback, 0, LOAD_RX_BUFFER, (unsigned)i, NULL, 0};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = r->protocols;
    info.user = r;
    info.timeout_secs = 30;
    /* Without an explicit all-zero policy lws re-sorts a per-connection
     * validity timer into one list on every received message: O(phones)
     * per message, 16 % of the generator's CPU at 10,000 phones. The
     * server pings; lws answers pings without a timer of ours. */
    info.retry_and_idle_policy = &r->no_validity;
    if (cfg->tls) info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    if (cfg->use_libev && ev_open(r) == 0) {
        info.options |= LWS_SERVER_OPTION_LIBEV;
        r->foreign[0] = r->ev_loop;
        info.foreign_loops = r->foreign;
        r->ctx = lws_create_context(&info);
        if (!r->ctx) {
            ev_close(r);
            info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBEV;
            info.foreign_loops = NULL;
        }
    }
    if (!r->ctx) r->ctx = lws_create_context(&info);
    if (!r->ctx) {
        snprintf(err, errlen, "cannot create the libwebsockets client context");
        goto out;
    }
    res->event_loop_libev = r->ev_loop != NULL;
    if (pthread_create(&r->ticker, NULL, ticker_main, r)) {
        snprintf(err, errlen, "cannot start the ticker thread");
        goto out;
    }

    if (cfg->server_pid) {
        load_proc_sample(cfg->server_pid, &res->srv_base);
        if (!res->srv_base.ok) {
            snprintf(err, errlen, "server pid %d: no such process", cfg->server_pid);
            atomic_store(&r->ticker_stop, 1);
            pthread_join(r->ticker, NULL);
            goto out;
        }
    }
    r->t0 = fv_clock_ms_frac();
    r->t_connect_deadline = r->t0 + cfg->connect_timeout_s * 1000.0;
    r->phase = P_CONNECT;
    if (cfg->storm && load_storm_start(r, err, errlen)) {
        atomic_store(&r->ticker_stop, 1);
        pthread_join(r->ticker, NULL);
        goto out;
    }
    int (*ev_run)(void *, int) = r->ev_loop ? (int (*)(void *, int))dlsym(r->ev_lib, "ev_run") : NULL;
    while (r->phase != P_DONE) {
        if (ev_run) ev_run(r->ev_loop, LOAD_EVRUN_ONCE);
        else if (lws_service(r->ctx, 0) < 0) {
            load_verdict(r, "the lws service loop failed");
            break;
        }
        tick(r);
    }
    if (cfg->server_pid && !res->srv_end.ok) load_proc_sample(cfg->server_pid, &res->srv_end);
    load_storm_finish(r);
    atomic_store(&r->ticker_stop, 1);
    pthread_join(r->ticker, NULL);
    summarize(r);
    if (cfg->csv_path && write_csv(r, cfg->csv_path) < 0) load_failf(r, "cannot write %s", cfg->csv_path);
    {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        res->gen_cpu_s = load_cpu_self_s();
        res->gen_rss_kb = ru.ru_maxrss;
    }
    lws_context_destroy(r->ctx);
    r->ctx = NULL;

    if (res->db_votes < 0) check_votes_stored(r); /* the run ended before the vote phase did */
    if (res->joined < res->phones) load_verdict(r, "%d of %d phones joined", res->joined, res->phones);
    if (res->acked < res->joined) load_verdict(r, "%d of %d joined phones got their vote acknowledged", res->acked, res->joined);
    if (res->tallied < res->acked) load_verdict(r, "%d of %d acknowledged votes were seen in a tally", res->tallied, res->acked);
    if (res->screen_last_ms < 0 && res->acked) load_verdict(r, "the screen never showed all %d votes", res->acked);
    load_rejoin_finish(r);
    if (res->errors) load_verdict(r, "%d errors; first: %s", res->errors, res->first_error);
    rc = res->verdict[0] ? 1 : 0;
out:
    load_storm_finish(r); /* its thread reads r->c */
    if (r->ctx) lws_context_destroy(r->ctx);
    ev_close(r);
    if (r->c)
        for (int i = 0; i < r->n + 2; i++) free(r->c[i].rx);
    free(r->c);
    free(r->order);
    free(r->rj.order);
    free(r->rj.ready);
    free(r->sc_t);
    free(r->sc_votes);
    free(r->pr_t);
    free(r->pr_votes);
    free(r);
    return rc;
}
