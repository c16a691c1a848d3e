/* Local fragmentation counters, per network namespace and readable by any
 * user: the unprivileged observer reads a delta around one send to see
 * whether the host fragmented. The text is decoded by probe/wire/snmp.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"
#include "probe_wire.h"
#include "snmp_read.h"

/* The files are a few kB; anything larger is cut here (cap on input). */
#define SNMP_TEXT_MAX 65536

int probe_snmp_read_frag_creates(int v6, uint64_t *out, char *err, size_t errlen) {
    /* thread-self: a probe worker thread that entered the lab namespace with
     * setns() must read its own namespace's counters, not the main thread's. */
    const char *path = v6 ? "/proc/thread-self/net/snmp6" : "/proc/thread-self/net/snmp";
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
                 v6 && errno == ENOENT ? " (IPv6 is disabled on this host)" : "");
        return v6 && errno == ENOENT ? PROBE_E_NOV6 : PROBE_E_FAIL;
    }
    char *text = malloc(SNMP_TEXT_MAX);
    if (!text) {
        fclose(f);
        snprintf(err, errlen, "out of memory reading %s", path);
        return PROBE_E_FAIL;
    }
    size_t n = fread(text, 1, SNMP_TEXT_MAX - 1, f);
    text[n] = 0;
    fclose(f);
    int rc = probe_snmp_parse_frag_creates(text, v6, out);
    free(text);
    if (rc < 0) {
        snprintf(err, errlen, "%s has no readable %s counter", path, v6 ? "Ip6FragCreates" : "FragCreates");
        return PROBE_E_FAIL;
    }
    return 0;
}
