/* Pure helpers of the load generator: a top-level JSON member scanner (the
 * generator reads ~500k small server messages per big run; a full parse of
 * each would make the generator the bottleneck), percentiles and /proc
 * parsers. No I/O except load_proc_sample. */
#include "load.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdint.h>
#include <unistd.h>
#include <zlib.h>

static size_t skip_ws(const char *b, size_t i, size_t n) {
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
    return i;
}

/* i at an opening quote: returns the index after the closing one, or n+1 if unterminated. */
static size_t skip_string(const char *b, size_t i, size_t n) {
    for (i++; i < n; i++) {
        if (b[i] == '\\') i++;
        else if (b[i] == '"') return i + 1;
    }
    return n + 1;
}

/* i at the first byte of a value: returns the index after it, or n+1 if malformed. */
static size_t skip_value(const char *b, size_t i, size_t n) {
    if (i >= n) return n + 1;
    if (b[i] == '"') return skip_string(b, i, n);
    if (b[i] == '{' || b[i] == '[') {
        int depth = 0;
        while (i < n) {
            char c = b[i];
            if (c == '"') {
                i = skip_string(b, i, n);
                if (i > n) return n + 1;
                continue;
            }
            if (c == '{' || c == '[') depth++;
            else if (c == '}' || c == ']') {
                if (--depth == 0) return i + 1;
            }
            i++;
        }
        return n + 1;
    }
    size_t s = i;
    while (i < n && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' &&
           b[i] != '\r')
        i++;
    return i > s ? i : n + 1;
}

int load_json_field(const char *buf, size_t len, const char *key, const char **val, size_t *vlen) {
    size_t klen = strlen(key);
    size_t i = skip_ws(buf, 0, len);
    if (i >= len || buf[i] != '{') return -1;
    i = skip_ws(buf, i + 1, len);
    if (i < len && buf[i] == '}') return -1;
    while (i < len) {
        if (buf[i] != '"') return -1;
        size_t ks = i + 1, ke = skip_string(buf, i, len);
        if (ke > len) return -1;
        int match = ke - 1 - ks == klen && !memcmp(buf + ks, key, klen);
        i = skip_ws(buf, ke, len);
        if (i >= len || buf[i] != ':') return -1;
        i = skip_ws(buf, i + 1, len);
        size_t vs = i, ve = skip_value(buf, i, len);
        if (ve > len) return -1;
        if (match) {
            *val = buf + vs;
            *vlen = ve - vs;
            return 0;
        }
        i = skip_ws(buf, ve, len);
        if (i >= len) return -1;
        if (buf[i] == '}') return -1;
        if (buf[i] != ',') return -1;
        i = skip_ws(buf, i + 1, len);
    }
    return -1;
}

int load_json_int(const char *buf, size_t len, const char *key, long long *out) {
    const char *v;
    size_t vl;
    if (load_json_field(buf, len, key, &v, &vl) < 0 || vl == 0 || vl > 20) return -1;
    char tmp[24];
    memcpy(tmp, v, vl);
    tmp[vl] = 0;
    char *end;
    long long x = strtoll(tmp, &end, 10);
    if (*end || end == tmp || !(tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9'))) return -1;
    *out = x;
    return 0;
}

int load_json_str_is(const char *buf, size_t len, const char *key, const char *want) {
    const char *v;
    size_t vl;
    if (load_json_field(buf, len, key, &v, &vl) < 0) return -1;
    size_t wl = strlen(want);
    return vl == wl + 2 && v[0] == '"' && !memcmp(v + 1, want, wl) && v[vl - 1] == '"';
}

int load_json_str_copy(const char *buf, size_t len, const char *key, char *out, size_t outlen) {
    const char *v;
    size_t vl;
    if (load_json_field(buf, len, key, &v, &vl) < 0 || vl < 2 || v[0] != '"' || vl - 2 >= outlen) return -1;
    if (memchr(v + 1, '\\', vl - 2)) return -1;
    memcpy(out, v + 1, vl - 2);
    out[vl - 2] = 0;
    return 0;
}

int load_json_array_int(const char *buf, size_t len, const char *key, int idx, long long *out) {
    const char *v;
    size_t vl;
    if (idx < 0 || load_json_field(buf, len, key, &v, &vl) < 0 || v[0] != '[') return -1;
    size_t i = skip_ws(v, 1, vl);
    for (int k = 0; i < vl && v[i] != ']'; k++) {
        size_t e = skip_value(v, i, vl);
        if (e > vl) return -1;
        if (k == idx) {
            char tmp[24], *end;
            if (e - i == 0 || e - i > 20) return -1;
            memcpy(tmp, v + i, e - i);
            tmp[e - i] = 0;
            long long x = strtoll(tmp, &end, 10);
            if (*end || !(tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9'))) return -1;
            *out = x;
            return 0;
        }
        i = skip_ws(v, e, vl);
        if (i < vl && v[i] == ',') i = skip_ws(v, i + 1, vl);
        else if (i >= vl || v[i] != ']') return -1;
    }
    return -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double rank(const double *v, size_t n, double p) {
    size_t k = (size_t)((p / 100.0) * (double)n + 0.999999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

void load_lat_summarize(double *v, size_t n, struct load_lat *out) {
    memset(out, 0, sizeof *out);
    out->n = n;
    if (!n) return;
    qsort(v, n, sizeof *v, cmp_double);
    out->p50 = rank(v, n, 50);
    out->p90 = rank(v, n, 90);
    out->p99 = rank(v, n, 99);
    out->max = v[n - 1];
}

int load_proc_stat_ticks(const char *buf, unsigned long long *ticks) {
    /* "pid (comm) state ppid ..." where comm may hold spaces and ')':
     * the fields start after the last ')'. utime and stime are fields 14 and 15. */
    const char *p = strrchr(buf, ')');
    if (!p) return -1;
    p++;
    unsigned long long ut = 0, st = 0;
    for (int field = 3; field <= 15; field++) {
        while (*p == ' ') p++;
        if (!*p) return -1;
        char *end;
        if (field == 14) ut = strtoull(p, &end, 10);
        else if (field == 15) st = strtoull(p, &end, 10);
        else {
            end = (char *)p;
            while (*end && *end != ' ') end++;
        }
        if (end == p) return -1;
        p = end;
    }
    *ticks = ut + st;
    return 0;
}

int load_proc_status_rss(const char *buf, long *rss_kb) {
    const char *p = strstr(buf, "\nVmRSS:");
    if (!p) p = !strncmp(buf, "VmRSS:", 6) ? buf - 1 : NULL;
    if (!p) return -1;
    p += 7;
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0) return -1;
    *rss_kb = v;
    return 0;
}

static long read_small(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return (long)n;
}

void load_proc_sample(int pid, struct load_proc *out) {
    char path[64], buf[4096];
    unsigned long long ticks;
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (read_small(path, buf, sizeof buf) <= 0 || load_proc_stat_ticks(buf, &ticks) < 0) return;
    out->cpu_s = (double)ticks / (double)sysconf(_SC_CLK_TCK);
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (read_small(path, buf, sizeof buf) <= 0 || load_proc_status_rss(buf, &out->rss_kb) < 0) return;
    out->ok = 1;
}

int load_is_loopback4(const char *s) {
    struct in_addr a;
    if (!s || inet_pton(AF_INET, s, &a) != 1) return 0;
    return (ntohl(a.s_addr) >> 24) == 127;
}

int load_first_tally(const double *t, const long long *votes, int n, double after, long long need) {
    int lo = 0, hi = n; /* first with votes >= need */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (votes[mid] >= need) hi = mid;
        else lo = mid + 1;
    }
    int a = lo;
    lo = 0, hi = n; /* first with t >= after */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (t[mid] >= after) hi = mid;
        else lo = mid + 1;
    }
    return a > lo ? a : lo;
}

/* Whether an attribute value names a path on this server. */
static int local_path(const char *v, size_t n) {
    if (!n || v[0] == '#' || (n >= 2 && v[0] == '/' && v[1] == '/')) return 0;
    for (size_t i = 0; i < n && v[i] != '/' && v[i] != '?'; i++)
        if (v[i] == ':') return 0; /* a scheme: http:, data:, javascript: */
    return 1;
}

int load_html_resources(const char *html, size_t len, char out[][LOAD_PATH_MAX], int max) {
    int n = 0;
    for (size_t i = 0; i + 5 < len && n < max; i++) {
        size_t skip;
        if (!strncasecmp(html + i, "src=\"", 5)) skip = 5;
        else if (i + 6 < len && !strncasecmp(html + i, "href=\"", 6)) skip = 6;
        else continue;
        if (i > 0 && (isalnum((unsigned char)html[i - 1]) || html[i - 1] == '-')) continue; /* data-src= */
        const char *v = html + i + skip, *end = memchr(v, '"', len - i - skip);
        if (!end) break;
        size_t vl = (size_t)(end - v);
        i = (size_t)(end - html);
        if (!local_path(v, vl) || vl + 2 > LOAD_PATH_MAX) continue;
        char path[LOAD_PATH_MAX];
        snprintf(path, sizeof path, "%s%.*s", v[0] == '/' ? "" : "/", (int)vl, v);
        int dup = 0;
        for (int k = 0; k < n && !dup; k++) dup = !strcmp(out[k], path);
        if (!dup) snprintf(out[n++], LOAD_PATH_MAX, "%s", path);
    }
    return n;
}

int load_http_response(const char *buf, size_t len, int *status, size_t *header_len, long long *body_len,
                       int *keep_alive) {
    const char *end = NULL;
    for (size_t i = 0; i + 3 < len; i++)
        if (!memcmp(buf + i, "\r\n\r\n", 4)) {
            end = buf + i + 4;
            break;
        }
    if (len >= 8 && strncmp(buf, "HTTP/1.", 7)) return -1;
    if (!end) return len > 65536 ? -1 : 0;
    int st = 0;
    if ((size_t)(end - buf) < 12 || buf[8] != ' ' || !isdigit((unsigned char)buf[9]) ||
        !isdigit((unsigned char)buf[10]) || !isdigit((unsigned char)buf[11]))
        return -1;
    st = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    if (st < 100) return -1;
    *status = st;
    *header_len = (size_t)(end - buf);
    *keep_alive = buf[7] == '1';
    *body_len = -1;
    /* header lines, each ending in LF, all before end (no NUL needed) */
    for (const char *nl = memchr(buf, '\n', (size_t)(end - buf)); nl && nl + 1 < end;) {
        const char *h = nl + 1;
        nl = memchr(h, '\n', (size_t)(end - h));
        if (!nl) break;
        size_t hl = (size_t)(nl - h);
        if (hl > 15 && !strncasecmp(h, "content-length:", 15)) {
            long long v = 0;
            size_t k = 15;
            while (k < hl && h[k] == ' ') k++;
            if (k >= hl || !isdigit((unsigned char)h[k])) return -1;
            for (; k < hl && isdigit((unsigned char)h[k]); k++) {
                if (v > (1LL << 40)) return -1;
                v = v * 10 + (h[k] - '0');
            }
            *body_len = v;
        } else if (hl > 11 && !strncasecmp(h, "connection:", 11)) {
            const char *v = h + 11;
            while (v < h + hl && *v == ' ') v++;
            if (h + hl - v >= 5 && !strncasecmp(v, "close", 5)) *keep_alive = 0;
            else if (h + hl - v >= 10 && !strncasecmp(v, "keep-alive", 10)) *keep_alive = 1;
        }
    }
    if (st == 304 || st == 204 || (st >= 100 && st < 200)) *body_len = 0;
    if (*body_len < 0) {
        *keep_alive = 0; /* the body runs until the server closes */
        return 0;
    }
    return len >= *header_len + (size_t)*body_len ? 1 : 0;
}

int load_http_gzip(const char *buf, size_t header_len) {
    for (const char *nl = memchr(buf, '\n', header_len); nl && nl + 1 < buf + header_len;) {
        const char *h = nl + 1;
        nl = memchr(h, '\n', (size_t)(buf + header_len - h));
        if (!nl) break;
        size_t hl = (size_t)(nl - h);
        if (hl > 17 && !strncasecmp(h, "content-encoding:", 17)) {
            const char *v = h + 17;
            while (v < nl && *v == ' ') v++;
            return nl - v >= 4 && !strncasecmp(v, "gzip", 4);
        }
    }
    return 0;
}

char *load_gunzip(const void *in, size_t n, size_t cap, size_t *outlen) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return NULL; /* gzip only */
    char *out = malloc(cap + 1);
    int rc = Z_DATA_ERROR;
    if (out) {
        z.next_in = (Bytef *)(uintptr_t)in, z.avail_in = (uInt)n;
        z.next_out = (Bytef *)out, z.avail_out = (uInt)cap;
        rc = inflate(&z, Z_FINISH);
    }
    size_t got = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) return free(out), NULL;
    out[got] = 0;
    *outlen = got;
    return out;
}
