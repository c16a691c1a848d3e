/* The room's voter tokens (room_token.h; room.h's room_token_new and
 * room_token_issued give them the room's key): a random id and its HMAC
 * under the session's key, so the room tells the tokens it issued from
 * made-up ones without a lookup. */
#include "room_token.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "db_hub.h"
#include "fv_err.h"

static int random_bytes(unsigned char *b, size_t n, char *err, size_t errlen) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(b + got, n - got, 0);
        if (k < 0) {
            if (errno == EINTR) continue;
            return fv_fail(err, errlen, "getrandom failed: %s", strerror(errno));
        }
        got += (size_t)k;
    }
    return 0;
}

static void to_hex(const unsigned char *b, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int hex_digit(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

/* n bytes from 2n lower-case hex digits (and nothing after them); 0 or -1. */
static int from_hex(const char *hex, unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hi < 0 ? -1 : hex_digit(hex[2 * i + 1]);
        if (lo < 0) return -1;
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    return hex[2 * n] ? -1 : 0;
}

/* The MAC half of a token for its id half: HMAC-SHA256 under the room's key,
 * truncated to ROOM_TOKEN_MAC_BYTES. */
static void token_mac(const unsigned char key[ROOM_TOKEN_KEY_BYTES], const unsigned char id[ROOM_TOKEN_ID_BYTES],
                      unsigned char mac[ROOM_TOKEN_MAC_BYTES]) {
    unsigned char full[32];
    db_hmac_sha256(key, ROOM_TOKEN_KEY_BYTES, id, ROOM_TOKEN_ID_BYTES, full);
    memcpy(mac, full, ROOM_TOKEN_MAC_BYTES);
}

int room_token_mint(const unsigned char key[ROOM_TOKEN_KEY_BYTES], char out[ROOM_TOKEN_HEX + 1], char *err,
                    size_t errlen) {
    unsigned char b[ROOM_TOKEN_ID_BYTES + ROOM_TOKEN_MAC_BYTES];
    if (random_bytes(b, ROOM_TOKEN_ID_BYTES, err, errlen)) return -1;
    token_mac(key, b, b + ROOM_TOKEN_ID_BYTES);
    to_hex(b, sizeof b, out);
    return 0;
}

int room_token_valid(const char *t) {
    if (!t) return 0;
    size_t i = 0;
    for (; t[i]; i++)
        if (i >= ROOM_TOKEN_HEX || hex_digit(t[i]) < 0) return 0;
    return i == ROOM_TOKEN_HEX;
}

int room_token_mac_ok(const unsigned char key[ROOM_TOKEN_KEY_BYTES], const char *t) {
    unsigned char b[ROOM_TOKEN_ID_BYTES + ROOM_TOKEN_MAC_BYTES], mac[ROOM_TOKEN_MAC_BYTES];
    if (!room_token_valid(t) || from_hex(t, b, sizeof b)) return 0;
    token_mac(key, b, mac);
    unsigned char diff = 0; /* constant time: a timing oracle must not tell how much of a guess was right */
    for (int i = 0; i < ROOM_TOKEN_MAC_BYTES; i++) diff |= mac[i] ^ b[ROOM_TOKEN_ID_BYTES + i];
    return diff == 0;
}

int room_token_key_new(unsigned char key[ROOM_TOKEN_KEY_BYTES], char hex[2 * ROOM_TOKEN_KEY_BYTES + 1], char *err,
                       size_t errlen) {
    if (random_bytes(key, ROOM_TOKEN_KEY_BYTES, err, errlen)) return -1;
    to_hex(key, ROOM_TOKEN_KEY_BYTES, hex);
    return 0;
}

int room_token_key_read(const char *hex, unsigned char key[ROOM_TOKEN_KEY_BYTES]) {
    return from_hex(hex, key, ROOM_TOKEN_KEY_BYTES);
}
