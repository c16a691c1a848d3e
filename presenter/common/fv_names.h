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

#endif
