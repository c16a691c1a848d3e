/* Raw TCP for fragvote's tests, beside the websocket client: a plain
 * connection (to send half a request, hold a socket open, or see whether a
 * server listens yet) and a one-shot HTTP GET that returns the response as
 * the server wrote it. Part of the wsclient library.
 *
 * Every function that can fail returns -1 (or NULL) with a sentence in the
 * caller's err buffer. */
#ifndef FRAGVOTE_TCP_CLIENT_H
#define FRAGVOTE_TCP_CLIENT_H

#include <stddef.h>

#define TCP_HTTP_MAX (1 << 20)  /* tcp_http_get() reads at most this much */

/* Connects a blocking TCP socket to host:port (numeric IPv4/IPv6 or name).
 * src_addr: local IPv4 address to bind first (NULL: any), so a load test
 * can spread connections over 127.0.0.x. Returns the socket (close-on-exec;
 * caller closes it) or -1. */
int tcp_connect(const char *host, int port, const char *src_addr, char *err, size_t errlen);

/* GETs path over a new connection ("Connection: close") and reads the
 * response until the server closes, the body is complete by its
 * Content-Length (lws may keep the connection open), TCP_HTTP_MAX bytes, or
 * timeout_ms pass without a byte. Returns status line, headers and body,
 * NUL-terminated (caller frees; empty when nothing came), its length in
 * *len (may be NULL), or NULL when it could not connect or send. */
char *tcp_http_get(const char *host, int port, const char *path, int timeout_ms, size_t *len, char *err,
                   size_t errlen);

/* Slow loris: sends one byte a second on each of the n sockets until the
 * server has ended every one or timeout_ms pass. The ended ones are closed
 * and set to -1 (negative entries are skipped). Returns how many are still
 * open. */
int tcp_dribble(int *fds, int n, int timeout_ms);

#endif
