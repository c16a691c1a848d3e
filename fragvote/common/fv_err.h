/* Filling a caller's error buffer (the convention of every part: return a
 * code, put the sentence in err). No dependencies, so any part of fragvote/
 * may use it without reaching into the subcommands (cli.h). */
#ifndef FRAGVOTE_FV_ERR_H
#define FRAGVOTE_FV_ERR_H

#include <stddef.h>

/* printf into a caller's error buffer; err may be NULL (then nothing). */
void fv_seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* fv_seterr, then -1: `return fv_fail(err, errlen, "why %d", n);`. */
int fv_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* calloc(1, size), or NULL with "out of memory" in err: the caller owns
 * (and frees) what it returns. */
void *fv_zalloc(size_t size, char *err, size_t errlen);

#endif
