/* Test-spec names as decks and the CLI spell them, and the answer names.
 * fragquiz's own spellings are accepted as aliases ("ip4"/"v4" never were;
 * only what fragquiz -p / -f take). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fragprobe.h"

/* Each table has one name per member of its enum, in the enum's order. */
#define NAMES_LEN(t) (sizeof t / sizeof *t)
static const char *const proto_names[] = {"udp4", "tcp4", "udp6", "tcp6", "icmp4", "icmp6"};
_Static_assert(NAMES_LEN(proto_names) == PROBE_PROTO_COUNT, "a name for each enum probe_proto");
static const char *const mode_names[] = {"default", "dont", "want", "do", "probe", "interface", "omit"};
_Static_assert(NAMES_LEN(mode_names) == PROBE_MODE_OMIT + 1, "a name for each enum probe_mode");

/* The index of name in names[0..n) (any case), or -1. */
static int name_index(const char *const *names, size_t n, const char *name) {
    for (size_t i = 0; name && i < n; i++)
        if (!strcasecmp(name, names[i])) return (int)i;
    return -1;
}

/* PREFIX_name(TYPE v): names[v], "?" outside the table; PREFIX_parse(name,
 * TYPE *out): 0 with the value named (any case), -1 for an unknown name. The
 * pair every named enum here has, over its table (as presenter's
 * FV_NAMES_DEFINE does above the probe). */
#define NAMES_NAME(prefix, type, names) \
    const char *prefix##_name(type v) { return (unsigned)v < NAMES_LEN(names) ? names[v] : "?"; }
#define NAMES_PARSE(prefix, type, names)                       \
    int prefix##_parse(const char *name, type *out) {          \
        int i = name_index(names, NAMES_LEN(names), name);     \
        if (i >= 0) *out = (type)i;                             \
        return i < 0 ? -1 : 0;                                  \
    }

NAMES_NAME(probe_proto, enum probe_proto, proto_names)   /* probe_proto_name */
NAMES_PARSE(probe_proto, enum probe_proto, proto_names)  /* probe_proto_parse */
NAMES_NAME(probe_mode, enum probe_mode, mode_names)      /* probe_mode_name (probe_mode_parse below) */

int probe_mode_parse(const char *name, enum probe_mode *out) {
    if (!name) return -1;
    /* The ip(7) constant names are accepted too: IP_PMTUDISC_DO, IPV6_PMTUDISC_PROBE... */
    const char *p = name;
    if (!strncasecmp(p, "IP_PMTUDISC_", 12)) p += 12;
    else if (!strncasecmp(p, "IPV6_PMTUDISC_", 14)) p += 14;
    int i = name_index(mode_names, NAMES_LEN(mode_names), p);
    if (i < 0 || (p != name && i == PROBE_MODE_DEFAULT)) return -1; /* there is no IP_PMTUDISC_DEFAULT */
    *out = (enum probe_mode)i;
    return 0;
}

const char *probe_answer_name(enum probe_answer a) {
    return a == PROBE_ANS_YES ? "yes" : a == PROBE_ANS_NO ? "no" : "unknown";
}

static const char *const basis_names[] = {"observed", "inferred", "unknown", "rule"};

const char *probe_basis_name(enum probe_basis b) {
    return b >= PROBE_BASIS_OBSERVED && b <= PROBE_BASIS_RULE ? basis_names[b] : "unknown";
}

int probe_basis_parse(const char *name, enum probe_basis *out) {
    for (int i = 0; name && i <= (int)PROBE_BASIS_RULE; i++)
        if (!strcmp(name, basis_names[i])) {
            *out = (enum probe_basis)i;
            return 0;
        }
    return -1;
}

const char *probe_fragmenter_name(enum probe_fragmenter f) {
    switch (f) {
    case PROBE_FRAG_NONE: return "none";
    case PROBE_FRAG_HOST: return "host";
    case PROBE_FRAG_ROUTER: return "router";
    default: return "unknown";
    }
}

static const char *const observer_names[] = {"auto", "raw", "recverr"};
_Static_assert(NAMES_LEN(observer_names) == PROBE_OBS_RECVERR + 1, "a name for each enum probe_observer_kind");

NAMES_NAME(probe_observer, enum probe_observer_kind, observer_names)  /* probe_observer_name */
NAMES_PARSE(probe_observer, enum probe_observer_kind, observer_names) /* probe_observer_parse */

/* Smallest packet a test may ask for: the IP header plus the transport header
 * (ICMP echo: its 8-byte header, `ping -s 0`) plus one byte of payload (TCP
 * needs data to send). */
static int spec_min_size(enum probe_proto p) {
    int ip = probe_proto_is_v6(p) ? 40 : 20;
    return ip + (probe_proto_is_tcp(p) ? 20 + 1 : 8);
}

int probe_spec_check(const struct probe_spec *s, char *err, size_t errlen) {
    if ((unsigned)s->proto >= PROBE_PROTO_COUNT) {
        snprintf(err, errlen, "unknown protocol %d", (int)s->proto);
        return PROBE_E_FAIL;
    }
    if ((unsigned)s->mode > PROBE_MODE_OMIT) {
        snprintf(err, errlen, "unknown PMTUD mode %d", (int)s->mode);
        return PROBE_E_FAIL;
    }
    int min = spec_min_size(s->proto);
    if (s->size < min || s->size > PROBE_SIZE_MAX) {
        snprintf(err, errlen, "size %d out of range: %s packets are %d..%d bytes (IP header included)",
                 s->size, probe_proto_name(s->proto), min, PROBE_SIZE_MAX);
        return PROBE_E_FAIL;
    }
    if (s->ttl < 0 || s->ttl > 255) {
        snprintf(err, errlen, "TTL %d out of range 1..255 (0 = auto)", s->ttl);
        return PROBE_E_FAIL;
    }
    if (s->port < 0 || s->port > 65535) {
        snprintf(err, errlen, "port %d out of range 1..65535 (0 = default)", s->port);
        return PROBE_E_FAIL;
    }
    if (memchr(s->host, 0, sizeof s->host) == NULL) {
        snprintf(err, errlen, "host name is not terminated");
        return PROBE_E_FAIL;
    }
    return 0;
}
