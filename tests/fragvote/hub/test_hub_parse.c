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

/* The id is echoed exactly in 0..2^53-1 (a phone's Number); anything else is
 * flagged (the hub answers bad_vote) and never cut to 32 bits. */
/* The self-paced replay: asked with "replay", answered with "replay_vote"
 * (typed like a vote: "q" an integer, "yes" a boolean, the same id rule). */
static void test_replay_messages_are_typed(void) {
    REQUIRE(parse("{\"t\":\"replay\"}") == 0);
    CHECK(m.type == HUB_C_REPLAY);
    REQUIRE(parse("{\"t\":\"replay_vote\",\"id\":4,\"q\":2,\"yes\":false}") == 0);
    CHECK(m.type == HUB_C_REPLAY_VOTE && m.vote_ok && m.q == 2 && !m.yes && m.id == 4);
    REQUIRE(parse("{\"t\":\"replay_vote\",\"id\":\"4\",\"q\":2,\"yes\":\"no\"}") == 0);
    CHECK(m.type == HUB_C_REPLAY_VOTE && !m.vote_ok && m.id_bad);
}

static void test_vote_id_is_a_safe_integer(void) {
    static const struct { const char *id; long long want; } ok[] = {
        {"0", 0}, {"7", 7}, {"2147483648", 2147483648LL}, {"1099511627776", 1099511627776LL},
        {"9007199254740991", 9007199254740991LL},
    };
    char buf[160];
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        snprintf(buf, sizeof buf, "{\"t\":\"vote\",\"id\":%s,\"q\":0,\"yes\":true}", ok[i].id);
        REQUIRE(parse(buf) == 0);
        CHECK(!m.id_bad);
        CHECK(m.id == ok[i].want);
    }
    static const char *const bad[] = {"\"x\"", "\"7\"", "-1", "-9007199254740991", "9007199254740992",
                                      "9223372036854775807", "-9223372036854775808", "1.5", "7.0", "1e3",
                                      "true", "null", "[1]", "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "{\"t\":\"vote\",\"id\":%s,\"q\":0,\"yes\":true}", bad[i]);
        REQUIRE(parse(buf) == 0);
        CHECK(m.id_bad);
        CHECK_INT(m.id, -1);
    }
    REQUIRE(parse("{\"t\":\"vote\",\"q\":0,\"yes\":true}") == 0);
    CHECK(!m.id_bad);
    CHECK_INT(m.id, -1); /* absent: no id */
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
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":0}") == 0);
    CHECK(m.has_seconds && !m.seconds_ok); /* 1..3600: 0 is no timer, which is leaving "seconds" out */
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":1}") == 0);
    CHECK(m.has_seconds && m.seconds_ok);
    REQUIRE(parse("{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":3600}") == 0);
    CHECK(m.has_seconds && m.seconds_ok);
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

/* The remote prober's messages (docs/PROTOCOL.md "The remote prober"). */
#define OBS "{\"spec\":{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":2,\"host\":\"\",\"port\":0}," \
    "\"sent\":{\"answer\":\"yes\",\"basis\":\"observed\",\"why\":\"it left\"}," \
    "\"df\":{\"answer\":\"yes\",\"basis\":\"observed\",\"why\":\"DF=1\"}," \
    "\"fragmented\":{\"answer\":\"no\",\"basis\":\"observed\",\"why\":\"one packet\"}," \
    "\"observer\":\"raw\",\"evidence\":\"DF=1 seen on the wire\"}"

static void test_prober_messages(void) {
    REQUIRE(parse("{\"t\":\"prober\",\"v\":1,\"take_over\":true,\"deck\":{\"title\":\"T\",\"tests\":[]},"
                  "\"host\":\"laptop\",\"observer\":\"raw\",\"target\":\"lab\"}") == 0);
    CHECK_INT(m.type, HUB_C_PROBER);
    CHECK_INT(m.prober_v, 1);
    CHECK_INT(m.take_over, 1);
    CHECK_STR(m.deck_json, "{\"title\":\"T\",\"tests\":[]}");
    CHECK_STR(m.prober_host, "laptop");
    CHECK_STR(m.prober_target, "lab");
    hub_client_msg_free(&m);
    CHECK(m.deck_json == NULL);
    /* a deck that is not an object, take_over that is not true, a silly version */
    REQUIRE(parse("{\"t\":\"prober\",\"v\":\"1\",\"take_over\":1,\"deck\":\"fragquiz.json\"}") == 0);
    CHECK_INT(m.prober_v, 0);
    CHECK_INT(m.take_over, 0);
    CHECK(m.deck_json == NULL);
    CHECK_STR(m.prober_host, "");
    hub_client_msg_free(&m);

    REQUIRE(parse("{\"t\":\"result\",\"epoch\":\"00ff\",\"rid\":3,\"observation\":" OBS "}") == 0);
    CHECK_INT(m.type, HUB_C_RESULT);
    CHECK_INT(m.rid, 3);
    CHECK(m.has_epoch);
    CHECK_STR(m.epoch, "00ff");
    CHECK(m.result_ok);
    CHECK_INT(m.result.df.answer, PROBE_ANS_YES);
    CHECK_INT(m.result.spec.size, 1400);
    CHECK_STR(m.result.evidence, "DF=1 seen on the wire");
    static const char *const bad_rid[] = {"0", "-3", "\"3\"", "1.5", "9007199254740992", "null"};
    char buf[1200];
    for (size_t i = 0; i < sizeof bad_rid / sizeof *bad_rid; i++) {
        snprintf(buf, sizeof buf, "{\"t\":\"result\",\"rid\":%s,\"observation\":" OBS "}", bad_rid[i]);
        REQUIRE(parse(buf) == 0);
        CHECK_INT(m.rid, -1);
        CHECK(!m.has_epoch);
    }
    REQUIRE(parse("{\"t\":\"result\",\"rid\":4}") == 0);
    CHECK(!m.result_ok);
    CHECK_CONTAINS(m.result_err, "observation");
    REQUIRE(parse("{\"t\":\"result\",\"rid\":4,\"observation\":{\"spec\":{}}}") == 0);
    CHECK(!m.result_ok);
    CHECK_CONTAINS(m.result_err, "spec");

    REQUIRE(parse("{\"t\":\"export\",\"format\":\"csv\"}") == 0);
    CHECK_INT(m.type, HUB_C_EXPORT);
    CHECK(m.has_format);
    CHECK_STR(m.format, "csv");
    REQUIRE(parse("{\"t\":\"export\"}") == 0);
    CHECK(!m.has_format);
}

/* A phone's round-trip report (fragvote check --phone): typed, then the one
 * rule; every absurd figure refused with its reason, never taken. */
static void test_rtt_report_is_strict(void) {
    REQUIRE(parse("{\"t\":\"rtt\",\"n\":5,\"median_ms\":12.3,\"max_ms\":30,\"extra\":1}") == 0);
    CHECK_INT(m.type, HUB_C_RTT);
    CHECK_INT(m.rtt_ok, 1);
    CHECK_INT(m.rtt_n, 5);
    CHECK(m.rtt_median_ms > 12.29 && m.rtt_median_ms < 12.31);
    CHECK(m.rtt_max_ms == 30);
    REQUIRE(parse("{\"t\":\"rtt\",\"n\":1,\"median_ms\":0,\"max_ms\":60000}") == 0);
    CHECK_INT(m.rtt_ok, 1);
    static const struct { const char *body, *why; } bad[] = {
        {"\"n\":5,\"median_ms\":-1,\"max_ms\":30", "milliseconds in 0..60000"},
        {"\"n\":5,\"median_ms\":-0.1,\"max_ms\":-0.05", "milliseconds in 0..60000"},
        {"\"n\":5,\"median_ms\":12,\"max_ms\":60000.1", "milliseconds in 0..60000"},
        {"\"n\":5,\"median_ms\":1e300,\"max_ms\":1e308", "milliseconds in 0..60000"},
        {"\"n\":5,\"median_ms\":\"12\",\"max_ms\":30", "numbers"},
        {"\"n\":5,\"median_ms\":null,\"max_ms\":30", "numbers"},
        {"\"n\":5,\"median_ms\":true,\"max_ms\":30", "numbers"},
        {"\"n\":5,\"max_ms\":30", "numbers"},
        {"\"n\":5.0,\"median_ms\":1,\"max_ms\":3", "an integer"},
        {"\"median_ms\":1,\"max_ms\":3", "an integer"},
        {"\"n\":0,\"median_ms\":1,\"max_ms\":3", "1..20"},
        {"\"n\":21,\"median_ms\":1,\"max_ms\":3", "1..20"},
        {"\"n\":-9223372036854775808,\"median_ms\":1,\"max_ms\":3", "1..20"},
        {"\"n\":5,\"median_ms\":31,\"max_ms\":30", "more than"},
    };
    char buf[200];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "{\"t\":\"rtt\",%s}", bad[i].body);
        REQUIRE(parse(buf) == 0);
        CHECK_INT(m.type, HUB_C_RTT);
        CHECK_INT(m.rtt_ok, 0);
        CHECK_CONTAINS(m.rtt_err, bad[i].why);
    }
}

int main(void) {
    RUN(test_malformed_messages_are_refused_with_a_reason);
    RUN(test_vote_fields_are_typed);
    RUN(test_vote_id_is_a_safe_integer);
    RUN(test_replay_messages_are_typed);
    RUN(test_strings_are_bounded);
    RUN(test_cmd_seconds_range);
    RUN(test_types);
    RUN(test_prober_messages);
    RUN(test_rtt_report_is_strict);
    return check_summary();
}
