/* A connection's send queue keeps one pending state, the newest (issue 36,
 * item 8): hub_queue_drop_states on canned rings. States are what every
 * change re-sends whole (2.7 KB with a leaderboard); a phone that lags
 * behind a burst of them needs only the last one, and every other message
 * (acks, errors, tallies) keeps its place and order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hub_send.h"

static struct hub_msg *msg(const char *text, int is_state) {
    struct hub_msg *m = hub_msg_new(strdup(text));
    if (is_state) hub_msg_mark_state(m);
    return m;
}

static const char *text_of(const struct hub_msg *m) {
    size_t len;
    return hub_msg_text(m, &len);
}

/* The ring's messages from head as "a,b,c" (each text's first byte). */
static void ring_text(struct hub_msg *q[], unsigned cap, unsigned head, unsigned len, char *out) {
    for (unsigned i = 0; i < len; i++) out[i] = text_of(q[(head + i) % cap])[0];
    out[len] = 0;
}

static void test_older_states_leave_others_keep_their_order(void) {
    struct hub_msg *q[8];
    struct hub_msg *kept = msg("a-ack", 0);
    hub_msg_ref(kept); /* the test's own reference: the queue's is dropped only if it leaves */
    /* the ring wraps: head at 6, 5 messages: S1 a S2 t S3 */
    q[6] = msg("S1", 1), q[7] = kept, q[0] = msg("S2", 1), q[1] = msg("t-tally", 0), q[2] = msg("S3", 1);
    unsigned len = 5;
    CHECK_INT(hub_queue_drop_states(q, 8, 6, &len, 0), 3);
    CHECK_INT(len, 2);
    char got[9];
    ring_text(q, 8, 6, len, got);
    CHECK_STR(got, "at");
    CHECK_INT(hub_msg_refs(kept), 2); /* still queued once, and ours */
    hub_msg_unref(q[6]), hub_msg_unref(q[7]), hub_msg_unref(kept);
}

static void test_a_state_being_written_stays(void) {
    struct hub_msg *q[4];
    q[3] = msg("S1", 1), q[0] = msg("a-ack", 0), q[1] = msg("S2", 1);
    unsigned len = 3;
    CHECK_INT(hub_queue_drop_states(q, 4, 3, &len, 1), 1); /* S1's first bytes are out: it must finish */
    char got[5];
    ring_text(q, 4, 3, len, got);
    CHECK_STR(got, "Sa");
    size_t s1_len;
    const char *s1 = hub_msg_text(q[3], &s1_len);
    CHECK(s1_len == 2 && !memcmp(s1, "S1", 2));
    for (unsigned i = 0; i < len; i++) hub_msg_unref(q[(3 + i) % 4]);
}

static void test_nothing_to_drop(void) {
    struct hub_msg *q[4] = {msg("a", 0), msg("b", 0), NULL, NULL};
    unsigned len = 2;
    CHECK_INT(hub_queue_drop_states(q, 4, 0, &len, 0), 0);
    CHECK_INT(len, 2);
    unsigned empty = 0;
    CHECK_INT(hub_queue_drop_states(q, 4, 2, &empty, 0), 0);
    hub_msg_unref(q[0]), hub_msg_unref(q[1]);
}

int main(void) {
    RUN(test_older_states_leave_others_keep_their_order);
    RUN(test_a_state_being_written_stays);
    RUN(test_nothing_to_drop);
    return check_summary();
}
