/* libfragprobe: privileges (probe/priv.c). */
#ifndef FRAGPROBE_PRIV_H
#define FRAGPROBE_PRIV_H

#include <stddef.h>

/* probe_priv_has: 1 when the effective set holds cap (a CAP_*
 * number of <linux/capability.h>: CAP_NET_RAW, CAP_NET_ADMIN, ...), else 0.
 * probe_priv_drop: from root, drops to SUDO_UID/SUDO_GID, else to "nobody",
 * clearing supplementary groups and all capabilities; open sockets stay
 * usable. Returns the new uid, or PROBE_E_*. */
int probe_priv_has(int cap);
int probe_priv_drop(char *err, size_t errlen);
/* The same drop, but the listed capabilities (e.g. CAP_NET_RAW for a raw
 * observer that opens sockets per test, CAP_NET_ADMIN for the per-test PMTU
 * flush, CAP_SYS_ADMIN for setns into the lab) stay permitted and effective;
 * every other one is gone. ncaps 0 = probe_priv_drop. */
int probe_priv_drop_keep(const int *caps, int ncaps, char *err, size_t errlen);
/* The same drop to a given user: uid (> 0) and gid (< 0: uid). */
int probe_priv_drop_to(long uid, long gid, const int *caps, int ncaps, char *err, size_t errlen);
#endif
