/* The client message decoder on canned messages, hostile ones included. */
#include "check.h"
#include "hub_parse.h"

static struct hub_client_msg m;
static char err[128];

static int parse(const char *s) { return hub_parse_client(s, strlen(s), 3600, &m, err, sizeof err); }

static void test_malformed_messages_are_refused_with_a_reason(void) {
    const char *bad[] = {"", "not json", "[]", "\"t\"", "{}", "{\"t\":5}", "{\"t\":\"vote\",\"t\":\"vote\"}", "{\"t\":\"vo"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECK(parse(bad[i]) < 0);
        CHECK_CONTAINS(err, "malformed");
    }
}

static void test_vote_fields_are_typed(void) {
    REQUIRE(parse("{\"t\":\"vote\",\"id\":7,\"q\":3,\"yes\":true}") == 0);
    CHECK_INT(m.type, HUB_C_VOTE);
    CHECK_INT(m.id, 7);
    CHECK(m.vote_ok);
    CHECK_INT(m.q, 3);
    CHECK_INT(m.yes, 1);
    REQUIRE(parse("{\"t\":\"vote\",\"q\":\"3\",\"yes\":1}") == 0);
    CHECK(!m.vote_ok);
    CHECK_INT(m.id, -1);
    REQUIRE(parse("{\"t\":\"vote\",\"q\":9223372036854775807,\"yes\":false}") == 0);
    CHECK(m.vote_ok);
    CHECK(m.q == 9223372036854775807LL);
    CHECK_INT(m.yes, 0);
}

static void test_strings_are_bounded(void) {
    char big[600];
    memset(big, 'A', sizeof big);
    snprintf(big, sizeof big, "{\"t\":\"hello\",\"room\":\"ABCDEF\",\"token\":\"%0500d\"}", 1);
    REQUIRE(parse(big) == 0);
    CHECK_INT(m.type, HUB_C_HELLO);
    CHECK(m.has_room && m.has_token);
    CHECK_STR(m.room, "ABCDEF");
    CHECK_INT(strlen(m.token), HUB_PARSE_STR_MAX);
    REQUIRE(parse("{\"t\":\"hello\"}") == 0);
    CHECK(!m.has_room && !m.has_token);
}

static void test_cmd_seconds_range(void) {
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":30}") == 0);
    CHECK_INT(m.type, HUB_C_CMD);
    CHECK_STR(m.cmd, "open");
    CHECK(m.has_seconds && m.seconds_ok);
    CHECK_INT(m.seconds, 30);
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":3601}") == 0);
    CHECK(m.has_seconds && !m.seconds_ok);
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":-1}") == 0);
    CHECK(m.has_seconds && !m.seconds_ok);
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\"}") == 0);
    CHECK(!m.has_seconds);
}

static void test_types(void) {
    REQUIRE(parse("{\"t\":\"auth\",\"secret\":\"s3\"}") == 0);
    CHECK_INT(m.type, HUB_C_AUTH);
    CHECK(m.has_secret);
    CHECK_STR(m.secret, "s3");
    REQUIRE(parse("{\"t\":\"ping\"}") == 0);
    CHECK_INT(m.type, HUB_C_PING);
    REQUIRE(parse("{\"t\":\"reveal_truth_please\"}") == 0);
    CHECK_INT(m.type, HUB_C_UNKNOWN);
}

int main(void) {
    RUN(test_malformed_messages_are_refused_with_a_reason);
    RUN(test_vote_fields_are_typed);
    RUN(test_strings_are_bounded);
    RUN(test_cmd_seconds_range);
    RUN(test_types);
    return check_summary();
}
