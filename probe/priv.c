/* Privileges: which capabilities we hold (capget, no libcap), and the drop
 * from root to the invoking user after the raw sockets and the lab exist.
 * Open file descriptors survive setuid(): a raw socket opened as root keeps
 * receiving after the drop; only opening new ones needs the capability. */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "fragprobe.h"

int probe_priv_has(int cap) {
    if (cap < 0 || cap > 63) return 0;
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &hdr, data) != 0) return 0;
    return (data[cap / 32].effective >> (cap % 32)) & 1u;
}

/* Parses a decimal id from the environment (SUDO_UID/SUDO_GID); -1 if absent or bad. */
static long env_id(const char *name) {
    const char *s = getenv(name);
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > 0x7fffffffL) return -1;
    return v;
}

/* Keeps exactly the listed capabilities permitted, effective and
 * inheritable (inheritable so they can be made ambient, see below). */
static int priv_set_caps(const int *caps, int ncaps, char *err, size_t errlen) {
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    for (int i = 0; i < ncaps; i++) {
        if (caps[i] < 0 || caps[i] > 63) {
            snprintf(err, errlen, "capability %d out of range", caps[i]);
            return PROBE_E_FAIL;
        }
        data[caps[i] / 32].permitted |= 1u << (caps[i] % 32);
        data[caps[i] / 32].effective |= 1u << (caps[i] % 32);
        data[caps[i] / 32].inheritable |= 1u << (caps[i] % 32);
    }
    if (syscall(SYS_capset, &hdr, data) != 0) {
        snprintf(err, errlen, "cannot keep the capabilities after the drop: %s", strerror(errno));
        return PROBE_E_FAIL;
    }
    return 0;
}

int probe_priv_drop_keep(const int *caps, int ncaps, char *err, size_t errlen) {
    long uid = env_id("SUDO_UID"), gid = env_id("SUDO_GID");
    if (uid <= 0) {
        /* Not started by sudo (or by sudo from root): become nobody. */
        struct passwd *pw = getpwnam("nobody");
        uid = pw ? (long)pw->pw_uid : 65534;
        gid = pw ? (long)pw->pw_gid : 65534;
    }
    return probe_priv_drop_to(uid, gid, caps, ncaps, err, errlen);
}

int probe_priv_drop_to(long uid, long gid, const int *caps, int ncaps, char *err, size_t errlen) {
    if (geteuid() != 0) return (int)geteuid(); /* nothing to drop */
    for (int i = 0; i < ncaps; i++)
        if (caps[i] == CAP_SETUID || caps[i] == CAP_SETGID) {
            snprintf(err, errlen, "keeping CAP_SETUID or CAP_SETGID would allow becoming root again");
            return PROBE_E_FAIL;
        }
    if (uid <= 0 || uid > 0x7fffffffL) {
        snprintf(err, errlen, "will not drop root to uid %ld", uid);
        return PROBE_E_FAIL;
    }
    if (gid < 0) gid = uid;
    if (setgroups(0, NULL) != 0) {
        snprintf(err, errlen, "cannot clear supplementary groups: %s", strerror(errno));
        return PROBE_E_FAIL;
    }
    if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0) {
        snprintf(err, errlen, "cannot switch to group %ld: %s", gid, strerror(errno));
        return PROBE_E_FAIL;
    }
    /* With KEEPCAPS the permitted set survives the uid change (effective is
     * cleared); we then keep only what was asked for. Without it, every
     * capability is gone. */
    if (prctl(PR_SET_KEEPCAPS, ncaps > 0 ? 1 : 0, 0, 0, 0) != 0) {
        snprintf(err, errlen, "cannot set PR_SET_KEEPCAPS: %s", strerror(errno));
        return PROBE_E_FAIL;
    }
    if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) {
        snprintf(err, errlen, "cannot switch to user %ld: %s", uid, strerror(errno));
        return PROBE_E_FAIL;
    }
    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
    if (priv_set_caps(caps, ncaps, err, errlen) < 0) return PROBE_E_FAIL;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    /* Kept capabilities are also ambient: the helpers we exec (`ip netns`,
     * `ethtool`, `nft` for the lab and its teardown) need exactly them and
     * no more; everything not kept stays gone for them too. */
    for (int i = 0; i < ncaps; i++)
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long)caps[i], 0, 0) != 0) {
            snprintf(err, errlen, "cannot make capability %d ambient: %s", caps[i], strerror(errno));
            return PROBE_E_FAIL;
        }
    if (setuid(0) == 0 || geteuid() == 0) {
        snprintf(err, errlen, "dropped to uid %ld but could regain root; refusing to serve", uid);
        return PROBE_E_FAIL;
    }
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    return (int)uid;
}

int probe_priv_drop(char *err, size_t errlen) { return probe_priv_drop_keep(NULL, 0, err, errlen); }
