/* The decks tests build in code instead of loading a file: a title, then
 * tests added one by one, each a spec (TTL 2, no host: the room's target)
 * and the questions it asks. What a test sets beyond that (notes, lang,
 * json) it sets itself on the deck afterwards. */
#ifndef FRAGVOTE_TESTS_DECK_FIXTURE_H
#define FRAGVOTE_TESTS_DECK_FIXTURE_H

#include "deck.h"

/* The questions a test asks, as bits of deck_fixture_test's asks. */
#define DECK_FIXTURE_SENT (1u << QKIND_SENT)
#define DECK_FIXTURE_DF (1u << QKIND_DF)
#define DECK_FIXTURE_FRAG (1u << QKIND_FRAGMENTED)
#define DECK_FIXTURE_ALL (DECK_FIXTURE_SENT | DECK_FIXTURE_DF | DECK_FIXTURE_FRAG)

/* d emptied (no test yet) and titled title. */
void deck_fixture(struct deck *d, const char *title);

/* Adds a test of proto, mode and size bytes at TTL 2 that asks the
 * questions in asks (DECK_FIXTURE_* bits; 0: none). Returns its index. */
int deck_fixture_test(struct deck *d, enum probe_proto proto, enum probe_mode mode, int size, unsigned asks);

/* The one-test deck most hub tests play: title, then UDP over IPv4 with DF
 * set, 1400 bytes, asking asks. */
void deck_fixture_one(struct deck *d, const char *title, unsigned asks);

#endif
