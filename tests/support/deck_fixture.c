/* See deck_fixture.h. */
#include "deck_fixture.h"

#include <stdio.h>
#include <string.h>

void deck_fixture(struct deck *d, const char *title) {
    memset(d, 0, sizeof *d);
    snprintf(d->title, sizeof d->title, "%s", title);
}

int deck_fixture_test(struct deck *d, enum probe_proto proto, enum probe_mode mode, int size, unsigned asks) {
    int i = d->ntests++;
    d->tests[i].spec = (struct probe_spec){.proto = proto, .mode = mode, .size = size, .ttl = 2};
    for (int k = 0; k < QKIND_N; k++) d->tests[i].ask[k] = (asks >> k) & 1;
    return i;
}

void deck_fixture_one(struct deck *d, const char *title, unsigned asks) {
    deck_fixture(d, title);
    deck_fixture_test(d, PROBE_UDP4, PROBE_MODE_DO, 1400, asks);
}
