/* Trusted reverse proxies and X-Forwarded-For (see hub_proxy.h). */
#include "hub_proxy.h"

#include <arpa/inet.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub_guard.h"

/* One address (no prefix) of len bytes at s into 16 bytes; 4 when it was
 * IPv4, 6 when IPv6, -1 when it is neither. */
static int parse_addr(const char *s, size_t len, unsigned char out[16]) {
    char buf[INET6_ADDRSTRLEN + 1];
    if (!len || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    if (inet_pton(AF_INET, buf, out + 12) == 1) {
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        return 4;
    }
    return inet_pton(AF_INET6, buf, out) == 1 ? 6 : -1;
}

static void mask(unsigned char a[16], int bits) {
    for (int i = 0; i < 16; i++) {
        int keep = bits - 8 * i;
        if (keep <= 0) a[i] = 0;
        else if (keep < 8) a[i] &= (unsigned char)(0xff << (8 - keep));
    }
}

static int add_one(struct hub_proxy *p, const char *s, size_t len, char *err, size_t errlen) {
    char spec[HUB_PROXY_SPEC_MAX + 1];
    if (len > HUB_PROXY_SPEC_MAX) {
        snprintf(err, errlen, "a --trust-proxy entry is at most %d characters", HUB_PROXY_SPEC_MAX);
        return -1;
    }
    memcpy(spec, s, len);
    spec[len] = 0;
    if (p->n >= HUB_PROXY_MAX) {
        snprintf(err, errlen, "at most %d trusted proxies (--trust-proxy), not more ('%s')", HUB_PROXY_MAX, spec);
        return -1;
    }
    struct hub_proxy_net *net = &p->net[p->n];
    char *slash = strchr(spec, '/');
    int fam = parse_addr(spec, slash ? (size_t)(slash - spec) : len, net->addr);
    if (fam < 0) {
        snprintf(err, errlen, "--trust-proxy wants IPv4 or IPv6 addresses, optionally /BITS, not '%s'", spec);
        return -1;
    }
    int max = fam == 4 ? 32 : 128, bits = max;
    if (slash) {
        char *end;
        long b = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || b < 0 || b > max) {
            snprintf(err, errlen, "--trust-proxy: the prefix of '%s' wants 0..%d bits", spec, max);
            return -1;
        }
        bits = (int)b;
    }
    net->bits = fam == 4 ? bits + 96 : bits;
    mask(net->addr, net->bits);
    p->n++;
    return 0;
}

int hub_proxy_add(struct hub_proxy *p, const char *spec, char *err, size_t errlen) {
    const char *s = spec;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        while (len && (*s == ' ')) s++, len--;
        while (len && s[len - 1] == ' ') len--;
        if (!len) {
            snprintf(err, errlen, "--trust-proxy wants a comma-separated list of addresses, not '%s'", spec);
            return -1;
        }
        if (add_one(p, s, len, err, errlen)) return -1;
        if (!comma) return 0;
        s = comma + 1;
    }
}

int hub_proxy_trusted(const struct hub_proxy *p, const unsigned char addr[16]) {
    for (int i = 0; i < p->n; i++) {
        unsigned char a[16];
        memcpy(a, addr, 16);
        mask(a, p->net[i].bits);
        if (!memcmp(a, p->net[i].addr, 16)) return 1;
    }
    return 0;
}

int hub_proxy_client(const struct hub_proxy *p, const char *xff, size_t len, unsigned char out[16]) {
    if (len > HUB_PROXY_XFF_MAX) return -1;
    size_t end = len;
    while (end > 0) {
        size_t start = end;
        while (start > 0 && xff[start - 1] != ',') start--;
        size_t a = start, b = end;
        while (a < b && (xff[a] == ' ' || xff[a] == '\t')) a++;
        while (b > a && (xff[b - 1] == ' ' || xff[b - 1] == '\t')) b--;
        if (parse_addr(xff + a, b - a, out) < 0) return -1;
        if (!hub_proxy_trusted(p, out)) return 0;
        end = start ? start - 1 : 0;
    }
    return -1;
}

int hub_proxy_peer(const struct hub_proxy *p, struct lws *wsi, struct hub_peer *out) {
    int fd = lws_get_socket_fd(wsi);
    if (hub_guard_peer(fd, out)) return -1;
    if (!p || !p->n || !hub_proxy_trusted(p, out->addr)) return 0;
    char xff[HUB_PROXY_XFF_MAX + 1];
    unsigned char client[16];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
    if (n > 0 && n <= HUB_PROXY_XFF_MAX && lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) == n &&
        hub_proxy_client(p, xff, (size_t)n, client) == 0) {
        /* A proxy on this host (peer == our own address) passes this host's
         * own browser on as that same address: it stays exempt as before. */
        out->self = out->self && !memcmp(out->addr, client, 16);
        memcpy(out->addr, client, 16);
        return 0;
    }
    out->self = 0; /* a proxy speaking for someone it does not name: the proxy's one address, capped */
    return 0;
}
