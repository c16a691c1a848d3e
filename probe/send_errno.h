/* Internal to libfragprobe: an errno of send() as a catalog key
 * (probe/send_errno.c), for the judges' whys. */
#ifndef FRAGPROBE_SEND_ERRNO_H
#define FRAGPROBE_SEND_ERRNO_H

/* The catalog key that says what errno code of send() means
 * ("errno.emsgsize"; its English is strerror's), NULL for one outside the
 * table (the why then carries strerror's English). */
const char *probe_errno_key(int code);

#endif
