/* libFuzzer target: one client websocket message, as the hub handles it.
 *
 * The hub's own decoder hub_parse_client() (fragvote/hub/hub_parse.c, what
 * on_message() in fragvote/hub/hub_conn.c calls before anything else), then the
 * steps on_hello / on_vote / on_cmd / on_auth take with its result, on the real
 * room and quiz over an in-memory store (token check, join, vote check,
 * batched vote and commit, action names) and the hub's own reply builders with
 * the hostile values. Every reply must be valid JSON. */
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "deck.h"
#include "hub.h"
#include "hub_msg.h"
#include "hub_parse.h"
#include "leaderboard.h"
#include "probe_json.h"
#include "room.h"

static struct db *db;
static struct room *room;
static struct deck deck;

#define FUZZ_VOTERS_MAX 5000 /* start a fresh room past this: memory stays bounded on long runs */
static char conn_token[ROOM_TOKEN_HEX + 1]; /* one connection's token, after its hello */

static void setup(void) {
    char err[256];
    if (room && room_voter_count(room) < FUZZ_VOTERS_MAX) return;
    if (room) {
        room_free(room);
        deck_free(&deck);
        db_close(db);
        room = NULL;
        conn_token[0] = 0; /* another room: its tokens are not ours */
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
    if (size > HUB_PROBER_MSG_MAX) return 0; /* the hub cuts these before parsing (the laptop's cap; phones': 1 KiB) */
    setup();
    char err[256];
    struct hub_client_msg msg, *m = &msg;
    /* The hub's own decoder: on_message() in fragvote/hub/hub_conn.c calls it first. */
    if (hub_parse_client((const char *)data, size, HUB_COUNTDOWN_MAX_S, m, err, sizeof err) < 0) {
        if (!err[0]) abort(); /* a refusal always says why (it becomes the close reason) */
        return 0;
    }
    hub_client_msg_free(m); /* the prober's deck text: the hub validates it with the deck loader (fuzz_deck) */
    long long id = m->id;
    /* the id is -1 (none, or refused) or an exact integer a phone's Number holds */
    if (id < -1 || id > HUB_ID_MAX || (m->id_bad && id != -1)) abort();
    if (m->type == HUB_C_HELLO) {
        if (m->has_room && m->room[0] && strcasecmp(m->room, room_code(room)))
            check_reply(hub_msg_error(-1, "bad_room", "no such room here"));
        char tok[ROOM_TOKEN_HEX + 1];
        if (m->has_token && room_token_issued(room, m->token)) {
            if (strlen(m->token) != ROOM_TOKEN_HEX) abort();
            memcpy(tok, m->token, ROOM_TOKEN_HEX + 1);
        } else if (room_token_new(room, tok, err, sizeof err)) {
            abort();
        }
        /* a join only looks the token up: it is a voter from its first vote */
        int v = room_voter_find(room, tok);
        if (v >= room_voter_count(room)) abort();
        memcpy(conn_token, tok, sizeof conn_token); /* the connection's token from now on */
    } else if (m->type == HUB_C_VOTE) {
        if (m->id_bad) {
            check_reply(hub_msg_error(-1, "bad_vote", "id out of range"));
        } else if (m->vote_ok && conn_token[0]) {
            long long q = m->q;
            if (room_vote_check(room, q, err, sizeof err) == 0) {
                struct room_write w; /* a token the room does not know yet: its first vote makes the voter */
                int r = room_write_plan(room, &w, -1, conn_token, (int)q, m->yes, m->conf, 0, err, sizeof err), v = -1;
                if (r == 0) {
                    if (room_write_commit(room, &w, 1, err, sizeof err) < 0) abort();
                    r = w.result;
                    v = w.voter;
                }
                if (r == 0) {
                    if (room_voter_vote(room, v, (int)q) != m->yes) abort();
                    check_reply(hub_msg_ack(id, (int)q, m->yes, m->conf, quiz_votes(room_quiz(room), (int)q)));
                }
            } else {
                check_reply(hub_msg_error(id, "refused", err));
            }
        } else {
            check_reply(hub_msg_error(id, "bad_vote", "a vote needs q and yes"));
        }
    } else if (m->type == HUB_C_CMD) {
        enum room_action a;
        if (m->has_cmd && room_action_parse(m->cmd, &a) == 0 && strcmp(room_action_name(a), m->cmd)) abort();
        if (m->has_seconds && m->seconds_ok && (m->seconds < 1 || m->seconds > HUB_COUNTDOWN_MAX_S)) abort();
        if (m->has_cmd) check_reply(hub_msg_simple("cmd_ok", "cmd", m->cmd));
    } else if (m->type == HUB_C_AUTH) {
        if (m->has_secret) check_reply(hub_msg_simple("auth_ok", "secret_len", m->secret));
    } else if (m->type == HUB_C_NICK) {
        /* serve --leaderboard keeps only what leaderboard_nick_clean leaves: valid
         * UTF-8 without controls, at most LEADERBOARD_NICK_MAX bytes */
        char kept[LEADERBOARD_NICK_MAX + 1];
        int n = leaderboard_nick_clean(m->has_nick ? m->nick : "", kept, sizeof kept);
        if (n > LEADERBOARD_NICK_MAX || (n < 0 && kept[0]) || (n >= 0 && (size_t)n != strlen(kept))) abort();
        for (const unsigned char *p = (const unsigned char *)kept; *p; p++)
            if (*p < 0x20 || *p == 0x7F) abort();
        json_t *j = json_string(kept);
        if (!j) abort(); /* invalid UTF-8 left in */
        json_decref(j);
        if (n > 0) check_reply(hub_msg_simple("nick_ok", "nick", kept));
    } else if (m->type == HUB_C_RESULT) {
        /* a remote prober's result: an rid is -1 or 1..2^53-1; a decoded
         * observation writes valid JSON that reads back to the same text */
        if (m->rid == 0 || m->rid < -1 || m->rid > HUB_ID_MAX) abort();
        if (m->result_ok) {
            char *a = probe_observation_json(&m->result), e2[160];
            json_t *o = a ? json_loads(a, 0, NULL) : NULL;
            struct probe_result back;
            if (!o || probe_result_from_json(o, &back, e2, sizeof e2)) abort();
            char *b = probe_observation_json(&back);
            if (!b || strcmp(a, b)) abort();
            json_decref(o);
            free(a);
            free(b);
        } else if (!m->result_err[0]) {
            abort(); /* a refused observation says why */
        }
    } else if (m->type == HUB_C_UNKNOWN) {
        check_reply(hub_msg_error(id, "unknown_type", "unknown message type"));
    }
    return 0;
}
