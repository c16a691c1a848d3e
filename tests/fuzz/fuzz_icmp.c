/* libFuzzer target: the pure ICMP / quote decoders of probe/parse*.c.
 * The first byte picks the decoder; the rest is the packet (a Time Exceeded
 * quoting an echo request exercises the icmp4/icmp6 quote path). */
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "fragprobe.h"
#include "probe_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    struct probe_icmp icmp;
    struct probe_quote q;
    int id, seq;
    switch (data[0] & 7) {
    case 0: case 4: probe_parse_icmp4(data + 1, size - 1, &icmp); break;
    case 1: case 5: probe_parse_icmp6(data + 1, size - 1, &icmp); break;
    case 2: probe_parse_quote4(data + 1, size - 1, &q); break;
    case 3: probe_parse_quote6(data + 1, size - 1, &q); break;
    case 6: probe_parse_echo_reply(data + 1, size - 1, AF_INET, &id, &seq); break; /* icmp4 tests */
    default: probe_parse_echo_reply(data + 1, size - 1, AF_INET6, &id, &seq); break;
    }
    return 0;
}
