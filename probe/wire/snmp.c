/* Pure decoder of the local fragmentation counters: /proc/net/snmp "Ip: ...
 * FragCreates" (a header line of names followed by a line of values with the
 * same prefix) and /proc/net/snmp6 "Ip6FragCreates <value>" (one name-value
 * per line). probe/snmp_read.c reads the files. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_wire.h"

/* Copies one line starting at p into buf (without the newline); returns the
 * start of the next line, or NULL at the end of the text. */
static const char *snmp_line(const char *p, char *buf, size_t buflen) {
    if (!*p) return NULL;
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (n >= buflen) n = buflen - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    return nl ? nl + 1 : p + strlen(p);
}

static int snmp_parse_u64(const char *s, uint64_t *out) {
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\r')) return -1;
    *out = v;
    return 0;
}

static int snmp4_parse(const char *text, uint64_t *out) {
    char names[4096], values[4096];
    const char *p = text;
    while ((p = snmp_line(p, names, sizeof names))) {
        if (strncmp(names, "Ip: ", 4) || !strstr(names, "FragCreates")) continue;
        if (!snmp_line(p, values, sizeof values) || strncmp(values, "Ip: ", 4)) return -1;
        char *sn, *sv;
        char *n = strtok_r(names + 4, " \t", &sn);
        char *v = strtok_r(values + 4, " \t", &sv);
        while (n && v) {
            if (!strcmp(n, "FragCreates")) return snmp_parse_u64(v, out);
            n = strtok_r(NULL, " \t", &sn);
            v = strtok_r(NULL, " \t", &sv);
        }
        return -1;
    }
    return -1;
}

static int snmp6_parse(const char *text, uint64_t *out) {
    char line[256];
    const char *p = text;
    while ((p = snmp_line(p, line, sizeof line))) {
        char *s;
        char *name = strtok_r(line, " \t", &s);
        if (!name || strcmp(name, "Ip6FragCreates")) continue;
        return snmp_parse_u64(strtok_r(NULL, " \t", &s), out);
    }
    return -1;
}

int probe_snmp_parse_frag_creates(const char *text, int v6, uint64_t *out) {
    if (!text || !out) return -1;
    return v6 ? snmp6_parse(text, out) : snmp4_parse(text, out);
}
