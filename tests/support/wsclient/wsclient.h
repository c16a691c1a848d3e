/* A small blocking websocket client (RFC 6455) for fragvote's tests: real
 * TCP, real handshake, masked frames, and the means to misbehave on purpose
 * (raw frames, oversized or binary messages). The e2e, reliability and load
 * tests reuse it; wsc_frame_parse() is pure so an epoll-driven load client
 * can share the framing code.
 *
 * Every function that can fail returns -1 (or NULL) with a sentence in the
 * connection's error (wsc_error) or the caller's err buffer. */
#ifndef FRAGVOTE_WSCLIENT_H
#define FRAGVOTE_WSCLIENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define WSC_MAX_MESSAGE (1 << 20)  /* larger incoming messages are an error */

enum wsc_opcode { WSC_CONT = 0, WSC_TEXT = 1, WSC_BINARY = 2, WSC_CLOSE = 8, WSC_PING = 9, WSC_PONG = 10 };

struct wsc;

/* Connects to host:port (numeric IPv4/IPv6 or name), GETs path with the
 * given subprotocol (NULL: none), waits up to timeout_ms for the 101.
 * src_addr: local IPv4 address to bind first (NULL: any), so a load test
 * can spread connections over 127.0.0.x. Caller owns the result. */
struct wsc *wsc_connect(const char *host, int port, const char *path, const char *protocol, const char *src_addr,
                        int timeout_ms, char *err, size_t errlen);
/* The same with the Origin header a browser page would send: origin NULL
 * sends none (a command-line client), "" the server's own
 * (http://host:port, what wsc_connect sends), else the text given. */
struct wsc *wsc_connect_origin(const char *host, int port, const char *path, const char *protocol,
                               const char *src_addr, const char *origin, int timeout_ms, char *err, size_t errlen);
void wsc_free(struct wsc *w);                      /* closes the socket without a close frame */
void wsc_close(struct wsc *w, int code);           /* sends a close frame, then frees */
/* wsc_close(w, 1000) of each of the n in ws (NULL ones are skipped), or of
 * each argument: wsc_close_all(a, b, c). */
void wsc_close_n(struct wsc *const *ws, size_t n);
#define wsc_close_all(...) \
    wsc_close_n((struct wsc *[]){__VA_ARGS__}, sizeof((struct wsc *[]){__VA_ARGS__}) / sizeof(struct wsc *))
int wsc_fd(const struct wsc *w);
const char *wsc_error(const struct wsc *w);

int wsc_send_text(struct wsc *w, const char *text);
/* One raw frame (masked, as a client must). */
int wsc_send_frame(struct wsc *w, enum wsc_opcode op, int fin, const void *data, size_t len);

/* Next text message, malloc'd and NUL-terminated in *out (caller frees).
 * Answers pings. Returns the length; 0 when the server closed (see
 * wsc_close_code/wsc_close_reason) or the socket ended; -1 on timeout
 * (wsc_error says "timeout") or error. */
long wsc_recv(struct wsc *w, char **out, int timeout_ms);
int wsc_closed(const struct wsc *w);
int wsc_close_code(const struct wsc *w);           /* 1005 when the close frame had no code */
const char *wsc_close_reason(const struct wsc *w);

/* Every text message received so far, joined by newlines (owned by w). */
const char *wsc_transcript(const struct wsc *w);

/* JSON helpers: send an object built by json_pack-style format. */
int wsc_send_json(struct wsc *w, const char *fmt, ...);
/* Receives messages until one has "t" == type (others are skipped but kept
 * in the transcript); returns it (caller json_decref's) or NULL on
 * timeout/close. */
json_t *wsc_recv_type(struct wsc *w, const char *type, int timeout_ms);
/* The same for either of two types (or_type NULL: only type): an answer
 * that may be the one hoped for or an error. */
json_t *wsc_recv_types(struct wsc *w, const char *type, const char *or_type, int timeout_ms);

/* Pure: parses one frame header at buf. Returns the header length and fills
 * *op, *fin, *masked, *payload_len, or 0 when more bytes are needed, -1 when
 * the header is invalid (reserved bits, bad length). */
struct wsc_frame {
    int op, fin, masked;
    uint64_t payload_len;
    uint8_t mask[4];
};
int wsc_frame_parse(const uint8_t *buf, size_t len, struct wsc_frame *out);

#endif
