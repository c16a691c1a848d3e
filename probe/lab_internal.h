/* Internal to libfragprobe: running helper programs (ip, ethtool, nft) for the lab. */
#ifndef FRAGPROBE_LAB_INTERNAL_H
#define FRAGPROBE_LAB_INTERNAL_H
#include <stddef.h>

/* Bytes of a helper's output kept for the error message. */
#define LAB_EXEC_OUT_MAX 4096

/* Runs argv (searched in PATH) with input (may be NULL) on its stdin and
 * waits. Returns its exit status (0 = success), or -1 if it could not run or
 * was killed. On a non-zero result err holds the command and its output. */
int lab_exec(char *const argv[], const char *input, char *err, size_t errlen);

/* Writes value into a /proc/sys file of the CALLING thread's namespace. */
int lab_sysctl_write(const char *path, const char *value, char *err, size_t errlen);
#endif
