/* hub_proxy: the --trust-proxy list and the X-Forwarded-For parser, fed
 * canned strings (pure functions; the real server's behaviour is
 * fragvote/test_serve_trust_proxy). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "hub_proxy.h"

/* The client hub_proxy_client finds in xff, printed, or "-" for none. */
static const char *client(const struct hub_proxy *p, const char *xff) {
    static char out[INET6_ADDRSTRLEN];
    unsigned char a[16];
    if (hub_proxy_client(p, xff, strlen(xff), a)) return "-";
    static const unsigned char v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!memcmp(a, v4, 12)) inet_ntop(AF_INET, a + 12, out, sizeof out);
    else inet_ntop(AF_INET6, a, out, sizeof out);
    return out;
}

static void test_list_parses_addresses_networks_and_refuses_the_rest(void) {
    struct hub_proxy p = {0};
    char err[160];
    CHECK_INT(hub_proxy_add(&p, "127.0.0.1, 10.1.0.0/16,::1", err, sizeof err), 0);
    CHECK_INT(hub_proxy_add(&p, "2001:db8::/32", err, sizeof err), 0);
    CHECK_INT(p.n, 4);
    const char *bad[] = {"", "1.2.3.4/33", "::/129", "1.2.3.4/", "1.2.3.4/x", "nginx", "1.2.3.4,,5.6.7.8", "1.2.3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct hub_proxy q = {0};
        err[0] = 0;
        CHECK_INT(hub_proxy_add(&q, bad[i], err, sizeof err), -1);
        CHECK(err[0]);
    }
    struct hub_proxy full = {0};
    for (int i = 0; i < HUB_PROXY_MAX; i++) CHECK_INT(hub_proxy_add(&full, "10.0.0.1", err, sizeof err), 0);
    CHECK_INT(hub_proxy_add(&full, "10.0.0.2", err, sizeof err), -1);
    CHECK_CONTAINS(err, "at most 16");
}

static void test_networks_match_by_prefix(void) {
    struct hub_proxy p = {0};
    char err[160];
    REQUIRE(hub_proxy_add(&p, "10.1.0.0/16,2001:db8::/32,192.0.2.7", err, sizeof err) == 0);
    unsigned char a[16];
    const char *in[] = {"10.1.255.3", "2001:db8:ffff::1", "192.0.2.7"}, *out[] = {"10.2.0.1", "2001:db9::1",
                                                                                   "192.0.2.8", "::ffff:10.3.0.1"};
    for (int i = 0; i < 3; i++) {
        REQUIRE(hub_proxy_client(&(struct hub_proxy){0}, in[i], strlen(in[i]), a) == 0);
        CHECK_INT(hub_proxy_trusted(&p, a), 1);
    }
    for (int i = 0; i < 4; i++) {
        REQUIRE(hub_proxy_client(&(struct hub_proxy){0}, out[i], strlen(out[i]), a) == 0);
        CHECK_INT(hub_proxy_trusted(&p, a), 0);
    }
}

static void test_the_client_is_the_rightmost_untrusted_entry(void) {
    struct hub_proxy p = {0};
    char err[160];
    REQUIRE(hub_proxy_add(&p, "127.0.0.1,10.9.0.0/16", err, sizeof err) == 0);
    CHECK_STR(client(&p, "203.0.113.5"), "203.0.113.5");
    CHECK_STR(client(&p, " 203.0.113.5 "), "203.0.113.5");
    CHECK_STR(client(&p, "1.1.1.1, 203.0.113.5"), "203.0.113.5");     /* the left part is the client's to forge */
    CHECK_STR(client(&p, "203.0.113.5, 10.9.1.1,127.0.0.1"), "203.0.113.5"); /* a chain of trusted proxies */
    CHECK_STR(client(&p, "garbage, 203.0.113.5"), "203.0.113.5");     /* never looked at */
    CHECK_STR(client(&p, "2001:db8::5"), "2001:db8::5");
    CHECK_STR(client(&p, "::ffff:198.51.100.1"), "198.51.100.1");
    CHECK_STR(client(&p, ""), "-");
    CHECK_STR(client(&p, "unknown"), "-");
    CHECK_STR(client(&p, "203.0.113.5, garbage"), "-");               /* malformed before the client */
    CHECK_STR(client(&p, "203.0.113.5,"), "-");
    CHECK_STR(client(&p, "[2001:db8::5]:443"), "-");                  /* ports are not an address */
    CHECK_STR(client(&p, "127.0.0.1, 10.9.0.1"), "-");                /* only proxies */
    char big[HUB_PROXY_XFF_MAX + 16];
    memset(big, ' ', sizeof big);
    memcpy(big + sizeof big - 12, "203.0.113.5", 12);
    CHECK_STR(client(&p, big), "-");                                  /* over the cap */
    CHECK_STR(client(&p, big + 20), "203.0.113.5");                   /* at the cap */
}

int main(void) {
    RUN(test_list_parses_addresses_networks_and_refuses_the_rest);
    RUN(test_networks_match_by_prefix);
    RUN(test_the_client_is_the_rightmost_untrusted_entry);
    return check_summary();
}
