/* libFuzzer target: the unprivileged observer's decoders (MSG_ERRQUEUE
 * control messages, /proc/net/snmp text, netlink route messages). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragprobe.h"
#include "pmtu_cache.h"
#include "probe_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0: {
        struct probe_errq e;
        probe_errq_parse(data + 1, size - 1, &e);
        break;
    }
    case 1: {
        char *text = malloc(size);
        if (!text) return 0;
        memcpy(text, data + 1, size - 1);
        text[size - 1] = 0;
        uint64_t v;
        probe_snmp_parse_frag_creates(text, data[0] & 4 ? 1 : 0, &v);
        free(text);
        break;
    }
    default: {
        struct probe_pmtu_entry p;
        probe_pmtu_parse_route(data + 1, size - 1, &p);
        break;
    }
    }
    return 0;
}
