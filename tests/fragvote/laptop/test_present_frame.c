/* fragvote present's pure parts on canned input: the hub's frames (hostile
 * ones included), a presenter state/tally into the console's status, the
 * frames the laptop builds, the hub URL and the reconnect backoff. */
#include <jansson.h>

#include "check.h"
#include "present_frame.h"
#include "present_link.h"

static struct present_frame f;
static char err[256];

static int parse(const char *s) { return present_frame_parse(s, strlen(s), &f, err, sizeof err); }

static void test_malformed_frames_are_refused_with_a_reason(void) {
    const char *bad[] = {"", "not json", "[]", "{}", "{\"t\":5}", "{\"t\":\"state\",\"t\":\"tally\"}",
                         "{\"t\":\"measure\",\"rid\":\"1\",\"test\":0}", "{\"t\":\"measure\",\"rid\":1}",
                         "{\"t\":\"measure\",\"rid\":-1,\"test\":0}", "{\"t\":\"measure\",\"rid\":1,\"test\":64}",
                         "{\"t\":\"measure\",\"rid\":9007199254740992,\"test\":0}",
                         "{\"t\":\"measure\",\"rid\":1,\"test\":0,\"rerun\":1}",
                         "{\"t\":\"measure\",\"rid\":1,\"test\":0,\"epoch\":5}",
                         "{\"t\":\"measure\",\"rid\":1,\"test\":0,\"spec\":{\"proto\":\"udp9\",\"mode\":\"do\",\"size\":1,\"ttl\":0}}",
                         "{\"t\":\"result_ok\"}", "{\"t\":\"prober_ok\",\"pending\":-3}", "{\"t\":\"export_ok\",\"data\":7}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECK(parse(bad[i]) < 0);
        CHECK(err[0] != 0);
    }
    /* over the cap: refused before parsing */
    size_t n = PRESENT_FRAME_MAX + 1;
    char *big = malloc(n + 1);
    REQUIRE(big);
    memset(big, ' ', n);
    big[n] = 0;
    CHECK(present_frame_parse(big, n, &f, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "more than");
    free(big);
}

static void test_unknown_types_and_fields_are_ignored(void) {
    REQUIRE(parse("{\"t\":\"welcome\",\"token\":\"x\"}") == 0);
    CHECK_INT(f.type, PF_OTHER);
    REQUIRE(parse("{\"t\":\"pong\",\"extra\":[1,2]}") == 0);
    CHECK_INT(f.type, PF_PONG);
}

static void test_measure_is_typed(void) {
    REQUIRE(parse("{\"t\":\"measure\",\"v\":1,\"epoch\":\"00aa11bb22cc33dd\",\"rid\":42,\"test\":3,\"q\":-1,"
                  "\"rerun\":true,\"spec\":{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":0,"
                  "\"host\":\"\",\"port\":0}}") == 0);
    CHECK_INT(f.type, PF_MEASURE);
    CHECK_INT(f.rid, 42);
    CHECK_INT(f.test, 3);
    CHECK_INT(f.q, -1);
    CHECK_INT(f.rerun, 1);
    CHECK_STR(f.epoch, "00aa11bb22cc33dd");
    CHECK_INT(f.has_spec, 1);
    CHECK_INT(f.spec_seen.proto, PROBE_UDP4);
    CHECK_INT(f.spec_seen.size, 1400);
    REQUIRE(parse("{\"t\":\"measure\",\"rid\":9007199254740991,\"test\":0,\"q\":5}") == 0);
    CHECK(f.rid == 9007199254740991LL);
    CHECK_INT(f.has_spec, 0);
    CHECK_INT(f.rerun, 0);
}

/* fragvote check --phone: the hub's relay of a phone's round trip, under
 * the hub's own rule; absurd figures refused (never printed) with a reason. */
static void test_phone_rtt_is_strict(void) {
    REQUIRE(parse("{\"t\":\"phone_rtt\",\"v\":1,\"n\":5,\"median_ms\":12.3,\"max_ms\":30}") == 0);
    CHECK_INT(f.type, PF_PHONE_RTT);
    CHECK_INT(f.rtt_n, 5);
    CHECK(f.rtt_median_ms > 12.29 && f.rtt_median_ms < 12.31);
    CHECK(f.rtt_max_ms == 30);
    const char *bad[] = {"\"n\":5,\"median_ms\":-3,\"max_ms\":30", "\"n\":5,\"median_ms\":3,\"max_ms\":1e9",
                         "\"n\":5,\"median_ms\":\"fast\",\"max_ms\":30", "\"n\":0,\"median_ms\":3,\"max_ms\":30",
                         "\"n\":5,\"median_ms\":40,\"max_ms\":30", "\"median_ms\":3,\"max_ms\":30"};
    char buf[200];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(buf, sizeof buf, "{\"t\":\"phone_rtt\",\"v\":1,%s}", bad[i]);
        err[0] = 0;
        CHECK(parse(buf) < 0);
        CHECK_INT(f.type, PF_PHONE_RTT);
        CHECK_CONTAINS(err, "phone_rtt refused: ");
    }
}

static void test_errors_take_code_or_error_and_rid(void) {
    REQUIRE(parse("{\"t\":\"error\",\"code\":\"refused\",\"message\":\"question 2 is closed\"}") == 0);
    CHECK_INT(f.type, PF_ERROR);
    CHECK_STR(f.code, "refused");
    CHECK_STR(f.message, "question 2 is closed");
    CHECK_INT(f.rid, -1);
    REQUIRE(parse("{\"t\":\"error\",\"error\":\"unknown_rid\",\"rid\":9}") == 0);
    CHECK_STR(f.code, "unknown_rid");
    CHECK_INT(f.rid, 9);
    REQUIRE(parse("{\"t\":\"prober_ok\",\"v\":1,\"session\":4,\"room\":\"K7QX2M\",\"epoch\":\"ab\",\"deck\":\"adopted\","
                  "\"pending\":2}") == 0);
    CHECK_INT(f.type, PF_PROBER_OK);
    CHECK_INT(f.session, 4);
    CHECK_INT(f.pending, 2);
    CHECK_STR(f.deck, "adopted");
    CHECK_STR(f.epoch, "ab");
    REQUIRE(parse("{\"t\":\"prober_gone\",\"reason\":\"taken_over\",\"message\":\"m\"}") == 0);
    CHECK_INT(f.type, PF_PROBER_GONE);
    CHECK_STR(f.reason, "taken_over");
}

static const char *state_json =
    "{\"t\":\"state\",\"v\":1,\"room\":\"K7QX2M\",\"title\":\"T\",\"join_url\":\"https://vote.example.org/?room=K7QX2M\","
    "\"n\":12,\"cursor\":3,\"ended\":false,\"live_split\":false,"
    "\"q\":{\"pos\":3,\"test\":1,\"kind\":\"df\",\"state\":\"revealed\",\"measuring\":false,\"text\":\"is DF set?\","
    "\"summary\":\"udp4\",\"round\":2},\"split\":{\"yes\":10,\"no\":4},"
    "\"reveal\":{\"truth\":\"no\",\"basis\":\"observed\",\"why\":\"w\",\"yes\":10,\"no\":4,\"majority\":\"yes\","
    "\"correct\":0,\"first_round\":{\"yes\":6,\"no\":8},\"view\":\"why\"},\"collective\":0.75,\"scored\":4,\"closes_in_ms\":1200}";

static void test_state_fills_the_console_status(void) {
    struct console_status st;
    memset(&st, 0, sizeof st);
    REQUIRE(present_frame_state(state_json, strlen(state_json), &st, err, sizeof err) == 0);
    CHECK_INT(st.hub.cursor, 3);
    CHECK_INT(st.hub.nquestions, 12);
    CHECK_INT(st.hub.ended, 0);
    CHECK_INT(st.hub.current.state, QUIZ_REVEALED);
    CHECK_INT(st.hub.current.kind, QKIND_DF);
    CHECK_INT(st.hub.current.yes, 10);
    CHECK_INT(st.hub.current.no, 4);
    CHECK_INT(st.hub.current.round, 2);
    CHECK_INT(st.hub.current.first_yes, 6);
    CHECK_STR(st.hub.current.text, "is DF set?");
    CHECK(st.hub.collective == 0.75);
    CHECK_INT(st.hub.closes_in_ms, 1200);
    CHECK_INT(st.revealed, 1);
    CHECK_STR(st.truth, "no");
    CHECK_STR(st.basis, "observed");
    CHECK_STR(st.why, "w");
    CHECK_STR(st.majority, "yes");
    CHECK(st.correct == 0);
    CHECK_INT(st.correct_votes, 4);
    CHECK_INT(st.hub.why_view, 1); /* the projectors show why (the console's why waits for it) */
    REQUIRE(parse(state_json) == 0);
    CHECK_STR(f.join_url, "https://vote.example.org/?room=K7QX2M");
    CHECK_STR(f.room, "K7QX2M");
}

static void test_state_without_reveal_shows_no_truth(void) {
    struct console_status st;
    memset(&st, 0, sizeof st);
    snprintf(st.truth, sizeof st.truth, "yes");
    snprintf(st.why, sizeof st.why, "an earlier reason");
    st.revealed = 1;
    st.hub.why_view = 1;
    const char *s = "{\"t\":\"state\",\"n\":2,\"cursor\":0,\"ended\":false,\"q\":{\"pos\":0,\"test\":0,\"kind\":\"sent\","
                    "\"state\":\"measured\",\"measuring\":false},\"collective\":-1}";
    REQUIRE(present_frame_state(s, strlen(s), &st, err, sizeof err) == 0);
    CHECK_INT(st.revealed, 0);
    CHECK_INT(st.hub.why_view, 0);
    CHECK_STR(st.truth, "");
    CHECK_STR(st.why, "");
    CHECK_INT(st.hub.current.state, QUIZ_MEASURED);
    CHECK(st.hub.collective < 0);
    /* a malformed state leaves the status as it was */
    st.hub.cursor = 7;
    const char *bad = "{\"t\":\"state\",\"n\":2,\"cursor\":0,\"ended\":false,\"q\":{\"pos\":0,\"test\":0,\"kind\":\"x\"}}";
    CHECK(present_frame_state(bad, strlen(bad), &st, err, sizeof err) < 0);
    CHECK_INT(st.hub.cursor, 7);
}

static void test_tally_counts_the_current_question_only(void) {
    struct console_status st;
    memset(&st, 0, sizeof st);
    st.hub.cursor = 3;
    const char *t = "{\"t\":\"tally\",\"v\":1,\"ver\":57,\"q\":3,\"state\":\"voting\",\"online\":180,\"joined\":212,"
                    "\"votes\":143,\"yes\":100,\"no\":43,\"closes_in_ms\":12400}";
    REQUIRE(present_frame_tally(t, strlen(t), &st, err, sizeof err) == 0);
    CHECK_INT(st.hub.connections, 180);
    CHECK_INT(st.hub.voters, 212);
    CHECK_INT(st.hub.current.yes, 100);
    CHECK_INT(st.hub.tally_version, 57);
    CHECK_INT(st.hub.closes_in_ms, 12400);
    CHECK_INT(st.hub.screens, 0); /* a tally without the counts (not the presenter's, or an older hub) */
    CHECK_INT(st.hub.presenters, 0);
    const char *tp = "{\"t\":\"tally\",\"ver\":57,\"q\":3,\"online\":180,\"joined\":212,\"votes\":143,"
                     "\"screens\":2,\"presenters\":3}";
    REQUIRE(present_frame_tally(tp, strlen(tp), &st, err, sizeof err) == 0);
    CHECK_INT(st.hub.screens, 2);
    CHECK_INT(st.hub.presenters, 3);
    const char *neg = "{\"t\":\"tally\",\"q\":3,\"online\":1,\"joined\":1,\"votes\":0,\"screens\":-4,"
                      "\"presenters\":\"many\"}";
    REQUIRE(present_frame_tally(neg, strlen(neg), &st, err, sizeof err) == 0);
    CHECK_INT(st.hub.screens, 0);
    CHECK_INT(st.hub.presenters, 0);
    st.hub.cursor = 4; /* a tally about another question changes no votes */
    const char *t2 = "{\"t\":\"tally\",\"ver\":58,\"q\":3,\"online\":1,\"joined\":2,\"votes\":3,\"yes\":1,\"no\":2}";
    REQUIRE(present_frame_tally(t2, strlen(t2), &st, err, sizeof err) == 0);
    CHECK_INT(st.hub.current.yes, 100);
    CHECK_INT(st.hub.connections, 1);
}

static void test_builders(void) {
    char *a = present_frame_auth("s\"3");
    CHECK_STR(a, "{\"t\":\"auth\",\"secret\":\"s\\\"3\"}");
    free(a);
    char *c = present_frame_cmd(HUB_CMD_OPEN, 30);
    CHECK_STR(c, "{\"t\":\"cmd\",\"cmd\":\"open\",\"seconds\":30}");
    free(c);
    c = present_frame_cmd(HUB_CMD_REVOTE, 0);
    CHECK_STR(c, "{\"t\":\"cmd\",\"cmd\":\"revote\"}");
    free(c);
    CHECK(present_frame_cmd(HUB_CMD_QUIT, 0) == NULL);
    struct present_facts f = {.host = "laptop", .kernel = "Linux 6.1.0-laptop", .observer = "raw", .target = "lab",
                              .lab_json = "{\"routers\":2,\"mtu\":[1500,1280,1500]}"};
    char *p = present_frame_prober("{\"title\":\"T\",\"tests\":[]}", &f, 0, "ab12");
    json_t *o = json_loads(p, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(o, "kernel")), "Linux 6.1.0-laptop");
    CHECK_STR(json_string_value(json_object_get(o, "target")), "lab");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(o, "lab"), "routers")), 2);
    CHECK_STR(json_string_value(json_object_get(o, "t")), "prober");
    CHECK_STR(json_string_value(json_object_get(json_object_get(o, "deck"), "title")), "T");
    CHECK(json_is_false(json_object_get(o, "take_over")));
    CHECK_STR(json_string_value(json_object_get(o, "instance")), "ab12");
    json_decref(o);
    free(p);
    CHECK(present_frame_prober("not json", &f, 0, "i") == NULL);
    f.lab_json = NULL; /* off the lab: "lab": null */
    p = present_frame_prober("{\"title\":\"T\",\"tests\":[]}", &f, 0, "ab12");
    o = json_loads(p, 0, NULL);
    CHECK(json_is_null(json_object_get(o, "lab")));
    json_decref(o);
    free(p);
    f.lab_json = "[1]";
    CHECK(present_frame_prober("{}", &f, 0, "i") == NULL);
    char *r = present_frame_result("ep", 9, "{\"sent\":{\"answer\":\"yes\"}}");
    CHECK_STR(r, "{\"t\":\"result\",\"epoch\":\"ep\",\"rid\":9,\"observation\":{\"sent\":{\"answer\":\"yes\"}}}");
    free(r);
    const char *ex = "{\"t\":\"export_ok\",\"format\":\"csv\",\"session\":3,\"data\":\"a,b\\n1,2\\n\"}";
    size_t n = 0;
    char *d = present_frame_export_data(ex, strlen(ex), &n, err, sizeof err);
    CHECK_STR(d, "a,b\n1,2\n");
    CHECK_INT(n, 8);
    free(d);
}

static void test_hub_urls(void) {
    struct present_url u;
    REQUIRE(present_url_parse("wss://vote.example.org/", &u, err, sizeof err) == 0);
    CHECK_INT(u.tls, 1);
    CHECK_STR(u.host, "vote.example.org");
    CHECK_INT(u.port, 443);
    CHECK_STR(u.path, "/");
    REQUIRE(present_url_parse("https://vote.example.org:8443/?room=K7QX2M", &u, err, sizeof err) == 0);
    CHECK_INT(u.port, 8443);
    CHECK_STR(u.path, "/");
    REQUIRE(present_url_parse("ws://[2001:db8::1]:8080", &u, err, sizeof err) == 0);
    CHECK_STR(u.host, "2001:db8::1");
    CHECK_INT(u.port, 8080);
    CHECK_INT(u.tls, 0);
    REQUIRE(present_url_parse("HTTP://10.0.0.1", &u, err, sizeof err) == 0);
    CHECK_INT(u.port, 80);
    const char *bad[] = {"ftp://x/", "vote.example.org", "ws://", "ws://:80/", "ws://h:0/", "ws://h:65536/",
                         "ws://h:8x/", "ws://[::1/", "ws://h@x/"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        CHECK(present_url_parse(bad[i], &u, err, sizeof err) < 0);
        CHECK(err[0] != 0);
    }
}

/* Issue 36 item 8: the wait grew to 11.4 s, above the 8 s --help states;
 * now each wait lies between half and all of the doubled value. */
static void test_backoff_doubles_to_a_cap_with_jitter(void) {
    CHECK_INT(present_backoff_ms(1, 0), PRESENT_BACKOFF_FIRST_MS / 2);
    CHECK_INT(present_backoff_ms(1, 0xffffffffu), PRESENT_BACKOFF_FIRST_MS - 1);
    CHECK_INT(present_backoff_ms(2, 0), PRESENT_BACKOFF_FIRST_MS);
    CHECK_INT(present_backoff_ms(3, 0), 2 * PRESENT_BACKOFF_FIRST_MS);
    CHECK_INT(present_backoff_ms(30, 0), PRESENT_BACKOFF_MAX_MS / 2);
    CHECK_INT(present_backoff_ms(1000000, 0), PRESENT_BACKOFF_MAX_MS / 2);
    int worst = 0;
    for (uint64_t r = 0; r <= 0xffffffffu; r += 0x01000000u) /* 256 draws (64 bits: no wrap to 0) */
        for (int a = 1; a < 40; a++)
            if (present_backoff_ms(a, (uint32_t)r) > worst) worst = present_backoff_ms(a, (uint32_t)r);
    if (present_backoff_ms(40, 0xffffffffu) > worst) worst = present_backoff_ms(40, 0xffffffffu);
    CHECK(worst <= PRESENT_BACKOFF_MAX_MS);
    CHECK(worst > PRESENT_BACKOFF_MAX_MS * 99 / 100);
}

int main(void) {
    RUN(test_malformed_frames_are_refused_with_a_reason);
    RUN(test_unknown_types_and_fields_are_ignored);
    RUN(test_measure_is_typed);
    RUN(test_phone_rtt_is_strict);
    RUN(test_errors_take_code_or_error_and_rid);
    RUN(test_state_fills_the_console_status);
    RUN(test_state_without_reveal_shows_no_truth);
    RUN(test_tally_counts_the_current_question_only);
    RUN(test_builders);
    RUN(test_hub_urls);
    RUN(test_backoff_doubles_to_a_cap_with_jitter);
    return check_summary();
}
