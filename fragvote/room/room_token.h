/* The room's token key (private to the room): made for a new session, read
 * back on resume; tokens made and checked under it. room.c gives them its
 * key: issuing and checking tokens is public there (room.h). */
#ifndef FRAGVOTE_ROOM_TOKEN_H
#define FRAGVOTE_ROOM_TOKEN_H

#include <stddef.h>

#include "room.h"

/* A fresh random key into key, and as lower-case hex into hex (to store
 * with the session). 0, or -1 with err. */
int room_token_key_new(unsigned char key[ROOM_TOKEN_KEY_BYTES], char hex[2 * ROOM_TOKEN_KEY_BYTES + 1], char *err,
                       size_t errlen);
/* The key from its stored hex (exactly 2 * ROOM_TOKEN_KEY_BYTES lower-case
 * digits); 0, or -1 when malformed. */
int room_token_key_read(const char *hex, unsigned char key[ROOM_TOKEN_KEY_BYTES]);
/* A new token under key into out. 0, or -1 with err (no randomness). */
int room_token_mint(const unsigned char key[ROOM_TOKEN_KEY_BYTES], char out[ROOM_TOKEN_HEX + 1], char *err,
                    size_t errlen);
/* 1 when t is well-formed and its MAC half is its id's under key. */
int room_token_mac_ok(const unsigned char key[ROOM_TOKEN_KEY_BYTES], const char *t);

#endif
