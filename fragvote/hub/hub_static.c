/* The static files: the phone page, its scripts and style, the screen's and
 * the presenter's pages. Each file of the root (flat: no subdirectories)
 * of at most HUB_STATIC_FILE_MAX bytes is read into memory the first time
 * it is asked for, with a gzip copy when it is text and gzip is smaller,
 * and read again when its size or mtime changed, which is looked at (a
 * stat, one per part for a join) at most every HUB_STATIC_RECHECK_MS: not
 * for each of the ~60,000 requests of a join storm.
 * A request is answered in one write, headers and body together: lws's
 * own file serving sent the headers, then asked for a writeable (two
 * epoll_ctl calls and a loop turn) to send the body, for each of the phone
 * page's files in a join storm of 19,900 phones (issue 22).
 *
 * A script's name may join several of the root's: "common,path,phone.js"
 * is common.js, path.js and phone.js one after the other (each followed by
 * a line ";", so that no part's last statement runs on into the next), at
 * most HUB_STATIC_JOIN_MAX parts, and only the joins the hub lists (the
 * pages' own: any other name with a comma is 404, so that requests for
 * ever new combinations can neither fill the table of files nor make the
 * loop read and gzip the same bytes again and again). Each page loads its
 * scripts so, in one request instead of three: per phone in a join storm,
 * two requests fewer on keep-alive, or two connections fewer where a
 * browser opens one per resource. The parts stay files of their own; the
 * join is read again when any of them changed, and its size and mtime for
 * the ETag are the joined bytes' and the newest part's.
 *
 * Each answer carries "cache-control: must-revalidate, private,
 * max-age=HUB_STATIC_MAX_AGE_S" and an ETag of the bytes sent (their
 * length and the file's mtime, so a plain and a gzip answer never share
 * one); If-None-Match with it answers 304 without a body. The projector's
 * and the presenter's pages are "no-store" instead, without a validator. lws adds the
 * headers of every answer (hub_http_headers: vary, CSP, nosniff); each answer
 * here adds who may frame it (st_frame_headers). Runs on the lws thread. */
#include "hub_static.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hub.h"
#include "fv_clock.h"

struct st_file {
    char *name;
    off_t size;                      /* the file's (a join's: its parts' sizes summed), when read */
    time_t mtime;                    /* the file's (a join's: its newest part's) */
    long long checked_ms;            /* fv_clock_coarse_ms() of the last stat */
    unsigned char *plain, *gz;       /* gz NULL: not text, or no smaller */
    size_t len, gz_len;
};

#define ST_JOIN_CH ','                 /* between the parts of a joined script's name */
#define ST_JOIN_SEP "\n;\n"           /* after each part of a join */
#define ST_NAME_MAX 256                /* a name in the root (st_name_ok: at most 200) */

struct hub_static {
    int dir;                         /* the root, open (every read is relative to it: hub_static_new) */
    const char *const *joins;        /* the joins it serves (NULL-terminated) */
    struct st_file f[HUB_STATIC_FILES];
    int n;
    unsigned char *buf;              /* LWS_PRE + headers + body of the answer being written */
    size_t cap;
};

static const struct {
    const char *ext, *type;
    int text;
} st_types[] = {{".html", "text/html", 1},        {".css", "text/css", 1},
                {".js", "text/javascript", 1},    {".svg", "image/svg+xml", 1},
                {".json", "application/json", 1}, {".txt", "text/plain", 1},
                {".png", "image/png", 0},         {".ico", "image/x-icon", 0}};

static int st_type(const char *name) {
    size_t nl = strlen(name);
    for (size_t i = 0; i < sizeof st_types / sizeof st_types[0]; i++) {
        size_t el = strlen(st_types[i].ext);
        if (nl > el && !strcmp(name + nl - el, st_types[i].ext)) return (int)i;
    }
    return -1;
}

/* The gzip bytes of in (malloc'd), or NULL (no memory, or no smaller). */
static unsigned char *st_gzip(const unsigned char *in, size_t len, size_t *outlen) {
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    uLong cap = deflateBound(&z, (uLong)len);
    unsigned char *out = malloc(cap);
    int rc = Z_STREAM_ERROR;
    if (out) {
        z.next_in = (unsigned char *)in, z.avail_in = (uInt)len;
        z.next_out = out, z.avail_out = (uInt)cap;
        rc = deflate(&z, Z_FINISH);
    }
    *outlen = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END || *outlen >= len) return free(out), NULL;
    return out;
}

/* A name the root may serve: one path component of letters, digits, '.',
 * '-' and '_', not starting with a dot. */
static int st_name_ok(const char *name) {
    if (!name[0] || name[0] == '.' || strlen(name) > 200) return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
              *c == '-' || *c == '_'))
            return 0;
    return 1;
}

static int st_join_listed(const struct hub_static *s, const char *name) {
    for (const char *const *j = s->joins; j && *j; j++)
        if (!strcmp(*j, name)) return 1;
    return 0;
}

/* The files name stands for: itself, or a join's parts ("a,b.js": a.js and
 * b.js), each as a name in the root. Returns their number, 0 for a name that
 * is not servable (a join not in s->joins, of more than HUB_STATIC_JOIN_MAX
 * parts, or of anything but scripts). A join is served only as listed, so
 * its name is the hub's own, not the request's. */
static int st_parts(const struct hub_static *s, const char *name, char path[][ST_NAME_MAX]) {
    const char *ext = strrchr(name, '.');
    if (!strchr(name, ST_JOIN_CH)) {
        if (!st_name_ok(name)) return 0;
        return snprintf(path[0], sizeof path[0], "%s", name) < (int)sizeof path[0];
    }
    if (!ext || strcmp(ext, ".js") || !st_join_listed(s, name)) return 0;
    int n = 0;
    for (const char *p = name; p < ext;) {
        const char *sep = strchr(p, ST_JOIN_CH);
        size_t l = (size_t)((sep && sep < ext ? sep : ext) - p);
        if (n == HUB_STATIC_JOIN_MAX ||
            snprintf(path[n++], sizeof path[0], "%.*s.js", (int)l, p) >= (int)sizeof path[0])
            return 0;
        p += l + 1;
    }
    return n;
}

/* Appends the root's file name, of size bytes, to b; 0, or -1. */
static int st_read(const struct hub_static *s, const char *name, off_t size, unsigned char *b) {
    int fd = openat(s->dir, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return -1;
    }
    size_t got = fread(b, 1, (size_t)size, f);
    fclose(f);
    return got == (size_t)size ? 0 : -1;
}

/* The file (or join) named name, read or read again if it (a part of it)
 * changed; NULL: not a servable file (missing, not regular, too large,
 * unreadable, no room). */
static struct st_file *st_file(struct hub_static *s, const char *name, int type) {
    char path[HUB_STATIC_JOIN_MAX][ST_NAME_MAX];
    struct stat st;
    struct st_file *f = NULL;
    for (int i = 0; i < s->n && !f; i++)
        if (!strcmp(s->f[i].name, name)) f = &s->f[i];
    long long now = fv_clock_coarse_ms();
    if (f && f->plain && now - f->checked_ms < HUB_STATIC_RECHECK_MS) return f;
    int n = st_parts(s, name, path);
    if (!n) return NULL;
    off_t size = 0, part[HUB_STATIC_JOIN_MAX];
    time_t mtime = 0;
    for (int i = 0; i < n; i++) {
        if (fstatat(s->dir, path[i], &st, 0) || !S_ISREG(st.st_mode) || st.st_size > HUB_STATIC_FILE_MAX) return NULL;
        part[i] = st.st_size;
        size += st.st_size;
        if (st.st_mtime > mtime) mtime = st.st_mtime;
    }
    /* the separator after each part of a join; a plain file has none */
    size_t sep = n > 1 ? strlen(ST_JOIN_SEP) : 0;
    size_t len = (size_t)size + (size_t)n * sep;
    if (len > HUB_STATIC_FILE_MAX) return NULL;
    if (f && f->plain && f->size == size && f->mtime == mtime) {
        f->checked_ms = now;
        return f;
    }
    if (!f) {
        if (s->n == HUB_STATIC_FILES) return NULL;
        char *nm = strdup(name);
        if (!nm) return NULL;
        f = &s->f[s->n++];
        memset(f, 0, sizeof *f);
        f->name = nm;
    }
    free(f->plain), free(f->gz);
    f->gz = NULL;
    f->plain = malloc(len + 1); /* + 1: an empty file is not malloc(0), which may give NULL */
    size_t at = 0;
    for (int i = 0; f->plain && i < n; i++) {
        if (st_read(s, path[i], part[i], f->plain + at)) return free(f->plain), f->plain = NULL, NULL;
        at += (size_t)part[i];
        memcpy(f->plain + at, ST_JOIN_SEP, sep);
        at += sep;
    }
    if (!f->plain) return NULL;
    f->size = size;
    f->len = len;
    f->mtime = mtime;
    f->checked_ms = now;
    if (st_types[type].text) f->gz = st_gzip(f->plain, len, &f->gz_len);
    return f;
}

/* Whether the request's If-None-Match names etag (a list, or "*"). */
static int st_not_modified(struct lws *wsi, const char *etag) {
    char inm[256];
    if (lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) <= 0) return 0;
    return !strcmp(inm, "*") || strstr(inm, etag) != NULL;
}

static int st_accepts_gzip(struct lws *wsi) {
    char ae[256];
    return lws_hdr_copy(wsi, ae, sizeof ae, WSI_TOKEN_HTTP_ACCEPT_ENCODING) > 0 && strstr(ae, "gzip") != NULL;
}

/* Who may frame the answer (hub_static.h): a second policy beside the one
 * of every answer (hub_http_headers), which browsers enforce as well; its
 * only directive differs by page. 0, or -1 when the headers' room is full. */
static int st_frame_headers(struct lws *wsi, const char *frame, unsigned char **p, unsigned char *end) {
    char fa[600];
    int n = snprintf(fa, sizeof fa, "frame-ancestors %s", frame ? frame : "'none'");
    if (n >= (int)sizeof fa ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:", (const unsigned char *)fa, n,
                                    p, end))
        return -1;
    return frame ? 0
                 : lws_add_http_header_by_name(wsi, (const unsigned char *)"x-frame-options:",
                                               (const unsigned char *)"DENY", 4, p, end);
}

int hub_static_answer(struct hub_static *s, struct lws *wsi, const char *path, int cacheable, const char *frame) {
    const char *name = path[0] == '/' ? path + 1 : path;
    if (!name[0]) name = "index.html";
    int type = st_type(name);
    struct st_file *f = type >= 0 ? st_file(s, name, type) : NULL;
    if (!f) {
        if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL)) return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    int gz = f->gz && st_accepts_gzip(wsi);
    const unsigned char *body = gz ? f->gz : f->plain;
    size_t blen = gz ? f->gz_len : f->len;
    char etag[48], clen[24], cc[64];
    snprintf(etag, sizeof etag, "\"%zx-%llx\"", blen, (unsigned long long)f->mtime);
    int not_modified = cacheable && st_not_modified(wsi, etag);
    int head = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
    size_t send_body = not_modified || head ? 0 : blen;
    size_t need = LWS_PRE + 1536 + send_body;
    if (need > s->cap) {
        unsigned char *b = realloc(s->buf, need);
        if (!b) return -1;
        s->buf = b, s->cap = need;
    }
    unsigned char *start = s->buf + LWS_PRE, *p = start, *end = s->buf + LWS_PRE + 1536;
    int cl = snprintf(clen, sizeof clen, "%zu", blen);
    int ccl = cacheable ? snprintf(cc, sizeof cc, "must-revalidate, private, max-age=%d", HUB_STATIC_MAX_AGE_S)
                        : snprintf(cc, sizeof cc, "no-store");
    if (lws_add_http_header_status(wsi, not_modified ? HTTP_STATUS_NOT_MODIFIED : HTTP_STATUS_OK, &p, end) ||
        (!not_modified && gz &&
         lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_ENCODING, (const unsigned char *)"gzip", 4, &p, end)) ||
        (!not_modified &&
         (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, (const unsigned char *)st_types[type].type,
                                       (int)strlen(st_types[type].type), &p, end) ||
          lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, (const unsigned char *)clen, cl, &p, end))) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (const unsigned char *)cc, ccl, &p, end) ||
        (cacheable &&
         lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_ETAG, (const unsigned char *)etag, (int)strlen(etag), &p, end)) ||
        st_frame_headers(wsi, frame, &p, end) || lws_finalize_http_header(wsi, &p, end))
        return -1;
    memcpy(p, body, send_body);
    p += send_body;
    if (lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_FINAL) < 0) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

struct hub_static *hub_static_new(int dir, const char *const *joins) {
    struct hub_static *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dir = dir;
    s->joins = joins;
    return s;
}

void hub_static_free(struct hub_static *s) {
    if (!s) return;
    for (int i = 0; i < s->n; i++) free(s->f[i].name), free(s->f[i].plain), free(s->f[i].gz);
    free(s->buf);
    close(s->dir);
    free(s);
}
