/* The lab's topology as plain data: names, addresses and MTUs a config
 * gives, and lookups in it. Pure apart from reading $FRAGVOTE_LAB_PREFIX:
 * nothing is built here (probe/lab.c builds, reads back and removes the
 * lab, and is the only lab file that runs anything). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"

static const int lab_default_mtu[PROBE_LAB_LINKS] = {1500, 1280, 1500};
static const char *const node_names[PROBE_LAB_NODES] = {"src", "r1", "r2", "dst"};
static const char *const net4[PROBE_LAB_LINKS] = {"192.0.2", "198.51.100", "203.0.113"};

const char *probe_lab_node_name(enum probe_lab_node n) {
    return (unsigned)n < PROBE_LAB_NODES ? node_names[n] : "?";
}

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
    int m[PROBE_LAB_LINKS];
    const char *p = csv;
    for (int i = 0; i < PROBE_LAB_LINKS; i++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 1280 || v > 65535 ||
            (i < PROBE_LAB_LINKS - 1 ? *end != ',' : *end != 0)) {
            snprintf(err, errlen, "--mtu wants three MTUs 1280..65535 like 1500,1280,1500, not \"%s\"", csv);
            return PROBE_E_FAIL;
        }
        m[i] = (int)v;
        p = end + 1;
    }
    memcpy(cfg->mtu, m, sizeof m);
    return 0;
}

int probe_lab_plan(const struct probe_lab_config *cfg, struct probe_lab *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->cfg = *cfg;
    if (!out->cfg.prefix[0]) {
        struct probe_lab_config d;
        probe_lab_config_default(&d);
        memcpy(out->cfg.prefix, d.prefix, sizeof d.prefix);
    }
    if (!prefix_ok(out->cfg.prefix)) {
        snprintf(err, errlen, "lab prefix \"%s\" must be 1..%d of [A-Za-z0-9_-]", out->cfg.prefix,
                 PROBE_LAB_PREFIX_MAX);
        return PROBE_E_FAIL;
    }
    if (out->cfg.reassemble < 0 || out->cfg.reassemble > 2) {
        snprintf(err, errlen, "reassembling router must be none, r1 or r2");
        return PROBE_E_FAIL;
    }
    for (int n = 0; n < PROBE_LAB_NODES; n++)
        snprintf(out->ns[n], sizeof out->ns[n], "%s-%s", out->cfg.prefix, node_names[n]);
    for (int i = 0; i < PROBE_LAB_LINKS; i++) {
        struct probe_lab_link *l = &out->link[i];
        if (!out->cfg.mtu[i]) out->cfg.mtu[i] = lab_default_mtu[i];
        if (out->cfg.mtu[i] < 1280 || out->cfg.mtu[i] > 65535) {
            snprintf(err, errlen, "link %d MTU %d out of range 1280..65535", i + 1, out->cfg.mtu[i]);
            return PROBE_E_FAIL;
        }
        l->mtu = out->cfg.mtu[i];
        l->a = (enum probe_lab_node)i;
        l->b = (enum probe_lab_node)(i + 1);
        /* Interface names live inside each namespace: named after the peer. */
        snprintf(l->a_if, sizeof l->a_if, "v-%s", node_names[i + 1]);
        snprintf(l->b_if, sizeof l->b_if, "v-%s", node_names[i]);
        snprintf(l->a4, sizeof l->a4, "%s.1", net4[i]);
        snprintf(l->b4, sizeof l->b4, "%s.2", net4[i]);
        snprintf(l->a6, sizeof l->a6, "2001:db8:%d::1", i + 1);
        snprintf(l->b6, sizeof l->b6, "2001:db8:%d::2", i + 1);
        snprintf(l->net4, sizeof l->net4, "%s.0/24", net4[i]);
        snprintf(l->net6, sizeof l->net6, "2001:db8:%d::/64", i + 1);
    }
    out->auto_ttl = 2;
    return 0;
}

void probe_lab_describe(const struct probe_lab *lab, char *buf, size_t len) {
    snprintf(buf, len,
             "lab \"%s\": %s (%s, %s) -[mtu %d]- r1 -[mtu %d]- r2 -[mtu %d]- dst (%s, %s); "
             "namespaces %s %s %s %s; reassembling router: %s; probes expire at r2 (TTL %d)",
             lab->cfg.prefix, "src", lab->link[0].a4, lab->link[0].a6, lab->link[0].mtu, lab->link[1].mtu,
             lab->link[2].mtu, lab->link[2].b4, lab->link[2].b6, lab->ns[0], lab->ns[1], lab->ns[2],
             lab->ns[3], lab->cfg.reassemble == 1 ? "r1" : lab->cfg.reassemble == 2 ? "r2" : "none",
             lab->auto_ttl);
}

const char *probe_lab_dst_addr(const struct probe_lab *lab, int v6) {
    return v6 ? lab->link[PROBE_LAB_LINKS - 1].b6 : lab->link[PROBE_LAB_LINKS - 1].b4;
}

int probe_lab_node_of(const struct probe_lab *lab, const char *addr) {
    for (int i = 0; i < PROBE_LAB_LINKS; i++) {
        const struct probe_lab_link *l = &lab->link[i];
        if (!strcmp(addr, l->a4) || !strcmp(addr, l->a6)) return (int)l->a;
        if (!strcmp(addr, l->b4) || !strcmp(addr, l->b6)) return (int)l->b;
    }
    return -1;
}

