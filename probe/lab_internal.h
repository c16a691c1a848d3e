/* Internal to libfragprobe: running helper programs (ip, ethtool, nft) for the lab, by absolute path
 * with a fixed environment. */
#ifndef FRAGPROBE_LAB_INTERNAL_H
#define FRAGPROBE_LAB_INTERNAL_H
#include <stddef.h>

/* Bytes of a helper's output kept for the error message. */
#define LAB_EXEC_OUT_MAX 4096

/* The absolute path of a lab tool: "ip", "ethtool" or "nft", found in
 * /usr/sbin, /usr/bin, /sbin or /bin (never through the caller's PATH). */
const char *lab_tool(const char *name);

/* Runs argv (argv[0] an absolute path: lab_tool's) with input (may be NULL) on its stdin and
 * waits. Returns its exit status (0 = success), or -1 if it could not run or
 * was killed. On a non-zero result err holds the command and its output. */
int lab_exec(char *const argv[], const char *input, char *err, size_t errlen);

/* The same without input, its output (stdout and stderr) into out. */
int lab_exec_output(char *const argv[], char *out, size_t outlen, char *err, size_t errlen);

/* Writes value into a /proc/sys file of the CALLING thread's namespace. */
int lab_sysctl_write(const char *path, const char *value, char *err, size_t errlen);

/* ICMP rate limits (lab_rules.c): the kernel's defaults, read from a fresh
 * network namespace ("" = a sysctl this kernel lacks). */
#define LAB_LIMITS 6
struct lab_limits {
    char v[LAB_LIMITS][32];
    int ok;
};
int lab_limits_defaults(struct lab_limits *d, char *err, size_t errlen);
/* In the CALLING thread's namespace: keep (the defaults) or, NULL, off. */
int lab_limits_write(const struct lab_limits *keep, char *err, size_t errlen);
/* In the calling thread's namespace: 1 when ICMP rate limits are on. */
int lab_limits_kept(void);

/* A router's nft tables: bits of PROBE_LAB_* and reassembly, read back by
 * the tables' names; apply adds the wanted ones it lacks and deletes the
 * others (one `nft -f` per router, nothing run when nothing differs). */
struct probe_lab;
int lab_rules_read(const struct probe_lab *lab, int node, unsigned *bits, int *reassembles, char *err, size_t errlen);
int lab_rules_apply(const struct probe_lab *lab, int node, unsigned want, int want_re, unsigned have, int have_re,
                    char *err, size_t errlen);
#endif
