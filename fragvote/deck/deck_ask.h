/* A test's question as parts (deck_words.c), for the pages to word in
 * their reader's language from their message catalog (docs/LANGUAGES.md,
 * docs/PROTOCOL.md "q.ask"). Separate from deck.h: only the hub, which
 * speaks JSON to the pages, needs it. */
#ifndef FRAGVOTE_DECK_ASK_H
#define FRAGVOTE_DECK_ASK_H

#include <jansson.h>

#include "deck.h"

/* {"proto":"udp4","mode":"do","size":1400,"ttl":2} (ttl 0: automatic), with
 * "mtus" (the lab's link MTUs, when not the lab's defaults) and "lab" (the
 * routers that do something: [{"node":"r2","does":["dropfrag"],
 * "reassembles":false}], behaviours by their deck names) for a test on a lab
 * scenario: what deck_question_text words in English. NULL: no memory. */
json_t *deck_ask_json(const struct deck_test *t);

#endif
