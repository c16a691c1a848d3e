/* The names of the question kinds (see qkind.h). */
#include "qkind.h"

#include <string.h>

static const char *const qkind_names[] = {"sent", "df", "fragmented"};
_Static_assert(sizeof qkind_names / sizeof *qkind_names == QKIND_N, "a name for each enum qkind");

const char *qkind_name(enum qkind k) { return (unsigned)k < QKIND_N ? qkind_names[k] : "?"; }

int qkind_parse(const char *name, enum qkind *out) {
    for (int i = 0; i < QKIND_N; i++)
        if (!strcmp(name, qkind_names[i])) {
            *out = (enum qkind)i;
            return 0;
        }
    return -1;
}
