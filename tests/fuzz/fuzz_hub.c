/* libFuzzer target: one client websocket message, as the hub handles it.
 *
 * The hub's own handler (on_message in presenter/hub.c) is static and needs a
 * live lws connection, so it cannot be called from here (see docs/SECURITY.md,
 * "Fuzzing"). This target runs the same steps on the same code below it:
 * json_loadb with the hub's flags, the hub's field checks for hello / vote /
 * cmd / auth, then the real room and quiz on an in-memory store (token check,
 * join, vote check, batched vote and commit, action names) and the hub's own
 * reply builders (hub_msg_error/ack/welcome) with the hostile values. Every
 * reply must be valid JSON. */
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "deck.h"
#include "hub_internal.h"
#include "room.h"

static struct db *db;
static struct room *room;
static struct deck deck;

#define FUZZ_VOTERS_MAX 5000 /* start a fresh room past this: memory stays bounded on long runs */

static void setup(void) {
    char err[256];
    if (room && room_voter_count(room) < FUZZ_VOTERS_MAX) return;
    if (room) {
        room_free(room);
        deck_free(&deck);
        db_close(db);
        room = NULL;
    }
    if (!(db = db_open(":memory:", err, sizeof err)) || deck_load_builtin(&deck, err, sizeof err) ||
        !(room = room_create(db, &deck, &(struct room_info){.code = "FUZZ23"}, err, sizeof err)) ||
        room_act(room, ROOM_OPEN, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_hub setup: %s\n", err);
        abort();
    }
}

/* A reply the hub would send must be one valid JSON object. */
static void check_reply(char *s) {
    if (!s) return; /* jansson refused a value (e.g. invalid UTF-8): the hub sends nothing */
    json_t *o = json_loads(s, 0, NULL);
    if (!o || !json_is_object(o)) abort();
    json_decref(o);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > HUB_MSG_MAX) return 0; /* the hub cuts these before parsing */
    setup();
    json_error_t jerr;
    json_t *m = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    const char *t = m ? json_string_value(json_object_get(m, "t")) : NULL;
    if (!m || !json_is_object(m) || !t) {
        json_decref(m);
        return 0;
    }
    char err[256];
    json_t *jid = json_object_get(m, "id");
    int id = json_is_integer(jid) ? (int)json_integer_value(jid) : -1;
    if (!strcmp(t, "hello")) {
        const char *room_code_in = json_string_value(json_object_get(m, "room"));
        const char *token = json_string_value(json_object_get(m, "token"));
        if (room_code_in && room_code_in[0] && strcasecmp(room_code_in, room_code(room)))
            check_reply(hub_msg_error(-1, "bad_room", "no such room here"));
        char tok[ROOM_TOKEN_HEX + 1];
        if (token && room_token_valid(token)) {
            if (strlen(token) != ROOM_TOKEN_HEX) abort();
            snprintf(tok, sizeof tok, "%s", token);
        } else if (room_token_new(tok, err, sizeof err)) {
            abort();
        }
        if (room_batch_begin(room, err, sizeof err)) abort();
        int v = room_batch_join(room, tok, err, sizeof err);
        if (room_batch_commit(room, err, sizeof err)) abort();
        if (v >= 0) {
            if (room_voter_find(room, tok) != v) abort();
        }
    } else if (!strcmp(t, "vote")) {
        json_t *jq = json_object_get(m, "q"), *jy = json_object_get(m, "yes");
        if (json_is_integer(jq) && json_is_boolean(jy) && room_voter_count(room) > 0) {
            json_int_t q = json_integer_value(jq);
            if (q >= 0 && q <= INT_MAX && quiz_vote_check(room_quiz(room), (int)q, err, sizeof err) == 0) {
                if (room_batch_begin(room, err, sizeof err)) abort();
                int r = room_batch_vote(room, 0, (int)q, json_is_true(jy), err, sizeof err);
                if (room_batch_commit(room, err, sizeof err)) abort();
                if (r == 0) {
                    if (room_voter_vote(room, 0, (int)q) != json_is_true(jy)) abort();
                    check_reply(hub_msg_ack(id, (int)q, json_is_true(jy)));
                }
            } else {
                check_reply(hub_msg_error(id, "refused", err));
            }
        } else {
            check_reply(hub_msg_error(id, "bad_vote", "a vote needs q and yes"));
        }
    } else if (!strcmp(t, "cmd")) {
        const char *name = json_string_value(json_object_get(m, "cmd"));
        enum room_action a;
        if (name && room_action_parse(name, &a) == 0 && strcmp(room_action_name(a), name)) abort();
        if (name) check_reply(hub_msg_simple("cmd_ok", "cmd", name));
    } else if (!strcmp(t, "auth")) {
        const char *s = json_string_value(json_object_get(m, "secret"));
        if (s) check_reply(hub_msg_simple("auth_ok", "secret_len", s));
    } else {
        /* Unknown types are answered with a fixed message; echo the type to
         * make sure a hostile string never breaks a reply builder. */
        check_reply(hub_msg_error(id, "unknown_type", t));
    }
    json_decref(m);
    return 0;
}
