/* The namespace lab: src -- r1 -- ... -- rN -- dst, built with ip/ethtool
 * and sysctls written from a thread inside each namespace (the plan --
 * names, addresses, MTUs -- is lab_plan.c; the routers' behaviours,
 * nft tables and rate limits, lab_rules.c). Documentation prefixes only;
 * every name carries the prefix so parallel labs coexist. Above probe_run:
 * the readiness check sends a probe across the new lab. */
#include <linux/capability.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fragprobe.h"
#include "lab_internal.h"

#define LAB_ALIAS "fragvote-lab-routers-" /* + N, on src's lo: status knows the shape when a router is gone */
#define LAB_READY_PORT 9          /* discard: nothing listens, dst answers port unreachable */
#define LAB_READY_TRIES 15        /* x LAB_READY_TRY_MS: give ND/ARP three seconds */
#define LAB_READY_TRY_MS 200

static int ns_exists(const char *name) {
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/run/netns/%s", name);
    return stat(path, &st) == 0;
}

int probe_lab_down(const char *prefix, char *err, size_t errlen) {
    struct probe_lab_config cfg;
    struct probe_lab lab;
    probe_lab_config_default(&cfg);
    if (prefix && *prefix) snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefix);
    cfg.routers = PROBE_LAB_ROUTERS_MAX; /* every name a lab of this prefix can have */
    if (probe_lab_plan(&cfg, &lab, err, errlen) < 0) return PROBE_E_FAIL;
    int existed = 0, rc = 0;
    for (int n = 0; n < lab.nnodes; n++) {
        if (!ns_exists(lab.ns[n])) continue;
        existed++;
        char *argv[] = {(char *)lab_tool("ip"), "netns", "del", lab.ns[n], NULL};
        char e[512];
        if (lab_exec(argv, NULL, e, sizeof e) != 0 && ns_exists(lab.ns[n])) { /* gone meanwhile: removed */
            snprintf(err, errlen, "%s", e);
            rc = PROBE_E_FAIL;
        }
    }
    return rc < 0 ? rc : existed;
}

/* ip -n NS ARGS... */
static int ipn(const char *ns, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int ipn(const char *ns, char *err, size_t errlen, const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)lab_tool("ip");
    if (ns) {
        argv[argc++] = "-n";
        argv[argc++] = (char *)ns;
    }
    char *save;
    for (char *t = strtok_r(line, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    argv[argc] = NULL;
    return lab_exec(argv, NULL, err, errlen) == 0 ? 0 : PROBE_E_FAIL;
}

struct ns_setup {
    int router;
    char *err;
    size_t errlen;
};

/* Runs inside one lab namespace: rate limits off, DAD off, forwarding. */
static int ns_sysctls(void *p) {
    struct ns_setup *s = p;
    static const char *const must[][2] = {
        {"/proc/sys/net/ipv6/conf/all/accept_dad", "0"},
        {"/proc/sys/net/ipv6/conf/default/accept_dad", "0"},
        /* icmp4/icmp6 tests by any user: ping sockets (a new namespace has "1 0", none) */
        {"/proc/sys/net/ipv4/ping_group_range", "0 2147483647"},
    };
    for (size_t i = 0; i < sizeof must / sizeof *must; i++)
        if (lab_sysctl_write(must[i][0], must[i][1], s->err, s->errlen) < 0) return PROBE_E_FAIL;
    if (lab_limits_write(NULL, s->err, s->errlen) < 0) return PROBE_E_FAIL;
    if (s->router) {
        if (lab_sysctl_write("/proc/sys/net/ipv4/ip_forward", "1", s->err, s->errlen) < 0 ||
            lab_sysctl_write("/proc/sys/net/ipv6/conf/all/forwarding", "1", s->err, s->errlen) < 0)
            return PROBE_E_FAIL;
    }
    return 0;
}

struct if_setup {
    const char *ifname;
    char *err;
    size_t errlen;
};

/* Runs inside a namespace: a solicitation sent while a fresh veth is still
 * coming up is lost; ARP/ND retry after 100 ms instead of the default second. */
static int if_neigh_fast(void *p) {
    struct if_setup *s = p;
    char path[128];
    for (int v6 = 0; v6 <= 1; v6++) {
        snprintf(path, sizeof path, "/proc/sys/net/ipv%d/neigh/%s/retrans_time_ms", v6 ? 6 : 4, s->ifname);
        if (lab_sysctl_write(path, "100", s->err, s->errlen) < 0) return PROBE_E_FAIL;
    }
    return 0;
}

static int lab_link(const struct probe_lab *lab, const struct probe_lab_link *l, char *err, size_t errlen) {
    const char *na = lab->ns[l->a], *nb = lab->ns[l->b];
    if (ipn(NULL, err, errlen, "link add %s netns %s mtu %d type veth peer name %s netns %s mtu %d", l->a_if, na,
            l->mtu, l->b_if, nb, l->mtu) < 0 ||
        ipn(na, err, errlen, "link set %s up", l->a_if) < 0 || ipn(nb, err, errlen, "link set %s up", l->b_if) < 0 ||
        ipn(na, err, errlen, "addr add %s/%d dev %s", l->a4, l->plen4, l->a_if) < 0 ||
        ipn(nb, err, errlen, "addr add %s/%d dev %s", l->b4, l->plen4, l->b_if) < 0 ||
        ipn(na, err, errlen, "-6 addr add %s/64 dev %s nodad", l->a6, l->a_if) < 0 ||
        ipn(nb, err, errlen, "-6 addr add %s/64 dev %s nodad", l->b6, l->b_if) < 0)
        return PROBE_E_FAIL;
    /* Segmentation/checksum offloads make captured and quoted sizes lie on veth. */
    const char *ifs[2] = {l->a_if, l->b_if};
    const char *nss[2] = {na, nb};
    for (int k = 0; k < 2; k++) {
        struct if_setup is = {ifs[k], err, errlen};
        if (probe_netns_run(nss[k], if_neigh_fast, &is, err, errlen) < 0) return PROBE_E_FAIL;
        char *argv[] = {(char *)lab_tool("ip"), "netns", "exec", (char *)nss[k], (char *)lab_tool("ethtool"),
                        "-K", (char *)ifs[k],
                        "tso", "off", "gso", "off", "gro", "off", "tx", "off", NULL};
        if (lab_exec(argv, NULL, err, errlen) != 0) return PROBE_E_FAIL;
    }
    return 0;
}

/* src and dst route everything to their one neighbour; router k routes the
 * links beyond its neighbours through them. */
static int lab_routes(const struct probe_lab *lab, char *err, size_t errlen) {
    const struct probe_lab_link *first = &lab->link[0], *last = &lab->link[lab->nlinks - 1];
    if (ipn(lab->ns[0], err, errlen, "route add default via %s", first->b4) < 0 ||
        ipn(lab->ns[0], err, errlen, "-6 route add default via %s", first->b6) < 0 ||
        ipn(probe_lab_dst_ns(lab), err, errlen, "route add default via %s", last->a4) < 0 ||
        ipn(probe_lab_dst_ns(lab), err, errlen, "-6 route add default via %s", last->a6) < 0)
        return PROBE_E_FAIL;
    for (int k = 1; k + 1 < lab->nnodes; k++)
        for (int i = 0; i < lab->nlinks; i++) {
            if (i == k - 1 || i == k) continue; /* its own links */
            const struct probe_lab_link *l = &lab->link[i], *via = i > k ? &lab->link[k] : &lab->link[k - 1];
            const char *v4 = i > k ? via->b4 : via->a4, *v6 = i > k ? via->b6 : via->a6;
            if (ipn(lab->ns[k], err, errlen, "route add %s via %s", l->net4, v4) < 0 ||
                ipn(lab->ns[k], err, errlen, "-6 route add %s via %s", l->net6, v6) < 0)
                return PROBE_E_FAIL;
        }
    return 0;
}

static int lab_build(const struct probe_lab *lab, char *err, size_t errlen) {
    for (int n = 0; n < lab->nnodes; n++) {
        char *argv[] = {(char *)lab_tool("ip"), "netns", "add", (char *)lab->ns[n], NULL};
        if (lab_exec(argv, NULL, err, errlen) != 0) return PROBE_E_FAIL;
        struct ns_setup s = {n > 0 && n + 1 < lab->nnodes, err, errlen};
        if (probe_netns_run(lab->ns[n], ns_sysctls, &s, err, errlen) < 0) return PROBE_E_FAIL;
        if (ipn(lab->ns[n], err, errlen, "link set lo up") < 0) return PROBE_E_FAIL;
    }
    if (ipn(lab->ns[0], err, errlen, "link set lo alias " LAB_ALIAS "%d", lab->cfg.routers) < 0) return PROBE_E_FAIL;
    for (int i = 0; i < lab->nlinks; i++)
        if (lab_link(lab, &lab->link[i], err, errlen) < 0) return PROBE_E_FAIL;
    return lab_routes(lab, err, errlen);
}

struct limits_job {
    int read;                      /* 1: read back into kept; 0: write keep */
    const struct lab_limits *keep; /* NULL: off */
    int kept;
    char *err;
    size_t errlen;
};

static int limits_in_ns(void *p) {
    struct limits_job *j = p;
    if (j->read) {
        j->kept = lab_limits_kept();
        return 0;
    }
    return lab_limits_write(j->keep, j->err, j->errlen);
}

/* Router by router, what differs between have and want: nft tables and
 * rate limits. have NULL: a lab just built (no table, limits off). */
static int lab_behave_apply(const struct probe_lab *lab, const struct probe_lab_config *have,
                     const struct probe_lab_config *want, char *err, size_t errlen) {
    struct lab_limits defaults;
    int got_defaults = 0;
    for (int k = 1; k + 1 < lab->nnodes; k++) {
        unsigned h = have ? have->behave[k] : 0, w = want->behave[k];
        int hre = have && have->reassemble == k, wre = want->reassemble == k;
        if (lab_rules_apply(lab, k, w, wre, h, hre, err, errlen) < 0) return PROBE_E_FAIL;
        if (!((h ^ w) & PROBE_LAB_RATELIMIT)) continue;
        if ((w & PROBE_LAB_RATELIMIT) && !got_defaults) {
            if (lab_limits_defaults(&defaults, err, errlen) < 0) return PROBE_E_FAIL;
            got_defaults = 1;
        }
        struct limits_job j = {0, (w & PROBE_LAB_RATELIMIT) ? &defaults : NULL, 0, err, errlen};
        if (probe_netns_run(lab->ns[k], limits_in_ns, &j, err, errlen) < 0) return PROBE_E_FAIL;
    }
    return 0;
}

/* The lab is ready when a small datagram of each family crosses it and dst
 * answers (port unreachable): neighbours are resolved along the whole path,
 * so the first real test is not held back by ARP/ND. */
static int lab_wait_ready(const struct probe_lab *lab, char *err, size_t errlen) {
    for (int v6 = 0; v6 <= 1; v6++) {
        struct probe_spec s;
        memset(&s, 0, sizeof s);
        s.proto = v6 ? PROBE_UDP6 : PROBE_UDP4;
        s.mode = PROBE_MODE_DEFAULT;
        s.size = 100;
        s.ttl = 64;
        s.port = LAB_READY_PORT;
        struct probe_run_opts o = {.observer = PROBE_OBS_RAW, .lab = lab, .timeout_ms = LAB_READY_TRY_MS};
        int ready = 0;
        char e[256] = "";
        for (int i = 0; i < LAB_READY_TRIES && !ready; i++) {
            struct probe_result r;
            if (probe_run(&o, &s, &r, e, sizeof e) == 0 && r.icmp.type == (v6 ? 1 : 3) &&
                !strcmp(r.icmp.hop_name, "dst"))
                ready = 1;
        }
        if (!ready) {
            snprintf(err, errlen, "the lab was built but %s does not cross it to dst%s%s",
                     v6 ? "IPv6" : "IPv4", e[0] ? ": " : "", e);
            return PROBE_E_FAIL;
        }
    }
    return 0;
}

int probe_lab_up(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen) {
    if (probe_lab_plan(cfg, out, err, errlen) < 0) return PROBE_E_FAIL;
    if (geteuid() != 0 && !probe_priv_has(CAP_SYS_ADMIN)) {
        snprintf(err, errlen, "building the lab needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN)");
        return PROBE_E_PERM;
    }
    char e[512];
    if (probe_lab_down(out->cfg.prefix, e, sizeof e) < 0) {
        snprintf(err, errlen, "cannot remove the old lab \"%s\": %s", out->cfg.prefix, e);
        return PROBE_E_FAIL;
    }
    /* Behaviours last: the readiness check needs dst's port unreachable to
     * come back, which a black hole would drop. */
    if (lab_build(out, err, errlen) < 0 || lab_wait_ready(out, err, errlen) < 0 ||
        lab_behave_apply(out, NULL, &out->cfg, err, errlen) < 0) {
        probe_lab_down(out->cfg.prefix, e, sizeof e);
        return PROBE_E_FAIL;
    }
    return 0;
}

struct mtu_query {
    const char *ifname;
    int mtu;
};

static int read_mtu(void *p) {
    struct mtu_query *q = p;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return PROBE_E_FAIL;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", q->ifname);
    int rc = ioctl(fd, SIOCGIFMTU, &ifr);
    close(fd);
    if (rc < 0) return PROBE_E_FAIL;
    q->mtu = ifr.ifr_mtu;
    return 0;
}

/* How many routers the lab of prefix has (r1..rN all there), and whether
 * its namespaces are all there: missing lists those that are not. */
static int lab_count(const char *prefix, struct probe_lab *out, char *missing, size_t len, char *err, size_t errlen) {
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    if (prefix && *prefix) snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefix);
    cfg.routers = PROBE_LAB_ROUTERS_MAX;
    if (probe_lab_plan(&cfg, out, err, errlen) < 0) return PROBE_E_FAIL;
    int routers = 0, present = 0;
    for (int n = 0; n < out->nnodes; n++)
        if (ns_exists(out->ns[n])) {
            present++;
            if (n > 0 && n + 1 < out->nnodes) routers = n;
        }
    if (!present) return 0;
    char shown[LAB_EXEC_OUT_MAX], e[256];
    char *argv[] = {(char *)lab_tool("ip"), "-n", out->ns[0], "link", "show", "lo", NULL};
    const char *alias = lab_exec_output(argv, shown, sizeof shown, e, sizeof e) == 0 ? strstr(shown, LAB_ALIAS) : NULL;
    if (alias) routers = atoi(alias + strlen(LAB_ALIAS)); /* the shape it was built with */
    cfg.routers = routers ? routers : PROBE_LAB_ROUTERS_DEFAULT;
    if (probe_lab_plan(&cfg, out, err, errlen) < 0) return PROBE_E_FAIL;
    missing[0] = 0;
    for (int n = 0; n < out->nnodes; n++)
        if (!ns_exists(out->ns[n])) {
            size_t m = strlen(missing);
            snprintf(missing + m, len - m, "%s%s", m ? ", " : "", out->ns[n]);
        }
    return 1;
}

int probe_lab_status(const char *prefix, struct probe_lab *out, char *err, size_t errlen) {
    char missing[256];
    int rc = lab_count(prefix, out, missing, sizeof missing, err, errlen);
    if (rc <= 0) return rc;
    if (missing[0]) {
        snprintf(err, errlen, "lab \"%s\" is half there (missing %s): run `fragvote lab down%s%s` then up",
                 out->cfg.prefix, missing, prefix && *prefix ? " --prefix " : "", prefix && *prefix ? prefix : "");
        return PROBE_E_FAIL;
    }
    for (int i = 0; i < out->nlinks; i++) {
        struct mtu_query q = {out->link[i].a_if, 0};
        char e[256];
        if (probe_netns_run(out->ns[out->link[i].a], read_mtu, &q, e, sizeof e) < 0) {
            snprintf(err, errlen, "lab \"%s\": cannot read the MTU of %s in %s", out->cfg.prefix,
                     out->link[i].a_if, out->ns[out->link[i].a]);
            return PROBE_E_FAIL;
        }
        out->link[i].mtu = out->cfg.mtu[i] = q.mtu;
    }
    out->cfg.reassemble = 0;
    for (int k = 1; k + 1 < out->nnodes; k++) {
        int re = 0;
        char e[512];
        struct limits_job j = {1, NULL, 0, e, sizeof e};
        if (lab_rules_read(out, k, &out->cfg.behave[k], &re, e, sizeof e) < 0 ||
            probe_netns_run(out->ns[k], limits_in_ns, &j, e, sizeof e) < 0) {
            snprintf(err, errlen, "lab \"%s\": cannot read what %s does: %s", out->cfg.prefix, out->name[k], e);
            return PROBE_E_FAIL;
        }
        if (re) out->cfg.reassemble = k;
        if (j.kept) out->cfg.behave[k] |= PROBE_LAB_RATELIMIT;
    }
    return 1;
}

int probe_lab_reconfigure(struct probe_lab *lab, const struct probe_lab_config *want, int *rebuilt, char *err,
                          size_t errlen) {
    struct probe_lab_config w = *want;
    struct probe_lab next, cur;
    snprintf(w.prefix, sizeof w.prefix, "%s", lab->cfg.prefix);
    if (probe_lab_plan(&w, &next, err, errlen) < 0) return PROBE_E_FAIL;
    if (rebuilt) *rebuilt = 0;
    /* What is really there, not what the caller last knew. */
    char e[512];
    int st = probe_lab_status(w.prefix, &cur, e, sizeof e);
    if (st != 1 || cur.nnodes != next.nnodes || memcmp(cur.cfg.mtu, next.cfg.mtu, sizeof cur.cfg.mtu)) {
        if (rebuilt) *rebuilt = 1;
        return probe_lab_up(&next.cfg, lab, err, errlen);
    }
    if (lab_behave_apply(&next, &cur.cfg, &next.cfg, err, errlen) < 0) return PROBE_E_FAIL;
    *lab = next;
    return probe_lab_flush_pmtu(lab, err, errlen);
}

struct flush_job {
    char *err;
    size_t errlen;
};

static int flush_in_ns(void *p) {
    struct flush_job *j = p;
    return probe_pmtu_flush(NULL, j->err, j->errlen);
}

int probe_lab_flush_pmtu(const struct probe_lab *lab, char *err, size_t errlen) {
    struct flush_job j = {err, errlen};
    return probe_netns_run(lab->ns[PROBE_LAB_SRC], flush_in_ns, &j, err, errlen);
}
