/* The Origin check of websocket upgrades (hub_origin_allowed, pure; issue
 * 36 item 7): no Origin (command-line clients), the request's own host and
 * port, or the --public-url's origin; never another site's page. And the
 * sites serve --frame-ancestors may name (hub_origin_frame_sources_check,
 * issue 39 item 5): 'self' and origins, nothing that frames every site or
 * breaks out of the header. */
#include <stdio.h>

#include "check.h"
#include "hub_origin.h"

static void test_command_line_clients_send_none(void) { CHECK_INT(hub_origin_allowed(NULL, "127.0.0.1:8080", NULL), 1); }

static void test_the_page_serve_served(void) {
    CHECK_INT(hub_origin_allowed("http://192.0.2.10:8080", "192.0.2.10:8080", NULL), 1);
    CHECK_INT(hub_origin_allowed("http://VOTE.example.org:8080", "vote.example.org:8080", NULL), 1);
    CHECK_INT(hub_origin_allowed("https://vote.example.org", "vote.example.org", NULL), 1); /* a proxy's Host $host */
    CHECK_INT(hub_origin_allowed("http://vote.example.org", "vote.example.org", NULL), 1);
    CHECK_INT(hub_origin_allowed("http://[2001:db8::1]:8080", "[2001:db8::1]:8080", NULL), 1);
    CHECK_INT(hub_origin_allowed("https://vote.example.org/", "vote.example.org:443", NULL), 1);
}

static void test_other_sites_are_refused(void) {
    CHECK_INT(hub_origin_allowed("http://evil.example", "192.0.2.10:8080", NULL), 0);
    CHECK_INT(hub_origin_allowed("http://192.0.2.10:8081", "192.0.2.10:8080", NULL), 0); /* another port */
    CHECK_INT(hub_origin_allowed("http://192.0.2.10", "192.0.2.10:8080", NULL), 0);
    CHECK_INT(hub_origin_allowed("http://vote.example.org.evil.example", "vote.example.org", NULL), 0);
    CHECK_INT(hub_origin_allowed("null", "192.0.2.10:8080", NULL), 0); /* a sandboxed page, a file: */
    CHECK_INT(hub_origin_allowed("", "192.0.2.10:8080", NULL), 0);
    CHECK_INT(hub_origin_allowed("ftp://192.0.2.10:8080", "192.0.2.10:8080", NULL), 0);
    CHECK_INT(hub_origin_allowed("http://192.0.2.10:8080", NULL, NULL), 0); /* no Host to compare with */
    CHECK_INT(hub_origin_allowed("http://a:b:c", "a:b:c", NULL), 0);
    CHECK_INT(hub_origin_allowed("http://x:99999", "x:99999", NULL), 0);
}

static void test_the_public_url(void) {
    /* a proxy that sends serve its own upstream address as Host */
    CHECK_INT(hub_origin_allowed("https://vote.example.org", "127.0.0.1:8080", "https://vote.example.org/"), 1);
    CHECK_INT(hub_origin_allowed("https://vote.example.org:8443", "127.0.0.1:8080", "https://vote.example.org:8443/x"), 1);
    CHECK_INT(hub_origin_allowed("https://evil.example", "127.0.0.1:8080", "https://vote.example.org/"), 0);
    CHECK_INT(hub_origin_allowed("http://vote.example.org", "127.0.0.1:8080", "https://vote.example.org/"), 0);
}

static void frame_ok(const char *sources) {
    char err[200] = "";
    int rc = hub_origin_frame_sources_check(sources, err, sizeof err);
    if (rc) fprintf(stderr, "refused '%s': %s\n", sources, err);
    CHECK_INT(rc, 0);
}

static void frame_refused(const char *sources) {
    char err[200] = "";
    CHECK_INT(hub_origin_frame_sources_check(sources, err, sizeof err), -1);
    CHECK(err[0] != 0);
}

static void test_frame_sources(void) {
    frame_ok("'self'");
    frame_ok("https://slides.example.org");
    frame_ok("'self' https://slides.example.org http://192.0.2.7:8000");
    frame_ok("  https://*.example.org  'self' ");
    frame_ok("http://[2001:db8::7]:8000");
    frame_refused("");
    frame_refused("   ");
    frame_refused("'none'");                      /* the default: leave the option out */
    frame_refused("*");                           /* every site */
    frame_refused("https:");                      /* every https site */
    frame_refused("https://*");
    frame_refused("https://slides.example.org/deck/"); /* a path */
    frame_refused("slides.example.org");          /* no scheme */
    frame_refused("'self'; script-src *");        /* another directive */
    frame_refused("'self', https://evil.example"); /* another policy */
    frame_refused("https://a.example\r\nset-cookie: x=1");
    frame_refused("https://user@slides.example.org");
    frame_refused("https://slides.example.org:99999");
    frame_refused("'unsafe-inline'");
    char big[HUB_FRAME_SOURCES_MAX + 40];
    snprintf(big, sizeof big, "https://%0*d.example", HUB_FRAME_SOURCES_MAX, 0);
    frame_refused(big);
}

int main(void) {
    RUN(test_command_line_clients_send_none);
    RUN(test_the_page_serve_served);
    RUN(test_other_sites_are_refused);
    RUN(test_the_public_url);
    RUN(test_frame_sources);
    return check_summary();
}
