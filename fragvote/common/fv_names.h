/* The names of an enum's values: one table of strings per enum, indexed by
 * the value (quiz states, room actions, export formats). The table's own
 * size is its count: FV_NAMES_N(table), checked against the enum's last
 * value with a _Static_assert where the table is. */
#ifndef FRAGVOTE_FV_NAMES_H
#define FRAGVOTE_FV_NAMES_H

#include <stddef.h>

#define FV_NAMES_N(table) (sizeof(table) / sizeof *(table))

/* names[value], or "?" for a value outside the table. */
const char *fv_names_get(const char *const *names, size_t n, int value);
/* The value whose name is name, or -1 (also for NULL). */
int fv_names_find(const char *const *names, size_t n, const char *name);

/* Defines PREFIX_name(TYPE v) (the name, "?" outside the table) and
 * PREFIX_parse(const char *name, TYPE *out) (0, or -1 for an unknown name)
 * over the table NAMES: the pair every enum with names has. */
#define FV_NAMES_DEFINE(prefix, type, names)                                                       \
    const char *prefix##_name(type v) { return fv_names_get(names, FV_NAMES_N(names), (int)v); } \
    int prefix##_parse(const char *name, type *out) {                                               \
        int i = fv_names_find(names, FV_NAMES_N(names), name);                                      \
        if (i >= 0) *out = (type)i;                                                                 \
        return i < 0 ? -1 : 0;                                                                      \
    }

#endif
