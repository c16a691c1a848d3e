/* The room's language (docs/LANGUAGES.md): every state carries "lang", the
 * projector's and presenter page's language: serve --lang (hub_config.lang)
 * over the deck's "lang" over "en"; and "q.ask", the question's parts the
 * pages word in their reader's language, for phones, screens and presenters
 * alike (the test's spec: nothing a vote could learn from). The real hub on
 * a free loopback port, real websocket clients. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "lang-test-secret"

static struct hubfix F;
static struct deck D;

/* A hub on a one-test deck whose "lang" is deck_lang, serve --lang cfg_lang. */
static int start(const char *deck_lang, const char *cfg_lang) {
    char err[512], path[256];
    deck_fixture_one(&D, "lang test", DECK_FIXTURE_DF);
    snprintf(D.lang, sizeof D.lang, "%s", deck_lang);
    snprintf(path, sizeof path, "%s/lang-%s-%s.db", check_tmpdir(), deck_lang, cfg_lang ? cfg_lang : "none");
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .port = 0, .secret = SECRET, .use_poll = 1, .lang = cfg_lang};
    if (hubfix_start(&F, path, &D, "LANG42", 0, &cfg, err, sizeof err)) return fprintf(stderr, "%s\n", err), -1;
    return 0;
}

/* The "lang" of the first state a connection of protocol gets. */
static void check_lang(const char *protocol, const char *want) {
    char err[256];
    struct wsc *w = !strcmp(protocol, "fragvote-audience")
                        ? fvr_phone("127.0.0.1", F.port, "LANG42", 1, NULL, T_MS, NULL, err, sizeof err)
                    : !strcmp(protocol, "fragvote-presenter") ? fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err)
                                                              : fvr_connect("127.0.0.1", F.port, protocol, T_MS, err, sizeof err);
    REQUIRE(w);
    if (!strcmp(protocol, "fragvote-screen")) wsc_send_text(w, "{\"t\":\"hello\"}");
    struct wsc *p = NULL;
    if (!strcmp(protocol, "fragvote-audience")) { /* its first state came with the join: the next one, opened */
        p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
        REQUIRE(p && fvr_step(p, "open", T_MS) == 0);
    }
    json_t *st = wsc_recv_type(w, "state", T_MS);
    REQUIRE(st);
    const char *lang = json_string_value(json_object_get(st, "lang"));
    CHECK_STR(lang ? lang : "(none)", want);
    json_t *ask = json_object_get(json_object_get(st, "q"), "ask");
    char *txt = ask ? json_dumps(ask, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    CHECK_STR(txt ? txt : "(none)", "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":2}");
    free(txt);
    json_decref(st);
    wsc_close(w, 1000);
    if (p) wsc_close(p, 1000);
}

static void test_english_without_a_language(void) {
    REQUIRE(start("", NULL) == 0);
    check_lang("fragvote-audience", "en");
    check_lang("fragvote-screen", "en");
    check_lang("fragvote-presenter", "en");
    hubfix_stop(&F);
}

static void test_the_decks_language(void) {
    REQUIRE(start("fr", NULL) == 0);
    check_lang("fragvote-screen", "fr");
    check_lang("fragvote-presenter", "fr");
    hubfix_stop(&F);
}

static void test_serve_lang_over_the_decks(void) {
    REQUIRE(start("fr", "de") == 0);
    check_lang("fragvote-screen", "de");
    check_lang("fragvote-audience", "de");
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_english_without_a_language);
    RUN(test_the_decks_language);
    RUN(test_serve_lang_over_the_decks);
    return check_summary();
}
