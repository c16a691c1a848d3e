/* Files the program writes for its user (exports): whole or not at all, and
 * private. A file is written under a random name next to its target,
 * created 0600 with O_EXCL (so nothing planted at that name -- a symlink to
 * another file -- is ever followed or overwritten), then renamed over the
 * target; a failed write leaves the target as it was. */
#ifndef FRAGVOTE_FV_FILE_H
#define FRAGVOTE_FV_FILE_H

#include <stddef.h>
#include <stdio.h>

#define FV_FILE_MODE 0600 /* exports and databases hold votes and unrevealed measurements */

/* Opens the temporary file for target; its path goes to tmp (at least
 * strlen(target) + 8 bytes). NULL with err. */
FILE *fv_file_begin(const char *target, char *tmp, size_t tmplen, char *err, size_t errlen);
/* Closes f and renames tmp over target: 0, or -1 with err (tmp removed). */
int fv_file_commit(FILE *f, const char *tmp, const char *target, char *err, size_t errlen);
/* Closes f and removes tmp (a write that failed). */
void fv_file_abort(FILE *f, const char *tmp);

#endif
