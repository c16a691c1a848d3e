/* The lab's topology as plain data: names, addresses and MTUs a config
 * gives, and lookups in it. Pure apart from reading $FRAGVOTE_LAB_PREFIX:
 * nothing is built here (probe/lab.c builds, reads back and removes the
 * lab; lab_behave.c names the routers' behaviours). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"

#define LAB_MTU_DEFAULT 1500
#define LAB_MTU_BOTTLENECK 1280 /* r1-r2 by default: r1 fragments or refuses */

static int prefix_ok(const char *p) {
    if (!*p || strlen(p) > PROBE_LAB_PREFIX_MAX) return 0;
    for (; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_') return 0;
    return 1;
}

void probe_lab_config_default(struct probe_lab_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    const char *env = getenv(PROBE_LAB_PREFIX_ENV);
    snprintf(cfg->prefix, sizeof cfg->prefix, "%s", env && *env ? env : PROBE_LAB_PREFIX_DEFAULT);
}

int probe_lab_parse_mtus(const char *csv, struct probe_lab_config *cfg, char *err, size_t errlen) {
    int m[PROBE_LAB_LINKS_MAX], n = 0;
    const char *p = csv;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1280 || v > 65535 || (*end != ',' && *end) || n == PROBE_LAB_LINKS_MAX) {
            snprintf(err, errlen, "--mtu wants 2..%d MTUs 1280..65535, one per link, like 1500,1280,1500, not \"%s\"",
                     PROBE_LAB_LINKS_MAX, csv);
            return PROBE_E_FAIL;
        }
        m[n++] = (int)v;
        if (!*end) break;
        p = end + 1;
    }
    int want = (cfg->routers ? cfg->routers : PROBE_LAB_ROUTERS_DEFAULT) + 1;
    if (n != want) {
        snprintf(err, errlen, "--mtu \"%s\" lists %d MTUs: %d router%s need%s %d, one per link", csv, n,
                 want - 1, want == 2 ? "" : "s", want == 2 ? "s" : "", want);
        return PROBE_E_FAIL;
    }
    memset(cfg->mtu, 0, sizeof cfg->mtu);
    memcpy(cfg->mtu, m, sizeof m[0] * (size_t)n);
    return 0;
}

/* Link i's addresses: the first link 192.0.2/24 + 2001:db8:1::/64, the
 * last 203.0.113/24 + 2001:db8:3::/64, the ones between the routers
 * 198.51.100/24 + 2001:db8:2::/64 (one such link) or 198.51.100.16j/28 +
 * 2001:db8:2:j::/64 (several): two routers keep the addresses they always had. */
static void link_addresses(struct probe_lab_link *l, int i, int nlinks) {
    if (i == 0 || i == nlinks - 1) {
        const char *net = i == 0 ? "192.0.2" : "203.0.113";
        int six = i == 0 ? 1 : 3;
        l->plen4 = 24;
        snprintf(l->a4, sizeof l->a4, "%s.1", net);
        snprintf(l->b4, sizeof l->b4, "%s.2", net);
        snprintf(l->net4, sizeof l->net4, "%s.0/24", net);
        snprintf(l->a6, sizeof l->a6, "2001:db8:%d::1", six);
        snprintf(l->b6, sizeof l->b6, "2001:db8:%d::2", six);
        snprintf(l->net6, sizeof l->net6, "2001:db8:%d::/64", six);
        return;
    }
    int j = i - 1, base = 16 * j;
    l->plen4 = nlinks == 3 ? 24 : 28;
    /* (an octet: base is 16 x a link index below PROBE_LAB_LINKS_MAX; the
     * casts tell the compiler it fits, which a Debug build cannot see) */
    snprintf(l->a4, sizeof l->a4, "198.51.100.%d", (unsigned char)(base + 1));
    snprintf(l->b4, sizeof l->b4, "198.51.100.%d", (unsigned char)(base + 2));
    snprintf(l->net4, sizeof l->net4, "198.51.100.%d/%d", (unsigned char)base, (unsigned char)l->plen4);
    /* inet_ntop's spelling, so a lookup by the address a packet carries matches. */
    char net6[20];
    if (j) snprintf(net6, sizeof net6, "2001:db8:2:%x:", j);
    else snprintf(net6, sizeof net6, "2001:db8:2:");
    snprintf(l->a6, sizeof l->a6, "%s:1", net6);
    snprintf(l->b6, sizeof l->b6, "%s:2", net6);
    snprintf(l->net6, sizeof l->net6, "%s:/64", net6);
}

static int plan_check(const struct probe_lab_config *c, char *err, size_t errlen) {
    if (!prefix_ok(c->prefix)) {
        snprintf(err, errlen, "lab prefix \"%s\" must be 1..%d of [A-Za-z0-9_-]", c->prefix, PROBE_LAB_PREFIX_MAX);
        return PROBE_E_FAIL;
    }
    if (c->routers < 1 || c->routers > PROBE_LAB_ROUTERS_MAX) {
        snprintf(err, errlen, "the lab has 1..%d routers, not %d", PROBE_LAB_ROUTERS_MAX, c->routers);
        return PROBE_E_FAIL;
    }
    if (c->reassemble < 0 || c->reassemble > c->routers) {
        snprintf(err, errlen, "reassembling router must be none or r1..r%d", c->routers);
        return PROBE_E_FAIL;
    }
    for (int k = 0; k < PROBE_LAB_NODES_MAX; k++) {
        if (!c->behave[k]) continue;
        if (k < 1 || k > c->routers || (c->behave[k] & ~PROBE_LAB_BEHAVIOUR_ALL)) {
            unsigned bit = c->behave[k] & -c->behave[k];
            const char *name = probe_lab_behaviour_name(bit);
            snprintf(err, errlen, "--%s r%d: the lab has routers r1..r%d", name ? name : "?", k, c->routers);
            return PROBE_E_FAIL;
        }
    }
    for (int i = 0; i <= c->routers; i++)
        if (c->mtu[i] < 1280 || c->mtu[i] > 65535) {
            snprintf(err, errlen, "link %d MTU %d out of range 1280..65535", i + 1, c->mtu[i]);
            return PROBE_E_FAIL;
        }
    for (int i = c->routers + 1; i < PROBE_LAB_LINKS_MAX; i++)
        if (c->mtu[i]) {
            snprintf(err, errlen, "%d MTUs for %d router%s: give one per link (%d)", i + 1, c->routers,
                     c->routers == 1 ? "" : "s", c->routers + 1);
            return PROBE_E_FAIL;
        }
    return 0;
}

int probe_lab_plan(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->cfg = *cfg;
    struct probe_lab_config *c = &out->cfg;
    if (!c->prefix[0]) {
        struct probe_lab_config d;
        probe_lab_config_default(&d);
        memcpy(c->prefix, d.prefix, sizeof d.prefix);
    }
    if (!c->routers) c->routers = PROBE_LAB_ROUTERS_DEFAULT;
    for (int i = 0; c->routers >= 1 && c->routers <= PROBE_LAB_ROUTERS_MAX && i <= c->routers; i++)
        if (!c->mtu[i]) c->mtu[i] = i == 1 && c->routers >= 2 ? LAB_MTU_BOTTLENECK : LAB_MTU_DEFAULT;
    if (plan_check(c, err, errlen) < 0) return PROBE_E_FAIL;
    out->nnodes = c->routers + 2;
    out->nlinks = c->routers + 1;
    for (int n = 0; n < out->nnodes; n++) {
        if (n == 0) snprintf(out->name[n], sizeof out->name[n], "src");
        else if (n == out->nnodes - 1) snprintf(out->name[n], sizeof out->name[n], "dst");
        else snprintf(out->name[n], sizeof out->name[n], "r%d", n);
        snprintf(out->ns[n], sizeof out->ns[n], "%s-%s", c->prefix, out->name[n]);
    }
    for (int i = 0; i < out->nlinks; i++) {
        struct probe_lab_link *l = &out->link[i];
        l->mtu = c->mtu[i];
        l->a = i;
        l->b = i + 1;
        /* Interface names live inside each namespace: named after the peer. */
        snprintf(l->a_if, sizeof l->a_if, "v-%s", out->name[i + 1]);
        snprintf(l->b_if, sizeof l->b_if, "v-%s", out->name[i]);
        link_addresses(l, i, out->nlinks);
    }
    out->auto_ttl = c->routers >= 2 ? 2 : 1;
    return 0;
}

void probe_lab_describe(const struct probe_lab *lab, char *buf, size_t len) {
    size_t n = 0;
    int w = snprintf(buf, len, "lab \"%s\": src (%s, %s)", lab->cfg.prefix, lab->link[0].a4, lab->link[0].a6);
    for (int i = 0; i < lab->nlinks && w >= 0 && (n += (size_t)w) < len; i++)
        w = i + 1 < lab->nlinks ? snprintf(buf + n, len - n, " -[mtu %d]- %s", lab->link[i].mtu, lab->name[i + 1])
                                : snprintf(buf + n, len - n, " -[mtu %d]- dst (%s, %s)", lab->link[i].mtu,
                                           lab->link[i].b4, lab->link[i].b6);
    if (w < 0 || (n += (size_t)w) >= len) return;
    w = snprintf(buf + n, len - n, "; namespaces");
    for (int i = 0; i < lab->nnodes && w >= 0 && (n += (size_t)w) < len; i++)
        w = snprintf(buf + n, len - n, " %s", lab->ns[i]);
    if (w < 0 || (n += (size_t)w) >= len) return;
    char does[512];
    probe_lab_behaviours_text(lab, 1, does, sizeof does);
    snprintf(buf + n, len - n, "; reassembling router: %s%s%s; probes expire at %s (TTL %d)",
             lab->cfg.reassemble ? lab->name[lab->cfg.reassemble] : "none", does[0] ? "; " : "", does,
             lab->name[lab->auto_ttl], lab->auto_ttl);
}

const char *probe_lab_dst_addr(const struct probe_lab *lab, int v6) {
    return v6 ? lab->link[lab->nlinks - 1].b6 : lab->link[lab->nlinks - 1].b4;
}

const char *probe_lab_dst_ns(const struct probe_lab *lab) { return lab->ns[lab->nnodes - 1]; }

int probe_lab_node_of(const struct probe_lab *lab, const char *addr) {
    for (int i = 0; i < lab->nlinks; i++) {
        const struct probe_lab_link *l = &lab->link[i];
        if (!strcmp(addr, l->a4) || !strcmp(addr, l->a6)) return l->a;
        if (!strcmp(addr, l->b4) || !strcmp(addr, l->b6)) return l->b;
    }
    return -1;
}
