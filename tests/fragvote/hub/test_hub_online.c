/* The counting set of not-yet-voting tokens (fragvote/hub/hub_online.c): one
 * entry per distinct token however many connections it has, gone with its
 * last connection, and every other token still found after deletions shift
 * the probe runs (checked against a plain array of counts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hub_online.h"

#define N 3000

static void token_of(int i, char out[ROOM_TOKEN_HEX + 1]) {
    /* ids that collide in their low bits, so probe runs are long */
    snprintf(out, ROOM_TOKEN_HEX + 1, "%08x%08x%016x", (unsigned)(i % 7), (unsigned)i * 2654435761u, (unsigned)i);
}

static void test_a_token_counts_once_and_leaves_with_its_last_connection(void) {
    struct hub_online s = {0};
    char t[ROOM_TOKEN_HEX + 1], u[ROOM_TOKEN_HEX + 1];
    token_of(1, t);
    token_of(2, u);
    CHECK_INT(hub_online_add(&s, t), 1);
    CHECK_INT(hub_online_add(&s, t), 0); /* a second tab */
    CHECK_INT(hub_online_add(&s, u), 1);
    CHECK_INT(s.used, 2);
    CHECK_INT(hub_online_remove(&s, t), 0);
    CHECK_INT(s.used, 2);
    CHECK_INT(hub_online_remove(&s, t), 1);
    CHECK_INT(s.used, 1);
    CHECK_INT(hub_online_remove(&s, t), -1); /* not there any more */
    CHECK_INT(hub_online_remove(&s, u), 1);
    CHECK_INT(s.used, 0);
    hub_online_free(&s);
}

static void test_many_tokens_in_any_order_against_a_plain_count(void) {
    struct hub_online s = {0};
    static int count[N];
    char t[ROOM_TOKEN_HEX + 1];
    unsigned seed = 12345;
    int distinct = 0, bad = 0;
    for (int step = 0; step < 40000; step++) {
        seed = seed * 1103515245u + 12345u;
        int i = (int)((seed >> 8) % N), add = (seed >> 4) % 3 != 0 || count[i] == 0;
        token_of(i, t);
        if (add) {
            int r = hub_online_add(&s, t);
            bad += r != (count[i] == 0);
            distinct += count[i]++ == 0;
        } else {
            int r = hub_online_remove(&s, t);
            bad += r != (count[i] == 1);
            distinct -= --count[i] == 0;
        }
        bad += (int)s.used != distinct;
    }
    CHECK_INT(bad, 0);
    /* everything left is still found, with its count */
    for (int i = 0; i < N; i++) {
        token_of(i, t);
        for (int k = 0; k < count[i]; k++) bad += hub_online_remove(&s, t) != (k == count[i] - 1);
        bad += hub_online_remove(&s, t) != -1;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(s.used, 0);
    hub_online_free(&s);
}

/* The voters online (moved out of the wire side with this test): a voter
 * counts once however many connections it has, until its last closes;
 * indexes far beyond the first allocation grow the table. */
static void test_a_voter_is_online_until_its_last_connection_closes(void) {
    struct hub_voters s = {0};
    CHECK_INT(hub_voters_add(&s, 3), 0);
    CHECK_INT(hub_voters_add(&s, 3), 0); /* a second tab */
    CHECK_INT(s.joined, 1);
    CHECK_INT(hub_voters_add(&s, 150000), 0);
    CHECK_INT(s.joined, 2);
    CHECK(s.cap > 150000);
    hub_voters_remove(&s, 3);
    CHECK_INT(s.joined, 2);
    hub_voters_remove(&s, 3);
    CHECK_INT(s.joined, 1);
    hub_voters_remove(&s, 150000);
    CHECK_INT(s.joined, 0);
    hub_voters_free(&s);
    CHECK(s.conns == NULL && s.cap == 0);
}

int main(void) {
    RUN(test_a_token_counts_once_and_leaves_with_its_last_connection);
    RUN(test_many_tokens_in_any_order_against_a_plain_count);
    RUN(test_a_voter_is_online_until_its_last_connection_closes);
    return check_summary();
}
