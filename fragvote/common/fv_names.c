/* The names of an enum's values (see fv_names.h). */
#include <string.h>

#include "fv_names.h"

const char *fv_names_get(const char *const *names, size_t n, int value) {
    return value >= 0 && (size_t)value < n ? names[value] : "?";
}

int fv_names_find(const char *const *names, size_t n, const char *name) {
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(name, names[i])) return (int)i;
    return -1;
}
