/* The load generator's pure helpers, fed canned bytes: the top-level JSON
 * member scanner on the hub's real message shapes and on hostile input,
 * nearest-rank percentiles, and the /proc parsers. */
#include <string.h>

#include "check.h"
#include "load.h"

#define S(lit) lit, sizeof(lit) - 1

static void test_scanner_reads_flat_messages(void) {
    long long v;
    CHECK_INT(load_json_int(S("{\"t\":\"ack\",\"id\":17,\"q\":3,\"yes\":true}"), "id", &v), 0);
    CHECK_INT(v, 17);
    CHECK_INT(load_json_int(S("{\"t\":\"tally\",\"v\":1,\"ver\":57,\"q\":3,\"state\":\"voting\",\"online\":180,"
                              "\"joined\":212,\"votes\":143,\"yes\":100,\"no\":43}"), "votes", &v), 0);
    CHECK_INT(v, 143);
    CHECK_INT(load_json_str_is(S("{\"t\":\"tally\",\"ver\":1}"), "t", "tally"), 1);
    CHECK_INT(load_json_str_is(S("{\"t\":\"tallyx\",\"ver\":1}"), "t", "tally"), 0);
    CHECK_INT(load_json_str_is(S("{\"ver\":1}"), "t", "tally"), -1);
    CHECK_INT(load_json_int(S("{ \"a\" : -5 , \"b\" : 2 }"), "b", &v), 0);
    CHECK_INT(v, 2);
    CHECK_INT(load_json_int(S("{\"a\":-5}"), "a", &v), 0);
    CHECK_INT(v, -5);
}

static void test_scanner_ignores_nested_keys(void) {
    /* "state" and "pos" inside questions[] and q must not be taken for top-level ones */
    const char m[] = "{\"t\":\"state\",\"questions\":[{\"pos\":0,\"state\":\"revealed\",\"text\":\"a \\\"q\\\" }\"}],"
                     "\"q\":{\"pos\":3,\"state\":\"voting\",\"text\":\"{[\"},\"n\":12}";
    const char *q;
    size_t ql;
    long long v;
    CHECK_INT(load_json_int(m, sizeof m - 1, "pos", &v), -1);
    CHECK_INT(load_json_str_is(m, sizeof m - 1, "state", "revealed"), -1);
    REQUIRE(load_json_field(m, sizeof m - 1, "q", &q, &ql) == 0);
    CHECK(q[0] == '{' && q[ql - 1] == '}');
    CHECK_INT(load_json_int(q, ql, "pos", &v), 0);
    CHECK_INT(v, 3);
    CHECK_INT(load_json_str_is(q, ql, "state", "voting"), 1);
    CHECK_INT(load_json_int(m, sizeof m - 1, "n", &v), 0);
    CHECK_INT(v, 12);
}

static void test_scanner_refuses_malformed(void) {
    const char *val;
    size_t vl;
    long long v;
    static const char *bad[] = {"", "[1]", "{", "{\"a\"", "{\"a\":", "{\"a\":\"open", "{\"a\":{\"b\":1}", "{\"a\" 1}",
                                "{\"a\":1 \"b\":2}", "{\"x\":1,}", "{\"x\":[1,2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_INT(load_json_field(bad[i], strlen(bad[i]), "b", &val, &vl), -1);
    CHECK_INT(load_json_int(S("{\"id\":\"17\"}"), "id", &v), -1);
    CHECK_INT(load_json_int(S("{\"id\":1.5}"), "id", &v), -1);
    CHECK_INT(load_json_int(S("{\"id\":true}"), "id", &v), -1);
    CHECK_INT(load_json_int(S("{\"id\":123456789012345678901234}"), "id", &v), -1);
    /* the length bounds the scan: nothing past len is read */
    CHECK_INT(load_json_int("{\"id\":12}", 6, "id", &v), -1);
}

static void test_welcome_token_and_votes(void) {
    /* the hub's welcome: the token to resume with and the voter's vote per question */
    const char m[] = "{\"t\":\"welcome\",\"v\":1,\"token\":\"0123456789abcdef0123456789abcdef\",\"room\":\"K7QX2M\","
                     "\"votes\":[-1, 1,0 ,-1],\"score\":{\"answered\":2,\"scored\":0,\"correct\":0}}";
    char tok[33], small[8];
    long long v;
    CHECK_INT(load_json_str_copy(m, sizeof m - 1, "token", tok, sizeof tok), 0);
    CHECK_STR(tok, "0123456789abcdef0123456789abcdef");
    CHECK_INT(load_json_str_copy(m, sizeof m - 1, "token", small, sizeof small), -1); /* does not fit */
    CHECK_INT(load_json_str_copy(m, sizeof m - 1, "v", small, sizeof small), -1);     /* not a string */
    CHECK_INT(load_json_str_copy(S("{\"a\":\"x\\\"y\"}"), "a", small, sizeof small), -1); /* escapes refused */
    CHECK_INT(load_json_str_copy(S("{\"a\":\"\"}"), "a", small, sizeof small), 0);
    CHECK_STR(small, "");
    int want[] = {-1, 1, 0, -1};
    for (int i = 0; i < 4; i++) {
        v = 99;
        CHECK_INT(load_json_array_int(m, sizeof m - 1, "votes", i, &v), 0);
        CHECK_INT(v, want[i]);
    }
    CHECK_INT(load_json_array_int(m, sizeof m - 1, "votes", 4, &v), -1);  /* past the end */
    CHECK_INT(load_json_array_int(m, sizeof m - 1, "votes", -1, &v), -1);
    CHECK_INT(load_json_array_int(m, sizeof m - 1, "room", 0, &v), -1);   /* not an array */
    CHECK_INT(load_json_array_int(S("{\"a\":[]}"), "a", 0, &v), -1);
    CHECK_INT(load_json_array_int(S("{\"a\":[1,\"2\"]}"), "a", 1, &v), -1); /* not an integer */
    CHECK_INT(load_json_array_int(S("{\"a\":[1,[2,3],4]}"), "a", 2, &v), 0);
    CHECK_INT(v, 4);
    CHECK_INT(load_json_array_int(S("{\"a\":[1 2]}"), "a", 1, &v), -1);      /* malformed */
}

static void test_percentiles_nearest_rank(void) {
    double v[100];
    for (int i = 0; i < 100; i++) v[i] = 100 - i; /* 100 .. 1, unsorted */
    struct load_lat l;
    load_lat_summarize(v, 100, &l);
    CHECK_INT(l.n, 100);
    CHECK(l.p50 == 50 && l.p90 == 90 && l.p99 == 99 && l.max == 100);
    double one[1] = {7.5};
    load_lat_summarize(one, 1, &l);
    CHECK(l.p50 == 7.5 && l.p99 == 7.5 && l.max == 7.5);
    double three[3] = {3, 1, 2};
    load_lat_summarize(three, 3, &l);
    CHECK(l.p50 == 2 && l.p90 == 3 && l.p99 == 3);
    load_lat_summarize(NULL, 0, &l);
    CHECK(l.n == 0 && l.max == 0);
}

static void test_proc_parsers(void) {
    unsigned long long t;
    /* a comm with spaces and a ')' must not shift the fields */
    const char stat[] = "4242 (frag vote) x) S 1 4242 4242 0 -1 4194560 2711 0 0 0 1234 567 0 0 20 0 3 0 100 "
                        "123456 789 18446744073709551615";
    CHECK_INT(load_proc_stat_ticks(stat, &t), 0);
    CHECK_INT(t, 1234 + 567);
    CHECK_INT(load_proc_stat_ticks("4242 (x) S 1 2", &t), -1);
    CHECK_INT(load_proc_stat_ticks("garbage", &t), -1);
    long rss;
    CHECK_INT(load_proc_status_rss("Name:\tfragvote\nVmPeak:\t 9999 kB\nVmRSS:\t  181234 kB\nRssAnon: 1 kB\n", &rss), 0);
    CHECK_INT(rss, 181234);
    CHECK_INT(load_proc_status_rss("Name:\tkthreadd\nState:\tS\n", &rss), -1);
}

static void test_loopback_only(void) {
    CHECK_INT(load_is_loopback4("127.0.0.1"), 1);
    CHECK_INT(load_is_loopback4("127.255.0.9"), 1);
    CHECK_INT(load_is_loopback4("128.0.0.1"), 0);
    CHECK_INT(load_is_loopback4("192.0.2.1"), 0);
    CHECK_INT(load_is_loopback4("localhost"), 0);
    CHECK_INT(load_is_loopback4("::1"), 0);
    CHECK_INT(load_is_loopback4(NULL), 0);
}

/* The screen's log: which tally first counts a vote sent at a given time. */
static void test_first_tally_counting_a_vote(void) {
    const double t[] = {10, 20, 30, 40, 50};
    const long long v[] = {0, 2, 2, 5, 9};
    CHECK_INT(load_first_tally(t, v, 5, 0, 2), 1);   /* by count */
    CHECK_INT(load_first_tally(t, v, 5, 25, 2), 2);  /* by time: not one received before the vote */
    CHECK_INT(load_first_tally(t, v, 5, 25, 3), 3);  /* both */
    CHECK_INT(load_first_tally(t, v, 5, 40, 1), 3);  /* received exactly then counts */
    CHECK_INT(load_first_tally(t, v, 5, 0, 10), 5);  /* never counted */
    CHECK_INT(load_first_tally(t, v, 5, 51, 0), 5);  /* none after */
    CHECK_INT(load_first_tally(t, v, 0, 0, 0), 0);   /* empty log */
}

/* The join storm: what the phone page loads, and when a response is whole. */
static void test_html_resources(void) {
    static const char page[] = "<html><link rel=stylesheet href=\"/style.css\"><script src=\"/common.js\"></script>"
                               "<a href=\"#top\">x</a><a href=\"https://example.org/\">y</a><img src=\"data:image/png;b\">"
                               "<script src=\"//cdn.example/x.js\"></script><div data-src=\"/no.js\"></div>"
                               "<script SRC=\"phone.js\"></script><link href=\"/style.css\"><script src=\"/cut";
    char out[8][LOAD_PATH_MAX];
    int n = load_html_resources(page, sizeof page - 1, out, 8);
    CHECK_INT(n, 3);
    CHECK_STR(out[0], "/style.css");
    CHECK_STR(out[1], "/common.js");
    CHECK_STR(out[2], "/phone.js"); /* relative: from the root page */
    CHECK_INT(load_html_resources(page, sizeof page - 1, out, 1), 1); /* at most max */
    CHECK_INT(load_html_resources("", 0, out, 8), 0);
}

static void test_gzip_page(void) {
    static const char gz[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xb3\xc9\xc9\xcc\xcb\x56\xc8\x28\x4a\x4d\xb3\x55\xd2\x2f"
                             "\xd6\x4b\x2e\x2e\x56\xb2\xb3\x29\x4e\x2e\xca\x2c\x28\x51\x28\x2e\x4a\x06\x0a\x26\xea\x65\x81"
                             "\xc4\xf4\x21\x82\x76\x00\x67\xe0\x3a\x16\x31\x00\x00\x00";
    static const char want[] = "<link href=\"/s.css\"><script src=\"/a.js\"></script>";
    size_t n = 0;
    char *u = load_gunzip(gz, sizeof gz - 1, 4096, &n);
    CHECK(u && n == sizeof want - 1 && !strcmp(u, want));
    free(u);
    CHECK(load_gunzip(gz, sizeof gz - 10, 4096, &n) == NULL); /* truncated */
    CHECK(load_gunzip(gz, sizeof gz - 1, 10, &n) == NULL);    /* larger than the cap */
    CHECK(load_gunzip("plain text", 10, 4096, &n) == NULL);   /* not gzip */
    static const char h1[] = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 61\r\n\r\n";
    static const char h2[] = "HTTP/1.1 200 OK\r\ncontent-encoding:  GZIP\r\n\r\n";
    static const char h3[] = "HTTP/1.1 200 OK\r\nContent-Length: 61\r\nx-encoding: gzip\r\n\r\n";
    CHECK_INT(load_http_gzip(h1, sizeof h1 - 1), 1);
    CHECK_INT(load_http_gzip(h2, sizeof h2 - 1), 1);
    CHECK_INT(load_http_gzip(h3, sizeof h3 - 1), 0);
}

static void test_http_response_framing(void) {
    int st, ka;
    size_t hl;
    long long bl;
    static const char ok[] = "HTTP/1.1 200 OK\r\ncontent-type: text/css\r\nContent-Length: 5\r\n\r\nhello";
    CHECK_INT(load_http_response(ok, sizeof ok - 1, &st, &hl, &bl, &ka), 1);
    CHECK_INT(st, 200);
    CHECK_INT((int)bl, 5);
    CHECK_INT((int)hl, (int)(sizeof ok - 1 - 5));
    CHECK_INT(ka, 1);
    CHECK_INT(load_http_response(ok, sizeof ok - 3, &st, &hl, &bl, &ka), 0);  /* body not all there */
    CHECK_INT(load_http_response(ok, 20, &st, &hl, &bl, &ka), 0);             /* headers not all there */
    static const char nm[] = "HTTP/1.1 304 Not Modified\r\netag: 00AB\r\nconnection: close\r\n\r\n";
    CHECK_INT(load_http_response(nm, sizeof nm - 1, &st, &hl, &bl, &ka), 1);
    CHECK_INT(st, 304);
    CHECK_INT((int)bl, 0);
    CHECK_INT(ka, 0);
    static const char h10[] = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
    CHECK_INT(load_http_response(h10, sizeof h10 - 1, &st, &hl, &bl, &ka), 1);
    CHECK_INT(ka, 0); /* HTTP/1.0 closes unless it says keep-alive */
    static const char nolen[] = "HTTP/1.1 200 OK\r\n\r\nrest until close";
    CHECK_INT(load_http_response(nolen, sizeof nolen - 1, &st, &hl, &bl, &ka), 0);
    CHECK_INT((int)bl, -1);
    static const char bad[] = "SSH-2.0-OpenSSH\r\n\r\n";
    CHECK_INT(load_http_response(bad, sizeof bad - 1, &st, &hl, &bl, &ka), -1);
    static const char badlen[] = "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n";
    CHECK_INT(load_http_response(badlen, sizeof badlen - 1, &st, &hl, &bl, &ka), -1);
    static const char badst[] = "HTTP/1.1 2x0 OK\r\n\r\n";
    CHECK_INT(load_http_response(badst, sizeof badst - 1, &st, &hl, &bl, &ka), -1);
}

int main(void) {
    RUN(test_scanner_reads_flat_messages);
    RUN(test_scanner_ignores_nested_keys);
    RUN(test_scanner_refuses_malformed);
    RUN(test_welcome_token_and_votes);
    RUN(test_percentiles_nearest_rank);
    RUN(test_proc_parsers);
    RUN(test_loopback_only);
    RUN(test_first_tally_counting_a_vote);
    RUN(test_html_resources);
    RUN(test_http_response_framing);
    RUN(test_gzip_page);
    return check_summary();
}
