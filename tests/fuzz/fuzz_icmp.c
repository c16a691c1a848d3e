/* libFuzzer target: the pure ICMP / quote decoders of probe/parse*.c.
 * The first byte picks the decoder; the rest is the packet. */
#include <stddef.h>
#include <stdint.h>

#include "fragprobe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    struct probe_icmp icmp;
    struct probe_quote q;
    switch (data[0] & 3) {
    case 0: probe_parse_icmp4(data + 1, size - 1, &icmp); break;
    case 1: probe_parse_icmp6(data + 1, size - 1, &icmp); break;
    case 2: probe_parse_quote4(data + 1, size - 1, &q); break;
    default: probe_parse_quote6(data + 1, size - 1, &q); break;
    }
    return 0;
}
