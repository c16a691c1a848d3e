/* Client message decoder (see hub_parse.h). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "hub_parse.h"

/* Copies a JSON string field (cut at HUB_PARSE_STR_MAX bytes); 1 if present. */
static int str_field(json_t *m, const char *key, char *dst, size_t dstlen) {
    const char *s = json_string_value(json_object_get(m, key));
    if (!s) return 0;
    snprintf(dst, dstlen, "%s", s);
    return 1;
}

int hub_parse_client(const char *text, size_t len, int max_seconds, struct hub_client_msg *out, char *err,
                     size_t errlen) {
    memset(out, 0, sizeof *out);
    out->id = -1;
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
    } else if (!strcmp(t, "vote")) {
        out->type = HUB_C_VOTE;
        json_t *jq = json_object_get(m, "q"), *jy = json_object_get(m, "yes");
        out->vote_ok = json_is_integer(jq) && json_is_boolean(jy);
        if (out->vote_ok) {
            out->q = (long long)json_integer_value(jq);
            out->yes = json_is_true(jy);
        }
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
    } else if (!strcmp(t, "ping")) {
        out->type = HUB_C_PING;
    } else {
        out->type = HUB_C_UNKNOWN;
    }
    json_decref(m);
    return 0;
}
