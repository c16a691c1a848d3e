/* The generator's engine state, shared by load_gen.c (connect, vote, the lws
 * callback) and load_rejoin.c (the reconnect storm, --rejoin). Not part of
 * the load.h API: only these two files include it. */
#ifndef FRAGVOTE_LOAD_INTERNAL_H
#define FRAGVOTE_LOAD_INTERNAL_H

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>

#include "fv_clock.h"
#include "load.h"

#define LOAD_OUT_MAX 512             /* one outgoing message */
#define LOAD_TOKEN_MAX 64            /* a voter token from welcome (the hub's are 32 hex digits) */
#define LOAD_ROOM_MAX 16             /* the room code from welcome */
#define LOAD_NOFILE_MAX 65536        /* the soft open-files limit fv_load sets itself, at most (see hub.h HUB_NOFILE_MAX) */

enum load_role { R_PHONE, R_SCREEN, R_PRESENTER };
enum load_cstate { C_NONE, C_CONNECTING, C_OPEN, C_JOINED, C_GONE };
enum load_phase { P_CONNECT, P_IDLE, P_NEXT, P_OPENING, P_VOTING, P_CLOSING, P_REJOIN, P_DONE };
/* A phone's way through the reconnect storm. */
enum load_rj {
    RJ_NONE,                         /* not in it (not joined at the mass close) */
    RJ_CLOSE_DUE,                    /* asked to close at its next writeable */
    RJ_CLOSING,                      /* close frame sent, waiting for the socket to go */
    RJ_CLOSED,                       /* closed, its reconnect time not reached yet */
    RJ_READY,                        /* closed and due: queued for a handshake slot */
    RJ_CONNECTING,                   /* new connection started; hello carries the token */
    RJ_BACK,                         /* welcomed again */
    RJ_FAILED                        /* the new connection failed or closed */
};

struct conn {
    struct lws *wsi;
    unsigned char role, st, rj;
    unsigned char hello_due, vote_due, voted, answered, acked, tallied, voting_seen, vote_time_passed;
    int q;
    double due;                      /* ms after the open */
    double t_state, t_sent, t_ack, t_tally; /* monotonic ms: saw voting, vote written, ack, tally */
    double rj_at;                    /* planned reconnect, ms after the mass close */
    double t_rj_closed, t_rj_welcome; /* monotonic ms: old socket gone, welcomed again */
    double t_http0, t_page, t_welcome; /* --storm: page load begun, page and resources in; first welcome */
    long long need_votes;            /* a tally with votes >= this certainly includes the vote: every vote
                                      * sent before its ack arrived (the phone's count, and the old screen measure) */
    long long ack_votes;             /* the ack's "votes": the count once this vote was stored (-1: not said) */
    long long last_ver;
    char *rx;                        /* reassembly of a fragmented message */
    size_t rxlen;
    char token[LOAD_TOKEN_MAX];      /* phones: the token of the first welcome */
    char out[LOAD_OUT_MAX];          /* screen/presenter: one message waiting to be sent */
};

/* The reconnect storm's bookkeeping (load_rejoin.c). */
struct load_rj_run {
    double t_blip;                   /* the mass close */
    double t_deadline, t_all_back;   /* all back by t_deadline; when they were (0: not yet) */
    double t_online_deadline;        /* after all are back: a tally with online == N by then */
    int *order;                      /* phones by planned reconnect time */
    int next;                        /* the first in order whose time has not come */
    int *ready;                      /* FIFO of phones closed and due */
    int head, tail;
    int total, back, failed;
    int online_ok;                   /* the screen saw online == N after all were back */
    double gen_cpu0;                 /* the generator's CPU time at the mass close */
    int errors0;                     /* res->errors at the mass close */
};

struct lrun {
    const struct load_config *cfg;
    struct load_result *res;
    struct lws_context *ctx;
    struct lws_protocols protocols[4];
    lws_retry_bo_t no_validity;      /* all zero: no per-connection validity timer (see load_run) */
    void *ev_lib, *ev_loop, *foreign[1];
    pthread_t ticker;
    atomic_int ticker_stop;

    struct conn *c;                  /* phones 0..n-1, then the screen, then the presenter */
    int n;
    struct conn *screen, *presenter;
    char src[LOAD_SOURCES_MAX][20];
    int started, inflight, established, joined, gone;

    enum load_phase phase;
    double t0, t_connect_deadline, t_idle_end, t_open, t_vote_deadline, t_close_deadline, t_last_ack;
    double t_cmd;                    /* when the last presenter command was written */
    int cmd_written;                 /* the presenter's last command left the generator */
    int authed, opened, closed, question, nexted;
    int q_pending;                   /* the presenter's last state: current question is pending */
    long long state_seen;            /* states the presenter received */
    int *order;                      /* phone indexes sorted by vote time */
    int next_vote;
    long long votes_sent;
    double last_vote_sent;
    double *sc_t;                    /* screen tallies: time and vote count */
    long long *sc_votes;
    int sc_n;
    double *pr_t;                    /* the presenter's tallies, the same */
    long long *pr_votes;
    int pr_n;
    char room[LOAD_ROOM_MAX];        /* from the first welcome */
    struct load_rj_run rj;
    struct load_storm *storm;        /* --storm: the HTTP thread (load_storm.c) */
};

/* Phone i votes yes (1) or no (0): two yes for one no. */
static inline int load_phone_yes(int i) { return i % 3 != 0; }

/* load_gen.c */
double load_cpu_self_s(void);
uint32_t load_rnd_next(uint32_t *s);
/* Counts an error; the first one's text is kept for the report. */
void load_failf(struct lrun *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets why the run failed, unless a reason is set already. */
void load_verdict(struct lrun *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts connection i (same source address as its first time); counts it in flight. */
void load_connect_one(struct lrun *r, int i);
/* Votes and voters of the newest session in the server's SQLite file (read-only). */
int load_db_count(struct lrun *r, long long *votes, long long *voters, char *err, size_t errlen);

/* load_storm.c: --storm, every phone loads the page over HTTP before its websocket */
/* Starts the HTTP thread (r->t0 set). 0, or -1 with err. */
int load_storm_start(struct lrun *r, char *err, size_t errlen);
/* The next phone whose page is loaded, or -1 (lws thread). */
int load_storm_next_ready(struct lrun *r);
/* Stops and joins the thread, fills res->storm, frees it; nothing without a storm. */
void load_storm_finish(struct lrun *r);

/* load_rejoin.c: --rejoin, every phone closes at once and comes back with its token */
/* The first welcome: keep the token (and the room) to come back with. */
void load_rejoin_remember(struct lrun *r, struct conn *c, const char *m, size_t len);
/* The mass close; the phase becomes P_REJOIN. 0, or -1 (out of memory: verdict set, phase P_DONE). */
int load_rejoin_start(struct lrun *r);
/* Every loop turn in P_REJOIN: reconnects the due, ends the phase when done or late. */
void load_rejoin_tick(struct lrun *r, double now);
/* A phone's socket went away. 1 if that was the storm's own close (not an error). */
int load_rejoin_closed(struct lrun *r, struct conn *c);
/* The new welcome: same token, same vote? */
void load_rejoin_welcome(struct lrun *r, struct conn *c, const char *m, size_t len);
/* A tally on any connection during the storm: online. */
void load_rejoin_tally(struct lrun *r, const char *m, size_t len);
/* After the loop: per-phone latencies, SQLite's voters again, the verdict. Frees the storm's arrays. */
void load_rejoin_finish(struct lrun *r);

#endif
