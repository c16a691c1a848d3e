/* The lab routers' behaviours in the kernel: one nftables table per
 * behaviour in the router's namespace (read back by name), and the ICMP
 * rate-limit sysctls, off in every node or the kernel's defaults in a router
 * that keeps them (read from a fresh namespace, so they are this kernel's).
 * docs/LAB.md, "Router behaviours", says what each rule does and why. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fragprobe.h"
#include "lab_internal.h"

/* The ICMP rate-limit sysctls: the lab's "off" value, and whether a kernel
 * may lack it (icmp_msgs_* and the IPv6 ratemask are newer). */
static const struct {
    const char *path, *off;
    int optional;
} limits[LAB_LIMITS] = {
    {"/proc/sys/net/ipv4/icmp_ratelimit", "0", 0},
    {"/proc/sys/net/ipv4/icmp_ratemask", "0", 0},
    {"/proc/sys/net/ipv6/icmp/ratelimit", "0", 0},
    {"/proc/sys/net/ipv4/icmp_msgs_per_sec", "1000000", 1},
    {"/proc/sys/net/ipv4/icmp_msgs_burst", "1000000", 1},
    {"/proc/sys/net/ipv6/icmp/ratemask", "\n", 1},
};

static int read_small(const char *path, char *buf, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t r = read(fd, buf, len - 1);
    close(fd);
    if (r < 0) return -1;
    buf[r] = 0;
    while (r && (buf[r - 1] == '\n' || buf[r - 1] == ' ')) buf[--r] = 0;
    return 0;
}

static void *defaults_thread(void *p) {
    struct lab_limits *d = p;
    /* A new network namespace for this thread alone: it has the kernel's
     * defaults, and it goes away with the thread. */
    if (unshare(CLONE_NEWNET) < 0) {
        d->ok = -errno;
        return NULL;
    }
    for (int i = 0; i < LAB_LIMITS; i++)
        if (read_small(limits[i].path, d->v[i], sizeof d->v[i]) < 0) {
            if (!limits[i].optional) {
                d->ok = -ENOENT;
                return NULL;
            }
            d->v[i][0] = 0; /* absent in this kernel */
        }
    d->ok = 1;
    return NULL;
}

int lab_limits_defaults(struct lab_limits *d, char *err, size_t errlen) {
    memset(d, 0, sizeof *d);
    pthread_t t;
    int e = pthread_create(&t, NULL, defaults_thread, d);
    if (e) {
        snprintf(err, errlen, "cannot start a thread to read the kernel's ICMP limits: %s", strerror(e));
        return PROBE_E_FAIL;
    }
    pthread_join(t, NULL);
    if (d->ok != 1) {
        snprintf(err, errlen, "cannot read the kernel's default ICMP rate limits from a fresh namespace: %s",
                 strerror(-d->ok));
        return PROBE_E_FAIL;
    }
    return 0;
}

int lab_limits_write(const struct lab_limits *keep, char *err, size_t errlen) {
    for (int i = 0; i < LAB_LIMITS; i++) {
        const char *v = keep ? keep->v[i] : limits[i].off;
        if (limits[i].optional) {
            char e[256];
            if (*v) lab_sysctl_write(limits[i].path, v, e, sizeof e); /* absent in older kernels */
        } else if (lab_sysctl_write(limits[i].path, v, err, errlen) < 0) {
            return PROBE_E_FAIL;
        }
    }
    return 0;
}

int lab_limits_kept(void) {
    char v[32];
    return read_small(limits[0].path, v, sizeof v) == 0 && strcmp(v, "0") != 0;
}

/* One table per behaviour. %s in a body is the router's interface towards dst. */
static const struct {
    unsigned bit; /* 0: reassembly */
    const char *family, *name, *body;
} tables[] = {
    /* A conntrack rule pulls in nf_defrag: the router reassembles fragments
     * before routing (and before the TTL check). */
    {0, "inet", "fragvote_defrag",
     "chain pre { type filter hook prerouting priority raw; policy accept;\n    ct state new accept\n  }"},
    /* Priority -450: before nf_defrag (-400), so a fragment is dropped as it
     * arrives even where conntrack would reassemble; before routing, so it
     * draws no Time Exceeded either. MF set or offset > 0; IPv6 Fragment header. */
    {PROBE_LAB_DROPFRAG, "inet", "fragvote_dropfrag",
     "chain frags { type filter hook prerouting priority -450; policy accept;\n"
     "    ip frag-off & 0x3fff != 0 drop\n    exthdr frag exists drop\n  }"},
    /* The forward hook sees what passes through, never what the router sends itself. */
    {PROBE_LAB_BLACKHOLE, "inet", "fragvote_blackhole",
     "chain icmp_errors { type filter hook forward priority filter; policy accept;\n"
     "    icmp type { destination-unreachable, source-quench, time-exceeded, parameter-problem } drop\n"
     "    icmpv6 type { destination-unreachable, packet-too-big, time-exceeded, parameter-problem } drop\n  }"},
    /* The router's own ICMP errors leave through the output hook. */
    {PROBE_LAB_SILENT, "inet", "fragvote_silent",
     "chain no_time_exceeded { type filter hook output priority filter; policy accept;\n"
     "    icmp type time-exceeded drop\n    icmpv6 type time-exceeded drop\n  }"},
    /* Before routing (the forward path checks DF against the next link's MTU
     * before the forward hook): a whole IPv4 packet with DF (frag-off
     * exactly 0x4000: DF, no MF, offset 0) leaves this router's prerouting
     * with DF=0, so the router fragments it where the rules say it must drop
     * it with Frag Needed. nft fixes the header checksum. */
    {PROBE_LAB_CLEARDF, "ip", "fragvote_cleardf",
     "chain pre { type filter hook prerouting priority mangle; policy accept;\n    ip frag-off 0x4000 ip frag-off set 0\n  }"},
    {PROBE_LAB_NAT, "ip", "fragvote_nat",
     "chain nat_out { type nat hook postrouting priority srcnat; policy accept;\n    oifname \"%s\" masquerade\n  }"},
};
#define NTABLES (int)(sizeof tables / sizeof *tables)

static int table_wanted(int i, unsigned bits, int reassembles) {
    return tables[i].bit ? (bits & tables[i].bit) != 0 : reassembles;
}

int lab_rules_read(const struct probe_lab *lab, int node, unsigned *bits, int *reassembles, char *err, size_t errlen) {
    char *argv[] = {(char *)lab_tool("ip"), "netns", "exec", (char *)lab->ns[node],
                    (char *)lab_tool("nft"), "list", "tables", NULL};
    char out[LAB_EXEC_OUT_MAX];
    if (lab_exec_output(argv, out, sizeof out, err, errlen) != 0) return PROBE_E_FAIL;
    *bits = 0;
    *reassembles = 0;
    for (int i = 0; i < NTABLES; i++) {
        char line[64];
        int ll = snprintf(line, sizeof line, "table %s %s", tables[i].family, tables[i].name);
        const char *at = strstr(out, line);
        while (at && at[ll] && at[ll] != '\n') at = strstr(at + 1, line); /* a longer name */
        if (!at) continue;
        if (tables[i].bit) *bits |= tables[i].bit;
        else *reassembles = 1;
    }
    return 0;
}

int lab_rules_apply(const struct probe_lab *lab, int node, unsigned want, int want_re, unsigned have, int have_re,
                    char *err, size_t errlen) {
    char script[4096];
    size_t n = 0;
    for (int i = 0; i < NTABLES && n < sizeof script; i++) {
        int w = table_wanted(i, want, want_re), h = table_wanted(i, have, have_re);
        if (w == h) continue;
        if (!w) {
            n += (size_t)snprintf(script + n, sizeof script - n, "delete table %s %s\n", tables[i].family,
                                  tables[i].name);
            continue;
        }
        char body[1024];
        snprintf(body, sizeof body, tables[i].body, lab->link[node].a_if);
        n += (size_t)snprintf(script + n, sizeof script - n, "table %s %s {\n  %s\n}\n", tables[i].family,
                              tables[i].name, body);
    }
    if (n >= sizeof script) {
        snprintf(err, errlen, "nft rules for %s do not fit", lab->ns[node]);
        return PROBE_E_FAIL;
    }
    if (!n) return 0;
    char *argv[] = {(char *)lab_tool("ip"), "netns", "exec", (char *)lab->ns[node],
                    (char *)lab_tool("nft"), "-f", "-", NULL};
    return lab_exec(argv, script, err, errlen) == 0 ? 0 : PROBE_E_FAIL;
}
