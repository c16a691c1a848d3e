/* The reconnect storm (--rejoin): the venue's wifi blips. After the vote
 * (every vote acked, SQLite checked) every phone closes its websocket at
 * once and comes back as the phone page does: a new websocket from the same
 * source address, under the same --inflight cap on handshakes, and a hello
 * with the room and the token of its first welcome. --rejoin-spread-ms
 * spreads the reconnects uniformly over a window, as the page's jittered
 * backoff does; 0 (default) is the worst case, all at once.
 *
 * Checked: each new welcome carries the same token and votes[q] equal to
 * the vote the phone cast; SQLite has no new voter afterwards; a tally
 * counts all N phones online again. Measured: per phone, its reconnect time
 * (the mass close, plus its spread offset) -> its new welcome; the mass
 * close -> the last welcome; the server's CPU and RSS over the phase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_internal.h"

#define LOAD_ONLINE_WAIT_MS 30000    /* all back: a tally must count them online within this */
#define SHOWN(len) ((int)((len) < 160 ? (len) : 160))

static int cmp_rj_at(const void *a, const void *b, void *arg) {
    const struct conn *c = arg;
    double x = c[*(const int *)a].rj_at, y = c[*(const int *)b].rj_at;
    return x < y ? -1 : x > y;
}

void load_rejoin_remember(struct lrun *r, struct conn *c, const char *m, size_t len) {
    if (!r->cfg->rejoin) return;
    if (load_json_str_copy(m, len, "token", c->token, sizeof c->token) < 0 || !c->token[0])
        load_failf(r, "phone %d: a welcome without a token: %.*s", (int)(c - r->c), SHOWN(len), m);
    if (!r->room[0] && load_json_str_copy(m, len, "room", r->room, sizeof r->room) < 0) r->room[0] = 0;
}

/* Who is in the storm (the phones joined now), when each comes back, in that order. */
static void plan(struct lrun *r) {
    struct load_rj_run *rj = &r->rj;
    uint32_t s = r->cfg->seed ^ 0x5bd1e995u; /* not the vote schedule's sequence */
    int spread_us = r->cfg->rejoin_spread_ms * 1000;
    rj->total = 0;
    for (int i = 0; i < r->n; i++) {
        struct conn *c = &r->c[i];
        if (c->st != C_JOINED || !c->wsi) continue;
        c->rj_at = spread_us ? (double)(load_rnd_next(&s) % (uint32_t)spread_us) / 1000.0 : 0.0;
        rj->order[rj->total++] = i;
    }
    qsort_r(rj->order, (size_t)rj->total, sizeof *rj->order, cmp_rj_at, r->c);
}

int load_rejoin_start(struct lrun *r) {
    struct load_rj_run *rj = &r->rj;
    struct load_rejoin_result *out = &r->res->rejoin;
    rj->order = malloc(sizeof *rj->order * (size_t)r->n);
    rj->ready = malloc(sizeof *rj->ready * (size_t)r->n);
    if (!rj->order || !rj->ready) {
        load_verdict(r, "out of memory for the reconnect storm of %d phones", r->n);
        r->phase = P_DONE;
        return -1;
    }
    plan(r);
    if (r->cfg->server_pid) load_proc_sample(r->cfg->server_pid, &out->srv_start);
    rj->gen_cpu0 = load_cpu_self_s();
    rj->errors0 = r->res->errors;
    rj->t_blip = fv_clock_ms_frac();
    rj->t_deadline = rj->t_blip + r->cfg->rejoin_spread_ms + r->cfg->connect_timeout_s * 1000.0;
    for (int k = 0; k < rj->total; k++) {
        struct conn *c = &r->c[rj->order[k]];
        c->rj = RJ_CLOSE_DUE; /* closed at its next writeable (lws closes from inside its callback) */
        lws_callback_on_writable(c->wsi);
    }
    out->ran = 1;
    out->phones = rj->total;
    if (r->cfg->verbose) fprintf(stderr, "fv_load: rejoin: closing %d phones at once\n", rj->total);
    r->phase = P_REJOIN;
    return 0;
}

static void make_ready(struct lrun *r, struct conn *c) {
    c->rj = RJ_READY;
    r->rj.ready[r->rj.tail++] = (int)(c - r->c);
}

static void reconnect(struct lrun *r, int i) {
    struct conn *c = &r->c[i];
    c->rj = RJ_CONNECTING;
    c->last_ver = 0; /* a new connection: tally versions are checked per connection */
    load_connect_one(r, i);
    if (c->rj == RJ_CONNECTING && c->st == C_GONE) { /* failed at once, no callback */
        c->rj = RJ_FAILED;
        r->rj.failed++;
    }
}

static void all_back(struct lrun *r, double now) {
    struct load_rj_run *rj = &r->rj;
    struct load_rejoin_result *out = &r->res->rejoin;
    double last = 0;
    for (int k = 0; k < rj->total; k++) {
        const struct conn *c = &r->c[rj->order[k]];
        if (c->rj == RJ_BACK && c->t_rj_welcome > last) last = c->t_rj_welcome;
    }
    if (rj->failed == 0) out->total_s = (last - rj->t_blip) / 1e3;
    if (r->cfg->server_pid) load_proc_sample(r->cfg->server_pid, &out->srv_end);
    rj->t_all_back = now;
    rj->t_online_deadline = now + LOAD_ONLINE_WAIT_MS;
    if (r->cfg->verbose)
        fprintf(stderr, "fv_load: rejoin: %d of %d back in %.2f s\n", rj->back, rj->total, (last - rj->t_blip) / 1e3);
}

static void end_storm(struct lrun *r) {
    r->res->rejoin.gen_cpu_s = load_cpu_self_s() - r->rj.gen_cpu0;
    r->res->rejoin.errors = r->res->errors - r->rj.errors0;
    r->phase = P_DONE;
}

void load_rejoin_tick(struct lrun *r, double now) {
    struct load_rj_run *rj = &r->rj;
    /* whose time has come: the closed ones queue now, the others when their socket is gone */
    while (rj->next < rj->total && rj->t_blip + r->c[rj->order[rj->next]].rj_at <= now) {
        struct conn *c = &r->c[rj->order[rj->next++]];
        if (c->rj == RJ_CLOSED) make_ready(r, c);
    }
    while (rj->head < rj->tail && r->inflight < r->cfg->connect_inflight) reconnect(r, rj->ready[rj->head++]);
    if (!rj->t_all_back && rj->back + rj->failed == rj->total) all_back(r, now);
    if (rj->t_all_back && (rj->online_ok || rj->failed)) { /* with a phone missing, N is never online */
        end_storm(r);
    } else if (!rj->t_all_back && now > rj->t_deadline) {
        load_verdict(r, "only %d of %d phones were welcomed again within %d s of the mass close", rj->back, rj->total,
                     r->cfg->rejoin_spread_ms / 1000 + r->cfg->connect_timeout_s);
        end_storm(r);
    } else if (rj->t_all_back && now > rj->t_online_deadline) {
        load_verdict(r, "after the reconnect storm no tally counted %d phones online within %d ms (last: %d)", r->n,
                     LOAD_ONLINE_WAIT_MS, r->res->rejoin.online_end);
        end_storm(r);
    }
}

int load_rejoin_closed(struct lrun *r, struct conn *c) {
    if (r->phase != P_REJOIN || c->role != R_PHONE) return 0;
    if (c->rj == RJ_CLOSE_DUE || c->rj == RJ_CLOSING) {
        c->t_rj_closed = fv_clock_ms_frac();
        if (c->t_rj_closed >= r->rj.t_blip + c->rj_at) make_ready(r, c);
        else c->rj = RJ_CLOSED;
        return 1;
    }
    if (c->rj == RJ_CONNECTING) { /* its new connection failed */
        c->rj = RJ_FAILED;
        r->rj.failed++;
    }
    return 0; /* the caller counts it as an error */
}

void load_rejoin_welcome(struct lrun *r, struct conn *c, const char *m, size_t len) {
    struct load_rejoin_result *out = &r->res->rejoin;
    int idx = (int)(c - r->c);
    if (c->rj != RJ_CONNECTING) {
        load_failf(r, "phone %d: a welcome it did not ask for during the storm", idx);
        return;
    }
    c->rj = RJ_BACK;
    c->t_rj_welcome = fv_clock_ms_frac();
    r->rj.back++;
    out->back++;
    char tok[LOAD_TOKEN_MAX] = "";
    if (load_json_str_copy(m, len, "token", tok, sizeof tok) < 0 || strcmp(tok, c->token)) {
        out->token_changed++;
        load_failf(r, "phone %d came back as someone else: token %.40s, was %s", idx, tok, c->token);
    }
    long long v = -2;
    int want = c->acked ? load_phone_yes(idx) : -1;
    if (load_json_array_int(m, len, "votes", r->question, &v) < 0 || v != want) {
        out->votes_wrong++;
        load_failf(r, "phone %d: its new welcome says votes[%d] = %lld, it voted %d: %.*s", idx, r->question, v, want,
                   SHOWN(len), m);
    }
}

void load_rejoin_tally(struct lrun *r, const char *m, size_t len) {
    struct load_rj_run *rj = &r->rj;
    struct load_rejoin_result *out = &r->res->rejoin;
    long long online;
    if (load_json_int(m, len, "online", &online) < 0) {
        load_failf(r, "tally without online: %.*s", SHOWN(len), m);
        return;
    }
    if (out->online_min < 0 || online < out->online_min) out->online_min = (int)online;
    if (online > out->online_max) out->online_max = (int)online;
    out->online_end = (int)online;
    /* Counted only once every phone is back. Any connection's tally: the
     * screen's may have been built just before the last join and read just
     * after its welcome, and then nothing changes any more; the last phone
     * gets one built after its own join, on its own socket after its welcome. */
    if (!rj->online_ok && rj->back + rj->failed == rj->total && online == r->n) {
        rj->online_ok = 1;
        out->online_ms = fv_clock_ms_frac() - rj->t_blip;
    }
}

static void summarize(struct lrun *r) {
    struct load_rj_run *rj = &r->rj;
    double *v = malloc(sizeof *v * (size_t)(rj->total + 1)), *w = malloc(sizeof *w * (size_t)(rj->total + 1));
    size_t n = 0, nw = 0;
    for (int k = 0; v && w && k < rj->total; k++) {
        const struct conn *c = &r->c[rj->order[k]];
        if (c->rj == RJ_BACK) v[n++] = c->t_rj_welcome - (rj->t_blip + c->rj_at);
        if (c->t_rj_closed > 0) w[nw++] = c->t_rj_closed - rj->t_blip;
    }
    load_lat_summarize(v, n, &r->res->rejoin.lat);
    load_lat_summarize(w, nw, &r->res->rejoin.closed);
    free(v);
    free(w);
}

/* SQLite after the storm: nobody new, no vote changed. */
static void check_store(struct lrun *r) {
    struct load_result *res = r->res;
    struct load_rejoin_result *out = &res->rejoin;
    char err[256];
    if (!r->cfg->db_path || !r->cfg->db_path[0]) return;
    if (load_db_count(r, &out->db_votes, &out->db_voters, err, sizeof err) < 0)
        load_verdict(r, "database check after the reconnect storm failed: %s", err);
    else if (out->db_voters != res->db_voters)
        load_verdict(r, "%lld voters in SQLite after the reconnect storm, %lld before: phones got new identities",
                     out->db_voters, res->db_voters);
    else if (out->db_votes != res->db_votes)
        load_verdict(r, "%lld votes in SQLite after the reconnect storm, %lld before", out->db_votes, res->db_votes);
}

void load_rejoin_finish(struct lrun *r) {
    struct load_rejoin_result *out = &r->res->rejoin;
    if (out->ran) {
        summarize(r);
        if (out->token_changed)
            load_verdict(r, "%d phones came back with another token (a new identity)", out->token_changed);
        if (out->votes_wrong) load_verdict(r, "%d phones came back without the vote they cast", out->votes_wrong);
        if (out->back < out->phones)
            load_verdict(r, "%d of %d phones came back after the mass close", out->back, out->phones);
        check_store(r);
    }
    free(r->rj.order);
    free(r->rj.ready);
    r->rj.order = r->rj.ready = NULL;
}
