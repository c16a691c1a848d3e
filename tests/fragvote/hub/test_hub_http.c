/* The live hub's HTTP (hubroom.h): the pages carry no truth, static files
 * with validators (a reload is a 304), from memory, HEAD, gzip to the
 * clients that take it, each page's scripts in one join. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "db_ckpt.h"
#include "hub_fd.h"
#include "hubroom.h"
#include "tcp_client.h"

static void test_pages_are_served_and_carry_no_truth(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    const char *paths[] = {"/", "/screen", "/presenter", "/phone.js", "/style.css", "/?room=TEST42"};
    const char *marks[] = {"phone.js", "screen.js", "presenter.js", "hello", "--bg", "phone.js"};
    for (int i = 0; i < 6; i++) {
        size_t n;
        char *r = hubroom_http_get(paths[i], &n);
        REQUIRE(r);
        if (!strncmp(r, "HTTP/1.0 301", 12) || !strncmp(r, "HTTP/1.1 301", 12)) {
            /* /screen -> /screen/ : follow it as a browser does */
            char want[64];
            snprintf(want, sizeof want, "%s/", paths[i]);
            char *loc = strcasestr(r, "location:");
            CHECK(loc && strstr(loc, want));
            free(r);
            r = hubroom_http_get(want, &n);
            REQUIRE(r);
        }
        if (strncmp(r, "HTTP/1.1 200", 12)) fprintf(stderr, "GET %s: %.200s\n", paths[i], r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK_CONTAINS(r, marks[i]);
        CHECK(strcasestr(r, "content-security-policy") != NULL);
        CHECK(!strstr(r, MARKER));
        free(r);
    }
    hubroom_stop();
}

/* One request on a new connection; it asks the server to close after the
 * answer, read whole (NUL-terminated, caller frees) or NULL. */
static char *http_raw(const char *req, size_t *len) {
    char err[256];
    int fd = tcp_connect("127.0.0.1", hubroom.fx.port, NULL, err, sizeof err);
    if (fd < 0) return fprintf(stderr, "%s\n", err), NULL;
    size_t cap = 1 << 20, n = 0; /* the phone's joined script is above 64 KiB */
    char *buf = malloc(cap + 1);
    if (!buf || write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
        free(buf);
        close(fd);
        return NULL;
    }
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 3000) <= 0) break;
        ssize_t r = read(fd, buf + n, cap - n);
        if (r <= 0) break;
        n += (size_t)r;
        if (n == cap) break;
    }
    close(fd);
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

/* The value of header `name` ("etag") in response r, into out; 0 or -1. */
static int header_value(const char *r, const char *name, char *out, size_t outlen) {
    char key[64];
    snprintf(key, sizeof key, "\r\n%s:", name);
    const char *h = strcasestr(r, key), *end = strstr(r, "\r\n\r\n");
    if (!h || (end && h > end)) return -1;
    h += strlen(key);
    while (*h == ' ') h++;
    size_t n = strcspn(h, "\r\n");
    if (n >= outlen) return -1;
    memcpy(out, h, n);
    out[n] = 0;
    return 0;
}

/* A reload costs one small request: the phone page and what it loads carry
 * a validator (ETag) and may be kept HUB_STATIC_MAX_AGE_S; asked again with
 * that validator (If-None-Match), the answer is 304 without a body; with a
 * validator of another version of the file, the file itself. */
static void test_static_files_carry_validators_and_a_reload_is_304(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    const char *paths[] = {"/?room=TEST42", "/style.css", "/common.js", "/phone.js"};
    char want_cc[64];
    snprintf(want_cc, sizeof want_cc, "max-age=%d", HUB_STATIC_MAX_AGE_S);
    for (int i = 0; i < 4; i++) {
        char req[512], etag[128] = "", cc[128] = "";
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", paths[i]);
        size_t full = 0, small = 0;
        char *r = http_raw(req, &full);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "etag", etag, sizeof etag) == 0 && etag[0]);
        CHECK(header_value(r, "cache-control", cc, sizeof cc) == 0 && strstr(cc, want_cc) && !strstr(cc, "no-store"));
        free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\nConnection: close\r\n\r\n",
                 paths[i], etag);
        r = http_raw(req, &small);
        REQUIRE(r);
        if (strncmp(r, "HTTP/1.1 304", 12)) fprintf(stderr, "GET %s with If-None-Match %s: %.120s\n", paths[i], etag, r);
        CHECK(!strncmp(r, "HTTP/1.1 304", 12));
        const char *body = strstr(r, "\r\n\r\n");
        CHECK(body && body[4] == 0); /* headers only */
        printf("%s: %zu bytes, again with its ETag %zu bytes\n", paths[i], full, small);
        CHECK(small < full);
        free(r);
        snprintf(req, sizeof req,
                 "GET %s HTTP/1.1\r\nHost: x\r\nIf-None-Match: 0000000000000000\r\nConnection: close\r\n\r\n",
                 paths[i]);
        r = http_raw(req, NULL);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        free(r);
    }
    hubroom_stop();
}

/* The web root's files are answered from memory (hub_static.c): HEAD gets
 * the headers a GET would (its length, no body); only names of files in
 * the root itself are served (a path with a directory, a dot file, a name
 * that climbs out: 404); the projector's and presenter's pages are
 * no-store without a validator. */
static void test_static_files_from_memory_head_names_and_no_store_pages(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    char req[512], v[128];
    size_t n = 0, head_n = 0;
    snprintf(req, sizeof req, "GET /phone.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    char *r = http_raw(req, &n);
    REQUIRE(r);
    char clen[32] = "";
    CHECK(header_value(r, "content-length", clen, sizeof clen) == 0);
    const char *body = strstr(r, "\r\n\r\n");
    CHECK(body && (size_t)atol(clen) == n - (size_t)(body + 4 - r));
    free(r);
    snprintf(req, sizeof req, "HEAD /phone.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    r = http_raw(req, &head_n);
    REQUIRE(r);
    CHECK(!strncmp(r, "HTTP/1.1 200", 12));
    CHECK(header_value(r, "content-length", v, sizeof v) == 0 && !strcmp(v, clen));
    body = strstr(r, "\r\n\r\n");
    CHECK(body && body[4] == 0);
    free(r);
    const char *bad[] = {"/../hub/test_hub.c", "/%2e%2e/etc/passwd", "/.hidden", "/sub/phone.js", "/nope.js"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", bad[i]);
        r = http_raw(req, NULL);
        REQUIRE(r);
        if (strncmp(r, "HTTP/1.1 404", 12)) fprintf(stderr, "GET %s: %.60s\n", bad[i], r);
        CHECK(!strncmp(r, "HTTP/1.1 404", 12));
        free(r);
    }
    const char *pages[] = {"/screen/", "/presenter/"};
    for (int i = 0; i < 2; i++) {
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", pages[i]);
        r = http_raw(req, NULL);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "cache-control", v, sizeof v) == 0 && !strcmp(v, "no-store"));
        CHECK(header_value(r, "etag", v, sizeof v) != 0);
        CHECK(strstr(r, "<!doctype html>") != NULL);
        free(r);
    }
    hubroom_stop();
}

/* The body after the headers of r (n bytes in all), gunzipped by gzip(1)
 * into a malloc'd buffer (*outlen bytes); NULL if it is not gzip. */
static char *gunzip_body(const char *r, size_t n, size_t *outlen) {
    const char *body = strstr(r, "\r\n\r\n");
    if (!body) return NULL;
    body += 4;
    char path[512], cmd[600];
    snprintf(path, sizeof path, "%s/body.gz", check_tmpdir());
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    fwrite(body, 1, n - (size_t)(body - r), f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "gzip -dc '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 1 << 20, got = 0;
    char *out = malloc(cap);
    size_t k;
    while (out && got < cap && (k = fread(out + got, 1, cap - got, p)) > 0) got += k;
    int st = pclose(p);
    if (st != 0) return free(out), NULL;
    *outlen = got;
    return out;
}

/* The bytes of the web root's files parts[0..n-1] joined as hub_static.c
 * joins a script ("\n;\n" after each); malloc'd, *len bytes; NULL if one
 * is missing. */
static char *joined_parts(const char *root, const char *const *parts, int n, size_t *len) {
    size_t cap = 1 << 20, at = 0;
    char *out = malloc(cap), file[2048];
    for (int i = 0; out && i < n; i++) {
        size_t flen = 0;
        snprintf(file, sizeof file, "%s/%s", root, parts[i]);
        char *b = check_read_file(file, &flen);
        if (!b || at + flen + 3 > cap) return free(b), free(out), NULL;
        memcpy(out + at, b, flen);
        memcpy(out + at + flen, "\n;\n", 3);
        at += flen + 3;
        free(b);
    }
    *len = at;
    return out;
}

/* The first <script src="..."> in the text from: its src copied to src; the
 * text after it, or NULL when there is none. */
static const char *next_script(const char *from, char *src, size_t srclen) {
    const char *p = strstr(from, "<script src=\"");
    if (!p) return NULL;
    p += strlen("<script src=\"");
    size_t n = strcspn(p, "\"");
    snprintf(src, srclen, "%.*s", (int)n, p);
    return p + n;
}

/* Each page loads its scripts in one request (issue 22's join storm: the
 * phone page is three requests, not five): its one <script> names a join
 * ("/common,i18n,path,replay,phone.js") whose body is the parts' bytes one after the
 * other, each followed by a line ";", in plain and in gzip, with an ETag
 * and a 304 for it. Only the pages' joins are served: another order,
 * another choice of parts, a part that is not a script or a name that
 * climbs out are 404. A part that changes on disk changes the join. */
static void test_each_page_loads_its_scripts_in_one_join(void) {
    char root[1024], cmd[2400];
    snprintf(root, sizeof root, "%s/web", check_tmpdir());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", root, hubfix_web_root(), root);
    REQUIRE(system(cmd) == 0);
    hubroom_opts.web_root = root;
    REQUIRE(hubroom_start(0, 0) == 0);
    const char *pages[] = {"/", "/screen/", "/presenter/"};
    const char *own[] = {"replay,phone.js", "screen.js", "presenter.js"}; /* the phone's: the replay's too */
    for (int i = 0; i < 3; i++) {
        char req[512], src[256], want_src[64], etag[128] = "", type[64] = "";
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", pages[i]);
        char *page = http_raw(req, NULL);
        REQUIRE(page);
        const char *at = next_script(page, src, sizeof src);
        snprintf(want_src, sizeof want_src, "/common,i18n,path,%s", own[i]);
        CHECK(at && !strcmp(src, want_src));
        CHECK(at && !next_script(at, src, sizeof src)); /* the only one */
        free(page);
        const char *parts[] = {"common.js", "i18n.js", "path.js", i ? own[i] : "replay.js", "phone.js"};
        size_t want_len = 0, n = 0;
        char *want = joined_parts(root, parts, i ? 4 : 5, &want_len);
        REQUIRE(want);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", want_src);
        char *r = http_raw(req, &n);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "content-type", type, sizeof type) == 0 && !strcmp(type, "text/javascript"));
        CHECK(header_value(r, "etag", etag, sizeof etag) == 0 && etag[0]);
        const char *body = strstr(r, "\r\n\r\n");
        CHECK(body && n - (size_t)(body + 4 - r) == want_len && !memcmp(body + 4, want, want_len));
        free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n",
                 want_src);
        r = http_raw(req, &n);
        REQUIRE(r);
        size_t glen = 0;
        char *g = gunzip_body(r, n, &glen);
        CHECK(g && glen == want_len && !memcmp(g, want, want_len));
        free(g), free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nIf-None-Match: %s\r\nConnection: close\r\n\r\n",
                 want_src, etag);
        r = http_raw(req, NULL);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 304", 12));
        free(r);
        free(want);
    }
    const char *bad[] = {"/path,common,phone.js", "/common,phone.js",       "/common,path,nope.js", "/common,path,phone.js",
                         "/common,,path,phone.js", "/,common,path,phone.js", "/common,path,phone.css",
                         "/common,path,..%2fphone.js", "/common,path,.phone.js"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[512];
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", bad[i]);
        char *r = http_raw(req, NULL);
        REQUIRE(r);
        if (strncmp(r, "HTTP/1.1 404", 12)) fprintf(stderr, "GET %s: %.60s\n", bad[i], r);
        CHECK(!strncmp(r, "HTTP/1.1 404", 12));
        free(r);
    }
    /* a part grows: the join is read again (new bytes, new ETag) once the
     * hub looks at the disk again (at most every HUB_STATIC_RECHECK_MS) */
    char file[1100], etag_before[128] = "", etag_after[128] = "";
    const char *req = "GET /common,i18n,path,replay,phone.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    char *r = http_raw(req, NULL);
    REQUIRE(r);
    CHECK(header_value(r, "etag", etag_before, sizeof etag_before) == 0);
    free(r);
    snprintf(file, sizeof file, "%s/path.js", root);
    FILE *f = fopen(file, "a");
    REQUIRE(f);
    fputs("/* changed on disk */\n", f);
    fclose(f);
    usleep((HUB_STATIC_RECHECK_MS + 100) * 1000);
    r = http_raw(req, NULL);
    REQUIRE(r);
    CHECK(header_value(r, "etag", etag_after, sizeof etag_after) == 0 && strcmp(etag_before, etag_after));
    CHECK(strstr(r, "/* changed on disk */\n\n;\n") != NULL);
    free(r);
    hubroom_stop();
    hubroom_opts.web_root = NULL;
}

/* The text files go in gzip to a client that says it takes it (a phone
 * page of ~62 KB is ~20 KB then), unchanged when inflated; the gzip answer
 * has a validator of its own (a 304 for it, never the plain file's), and
 * every answer says it varies by Accept-Encoding. */
static void test_text_files_go_gzip_to_clients_that_take_it(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    const char *paths[] = {"/", "/style.css", "/common.js", "/phone.js", "/path.js"};
    const char *files[] = {"index.html", "style.css", "common.js", "phone.js", "path.js"};
    size_t plain_all = 0, gz_all = 0;
    for (int i = 0; i < 5; i++) {
        char req[512], etag_plain[128] = "", etag_gz[128] = "", enc[64] = "", vary[64] = "", file[1024];
        snprintf(file, sizeof file, "%s/%s", hubfix_web_root(), files[i]);
        size_t flen = 0;
        char *disk = check_read_file(file, &flen);
        REQUIRE(disk);
        size_t n = 0;
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", paths[i]);
        char *r = http_raw(req, &n);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "content-encoding", enc, sizeof enc) != 0); /* none asked: plain */
        CHECK(header_value(r, "etag", etag_plain, sizeof etag_plain) == 0);
        const char *body = strstr(r, "\r\n\r\n");
        CHECK(body && n - (size_t)(body + 4 - r) == flen && !memcmp(body + 4, disk, flen));
        plain_all += n;
        free(r);
        snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n",
                 paths[i]);
        r = http_raw(req, &n);
        REQUIRE(r);
        CHECK(!strncmp(r, "HTTP/1.1 200", 12));
        CHECK(header_value(r, "content-encoding", enc, sizeof enc) == 0 && !strcmp(enc, "gzip"));
        CHECK(header_value(r, "vary", vary, sizeof vary) == 0 && strcasestr(vary, "accept-encoding"));
        CHECK(header_value(r, "etag", etag_gz, sizeof etag_gz) == 0 && strcmp(etag_gz, etag_plain));
        size_t ulen = 0;
        char *u = gunzip_body(r, n, &ulen);
        CHECK(u && ulen == flen && !memcmp(u, disk, flen));
        printf("%s: %zu bytes plain, %zu in gzip\n", paths[i], flen, n - (size_t)(strstr(r, "\r\n\r\n") + 4 - r));
        gz_all += n;
        free(u);
        free(r);
        /* a reload with the gzip validator: 304; the plain one asked with gzip: the gzip file */
        const char *tags[] = {etag_gz, etag_plain}, *want[] = {"HTTP/1.1 304", "HTTP/1.1 200"};
        for (int k = 0; k < 2; k++) {
            snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nIf-None-Match: %s\r\nConnection: close\r\n\r\n",
                     paths[i], tags[k]);
            r = http_raw(req, NULL);
            REQUIRE(r);
            CHECK(!strncmp(r, want[k], 12));
            if (k) CHECK(header_value(r, "content-encoding", enc, sizeof enc) == 0);
            free(r);
        }
        free(disk);
    }
    printf("the phone page and its files: %zu bytes plain, %zu in gzip (headers included)\n", plain_all, gz_all);
    CHECK(gz_all * 2 < plain_all);
    hubroom_stop();
}

int main(void) {
    RUN(test_pages_are_served_and_carry_no_truth);
    RUN(test_static_files_carry_validators_and_a_reload_is_304);
    RUN(test_static_files_from_memory_head_names_and_no_store_pages);
    RUN(test_text_files_go_gzip_to_clients_that_take_it);
    RUN(test_each_page_loads_its_scripts_in_one_join);
    return check_summary();
}
