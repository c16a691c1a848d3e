/* The static files: the phone page, its scripts and style, the screen's and
 * the presenter's pages. Each file of the root (flat: no subdirectories)
 * of at most HUB_STATIC_FILE_MAX bytes is read into memory the first time
 * it is asked for, with a gzip copy when it is text and gzip is smaller,
 * and read again when its size or mtime changed (one stat per request).
 * A request is answered in one write, headers and body together: lws's
 * own file serving sent the headers, then asked for a writeable (two
 * epoll_ctl calls and a loop turn) to send the body, for each of the phone
 * page's five files in a join storm of 19,900 phones (issue 22).
 *
 * Each answer carries "cache-control: must-revalidate, private,
 * max-age=HUB_STATIC_MAX_AGE_S" and an ETag of the bytes sent (their
 * length and the file's mtime, so a plain and a gzip answer never share
 * one); If-None-Match with it answers 304 without a body. The projector's
 * and the presenter's pages are "no-store" instead, without a validator. lws adds the
 * headers of every answer (hub_http_headers: vary, CSP, nosniff). Runs on
 * the lws thread. */
#include "hub_static.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "hub.h"

struct st_file {
    char *name;
    off_t size;                      /* the file's, when read */
    time_t mtime;
    unsigned char *plain, *gz;       /* gz NULL: not text, or no smaller */
    size_t gz_len;
};

struct hub_static {
    char root[4096];
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

/* The whole file (malloc'd), or NULL. */
static unsigned char *st_read(const char *path, off_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = malloc((size_t)size + 1);
    size_t got = b ? fread(b, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!b || got != (size_t)size) return free(b), NULL;
    return b;
}

/* The file named name, read or read again if it changed; NULL: not a
 * servable file (missing, not regular, too large, unreadable, no room). */
static struct st_file *st_file(struct hub_static *s, const char *name, int type) {
    char path[sizeof s->root + 256];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", s->root, name) >= (int)sizeof path || stat(path, &st) ||
        !S_ISREG(st.st_mode) || st.st_size > HUB_STATIC_FILE_MAX)
        return NULL;
    struct st_file *f = NULL;
    for (int i = 0; i < s->n && !f; i++)
        if (!strcmp(s->f[i].name, name)) f = &s->f[i];
    if (f && f->plain && f->size == st.st_size && f->mtime == st.st_mtime) return f;
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
    f->plain = st_read(path, st.st_size);
    if (!f->plain) return NULL;
    f->size = st.st_size;
    f->mtime = st.st_mtime;
    if (st_types[type].text) f->gz = st_gzip(f->plain, (size_t)f->size, &f->gz_len);
    return f;
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

int hub_static_answer(struct hub_static *s, struct lws *wsi, const char *path, int cacheable) {
    const char *name = path[0] == '/' ? path + 1 : path;
    if (!name[0]) name = "index.html";
    int type = st_name_ok(name) ? st_type(name) : -1;
    struct st_file *f = type >= 0 ? st_file(s, name, type) : NULL;
    if (!f) {
        if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL)) return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    int gz = f->gz && st_accepts_gzip(wsi);
    const unsigned char *body = gz ? f->gz : f->plain;
    size_t blen = gz ? f->gz_len : (size_t)f->size;
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
        lws_finalize_http_header(wsi, &p, end))
        return -1;
    memcpy(p, body, send_body);
    p += send_body;
    if (lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_FINAL) < 0) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

struct hub_static *hub_static_new(const char *root) {
    struct hub_static *s = calloc(1, sizeof *s);
    if (s) snprintf(s->root, sizeof s->root, "%s", root);
    return s;
}

void hub_static_free(struct hub_static *s) {
    if (!s) return;
    for (int i = 0; i < s->n; i++) free(s->f[i].name), free(s->f[i].plain), free(s->f[i].gz);
    free(s->buf);
    free(s);
}
