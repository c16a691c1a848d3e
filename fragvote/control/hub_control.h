/* What a face (the console, a script, a remote presenter) and a hub say to
 * each other: the commands it posts (hub_post), the status it reads back
 * (hub_snapshot), and the limits it checks or shows. Types only: the console
 * includes this, not hub.h, so it builds without linking the hub (fraghub,
 * libwebsockets). hub.h includes it. */
#ifndef FRAGVOTE_HUB_CONTROL_H
#define FRAGVOTE_HUB_CONTROL_H

#include <math.h>
#include <stdint.h>

#include "fragprobe.h"
#include "quiz.h"

#define HUB_PROBER_MSG_MAX 65536       /* bytes per message from an authed presenter connection (the laptop's
                                        * prober hello carries its deck); larger: closed (1009). `present`
                                        * refuses to send a larger hello (one constant for both ends) */
#define HUB_VOTER_RATE 2               /* new voters (a token's first vote) per second per source address
                                        * (IPv6: per /64; token bucket; the laptop itself is not capped) ... */
#define HUB_VOTER_BURST 1000           /* ... with this burst: a NATed venue's 1,000 phones voting at once get
                                        * in; a script from 8 addresses needs hours for ROOM_VOTERS_MAX
                                        * (docs/SECURITY.md); beyond it: error busy, the vote not stored */
#define HUB_VOTER_RESERVE_DIV 10       /* the room's last tenth of voters (ROOM_VOTERS_MAX, or hub_config
                                        * voters_max) is kept for networks new to it ... */
#define HUB_VOTER_RESERVE_PER_NET 5    /* ... each of which may take this many of it (issue 36, item 5: many
                                        * /48s minting cannot fill the room to its last place) */
#define HUB_MINT_WARN 1000             /* the console flags minting when tokens issued exceed twice the
                                        * phones by this many, or any new voter was refused */
#define HUB_COUNTDOWN_MAX_S 3600       /* longest voting timer */
#define HUB_RTT_SAMPLES_MAX 20         /* a phone's round-trip report (`rtt`, `fragvote check --phone`): at
                                        * most this many samples ... */
#define HUB_RTT_MS_MAX 60000.0         /* ... each figure 0..this many ms (a websocket silent for a minute
                                        * is closed by the keepalive anyway) */

/* The one rule for a phone's round-trip report, checked by the hub on the
 * phone's `rtt` and by `fragvote check` on the hub's `phone_rtt`
 * (docs/PROTOCOL.md): NULL when n samples with this median and maximum (ms)
 * can be true, else why not. */
static inline const char *hub_rtt_refusal(long long n, double median_ms, double max_ms) {
    if (n < 1 || n > HUB_RTT_SAMPLES_MAX) return "\"n\" must be the number of samples, 1..20";
    if (!isfinite(median_ms) || !isfinite(max_ms) || median_ms < 0 || max_ms < 0 ||
        median_ms > HUB_RTT_MS_MAX || max_ms > HUB_RTT_MS_MAX)
        return "\"median_ms\" and \"max_ms\" must be milliseconds in 0..60000";
    if (median_ms > max_ms) return "\"median_ms\" is more than \"max_ms\"";
    return NULL;
}

/* What the console shows; hub_snapshot() copies it under a mutex. */
struct hub_status {
    int port;
    int cursor, nquestions, ended;
    struct quiz_qinfo current;         /* the question at the cursor */
    char truth[8];                     /* its truth once revealed ("yes", "no", "unknown": quiz_truth), else "" */
    char basis[16];                    /* with it, its basis ("observed", ..., "unknown") ... */
    char why[160];                     /* ... and its reason (quiz_truth's why), else "" */
    char explain[PROBE_PREDICT_TEXT_MAX]; /* the rules' chain for it (quiz_truth's explain), else "" */
    char surprise[256];                /* where the measurement differs from the rules, else "" */
    int why_view;                      /* 1: it is revealed and the projectors show its "why" view (the
                                        * rules' explanation and the evidence, large), 0: "what happened" */
    int connections;                   /* audience websockets open now */
    int screens, presenters;           /* other websockets open now */
    int voters;                        /* voters known in this session (tokens that have voted) */
    int newcomers;                     /* phones joined now whose token has not voted yet (no voter row) */
    unsigned long tokens_minted;       /* fresh tokens issued by hello (a script minting shows here) */
    unsigned long voters_refused;      /* first votes refused by the per-address new-voter cap */
    unsigned long conns_refused;       /* websocket upgrades refused: the address's share taken, or the room full */
    unsigned long conns_evicted;       /* phones that never said hello closed to make room for others */
    unsigned long origin_refused;      /* websocket upgrades refused for another site's Origin */
    unsigned long resumes_refused;     /* hellos refused: one phone's identity reconnecting too often */
    unsigned long tally_version;
    double collective;                 /* -1 if nothing scored yet */
    unsigned long commits;             /* group-commit transactions so far */
    unsigned long ops_committed;       /* joins + votes they carried */
    unsigned long phone_tallies;       /* tally messages written to phones so far */
    char last_error[256];              /* the last refused command and why, "" if none */
    unsigned long refused_total;       /* commands refused so far (last_error changes with it) */
    char last_warning[256];            /* the hub's own last trouble that refused nothing: the join URL
                                        * on loopback, the checkpointer not started, a stored voter not
                                        * added to memory, the prober's facts not stored; "" if none */
    unsigned long warnings_total;      /* warnings so far (last_warning changes with it) */
    unsigned long measure_asks;        /* measure and rerun actions the room took (room_measure_counts) */
    int prober;                        /* -1: the probe runs here (--prober local); 0: remote, none connected;
                                        * 1: a remote prober is connected */
    unsigned long prober_events;       /* remote prober lines so far (prober_line changes with it) */
    char prober_line[256];             /* the newest: "prober connected from ...", "... disconnected ..." */
    unsigned long acks;                /* votes acked so far, and from the hub reading each to writing its */
    double ack_p50_ms, ack_p99_ms, ack_max_ms; /* ack (its COMMIT included), as of the last tick; -1: none yet */
    long long closes_in_ms;            /* a voting timer runs on the current question: ms until it
                                        * closes voting by itself (>= 1, counted at hub_snapshot);
                                        * 0: no timer runs */
};

enum hub_cmd_kind {
    HUB_CMD_OPEN, HUB_CMD_CLOSE, HUB_CMD_MEASURE, HUB_CMD_REVEAL, HUB_CMD_NEXT, HUB_CMD_BACK,
    HUB_CMD_SKIP, HUB_CMD_RERUN, HUB_CMD_REVOTE, HUB_CMD_END, HUB_CMD_ANSWER,
    HUB_CMD_WHY,                       /* the projectors' view of the revealed question: "what happened" <-> "why" */
    HUB_CMD_QUIT,
    HUB_CMD_MEASURED                   /* the prober's result for ask `rid` (room_prober_result) */
};
struct hub_cmd {
    enum hub_cmd_kind kind;
    int seconds;                       /* HUB_CMD_OPEN: voting closes by itself after this long; 0: no timer */
    uint64_t rid;                      /* HUB_CMD_MEASURED only */
    struct probe_result result;        /* HUB_CMD_MEASURED only */
};

#endif
