/* The Origin check of websocket upgrades, the list of sites that may frame
 * the projector (hub_origin.h). Pure. */
#include "hub_origin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct authority {
    char host[256];
    int port; /* -1: none given */
};

/* "HOST[:PORT]" or "[V6]:PORT" up to end; 0, or -1 when malformed. */
static int authority_parse(const char *s, size_t n, struct authority *a) {
    a->port = -1;
    const char *colon = NULL;
    if (n && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) return -1;
        colon = close + 1 < s + n && close[1] == ':' ? close + 1 : NULL;
        if (!colon && close + 1 != s + n) return -1;
    } else {
        colon = memchr(s, ':', n);
        if (colon && memchr(colon + 1, ':', (size_t)(s + n - colon - 1))) return -1;
    }
    size_t hl = colon ? (size_t)(colon - s) : n;
    if (!hl || hl >= sizeof a->host) return -1;
    memcpy(a->host, s, hl);
    a->host[hl] = 0;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (end != s + n || colon + 1 == end || p < 1 || p > 65535) return -1;
        a->port = (int)p;
    }
    return 0;
}

/* "http[s]://AUTHORITY[/...]": its authority with the port the scheme
 * implies when none is given. 0, or -1 when it is not such a URL. */
static int origin_parse(const char *url, struct authority *a) {
    int tls = !strncasecmp(url, "https://", 8);
    if (!tls && strncasecmp(url, "http://", 7)) return -1;
    const char *h = url + (tls ? 8 : 7);
    size_t n = strcspn(h, "/?#");
    if (authority_parse(h, n, a)) return -1;
    if (a->port < 0) a->port = tls ? 443 : 80;
    return 0;
}

static int same(const struct authority *o, const struct authority *h) {
    if (strcasecmp(o->host, h->host)) return 0;
    return h->port == o->port || (h->port < 0 && (o->port == 80 || o->port == 443));
}

int hub_origin_allowed(const char *origin, const char *host, const char *public_url) {
    if (!origin) return 1;
    struct authority o, h, p;
    if (origin_parse(origin, &o)) return 0;
    if (host && !authority_parse(host, strlen(host), &h) && same(&o, &h)) return 1;
    return public_url && public_url[0] && !origin_parse(public_url, &p) && same(&o, &p);
}

/* One source of a frame-ancestors list, n bytes at s: 'self', or an origin
 * and nothing more (no path, no user), whose host is letters, digits, '-'
 * and '.' (after an optional "*."), or an IPv6 literal in brackets. */
static int frame_source_ok(const char *s, size_t n) {
    if (n == 6 && !memcmp(s, "'self'", 6)) return 1;
    char url[HUB_FRAME_SOURCES_MAX + 1];
    struct authority a;
    memcpy(url, s, n);
    url[n] = 0;
    if (origin_parse(url, &a)) return 0;
    const char *auth = strstr(url, "://") + 3, *h = a.host;
    if (strspn(auth, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.:[]*") != strlen(auth)) return 0;
    if (!strncmp(h, "*.", 2)) h += 2;
    return h[0] && h[0] != '.' && !strchr(h, '*');
}

int hub_origin_frame_sources_check(const char *sources, char *err, size_t errlen) {
    size_t len = strlen(sources), n = 0;
    if (len > HUB_FRAME_SOURCES_MAX) {
        snprintf(err, errlen, "the list is longer than %d bytes", HUB_FRAME_SOURCES_MAX);
        return -1;
    }
    for (const char *s = sources + strspn(sources, " "); *s; s += strspn(s, " "), n++) {
        size_t l = strcspn(s, " ");
        if (!frame_source_ok(s, l)) {
            snprintf(err, errlen, "'%.*s' is neither 'self' nor an origin http[s]://HOST[:PORT]", (int)l, s);
            return -1;
        }
        s += l;
    }
    if (!n) snprintf(err, errlen, "no source given ('self' or an origin http[s]://HOST[:PORT])");
    return n ? 0 : -1;
}
