/* Blocking RFC 6455 client for tests (see wsclient.h). */
#include "wsclient.h"
#include "tcp_client.h"
#include "fv_clock.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct wsc {
    int fd;
    uint8_t *in;                   /* received bytes not yet consumed */
    size_t inlen, incap;
    char *msg;                     /* message being reassembled */
    size_t msglen;
    int closed, close_code;
    char close_reason[128];
    char err[256];
    char *log;                     /* transcript */
    size_t loglen, logcap;
};

static int seterr(struct wsc *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    return -1;
}

static int write_all(struct wsc *w, const void *buf, size_t len) {
    const uint8_t *p = buf;
    while (len) {
        ssize_t n = send(w->fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return seterr(w, "send: %s", strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads more bytes into w->in, waiting until deadline. 0 ok, -1 timeout/error, -2 EOF. */
static int fill(struct wsc *w, long long deadline) {
    if (w->incap - w->inlen < 4096) {
        size_t cap = w->incap ? w->incap * 2 : 8192;
        uint8_t *n = realloc(w->in, cap);
        if (!n) return seterr(w, "out of memory");
        w->in = n;
        w->incap = cap;
    }
    for (;;) {
        long long left = deadline - fv_clock_ms();
        if (left < 0) left = 0;
        struct pollfd pfd = {w->fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return seterr(w, "poll: %s", strerror(errno));
        if (r == 0) return seterr(w, "timeout");
        /* one byte always left free: the handshake parser NUL-terminates */
        ssize_t n = recv(w->fd, w->in + w->inlen, w->incap - w->inlen - 1, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return seterr(w, "recv: %s", strerror(errno));
        if (n == 0) return -2;
        w->inlen += (size_t)n;
        return 0;
    }
}

static void consume(struct wsc *w, size_t n) {
    memmove(w->in, w->in + n, w->inlen - n);
    w->inlen -= n;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct wsc *wsc_connect(const char *host, int port, const char *path, const char *protocol, const char *src_addr,
                        int timeout_ms, char *err, size_t errlen) {
    return wsc_connect_origin(host, port, path, protocol, src_addr, "", timeout_ms, err, errlen);
}

struct wsc *wsc_connect_origin(const char *host, int port, const char *path, const char *protocol,
                               const char *src_addr, const char *origin, int timeout_ms, char *err, size_t errlen) {
    struct wsc *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->fd = tcp_connect(host, port, src_addr, err, errlen);
    if (w->fd < 0) goto fail;
    int one = 1;
    setsockopt(w->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint8_t nonce[16];
    if (getrandom(nonce, sizeof nonce, 0) != sizeof nonce) memset(nonce, 7, sizeof nonce);
    char key[25];
    for (int i = 0, o = 0; i < 18; i += 3) {
        uint32_t v = (uint32_t)nonce[i] << 16 | (i + 1 < 16 ? (uint32_t)nonce[i + 1] << 8 : 0) |
                     (i + 2 < 16 ? nonce[i + 2] : 0);
        key[o++] = b64[v >> 18 & 63];
        key[o++] = b64[v >> 12 & 63];
        key[o++] = i + 1 < 16 ? b64[v >> 6 & 63] : '=';
        key[o++] = i + 2 < 16 ? b64[v & 63] : '=';
    }
    key[24] = 0;
    char req[1024], org[400] = "";
    if (origin && !origin[0])
        snprintf(org, sizeof org, "Origin: http://%s:%d\r\n", host, port);
    else if (origin)
        snprintf(org, sizeof org, "Origin: %s\r\n", origin);
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s%s%s%s\r\n",
                     path, host, port, key, protocol ? "Sec-WebSocket-Protocol: " : "", protocol ? protocol : "",
                     protocol ? "\r\n" : "", org);
    if (write_all(w, req, (size_t)n)) {
        snprintf(err, errlen, "%s", w->err);
        goto fail;
    }
    long long deadline = fv_clock_ms() + timeout_ms;
    char *end = NULL;
    while (!end) {
        int r = fill(w, deadline);
        if (r) {
            snprintf(err, errlen, "handshake with %s:%d: %s", host, port, r == -2 ? "connection closed" : w->err);
            goto fail;
        }
        w->in[w->inlen] = 0;
        end = strstr((char *)w->in, "\r\n\r\n");
    }
    if (strncmp((char *)w->in, "HTTP/1.1 101", 12)) {
        char *eol = strstr((char *)w->in, "\r\n");
        if (eol) *eol = 0;
        snprintf(err, errlen, "handshake refused: %s", (char *)w->in);
        goto fail;
    }
    consume(w, (size_t)(end + 4 - (char *)w->in));
    return w;
fail:
    wsc_free(w);
    return NULL;
}

void wsc_free(struct wsc *w) {
    if (!w) return;
    if (w->fd >= 0) close(w->fd);
    free(w->in);
    free(w->msg);
    free(w->log);
    free(w);
}

int wsc_fd(const struct wsc *w) { return w->fd; }
const char *wsc_error(const struct wsc *w) { return w->err; }
int wsc_closed(const struct wsc *w) { return w->closed; }
int wsc_close_code(const struct wsc *w) { return w->close_code; }
const char *wsc_close_reason(const struct wsc *w) { return w->close_reason; }
const char *wsc_transcript(const struct wsc *w) { return w->log ? w->log : ""; }

int wsc_send_frame(struct wsc *w, enum wsc_opcode op, int fin, const void *data, size_t len) {
    uint8_t hdr[14];
    size_t h = 0;
    hdr[h++] = (uint8_t)((fin ? 0x80 : 0) | (op & 0x0f));
    if (len < 126) {
        hdr[h++] = (uint8_t)(0x80 | len);
    } else if (len < 65536) {
        hdr[h++] = 0x80 | 126;
        hdr[h++] = (uint8_t)(len >> 8);
        hdr[h++] = (uint8_t)len;
    } else {
        hdr[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--) hdr[h++] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    uint8_t mask[4];
    if (getrandom(mask, 4, 0) != 4) memset(mask, 0x5a, 4);
    memcpy(hdr + h, mask, 4);
    h += 4;
    uint8_t *buf = malloc(h + len);
    if (!buf) return seterr(w, "out of memory");
    memcpy(buf, hdr, h);
    for (size_t i = 0; i < len; i++) buf[h + i] = ((const uint8_t *)data)[i] ^ mask[i & 3];
    int rc = write_all(w, buf, h + len);
    free(buf);
    return rc;
}

int wsc_send_text(struct wsc *w, const char *text) { return wsc_send_frame(w, WSC_TEXT, 1, text, strlen(text)); }

void wsc_close(struct wsc *w, int code) {
    if (!w) return;
    if (!w->closed && w->fd >= 0) {
        uint8_t b[2] = {(uint8_t)(code >> 8), (uint8_t)code};
        wsc_send_frame(w, WSC_CLOSE, 1, b, 2);
    }
    wsc_free(w);
}

void wsc_close_n(struct wsc *const *ws, size_t n) {
    for (size_t i = 0; i < n; i++) wsc_close(ws[i], 1000);
}

int wsc_frame_parse(const uint8_t *buf, size_t len, struct wsc_frame *f) {
    if (len < 2) return 0;
    if (buf[0] & 0x70) return -1;
    f->fin = buf[0] >> 7;
    f->op = buf[0] & 0x0f;
    f->masked = buf[1] >> 7;
    uint64_t pl = buf[1] & 0x7f;
    size_t h = 2;
    if (pl == 126) {
        if (len < 4) return 0;
        pl = (uint64_t)buf[2] << 8 | buf[3];
        h = 4;
    } else if (pl == 127) {
        if (len < 10) return 0;
        pl = 0;
        for (int i = 0; i < 8; i++) pl = pl << 8 | buf[2 + i];
        if (pl >> 63) return -1;
        h = 10;
    }
    if (f->masked) {
        if (len < h + 4) return 0;
        memcpy(f->mask, buf + h, 4);
        h += 4;
    }
    if (f->op >= 8 && (!f->fin || pl > 125)) return -1;
    f->payload_len = pl;
    return (int)h;
}

static void log_add(struct wsc *w, const char *s, size_t n) {
    if (w->loglen + n + 2 > w->logcap) {
        size_t cap = (w->logcap + n + 2) * 2;
        char *l = realloc(w->log, cap);
        if (!l) return;
        w->log = l;
        w->logcap = cap;
    }
    memcpy(w->log + w->loglen, s, n);
    w->loglen += n;
    w->log[w->loglen++] = '\n';
    w->log[w->loglen] = 0;
}

long wsc_recv(struct wsc *w, char **out, int timeout_ms) {
    *out = NULL;
    if (w->closed) return 0;
    long long deadline = fv_clock_ms() + timeout_ms;
    for (;;) {
        struct wsc_frame f;
        int h = wsc_frame_parse(w->in, w->inlen, &f);
        if (h < 0) return seterr(w, "invalid frame from the server");
        if (h > 0 && f.payload_len > WSC_MAX_MESSAGE) return seterr(w, "message too large");
        if (h == 0 || w->inlen < h + f.payload_len) {
            int r = fill(w, deadline);
            if (r == -2) {
                w->closed = 1;
                if (!w->close_code) w->close_code = 1006;
                return 0;
            }
            if (r) return -1;
            continue;
        }
        const uint8_t *p = w->in + h;
        size_t n = (size_t)f.payload_len;
        if (f.op == WSC_CLOSE) {
            w->closed = 1;
            w->close_code = n >= 2 ? p[0] << 8 | p[1] : 1005;
            size_t rl = n > 2 ? n - 2 : 0;
            if (rl >= sizeof w->close_reason) rl = sizeof w->close_reason - 1;
            memcpy(w->close_reason, p + 2, rl);
            w->close_reason[rl] = 0;
            consume(w, h + n);
            return 0;
        }
        if (f.op == WSC_PING) {
            uint8_t payload[125];
            memcpy(payload, p, n);
            consume(w, h + n);
            wsc_send_frame(w, WSC_PONG, 1, payload, n);
            continue;
        }
        if (f.op == WSC_PONG) {
            consume(w, h + n);
            continue;
        }
        if (w->msglen + n > WSC_MAX_MESSAGE) return seterr(w, "message too large");
        char *m = realloc(w->msg, w->msglen + n + 1);
        if (!m) return seterr(w, "out of memory");
        w->msg = m;
        memcpy(w->msg + w->msglen, p, n);
        w->msglen += n;
        consume(w, h + n);
        if (!f.fin) continue;
        w->msg[w->msglen] = 0;
        long len = (long)w->msglen;
        log_add(w, w->msg, w->msglen);
        *out = w->msg;
        w->msg = NULL;
        w->msglen = 0;
        return len;
    }
}

int wsc_send_json(struct wsc *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    json_error_t jerr;
    json_t *o = json_vpack_ex(&jerr, 0, fmt, ap);
    va_end(ap);
    if (!o) return seterr(w, "json_pack: %s", jerr.text);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int rc = s ? wsc_send_text(w, s) : seterr(w, "json_dumps failed");
    free(s);
    return rc;
}

json_t *wsc_recv_type(struct wsc *w, const char *type, int timeout_ms) {
    return wsc_recv_types(w, type, NULL, timeout_ms);
}

json_t *wsc_recv_types(struct wsc *w, const char *type, const char *or_type, int timeout_ms) {
    long long deadline = fv_clock_ms() + timeout_ms;
    for (;;) {
        long left = (long)(deadline - fv_clock_ms());
        if (left < 0) left = 0;
        char *m;
        long n = wsc_recv(w, &m, (int)left);
        if (n <= 0) return NULL;
        json_t *o = json_loads(m, 0, NULL);
        free(m);
        const char *t = json_string_value(json_object_get(o, "t"));
        if (t && (!strcmp(t, type) || (or_type && !strcmp(t, or_type)))) return o;
        json_decref(o);
    }
}
