/* The frames of `fragvote present` (the laptop's side of the remote prober
 * protocol, docs/PROTOCOL.md "The remote prober"): a pure decoder of what the
 * hub sends a presenter-prober connection, the builders of what the laptop
 * sends, and how a presenter `state` / `tally` fills the console's status.
 * No I/O, no lws: tested with canned frames (tests/fragvote/laptop/test_present_frame.c). */
#ifndef FRAGVOTE_PRESENT_FRAME_H
#define FRAGVOTE_PRESENT_FRAME_H

#include <stddef.h>

#include "console.h"
#include "fragprobe.h"

#define PRESENT_FRAME_MAX (256 * 1024) /* bytes of one frame from the hub; larger: the link is dropped */
#define PRESENT_URL_MAX 512             /* join URL as the hub reports it */

enum present_frame_type {
    PF_OTHER,      /* a type the laptop has no use for (ignored, as the protocol says) */
    PF_AUTH_OK,
    PF_STATE,
    PF_TALLY,
    PF_CMD_OK,
    PF_ERROR,
    PF_PROBER_OK,
    PF_MEASURE,
    PF_RESULT_OK,
    PF_PONG,
    PF_PROBER_GONE, /* another connection took the prober role over */
    PF_EXPORT_OK,
    PF_PHONE_RTT,   /* a phone's round trip to the hub (`fragvote check --phone`) */
};

#define PRESENT_EPOCH_MAX 32 /* bytes of the hub's epoch (16 hex digits today) */

struct present_frame {
    enum present_frame_type type;
    /* PF_ERROR: code ("refused", "bad_secret", "prober_busy", ...) and message; rid when it names one (else -1) */
    char code[32];
    char message[256];
    /* PF_MEASURE / PF_RESULT_OK / PF_ERROR: the request id (0..2^53-1), -1 absent */
    long long rid;
    /* PF_MEASURE / PF_PROBER_OK: the hub process's epoch (rids restart with a new one) */
    char epoch[PRESENT_EPOCH_MAX];
    /* PF_MEASURE */
    int test;           /* the deck test to probe */
    int q;              /* the question it is for, -1 a prefetch */
    int rerun;          /* measure again even if a result is known */
    struct probe_spec spec_seen; /* proto/mode/size/ttl as the hub has them (checked against the laptop's deck) */
    int has_spec;
    /* PF_PROBER_OK: the session, whether the hub "adopted" or "kept" the deck, asks that follow */
    long long session;
    char deck[16];
    int pending;
    /* PF_PROBER_GONE: reason ("taken_over") and message; PF_EXPORT_OK: format (data: present_frame_export_data) */
    char reason[32], format[16];
    /* PF_CMD_OK */
    char cmd[16];
    /* PF_PHONE_RTT: samples, their median and maximum in ms (hub_rtt_refusal's rule holds) */
    int rtt_n;
    double rtt_median_ms, rtt_max_ms;
    /* PF_STATE: the facts the console's head shows */
    char room[16], title[512], join_url[PRESENT_URL_MAX];
};

/* Parses one text frame. Returns 0 with *out filled (PF_OTHER for a type the
 * laptop ignores), or -1 with a sentence in err (not JSON, no string "t", a
 * field of the wrong type, a rid out of range, a phone_rtt's figures that
 * cannot be true); out->type is then the frame's type when it has a known
 * one. Pure. */
int present_frame_parse(const char *text, size_t len, struct present_frame *out, char *err, size_t errlen);

/* A presenter `state` frame (full, after auth_ok) into st: cursor, questions,
 * ended, the current question (state, measuring, round, votes from split),
 * the collective score and, once the current question is revealed, its truth,
 * majority and correctness. closes_in_ms is taken as of receipt (the caller
 * counts it down). Returns 0, or -1 with err (the frame is not a state or is
 * malformed; st is left as it was). Pure. */
int present_frame_state(const char *text, size_t len, struct console_status *st, char *err, size_t errlen);
/* A `tally` frame into st: phones online, joined, the votes (and the split)
 * of the current question when the tally is about it; the screens and
 * presenters connected (a presenter's tally; 0 when absent). Returns 0 or
 * -1 (err). Pure. */
int present_frame_tally(const char *text, size_t len, struct console_status *st, char *err, size_t errlen);

/* Builders: malloc'd compact JSON text (caller frees), NULL on out of memory. */
char *present_frame_auth(const char *secret);
/* seconds: the voting timer of an open (0 none). NULL also for QUIT and MEASURED (not presenter commands). */
char *present_frame_cmd(enum hub_cmd_kind k, int seconds);
/* The machine that measures, as the hub stores it with the session and
 * its live measurement set (replay --remeasure compares its own with these). */
struct present_facts {
    const char *host, *kernel;   /* gethostname, "Linux 6.1.0-..." (cli_host_facts) */
    const char *observer, *target;
    const char *lab_json;        /* the lab's layout (probe_lab_json) when target is the lab, else NULL */
};
/* deck_json: the deck as loaded (a JSON object's text); f: this laptop's
 * facts (also shown on the hub's console); instance: this process's random
 * id (the same on every reconnect, so the hub can tell the laptop that comes
 * back from another one). NULL when deck_json or lab_json is not a JSON
 * object. */
char *present_frame_prober(const char *deck_json, const struct present_facts *f, int take_over,
                           const char *instance);
/* epoch: the measure's; observation_json: probe_observation_json()'s text. */
char *present_frame_result(const char *epoch, long long rid, const char *observation_json);
/* format: json, csv, markdown or svg. */
char *present_frame_export(const char *format);
/* The "data" of an export_ok frame, malloc'd (caller frees) with its length;
 * NULL with err when the frame has none. Pure. */
char *present_frame_export_data(const char *text, size_t len, size_t *datalen, char *err, size_t errlen);

#endif
