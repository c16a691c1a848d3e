/* The three questions a deck's test asks (sent, df, fragmented) and their
 * names, as decks, the store and the protocol spell them. Pure (libc only),
 * below the deck, the room and the store (db/), so all three name kinds
 * with one enum and one table without the room or the hub having the store
 * in reach. */
#ifndef FRAGVOTE_QKIND_H
#define FRAGVOTE_QKIND_H

enum qkind { QKIND_SENT, QKIND_DF, QKIND_FRAGMENTED };
#define QKIND_N (QKIND_FRAGMENTED + 1)

/* "sent" / "df" / "fragmented"; "?" outside the enum. */
const char *qkind_name(enum qkind k);
/* 0 and *out for a kind's name; -1 for any other string. */
int qkind_parse(const char *name, enum qkind *out);

#endif
