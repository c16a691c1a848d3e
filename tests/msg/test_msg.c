/* libfragmsg (msg/fv_msg.c): a message's key and arguments as the spec
 * names them, and its English from the embedded English catalog (the same
 * file the pages read): a number, a verbatim string, a key's text as an
 * argument; a placeholder without an argument stays as written, a key the
 * catalog lacks is written as itself; the embedded table is sorted, so
 * every key of it is found. */
#include "check.h"
#include "fv_msg.h"

static void test_arguments_as_the_spec_names_them(void) {
    struct fv_msg m;
    fv_msg_set(&m, "rule.do_fits", "opt=%s size=%d mtu=%d", "IP_PMTUDISC_DO", 1400, 1500);
    CHECK_STR(m.key, "rule.do_fits");
    CHECK_INT(m.nargs, 3);
    CHECK_STR(m.arg[0].name, "opt");
    CHECK_INT(m.arg[0].type, FV_MSG_STR);
    CHECK_STR(m.arg[0].s, "IP_PMTUDISC_DO");
    CHECK_INT(m.arg[1].type, FV_MSG_INT);
    CHECK_INT((int)fv_msg_arg(&m, "mtu")->i, 1500);
    CHECK(fv_msg_arg(&m, "nothing") == NULL);
    fv_msg_set(&m, "surprise.said", "@answer=%s", "answer.no");
    CHECK_INT(m.arg[0].type, FV_MSG_KEY);
    CHECK_STR(m.arg[0].name, "answer");
    fv_msg_key(&m, "rule.refused");
    CHECK_INT(m.nargs, 0);
}

static void test_english_from_the_catalog(void) {
    struct fv_msg m;
    char s[400];
    fv_msg_set(&m, "rule.do_fits", "opt=%s size=%d mtu=%d", "IP_PMTUDISC_DO", 1400, 1500);
    CHECK_INT((int)fv_msg_text(&m, s, sizeof s), (int)strlen(s));
    CHECK_STR(s, "IP_PMTUDISC_DO refuses a datagram larger than the route's MTU: 1400 <= 1500, so send() accepts it");
    fv_msg_set(&m, "surprise.said", "@answer=%s", "answer.no");
    fv_msg_text(&m, s, sizeof s);
    CHECK_STR(s, "Surprise: the rules said no");
    fv_msg_set(&m, "rule.do_fits", "opt=%s", "X"); /* size and mtu missing: written as they are */
    fv_msg_text(&m, s, sizeof s);
    CHECK_STR(s, "X refuses a datagram larger than the route's MTU: {size} <= {mtu}, so send() accepts it");
    fv_msg_key(&m, "no.such_key");
    fv_msg_text(&m, s, sizeof s);
    CHECK_STR(s, "no.such_key");
    CHECK(fv_msg_en("no.such_key") == NULL);
    fv_msg_set(&m, "rule.do_fits", "opt=%s size=%d mtu=%d", "IP_PMTUDISC_DO", 1400, 1500);
    CHECK_INT((int)fv_msg_text(&m, s, 12), 11); /* cut to fit */
    CHECK_STR(s, "IP_PMTUDISC");
    struct fv_msg none = {0};
    CHECK_INT((int)fv_msg_text(&none, s, sizeof s), 0);
    CHECK_STR(s, "");
    snprintf(s, sizeof s, "a: ");
    fv_msg_key(&m, "rule.refused");
    fv_msg_append(&m, s, sizeof s);
    CHECK_STR(s, "a: send() refuses it: nothing leaves the host");
}

static void test_every_key_of_the_catalog_is_found(void) {
    /* keys of every family, from the top and the bottom of the sort */
    static const char *const keys[] = {"answer.no", "lang.name", "privacy.back", "rule.whole_fits", "why.v6_no_df",
                                       "verdict.right", "conn.online"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) CHECK(fv_msg_en(keys[i]) != NULL);
    CHECK_STR(fv_msg_en("lang.name"), "English");
}

/* Messages in a row: their English one after another; a row that cannot
 * say its text (full, or English before it no message says) is lost and the
 * text goes on in English alone. */
static void test_messages_in_a_row(void) {
    struct fv_msg row[3];
    int n = 0;
    char text[512] = "";
    fv_msg_row_add(row, &n, 3, "ev.arrived_frags_at", "where=%s n=%d max=%d", "dst", 2, 1276);
    fv_msg_row_add(row, &n, 3, "ev.arrived_ttl", "ttl=%d n=%d", 62, 2);
    CHECK_INT(n, 2);
    fv_msg_row_text(row, n, text, sizeof text);
    CHECK_STR(text, "arrived at dst in 2 fragments, largest 1276 bytes, TTL 62 on arrival (2 routers)");
    struct fv_msg m;
    fv_msg_set(&m, "ev.by_left_whole", " ");
    fv_msg_row_put(row, &n, 3, &m, text, sizeof text);
    CHECK_INT(n, 3);
    CHECK_STR(text, "arrived at dst in 2 fragments, largest 1276 bytes, TTL 62 on arrival (2 routers): it left the host "
                    "whole: a router fragmented it");
    fv_msg_row_put(row, &n, 3, &m, text, sizeof text); /* full: lost, the English goes on */
    CHECK_INT(n, -1);
    CHECK(strstr(text, "fragmented it: it left the host whole: a router fragmented it") != NULL);
    fv_msg_row_add(row, &n, 3, "ev.then", " "); /* a lost row stays lost */
    CHECK_INT(n, -1);
    char cut[20];
    CHECK_INT((int)fv_msg_row_text(row, 2, cut, sizeof cut), 19); /* cut to fit */
    int k = 0;
    char said[64] = "no ICMP answer";
    fv_msg_row_put(row, &k, 3, &m, said, sizeof said); /* English before it: lost */
    CHECK_INT(k, -1);
    CHECK_STR(said, "no ICMP answer: it left the host whole: a router fragmented it");
    k = 0;
    fv_msg_row_append(row, &k, 3, row, 2);
    CHECK_INT(k, 2);
    fv_msg_row_append(row, &k, 3, row, -1); /* a lost row appended: lost */
    CHECK_INT(k, -1);
}

int main(void) {
    RUN(test_arguments_as_the_spec_names_them);
    RUN(test_english_from_the_catalog);
    RUN(test_every_key_of_the_catalog_is_found);
    RUN(test_messages_in_a_row);
    return check_summary();
}
