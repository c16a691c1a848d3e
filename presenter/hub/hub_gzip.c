/* The static files in gzip for clients that take it: lws's file operations
 * (context info.fops) with an open that, when the request said
 * "Accept-Encoding: gzip" and the file is text (html, css, js, svg, json,
 * txt) of at most HUB_GZIP_FILE_MAX bytes, answers from a gzip copy made
 * once in memory and kept while the file's size and mtime stay the same.
 * lws then sends "Content-Encoding: gzip"; its ETag (length + mtime) is the
 * copy's, so a plain and a gzip answer never share a validator, and a 304
 * works for both. Anything else (directories, other types, a client without
 * gzip) is lws's own platform file, unchanged. Runs on the lws thread. */
#include "hub_gzip.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "hub.h"

struct gz_entry {
    char *path;
    off_t size;                      /* the file's, when compressed */
    time_t mtime;
    unsigned char *data;             /* NULL: not worth it (no smaller), serve plain */
    size_t len;
};

struct hub_gzip {
    struct lws_plat_file_ops ops;    /* first: the fops lws is given */
    struct gz_entry e[HUB_GZIP_FILES];
    int n;
};

static int gz_text(const char *path) {
    static const char *ext[] = {".html", ".css", ".js", ".svg", ".json", ".txt"};
    size_t pl = strlen(path);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t el = strlen(ext[i]);
        if (pl > el && !strcmp(path + pl - el, ext[i])) return 1;
    }
    return 0;
}

/* The gzip bytes of the file (malloc'd), or NULL (unreadable, no memory). */
static unsigned char *gz_compress(const char *path, off_t size, size_t *outlen) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *in = malloc((size_t)size + 1);
    size_t got = in ? fread(in, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!in || got != (size_t)size) return free(in), NULL;
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return free(in), NULL;
    uLong cap = deflateBound(&z, (uLong)size);
    unsigned char *out = malloc(cap);
    int rc = Z_STREAM_ERROR;
    if (out) {
        z.next_in = in, z.avail_in = (uInt)size;
        z.next_out = out, z.avail_out = (uInt)cap;
        rc = deflate(&z, Z_FINISH);
    }
    *outlen = z.total_out;
    deflateEnd(&z);
    free(in);
    if (rc != Z_STREAM_END) return free(out), NULL;
    return out;
}

/* The entry for path, made or remade when the file changed; NULL: none. */
static struct gz_entry *gz_entry(struct hub_gzip *g, const char *path, const struct stat *st) {
    struct gz_entry *e = NULL;
    for (int i = 0; i < g->n && !e; i++)
        if (!strcmp(g->e[i].path, path)) e = &g->e[i];
    if (e && e->size == st->st_size && e->mtime == st->st_mtime) return e;
    if (!e) {
        if (g->n == HUB_GZIP_FILES) return NULL;
        char *p = strdup(path);
        if (!p) return NULL;
        e = &g->e[g->n++];
        memset(e, 0, sizeof *e);
        e->path = p;
    }
    free(e->data);
    e->data = gz_compress(path, st->st_size, &e->len);
    if (e->data && e->len >= (size_t)st->st_size) { /* no smaller: plain */
        free(e->data);
        e->data = NULL;
    }
    e->size = st->st_size;
    e->mtime = st->st_mtime;
    return e;
}

static lws_fop_fd_t gz_open(const struct lws_plat_file_ops *fops, const char *filename, const char *vpath,
                            lws_fop_flags_t *flags) {
    struct hub_gzip *g = (struct hub_gzip *)fops; /* ops is the first member */
    struct stat st;
    if ((*flags & LWS_FOP_FLAG_COMPR_ACCEPTABLE_GZIP) && ((*flags) & LWS_FOP_FLAGS_MASK) == LWS_O_RDONLY &&
        gz_text(filename) && !stat(filename, &st) && S_ISREG(st.st_mode) && st.st_size <= HUB_GZIP_FILE_MAX) {
        struct gz_entry *e = gz_entry(g, filename, &st);
        lws_fop_fd_t fd = e && e->data ? calloc(1, sizeof *fd) : NULL;
        if (fd) {
            /* virtual: lws does not fstat it; the mtime is the file's */
            *flags |= LWS_FOP_FLAG_COMPR_IS_GZIP | LWS_FOP_FLAG_VIRTUAL | LWS_FOP_FLAG_MOD_TIME_VALID;
            fd->fd = LWS_INVALID_FILE;
            fd->fops = fops;
            fd->filesystem_priv = e;
            fd->len = e->len;
            fd->flags = *flags;
            fd->mod_time = (uint32_t)st.st_mtime;
            return fd;
        }
    }
    return _lws_plat_file_open(fops, filename, vpath, flags);
}

static int gz_close(lws_fop_fd_t *fd) {
    if (!(*fd)->filesystem_priv) return _lws_plat_file_close(fd);
    free(*fd);
    *fd = NULL;
    return 0;
}

static lws_fileofs_t gz_seek_cur(lws_fop_fd_t fd, lws_fileofs_t ofs) {
    if (!fd->filesystem_priv) return _lws_plat_file_seek_cur(fd, ofs);
    lws_fileofs_t to = (lws_fileofs_t)fd->pos + ofs;
    if (to < 0) to = 0;
    if (to > (lws_fileofs_t)fd->len) to = (lws_fileofs_t)fd->len;
    fd->pos = (lws_filepos_t)to;
    return to;
}

static int gz_read(lws_fop_fd_t fd, lws_filepos_t *amount, uint8_t *buf, lws_filepos_t len) {
    if (!fd->filesystem_priv) return _lws_plat_file_read(fd, amount, buf, len);
    const struct gz_entry *e = fd->filesystem_priv;
    lws_filepos_t n = fd->len - fd->pos < len ? fd->len - fd->pos : len;
    memcpy(buf, e->data + fd->pos, (size_t)n);
    fd->pos += n;
    *amount = n;
    return 0;
}

static int gz_write(lws_fop_fd_t fd, lws_filepos_t *amount, uint8_t *buf, lws_filepos_t len) {
    if (!fd->filesystem_priv) return _lws_plat_file_write(fd, amount, buf, len);
    *amount = 0;
    return -1; /* a gzip copy is read-only */
}

struct hub_gzip *hub_gzip_new(void) {
    struct hub_gzip *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->ops.LWS_FOP_OPEN = gz_open;
    g->ops.LWS_FOP_CLOSE = gz_close;
    g->ops.LWS_FOP_SEEK_CUR = gz_seek_cur;
    g->ops.LWS_FOP_READ = gz_read;
    g->ops.LWS_FOP_WRITE = gz_write;
    return g;
}

const struct lws_plat_file_ops *hub_gzip_fops(const struct hub_gzip *g) { return &g->ops; }

void hub_gzip_free(struct hub_gzip *g) {
    if (!g) return;
    for (int i = 0; i < g->n; i++) free(g->e[i].path), free(g->e[i].data);
    free(g);
}
