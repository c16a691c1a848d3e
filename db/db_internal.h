/* Helpers shared by the files of db/ only (not part of the store's API). */
#ifndef FRAGVOTE_DB_INTERNAL_H
#define FRAGVOTE_DB_INTERNAL_H

#include <stddef.h>

/* printf into a caller's error buffer; err may be NULL (then nothing). */
void db_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
