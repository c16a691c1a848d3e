/* Files the program writes for its user (exports): whole or not at all, and
 * private (and a small file read whole). A file is written under a random name next to its target,
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

/* A target opened now, its content written at the end (fv_file_write_fd):
 * for a process that drops privileges in between and then can no longer
 * create or rename files in target's directory (present from a root shell,
 * docs/PRIVILEGES.md). Created FV_FILE_MODE, or an existing regular file
 * opened and made FV_FILE_MODE (its content untouched until written); never
 * through a symlink. The descriptor, or -1 with err. */
int fv_file_open_early(const char *target, char *err, size_t errlen);
/* data (n bytes) as the whole content of fd (fv_file_open_early's),
 * synced; fd closed either way. Unlike fv_file_commit a
 * failure midway leaves the file partial. 0, or -1 with err. */
int fv_file_write_fd(int fd, const char *target, const void *data, size_t n, char *err, size_t errlen);

/* A small file read whole (at most max bytes) into a new buffer, NUL
 * added (caller frees), its size in *len: what a process reads before it
 * drops privileges (serve's TLS certificate and key). NULL with err. */
char *fv_file_read(const char *path, size_t max, size_t *len, char *err, size_t errlen);

#endif
