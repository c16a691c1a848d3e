/* The live hub's join URL (hubroom.h): the QR code at /qr.svg encodes it,
 * TLS serves the pages and the QR over HTTPS, and the URL uses the default
 * route's interface or the bind address. */
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

static void test_qr_endpoint_returns_an_svg_encoding_the_join_url(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    if (system("command -v zbarimg >/dev/null 2>&1") != 0) {
        CHECK(!"zbarimg missing: install zbar-tools (scripts/apt-packages.txt)");
        hubroom_stop();
        return;
    }
    size_t n;
    char *r = hubroom_http_get("/qr.svg", &n);
    REQUIRE(r);
    CHECK(!strncmp(r, "HTTP/1.1 200", 12));
    CHECK(strcasestr(r, "content-type: image/svg+xml") != NULL);
    char *body = strstr(r, "\r\n\r\n");
    REQUIRE(body);
    body += 4;
    CHECK_CONTAINS(body, "<svg");
    /* Rasterize the path ("Mx yh1v1h-1z" per dark module) into a PGM, 8 px
     * per module, and let an independent decoder read it. */
    int size = 0;
    REQUIRE(sscanf(strstr(body, "viewBox=\"") + 9, "0 0 %d", &size) == 1);
    REQUIRE(size > 20 && size < 200);
    const int px = 8, W = size * px;
    unsigned char *img = malloc((size_t)W * W);
    memset(img, 255, (size_t)W * W);
    const char *d = strstr(body, " d=\"");
    REQUIRE(d);
    d += 4;
    int x, y, k;
    while (sscanf(d, "M%d %dh1v1h-1z%n", &x, &y, &k) == 2) {
        for (int yy = 0; yy < px; yy++) memset(img + (size_t)(y * px + yy) * W + x * px, 0, px);
        d += k;
    }
    char pgm[512], cmdline[1024];
    snprintf(pgm, sizeof pgm, "%s/qr.pgm", check_tmpdir());
    FILE *f = fopen(pgm, "wb");
    REQUIRE(f);
    fprintf(f, "P5\n%d %d\n255\n", W, W);
    fwrite(img, 1, (size_t)W * W, f);
    fclose(f);
    free(img);
    snprintf(cmdline, sizeof cmdline, "zbarimg --quiet --raw %s 2>/dev/null", pgm);
    FILE *z = popen(cmdline, "r");
    REQUIRE(z);
    char decoded[512] = "";
    if (!fgets(decoded, sizeof decoded, z)) decoded[0] = 0;
    pclose(z);
    decoded[strcspn(decoded, "\r\n")] = 0;
    CHECK_STR(decoded, hub_join_url(hubroom.fx.hub));
    CHECK_STR(decoded, "http://192.0.2.10:8080/?room=TEST42");
    free(r);
    hubroom_stop();
}

/* The first line cmd prints into out ("" when none): 0, or -1 when it could
 * not be started. */
static int first_line(const char *cmd, char *out, size_t len) {
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    if (!fgets(out, (int)len, f)) out[0] = 0;
    pclose(f);
    return 0;
}

static void test_tls_serves_pages_and_qr_over_https(void) {
    char cert[512], key[512], cmdline[2048];
    snprintf(cert, sizeof cert, "%s/cert.pem", check_tmpdir());
    snprintf(key, sizeof key, "%s/key.pem", check_tmpdir());
    snprintf(cmdline, sizeof cmdline,
             "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -keyout %s -out %s "
             ">/dev/null 2>&1", key, cert);
    REQUIRE(system(cmdline) == 0);
    hubroom_opts.tls_cert = cert;
    hubroom_opts.tls_key = key;
    int rc = hubroom_start(0, 0);
    hubroom_opts.tls_cert = hubroom_opts.tls_key = NULL;
    REQUIRE(rc == 0);
    CHECK(!strncmp(hub_join_url(hubroom.fx.hub), "http://192.0.2.10:8080/", 23)); /* the public URL wins */
    char out[4096] = "";
    snprintf(cmdline, sizeof cmdline, "curl -sk -m 5 -o /dev/null -w '%%{http_code} %%{content_type}' https://127.0.0.1:%d/qr.svg",
             hubroom.fx.port);
    REQUIRE(first_line(cmdline, out, sizeof out) == 0);
    CHECK_CONTAINS(out, "200 image/svg+xml");
    snprintf(cmdline, sizeof cmdline, "curl -sk -m 5 https://127.0.0.1:%d/ | grep -c phone.js", hubroom.fx.port);
    REQUIRE(first_line(cmdline, out, sizeof out) == 0);
    CHECK_STR(out, "1\n");
    /* plain HTTP is not served on a TLS port */
    snprintf(cmdline, sizeof cmdline, "curl -s -m 2 -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/", hubroom.fx.port);
    REQUIRE(first_line(cmdline, out, sizeof out) == 0);
    CHECK(strcmp(out, "200") != 0);
    hubroom_stop();
}

/* The soft limit goes to the hard one, but never past HUB_NOFILE_MAX:
 * lws 4.1.6 sizes its descriptor table from it and reads the whole table
 * at every close, and Debian's usual hard limit is 524,288. The rule with
 * canned limits, then the hub under this machine's (where the hard limit
 * is above HUB_NOFILE_MAX, the hub lowers its soft limit to it). */

static void test_join_url_uses_the_default_route_interface(void) {
    char url[256], err[256];
    REQUIRE(hub_join_url_make(NULL, NULL, 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK(!strncmp(url, "http://", 7));
    CHECK_CONTAINS(url, ":8080/?room=ABC123");
    /* with a default route, never loopback */
    FILE *f = popen("ip -4 route show default 2>/dev/null | head -1", "r");
    char line[256] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        pclose(f);
    }
    if (line[0]) {
        CHECK(!strstr(url, "127.0.0.1"));
        CHECK_STR(err, "");
    } else {
        CHECK_CONTAINS(err, "no IPv4 default route");
    }
    REQUIRE(hub_join_url_make("https://quiz.example.org", "127.0.0.1", 1, 443, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "https://quiz.example.org/?room=ABC123");
    CHECK_STR(err, ""); /* behind a public URL the bind address is the proxy's business */
}

/* serve --bind ADDR listens there only: the join URL (and its QR code) names
 * that address, never another interface's where nothing listens. */
static void test_join_url_honours_the_bind_address(void) {
    char url[256], err[256];
    REQUIRE(hub_join_url_make(NULL, "192.0.2.7", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "http://192.0.2.7:8080/?room=ABC123");
    CHECK_STR(err, "");
    REQUIRE(hub_join_url_make(NULL, "2001:db8::7", 1, 443, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "https://[2001:db8::7]/?room=ABC123");
    REQUIRE(hub_join_url_make(NULL, "127.0.0.1", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "http://127.0.0.1:8080/?room=ABC123");
    CHECK_CONTAINS(err, "serve listens on 127.0.0.1 only (--bind): phones cannot reach the join URL");
    REQUIRE(hub_join_url_make(NULL, "::1", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK_STR(url, "http://[::1]:8080/?room=ABC123");
    CHECK_CONTAINS(err, "phones cannot reach");
    REQUIRE(hub_join_url_make(NULL, "0.0.0.0", 0, 8080, "ABC123", url, sizeof url, err, sizeof err) == 0);
    CHECK(!strstr(url, "0.0.0.0")); /* every address: the default route's */
}

int main(void) {
    RUN(test_join_url_honours_the_bind_address);
    RUN(test_qr_endpoint_returns_an_svg_encoding_the_join_url);
    RUN(test_join_url_uses_the_default_route_interface);
    RUN(test_tls_serves_pages_and_qr_over_https);
    return check_summary();
}
