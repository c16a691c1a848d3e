/* Decks: loading, validation with file:line:column, the built-in decks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "deck.h"
#include "deck_ask.h"

static struct deck d; /* large: keep it off the stack */
static char err[512];

static int load(const char *text) {
    deck_free(&d);
    err[0] = 0;
    return deck_load_string(text, "t.json", &d, err, sizeof err);
}

static void test_minimal_deck_loads_with_defaults(void) {
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}") == 0);
    CHECK_STR(d.title, "T");
    CHECK_INT(d.ntests, 1);
    CHECK_INT(d.tests[0].spec.proto, PROBE_UDP4);
    CHECK_INT(d.tests[0].spec.mode, PROBE_MODE_DEFAULT);
    CHECK_INT(d.tests[0].spec.size, 1400);
    CHECK_INT(d.tests[0].spec.ttl, PROBE_TTL_AUTO);
    CHECK_STR(d.tests[0].spec.host, "");
    CHECK_STR(d.observer, "auto");
    CHECK_INT(d.keep_pmtu_cache, 0);
    /* Default questions on IPv4: all three. */
    CHECK(d.tests[0].ask[QKIND_SENT] && d.tests[0].ask[QKIND_DF] && d.tests[0].ask[QKIND_FRAGMENTED]);
    CHECK(d.json && strstr(d.json, "\"udp4\""));
}

static void test_ipv6_default_questions_skip_df(void) {
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"udp6\",\"size\":1400},{\"proto\":\"tcp6\",\"size\":1400}]}") == 0);
    for (int i = 0; i < 2; i++) {
        CHECK(d.tests[i].ask[QKIND_SENT]);
        CHECK(!d.tests[i].ask[QKIND_DF]);
        CHECK(d.tests[i].ask[QKIND_FRAGMENTED]);
    }
    CHECK_INT(deck_question_count(&d), 4);
}

static void test_icmp_tests_load_ask_like_their_family_and_read_as_pings(void) {
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"icmp4\",\"mode\":\"do\",\"size\":1400},"
                 "{\"proto\":\"icmp6\",\"size\":2000,\"port\":77}]}") == 0);
    CHECK_INT(d.tests[0].spec.proto, PROBE_ICMP4);
    CHECK_INT(d.tests[1].spec.proto, PROBE_ICMP6);
    CHECK_INT(d.tests[1].spec.port, 77); /* the echo identifier */
    CHECK_INT(deck_question_count(&d), 5); /* icmp6: no DF question */
    char q[256];
    deck_question_text(&d.tests[0], QKIND_DF, q, sizeof q);
    CHECK_STR(q, "A 1400-byte ping (ICMP echo/IPv4) packet, IP_PMTUDISC_DO: is the DF bit set on the wire?");
    deck_question_text(&d.tests[1], QKIND_SENT, q, sizeof q);
    CHECK_CONTAINS(q, "ping (ICMPv6 echo/IPv6)");
    CHECK(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"icmp6\",\"size\":1400,\"ask\":[\"df\"]}]}") < 0);
    CHECK_CONTAINS(err, "makes no sense for icmp6");
    CHECK(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"ping\",\"size\":1400}]}") < 0);
    CHECK_CONTAINS(err, "icmp4 or icmp6");
}

static void test_deck_ttl_target_port_inherited_and_overridden(void) {
    REQUIRE(load("{\"title\":\"T\",\"target\":\"192.0.2.7\",\"port\":9,\"ttl\":3,\"tests\":["
                 "{\"proto\":\"udp4\",\"size\":1400},"
                 "{\"proto\":\"tcp4\",\"size\":1400,\"ttl\":5,\"target\":\"lab\",\"port\":7}]}") == 0);
    CHECK_STR(d.tests[0].spec.host, "192.0.2.7");
    CHECK_INT(d.tests[0].spec.port, 9);
    CHECK_INT(d.tests[0].spec.ttl, 3);
    CHECK_STR(d.tests[1].spec.host, "");
    CHECK_INT(d.tests[1].spec.port, 7);
    CHECK_INT(d.tests[1].spec.ttl, 5);
}

static void test_syntax_error_reports_line_and_column(void) {
    CHECK(load("{\n  \"title\": \"T\",\n  \"tests\": [\n    {\"proto\": \"udp4\" \"size\": 1}\n  ]\n}") < 0);
    CHECK_CONTAINS(err, "t.json:4:");
}

static void test_duplicate_key_refused_with_line(void) {
    CHECK(load("{\n\"title\": \"T\",\n\"title\": \"U\",\n\"tests\": []}") < 0);
    CHECK_CONTAINS(err, "t.json:3:");
    CHECK_CONTAINS(err, "duplicate");
}

static void test_unknown_top_field_refused_at_its_key(void) {
    CHECK(load("{\n  \"title\": \"T\",\n  \"colour\": \"red\",\n  \"tests\": [{\"proto\":\"udp4\",\"size\":1400}]\n}") < 0);
    CHECK_CONTAINS(err, "t.json:3:3: colour: unknown field");
}

static void test_unknown_test_field_names_test_index(void) {
    CHECK(load("{\"title\": \"T\", \"tests\": [\n"
               "  {\"proto\": \"udp4\", \"size\": 1400},\n"
               "  {\"proto\": \"udp4\", \"size\": 1400, \"sise\": 3}\n"
               "]}") < 0);
    CHECK_CONTAINS(err, "t.json:3:35: tests[1].sise: unknown field");
}

static void test_df_question_on_ipv6_refused_at_the_question(void) {
    CHECK(load("{\"title\": \"T\", \"tests\": [\n"
               "  {\"proto\": \"udp4\", \"size\": 1400, \"ask\": [\"df\"]},\n"
               "  {\"proto\": \"tcp6\", \"size\": 1400,\n"
               "   \"ask\": [\"sent\", \"df\"]}\n"
               "]}") < 0);
    CHECK_CONTAINS(err, "t.json:4:20: tests[1].ask[1]: IPv6 has no DF bit");
}

static void test_size_out_of_range_refused(void) {
    CHECK(load("{\"title\": \"T\", \"tests\": [\n{\"proto\": \"udp4\",\n \"size\": 70000}]}") < 0);
    CHECK_CONTAINS(err, "t.json:3:10: tests[0].size: 70000 is out of range 68..65000");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 20}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].size: 20 is out of range");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": \"big\"}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].size: must be an integer");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\"}]}") < 0);
    CHECK_CONTAINS(err, "tests[0]: missing \"size\"");
}

static void test_bad_names_refused(void) {
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp5\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "t.json:1:36: tests[0].proto: unknown protocol \"udp5\"");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"mode\": \"maybe\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].mode: unknown PMTUD mode \"maybe\"");
    CHECK(load("{\"title\": \"T\", \"observer\": \"psychic\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "observer: unknown observer");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"ask\": [\"sent\", \"sent\"]}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].ask[1]: question \"sent\" asked twice");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"ask\": []}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].ask: must be a non-empty list");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"ttl\": 256}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].ttl: 256 is out of range 0..255");
    CHECK(load("{\"title\": \"T\", \"target\": \"a b\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "target: \"a b\" is not a host name");
}

static void test_witness_field_names_lab_none_or_host_port(void) {
    const char *ok[] = {"lab", "none", "vm.example.net:9000", "[2001:db8::1]:9000", ""};
    for (int i = 0; i < 5; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"title\": \"T\", \"witness\": \"%s\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}",
                 ok[i]);
        CHECK_INT(load(text), 0);
        CHECK_STR(d.witness, ok[i]);
    }
    const char *bad[] = {"vm.example.net", "vm:0", "vm:65536", "2001:db8::1:9000", "a b:9"};
    for (int i = 0; i < 5; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"title\": \"T\", \"witness\": \"%s\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}",
                 bad[i]);
        CHECK(load(text) < 0);
        CHECK_CONTAINS(err, "witness: ");
        CHECK_CONTAINS(err, "is not \"lab\", \"none\" or HOST:PORT of a witness");
    }
}

static void test_lab_scenarios_load_per_test_and_from_the_deck(void) {
    REQUIRE(load("{\"title\": \"T\", \"lab\": {\"ratelimit\": [\"r1\", \"r2\"]}, \"tests\": [\n"
                 "  {\"proto\": \"udp4\", \"size\": 3000, \"lab\": {\"mtu\": [1500,1400,1280,1500], \"routers\": 3,\n"
                 "   \"dropfrag\": [\"r2\"], \"nat\": [\"r3\"], \"reassemble\": \"r1\"}},\n"
                 "  {\"proto\": \"udp4\", \"size\": 1400}\n]}") == 0);
    CHECK_INT(deck_scenarios(&d), 2);
    const struct probe_lab_config *a = deck_test_lab(&d, 0), *b = deck_test_lab(&d, 1);
    REQUIRE(a && b);
    CHECK_INT(a->routers, 3);
    CHECK_INT(a->mtu[1], 1400);
    CHECK_INT(a->mtu[3], 1500);
    CHECK_INT(a->behave[2], PROBE_LAB_DROPFRAG);
    CHECK_INT(a->behave[3], PROBE_LAB_NAT);
    CHECK_INT(a->reassemble, 1);
    CHECK_INT(a->behave[1], 0); /* a test's own scenario replaces the deck's */
    CHECK_INT(b->routers, 2);   /* the deck's */
    CHECK_INT(b->behave[1], PROBE_LAB_RATELIMIT);
    CHECK_INT(b->behave[2], PROBE_LAB_RATELIMIT);
    REQUIRE(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}") == 0);
    CHECK_INT(deck_scenarios(&d), 0);
    CHECK(deck_test_lab(&d, 0) == NULL);
}

static void test_lab_scenario_errors_point_at_the_value(void) {
    CHECK(load("{\"title\": \"T\", \"tests\": [\n"
               "  {\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"dropfrag\": [\"r2\", \"r3\"]}}\n]}") < 0);
    CHECK_CONTAINS(err, "t.json:2:62: tests[0].lab.dropfrag[1]: must name a router of this lab, \"r1\"..\"r2\"");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"routers\": 3, \"mtu\": [1500, 1280, 1500]}}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].lab.mtu: must list 4 MTUs, one per link of a 3-router lab");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"mtu\": [1500, 1000, 1500]}}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].lab.mtu[1]: a link MTU is an integer 1280..65535");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"routers\": 7}}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].lab.routers: 7 is out of range 1..6");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"firewall\": true}}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].lab.firewall: unknown field (allowed: routers, mtu, reassemble, ratelimit");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"silent\": [\"r1\", \"r1\"]}}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].lab.silent[1]: r1 named twice");
    CHECK(load("{\"title\": \"T\", \"tests\": [{\"proto\": \"udp4\", \"size\": 1400, \"lab\": {\"nat\": \"r1\"}}]}") < 0);
    CHECK_CONTAINS(err, "tests[0].lab.nat: must be a list of at most 2 routers");
    CHECK(load("{\"title\": \"T\", \"lab\": [], \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "lab: must be an object");
    CHECK(load("{\"title\": \"T\", \"lab\": {\"reassemble\": \"r5\"}, \"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "lab.reassemble: must name a router of this lab");
}

static void test_structure_errors(void) {
    CHECK(load("[]") < 0);
    CHECK_CONTAINS(err, "t.json:1:1: a deck must be a JSON object");
    CHECK(load("{\"tests\": [{\"proto\": \"udp4\", \"size\": 1400}]}") < 0);
    CHECK_CONTAINS(err, "needs a non-empty \"title\"");
    CHECK(load("{\"title\": \"T\"}") < 0);
    CHECK_CONTAINS(err, "needs a \"tests\" list");
    CHECK(load("{\"title\": \"T\", \"tests\": []}") < 0);
    CHECK_CONTAINS(err, "tests: must be a non-empty list");
    CHECK(load("{\"title\": \"T\", \"tests\": [3]}") < 0);
    CHECK_CONTAINS(err, "tests[0]: a test must be an object");
}

static void test_too_many_tests_refused(void) {
    char *big = malloc(100 * 40 + 64);
    REQUIRE(big);
    strcpy(big, "{\"title\":\"T\",\"tests\":[");
    for (int i = 0; i < DECK_TESTS_MAX + 1; i++)
        strcat(big, i ? ",{\"proto\":\"udp4\",\"size\":1400}" : "{\"proto\":\"udp4\",\"size\":1400}");
    strcat(big, "]}");
    CHECK(load(big) < 0);
    CHECK_CONTAINS(err, "too many tests");
    free(big);
}

static void test_file_errors_name_the_file(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/bad.json", check_tmpdir());
    REQUIRE(check_write_file(path, "{\n  \"title\": \"T\",\n  \"tests\": [\n    {\"proto\": \"udp6\", \"size\": 1400, \"ask\": [\"df\"]}\n  ]\n}\n") == 0);
    deck_free(&d);
    CHECK(deck_load_file(path, &d, err, sizeof err) < 0);
    char want[300];
    snprintf(want, sizeof want, "%s:4:45: tests[0].ask[0]: IPv6 has no DF bit", path);
    CHECK_CONTAINS(err, want);
    CHECK(deck_load_file("/nonexistent/deck.json", &d, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "/nonexistent/deck.json: cannot open deck");
}

static void test_oversize_file_refused(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/huge.json", check_tmpdir());
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    for (int i = 0; i < DECK_FILE_MAX + 10; i++) fputc(' ', f);
    fclose(f);
    CHECK(deck_load_file(path, &d, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "larger than");
}

static void test_builtin_deck_is_the_14_test_quiz(void) {
    deck_free(&d);
    REQUIRE(deck_load_builtin(&d, err, sizeof err) == 0);
    CHECK_INT(d.ntests, 14);
    CHECK_INT(deck_question_count(&d), 38);
    int seen[PROBE_PROTO_COUNT] = {0};
    for (int i = 0; i < d.ntests; i++) {
        seen[d.tests[i].spec.proto]++;
        if (probe_proto_is_v6(d.tests[i].spec.proto)) CHECK(!d.tests[i].ask[QKIND_DF]);
        CHECK(d.tests[i].notes[0]);
    }
    for (int p = 0; p < 4; p++) CHECK(seen[p] > 0);
    /* The two ping tests come last, so the first 32 questions are the original deck's. */
    CHECK_INT(seen[PROBE_ICMP4], 2);
    CHECK_INT(d.tests[12].spec.proto, PROBE_ICMP4);
    CHECK_INT(d.tests[12].spec.mode, PROBE_MODE_DO);
    CHECK_INT(d.tests[13].spec.mode, PROBE_MODE_DONT);
    CHECK(d.target[0] == 0 || !strcmp(d.target, "lab"));
    CHECK_INT(d.keep_pmtu_cache, 0);
}

static void test_decks_in_source_tree_load(void) {
    const char *src = getenv("FRAGVOTE_SRC");
    if (!src) src = "..";
    const char *files[] = {"decks/firewall-fragments.json", "decks/fragquiz.json", "decks/reader-challenge.json"};
    for (size_t i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", src, files[i]);
        deck_free(&d);
        int rc = deck_load_file(path, &d, err, sizeof err);
        if (rc) fprintf(stderr, "%s\n", err);
        CHECK(rc == 0);
        /* The firewall deck: the kind lab, then r2 drops fragments for every other test. */
        if (i == 0) {
            CHECK_INT(deck_scenarios(&d), d.ntests);
            CHECK_INT(deck_test_lab(&d, 0)->behave[2], 0);
            for (int t = 1; t < d.ntests; t++) CHECK_INT(deck_test_lab(&d, t)->behave[2], PROBE_LAB_DROPFRAG);
        }
    }
    /* The reader challenge: udp4, tcp4, udp4 with the cache kept between runs. */
    CHECK_INT(d.ntests, 3);
    CHECK_INT(d.keep_pmtu_cache, 1);
    CHECK_INT(d.tests[0].spec.proto, PROBE_UDP4);
    CHECK_INT(d.tests[1].spec.proto, PROBE_TCP4);
    CHECK_INT(d.tests[2].spec.proto, PROBE_UDP4);
}

static void test_question_positions_round_trip(void) {
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400},"
                 "{\"proto\":\"udp6\",\"size\":1400},{\"proto\":\"tcp4\",\"size\":1400,\"ask\":[\"fragmented\"]}]}") == 0);
    CHECK_INT(deck_question_count(&d), 6);
    int ti;
    enum qkind k;
    CHECK(deck_question_at(&d, 3, &ti, &k) == 0);
    CHECK_INT(ti, 1);
    CHECK_INT(k, QKIND_SENT);
    CHECK(deck_question_at(&d, 5, &ti, &k) == 0);
    CHECK_INT(ti, 2);
    CHECK_INT(k, QKIND_FRAGMENTED);
    CHECK(deck_question_at(&d, 6, &ti, &k) < 0);
    CHECK_INT(deck_question_position(&d, 1, QKIND_FRAGMENTED), 4);
    CHECK_INT(deck_question_position(&d, 1, QKIND_DF), -1);
    for (int p = 0; p < 6; p++) {
        CHECK(deck_question_at(&d, p, &ti, &k) == 0);
        CHECK_INT(deck_question_position(&d, ti, k), p);
    }
}

static void test_texts(void) {
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":2},"
                 "{\"proto\":\"tcp6\",\"size\":1500}]}") == 0);
    char buf[256];
    deck_question_text(&d.tests[0], QKIND_SENT, buf, sizeof buf);
    CHECK_STR(buf, "A 1400-byte UDP/IPv4 packet, IP_PMTUDISC_DO: is it sent?");
    deck_question_text(&d.tests[1], QKIND_FRAGMENTED, buf, sizeof buf);
    CHECK_STR(buf, "A 1500-byte TCP/IPv6 packet, default socket options: is it fragmented on the way?");
    deck_test_summary(&d.tests[0], buf, sizeof buf);
    CHECK_STR(buf, "udp4 \xc2\xb7 IP_PMTUDISC_DO (the app asked: always set DF) \xc2\xb7 1400 bytes \xc2\xb7 TTL 2");
    /* every mode has its plain words */
    for (int m = 0; m <= PROBE_MODE_OMIT; m++) CHECK_CONTAINS(deck_mode_plain((enum probe_mode)m), "the app asked");
    CHECK_STR(deck_mode_plain(PROBE_MODE_DONT), "the app asked: never set DF");
    CHECK(deck_spec_json(&d.tests[0].spec, buf, sizeof buf) == 0);
    CHECK_STR(buf, "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":2,\"host\":\"\",\"port\":0}");
    CHECK(deck_spec_json(&d.tests[0].spec, buf, 10) < 0);
    /* A test on a lab scenario says so after the question. */
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"udp4\",\"mode\":\"dont\",\"size\":3000,"
                 "\"lab\":{\"dropfrag\":[\"r2\"]}},{\"proto\":\"udp4\",\"size\":3000,\"lab\":{\"routers\":3,"
                 "\"mtu\":[1500,1400,1280,1500],\"silent\":[\"r1\"]}},{\"proto\":\"udp4\",\"size\":3000,\"lab\":{}}]}") == 0);
    deck_question_text(&d.tests[0], QKIND_FRAGMENTED, buf, sizeof buf);
    CHECK_STR(buf, "A 3000-byte UDP/IPv4 packet, IP_PMTUDISC_DONT: is it fragmented on the way? "
                   "(on a path where r2 drops every fragment that reaches it)");
    deck_question_text(&d.tests[1], QKIND_SENT, buf, sizeof buf);
    CHECK_STR(buf, "A 3000-byte UDP/IPv4 packet, default socket options: is it sent? "
                   "(on a path of MTUs 1500, 1400, 1280, 1500 where r1 sends no Time Exceeded)");
    deck_question_text(&d.tests[2], QKIND_SENT, buf, sizeof buf);
    CHECK_STR(buf, "A 3000-byte UDP/IPv4 packet, default socket options: is it sent?");
}

/* "lang": the projector's and presenter page's language (docs/LANGUAGES.md):
 * a language tag's shape, any tag (a catalog is the pages' business). */
static void test_lang_is_a_language_tag(void) {
    REQUIRE(load("{\"title\":\"T\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}") == 0);
    CHECK_STR(d.lang, "");
    REQUIRE(load("{\"title\":\"T\",\"lang\":\"pt-BR\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}") == 0);
    CHECK_STR(d.lang, "pt-BR");
    CHECK(load("{\"title\":\"T\",\n \"lang\":\"de_DE\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}") < 0);
    CHECK_CONTAINS(err, "t.json:2:");
    CHECK_CONTAINS(err, "lang: \"de_DE\" is not a language tag");
    CHECK(load("{\"title\":\"T\",\"lang\":5,\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}") < 0);
    const char *good[] = {"en", "de", "fra", "pt-BR", "zh-Hant-TW", "sr-Latn"};
    const char *bad[] = {"", "e", "english", "de-", "-de", "de_DE", "de--AT", "de-ABCDEFGHI", "d3", "de AT",
                         "aa-aaaaaaaa-aaaaaaaa-aaaaaaaa-aaaaaaaa"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) CHECK(deck_lang_ok(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (deck_lang_ok(bad[i])) fprintf(stderr, "accepted \"%s\"\n", bad[i]);
        CHECK(!deck_lang_ok(bad[i]));
    }
}

/* The question as parts for the pages (q.ask): what deck_question_text
 * words in English, the lab's MTUs only when they are not the defaults,
 * only the routers that do something. */
static void test_ask_parts(void) {
    REQUIRE(load("{\"title\": \"T\", \"tests\": [\n"
                 "  {\"proto\": \"udp4\", \"mode\": \"do\", \"size\": 1400, \"ttl\": 2},\n"
                 "  {\"proto\": \"udp6\", \"size\": 3000, \"lab\": {\"mtu\": [1500,1400,1280,1500], \"routers\": 3,\n"
                 "   \"dropfrag\": [\"r2\"], \"silent\": [\"r2\"], \"reassemble\": \"r1\"}},\n"
                 "  {\"proto\": \"icmp4\", \"size\": 1400, \"lab\": {\"nat\": [\"r1\"]}}\n]}") == 0);
    const char *want[] = {
        "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":2}",
        "{\"proto\":\"udp6\",\"mode\":\"default\",\"size\":3000,\"ttl\":0,\"mtus\":[1500,1400,1280,1500],"
        "\"lab\":[{\"node\":\"r1\",\"does\":[],\"reassembles\":true},"
        "{\"node\":\"r2\",\"does\":[\"dropfrag\",\"silent\"],\"reassembles\":false}]}",
        "{\"proto\":\"icmp4\",\"mode\":\"default\",\"size\":1400,\"ttl\":0,"
        "\"lab\":[{\"node\":\"r1\",\"does\":[\"nat\"],\"reassembles\":false}]}"};
    for (int i = 0; i < 3; i++) {
        json_t *o = deck_ask_json(&d.tests[i]);
        char *txt = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        REQUIRE(txt);
        CHECK_STR(txt, want[i]);
        free(txt);
        json_decref(o);
    }
    /* the English sentence says the same */
    char q[1024];
    deck_question_text(&d.tests[1], QKIND_SENT, q, sizeof q);
    CHECK_CONTAINS(q, "MTUs 1500, 1400, 1280, 1500 where r1 reassembles fragments (conntrack defrag); r2 drops every "
                      "fragment that reaches it and sends no Time Exceeded");
}

int main(void) {
    RUN(test_lang_is_a_language_tag);
    RUN(test_ask_parts);
    RUN(test_minimal_deck_loads_with_defaults);
    RUN(test_ipv6_default_questions_skip_df);
    RUN(test_icmp_tests_load_ask_like_their_family_and_read_as_pings);
    RUN(test_deck_ttl_target_port_inherited_and_overridden);
    RUN(test_syntax_error_reports_line_and_column);
    RUN(test_duplicate_key_refused_with_line);
    RUN(test_unknown_top_field_refused_at_its_key);
    RUN(test_unknown_test_field_names_test_index);
    RUN(test_df_question_on_ipv6_refused_at_the_question);
    RUN(test_size_out_of_range_refused);
    RUN(test_bad_names_refused);
    RUN(test_witness_field_names_lab_none_or_host_port);
    RUN(test_lab_scenarios_load_per_test_and_from_the_deck);
    RUN(test_lab_scenario_errors_point_at_the_value);
    RUN(test_structure_errors);
    RUN(test_too_many_tests_refused);
    RUN(test_file_errors_name_the_file);
    RUN(test_oversize_file_refused);
    RUN(test_builtin_deck_is_the_14_test_quiz);
    RUN(test_decks_in_source_tree_load);
    RUN(test_question_positions_round_trip);
    RUN(test_texts);
    deck_free(&d);
    return check_summary();
}
