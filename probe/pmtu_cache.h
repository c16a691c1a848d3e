/* Internal to libfragprobe: the netlink route decoder of the PMTU cache
 * (probe/pmtu_cache.c), for its tests and fuzzer. */
#ifndef FRAGPROBE_PMTU_CACHE_H
#define FRAGPROBE_PMTU_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "probe_pmtu.h"

/* Pure: decodes one RTM_NEWROUTE netlink message (header included). */
int probe_pmtu_parse_route(const uint8_t *buf, size_t len, struct probe_pmtu_entry *out);

#endif
