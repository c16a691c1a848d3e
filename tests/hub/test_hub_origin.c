/* The Origin check of websocket upgrades (hub_origin_allowed, pure; issue
 * 36 item 7): no Origin (command-line clients), the request's own host and
 * port, or the --public-url's origin; never another site's page. */
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

int main(void) {
    RUN(test_command_line_clients_send_none);
    RUN(test_the_page_serve_served);
    RUN(test_other_sites_are_refused);
    RUN(test_the_public_url);
    return check_summary();
}
