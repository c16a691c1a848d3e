/* serve --questions (issue 37, item 6): a 30-minute talk picks its
 * questions from the deck; the deck and its stored JSON then ask only
 * those, so a resume or an export sees what was played. Pure: the
 * built-in deck and canned lists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "deck.h"

static void test_lists_parse_and_bad_ones_are_refused(void) {
    unsigned char want[10];
    char err[256];
    CHECK_INT(deck_select_parse("1-3, 7,9-10", 10, want, err, sizeof err), 0);
    static const unsigned char expect[10] = {1, 1, 1, 0, 0, 0, 1, 0, 1, 1};
    CHECK(!memcmp(want, expect, sizeof expect));
    static const char *const bad[] = {"", "0", "11", "3-2", "1-", "a", "1,,2", "1;2", "2-12", "-3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK_INT(deck_select_parse(bad[i], 10, want, err, sizeof err), -1);
        CHECK_CONTAINS(err, "--questions");
        if (!strcmp(bad[i], "11")) CHECK_CONTAINS(err, "1..10");
    }
}

static void test_the_deck_asks_only_the_chosen_questions(void) {
    struct deck d, full;
    char err[256];
    REQUIRE(deck_load_builtin(&d, err, sizeof err) == 0);
    REQUIRE(deck_load_builtin(&full, err, sizeof err) == 0);
    int n = deck_question_count(&full);
    REQUIRE(n >= 20);
    char list[64];
    snprintf(list, sizeof list, "1-9,%d", n);
    REQUIRE(deck_select(&d, list, err, sizeof err) == 0);
    CHECK_INT(deck_question_count(&d), 10);
    /* the same questions, in order: each chosen one's test spec and kind */
    int picked[10], k = 0;
    for (int p = 0; p < 9; p++) picked[k++] = p;
    picked[k++] = n - 1;
    for (int i = 0; i < 10; i++) {
        int ta, tb;
        enum qkind ka, kb;
        REQUIRE(deck_question_at(&d, i, &ta, &ka) == 0 && deck_question_at(&full, picked[i], &tb, &kb) == 0);
        CHECK_INT(ka, kb);
        CHECK_INT(d.tests[ta].spec.proto, full.tests[tb].spec.proto);
        CHECK_INT(d.tests[ta].spec.mode, full.tests[tb].spec.mode);
        CHECK_INT(d.tests[ta].spec.size, full.tests[tb].spec.size);
    }
    /* the stored text reloads to the same subset (a resume plays it) */
    struct deck again;
    REQUIRE(deck_load_string(d.json, "stored", &again, err, sizeof err) == 0);
    CHECK_INT(deck_question_count(&again), 10);
    CHECK_STR(again.title, full.title);
    CHECK_INT(deck_talk_minutes(&again), (10 * DECK_QUESTION_S + 59) / 60);
    deck_free(&again);
    /* a refused list changes nothing */
    CHECK_INT(deck_select(&d, "11", err, sizeof err), -1);
    CHECK_INT(deck_question_count(&d), 10);
    deck_free(&d);
    deck_free(&full);
}

/* A deck may pick its own questions ("questions": "2-3"): the loaded deck
 * asks those, and its stored text is the subset without the key. */
static void test_a_deck_picks_its_questions(void) {
    struct deck d;
    char err[256];
    static const char text[] =
        "{\"title\":\"T\",\"questions\":\"2-3\",\"tests\":["
        "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ask\":[\"sent\",\"df\"]},"
        "{\"proto\":\"udp6\",\"mode\":\"dont\",\"size\":1400,\"ask\":[\"sent\",\"fragmented\"]}]}";
    REQUIRE(deck_load_string(text, "t.json", &d, err, sizeof err) == 0);
    CHECK_INT(deck_question_count(&d), 2);
    int ti;
    enum qkind k;
    REQUIRE(deck_question_at(&d, 0, &ti, &k) == 0);
    CHECK_INT(d.tests[ti].spec.proto, PROBE_UDP4);
    CHECK_INT(k, QKIND_DF);
    REQUIRE(deck_question_at(&d, 1, &ti, &k) == 0);
    CHECK_INT(d.tests[ti].spec.proto, PROBE_UDP6);
    CHECK_INT(k, QKIND_SENT);
    CHECK(!strstr(d.json, "\"questions\""));
    deck_free(&d);
    static const char bad[] = "{\"title\":\"T\",\"questions\":7,\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}";
    CHECK_INT(deck_load_string(bad, "b.json", &d, err, sizeof err), -1);
    CHECK_CONTAINS(err, "b.json:1:");
    CHECK_CONTAINS(err, "questions");
    static const char out_of_range[] = "{\"title\":\"T\",\"questions\":\"5\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400}]}";
    CHECK_INT(deck_load_string(out_of_range, "r.json", &d, err, sizeof err), -1);
    CHECK_CONTAINS(err, "1..");
}

int main(void) {
    RUN(test_lists_parse_and_bad_ones_are_refused);
    RUN(test_the_deck_asks_only_the_chosen_questions);
    RUN(test_a_deck_picks_its_questions);
    return check_summary();
}
