/* Client message decoder (see hub_parse.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub_parse.h"
#include "probe_json.h"

/* Copies a JSON string field (cut at HUB_PARSE_STR_MAX bytes); 1 if present. */
static int str_field(json_t *m, const char *key, char *dst, size_t dstlen) {
    const char *s = json_string_value(json_object_get(m, key));
    if (!s) return 0;
    snprintf(dst, dstlen, "%s", s);
    return 1;
}

/* A phone's round-trip report, strictly: the types, then the one rule. */
static void parse_rtt(json_t *m, struct hub_client_msg *out) {
    json_t *n = json_object_get(m, "n"), *med = json_object_get(m, "median_ms"), *mx = json_object_get(m, "max_ms");
    const char *why = !json_is_integer(n) || !json_is_number(med) || !json_is_number(mx)
                          ? "\"n\" must be an integer, \"median_ms\" and \"max_ms\" numbers"
                          : hub_rtt_refusal(json_integer_value(n), json_number_value(med), json_number_value(mx));
    if (why) {
        snprintf(out->rtt_err, sizeof out->rtt_err, "%s", why);
        return;
    }
    out->rtt_ok = 1;
    out->rtt_n = (int)json_integer_value(n);
    out->rtt_median_ms = json_number_value(med);
    out->rtt_max_ms = json_number_value(mx);
}

int hub_parse_client(const char *text, size_t len, int max_seconds, struct hub_client_msg *out, char *err,
                     size_t errlen) {
    memset(out, 0, sizeof *out);
    out->id = -1;
    out->rid = -1;
    json_error_t jerr;
    json_t *m = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    const char *t = m ? json_string_value(json_object_get(m, "t")) : NULL;
    if (!m || !json_is_object(m) || !t) {
        snprintf(err, errlen, "malformed message: JSON object with \"t\" expected");
        json_decref(m);
        return -1;
    }
    json_t *jid = json_object_get(m, "id");
    if (jid) {
        json_int_t v = json_is_integer(jid) ? json_integer_value(jid) : -1;
        if (v >= 0 && v <= HUB_ID_MAX) out->id = (long long)v;
        else out->id_bad = 1;
    }
    if (!strcmp(t, "hello")) {
        out->type = HUB_C_HELLO;
        out->has_room = str_field(m, "room", out->room, sizeof out->room);
        out->has_token = str_field(m, "token", out->token, sizeof out->token);
        json_t *jq = json_object_get(m, "q");
        if (jq) out->hello_q = json_is_integer(jq) && json_integer_value(jq) >= 0 ? 1 : -1;
        if (out->hello_q > 0) out->q = (long long)json_integer_value(jq);
    } else if (!strcmp(t, "vote") || !strcmp(t, "replay_vote")) {
        out->type = t[0] == 'v' ? HUB_C_VOTE : HUB_C_REPLAY_VOTE;
        json_t *jq = json_object_get(m, "q"), *jy = json_object_get(m, "yes");
        out->vote_ok = json_is_integer(jq) && json_is_boolean(jy);
        if (out->vote_ok) {
            out->q = (long long)json_integer_value(jq);
            out->yes = json_is_true(jy);
        }
        json_t *jc = json_object_get(m, "confidence");
        out->conf = CONFIDENCE_NONE;
        if (jc && !json_is_null(jc)) out->conf_bad = confidence_parse(json_string_value(jc), &out->conf) != 0;
    } else if (!strcmp(t, "auth")) {
        out->type = HUB_C_AUTH;
        out->has_secret = str_field(m, "secret", out->secret, sizeof out->secret);
    } else if (!strcmp(t, "cmd")) {
        out->type = HUB_C_CMD;
        out->has_cmd = str_field(m, "cmd", out->cmd, sizeof out->cmd);
        json_t *js = json_object_get(m, "seconds");
        out->has_seconds = js != NULL;
        if (js && json_is_integer(js) && json_integer_value(js) >= 1 && json_integer_value(js) <= max_seconds) {
            out->seconds_ok = 1;
            out->seconds = (int)json_integer_value(js);
        }
    } else if (!strcmp(t, "nick")) {
        out->type = HUB_C_NICK;
        out->has_nick = str_field(m, "nick", out->nick, sizeof out->nick);
    } else if (!strcmp(t, "prober")) {
        out->type = HUB_C_PROBER;
        json_t *jv = json_object_get(m, "v"), *deck = json_object_get(m, "deck");
        if (json_is_integer(jv) && json_integer_value(jv) > 0 && json_integer_value(jv) < 1000)
            out->prober_v = (int)json_integer_value(jv);
        out->take_over = json_is_true(json_object_get(m, "take_over"));
        if (json_is_object(deck)) out->deck_json = json_dumps(deck, JSON_COMPACT | JSON_PRESERVE_ORDER);
        str_field(m, "host", out->prober_host, sizeof out->prober_host);
        str_field(m, "kernel", out->prober_kernel, sizeof out->prober_kernel);
        json_t *lab = json_object_get(m, "lab");
        if (json_is_object(lab)) out->prober_lab_json = json_dumps(lab, JSON_COMPACT | JSON_PRESERVE_ORDER);
        str_field(m, "observer", out->prober_observer, sizeof out->prober_observer);
        str_field(m, "target", out->prober_target, sizeof out->prober_target);
        str_field(m, "instance", out->prober_instance, sizeof out->prober_instance);
    } else if (!strcmp(t, "result")) {
        out->type = HUB_C_RESULT;
        json_t *jr = json_object_get(m, "rid");
        out->rid = json_is_integer(jr) && json_integer_value(jr) >= 1 && json_integer_value(jr) <= HUB_ID_MAX
                       ? (long long)json_integer_value(jr)
                       : -1;
        out->has_epoch = str_field(m, "epoch", out->epoch, sizeof out->epoch);
        json_t *obs = json_object_get(m, "observation");
        if (!obs)
            snprintf(out->result_err, sizeof out->result_err, "a result needs \"observation\"");
        else
            out->result_ok = probe_result_from_json(obs, &out->result, out->result_err, sizeof out->result_err) == 0;
    } else if (!strcmp(t, "export")) {
        out->type = HUB_C_EXPORT;
        out->has_format = str_field(m, "format", out->format, sizeof out->format);
    } else if (!strcmp(t, "replay")) {
        out->type = HUB_C_REPLAY;
    } else if (!strcmp(t, "rtt")) {
        out->type = HUB_C_RTT;
        parse_rtt(m, out);
    } else if (!strcmp(t, "ping")) {
        out->type = HUB_C_PING;
    } else {
        out->type = HUB_C_UNKNOWN;
    }
    json_decref(m);
    return 0;
}

void hub_client_msg_free(struct hub_client_msg *out) {
    free(out->deck_json);
    free(out->prober_lab_json);
    out->deck_json = out->prober_lab_json = NULL;
}
