/* Internal to libfragprobe: the local fragmentation counters as the
 * unprivileged observer reads them (probe/snmp_read.c). */
#ifndef FRAGPROBE_SNMP_READ_H
#define FRAGPROBE_SNMP_READ_H

#include <stddef.h>
#include <stdint.h>

/* FragCreates (v6: Ip6FragCreates) of this thread's network namespace
 * (/proc/thread-self/net/snmp, snmp6): 0, or PROBE_E_NOV6 / PROBE_E_FAIL
 * with the reason in err. */
int probe_snmp_read_frag_creates(int v6, uint64_t *out, char *err, size_t errlen);

#endif
