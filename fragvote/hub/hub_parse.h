/* Decoding one client websocket message: pure (no lws, no room), so the
 * hub and the fuzzer (tests/fuzz/fuzz_hub.c) run the very same code.
 * Semantics (who may send what, whether a token or room code is right) stay
 * in the hub; this only turns bytes into typed, bounded fields. */
#ifndef FRAGVOTE_HUB_PARSE_H
#define FRAGVOTE_HUB_PARSE_H

#include <stddef.h>

#include "confidence.h"
#include "hub_control.h"
#include "fragprobe.h"

#define HUB_PARSE_STR_MAX 128  /* longest string field kept; longer ones are kept cut (and never match) */
#define HUB_ID_MAX 9007199254740991LL /* 2^53 - 1: the largest id a phone's JavaScript Number holds exactly */

enum hub_client_type { HUB_C_HELLO, HUB_C_VOTE, HUB_C_AUTH, HUB_C_CMD, HUB_C_PING, HUB_C_NICK, HUB_C_PROBER,
                       HUB_C_RESULT, HUB_C_EXPORT, HUB_C_REPLAY, HUB_C_REPLAY_VOTE, HUB_C_RTT, HUB_C_UNKNOWN };

struct hub_client_msg {
    enum hub_client_type type;
    long long id;                   /* "id" when an integer in 0..HUB_ID_MAX, else -1 */
    int id_bad;                     /* "id" present but not such an integer (a vote with it: bad_vote) */
    /* hello; a screen's "q" (the question it follows): hello_q 1 with it in q, -1 when not an integer >= 0 */
    int has_room, has_token, hello_q;
    char room[HUB_PARSE_STR_MAX + 1], token[HUB_PARSE_STR_MAX + 1];
    /* vote and replay_vote (no confidence): vote_ok when "q" is an integer and "yes" a boolean; "confidence"
     * absent or null: CONFIDENCE_NONE, one of its names: that level,
     * anything else: conf_bad (the vote does not count) */
    int vote_ok, yes, conf_bad;
    enum confidence conf;
    long long q;
    /* auth */
    int has_secret;
    char secret[HUB_PARSE_STR_MAX + 1];
    /* cmd: "seconds" absent (has_seconds 0), or its value when an integer in range (seconds_ok) */
    int has_cmd, has_seconds, seconds_ok, seconds;
    char cmd[HUB_PARSE_STR_MAX + 1];
    /* nick (serve --leaderboard): the raw string, cleaned by the leaderboard */
    int has_nick;
    char nick[HUB_PARSE_STR_MAX + 1];
    /* prober (docs/PROTOCOL.md "The remote prober"): "v" (0 absent or not an
     * integer), "take_over" true, "deck" as compact JSON text when it is an
     * object (malloc'd: hub_client_msg_free; NULL otherwise), and the
     * laptop's facts, stored with the session and its live measurement set
     * and shown on the console ("" when absent; "lab" as compact JSON text
     * when an object, malloc'd, else NULL) */
    int prober_v, take_over;
    char *deck_json, *prober_lab_json;
    char prober_host[HUB_PARSE_STR_MAX + 1], prober_kernel[HUB_PARSE_STR_MAX + 1],
        prober_observer[HUB_PARSE_STR_MAX + 1], prober_target[HUB_PARSE_STR_MAX + 1];
    char prober_instance[HUB_PARSE_STR_MAX + 1]; /* "instance": the laptop process (same on its reconnects) */
    /* result: "rid" when an integer 1..HUB_ID_MAX (else -1), "epoch"; the
     * observation decoded when result_ok, else result_err says why */
    long long rid;
    int has_epoch, result_ok;
    char epoch[HUB_PARSE_STR_MAX + 1];
    char result_err[160];
    struct probe_result result;
    /* rtt: a phone's round trip (docs/PROTOCOL.md): rtt_ok when "n" is an
     * integer and "median_ms", "max_ms" numbers that hub_rtt_refusal
     * (hub_control.h) lets through, else rtt_err says why */
    int rtt_ok, rtt_n;
    double rtt_median_ms, rtt_max_ms;
    char rtt_err[96];
    /* export: "format" */
    int has_format;
    char format[HUB_PARSE_STR_MAX + 1];
};

/* Decodes one message. Returns 0, or -1 when it is not a JSON object with a
 * string "t" (duplicate keys refused), with the reason in err. Other types
 * than the known ones come back as HUB_C_UNKNOWN. max_seconds bounds "seconds". */
int hub_parse_client(const char *text, size_t len, int max_seconds, struct hub_client_msg *out, char *err,
                     size_t errlen);

/* Frees what hub_parse_client allocated in out (the prober's deck text). */
void hub_client_msg_free(struct hub_client_msg *out);

#endif
