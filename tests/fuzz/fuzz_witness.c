/* libFuzzer target: the witness's decoders of untrusted bytes -- the probe
 * header (what any datagram to the witness port is read as), the report (what
 * the prober reads back) and the packet tap's reading of arriving packets. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fragprobe.h"
#include "witness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint8_t key[PROBE_WITNESS_KEY_BYTES] = {1, 2, 3};
    static struct witness_tap tap;
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0: {
        struct probe_witness_probe p;
        probe_witness_probe_decode(key, data + 1, size - 1, &p);
        break;
    }
    case 1: {
        struct probe_witness_report r;
        uint8_t nonce[PROBE_WITNESS_NONCE_BYTES] = {0};
        if (size > 1 + 8 + PROBE_WITNESS_NONCE_BYTES) memcpy(nonce, data + 1 + 8, sizeof nonce);
        probe_witness_report_decode(key, data + 1, size - 1, nonce, &r);
        break;
    }
    default: {
        tap.fd = 1;
        tap.port = 33435;
        witness_tap_record(&tap, data + 1, size - 1);
        struct probe_witness_report r;
        memset(&r, 0, sizeof r);
        uint8_t nonce[PROBE_WITNESS_NONCE_BYTES] = {0};
        memcpy(nonce, data, size < sizeof nonce ? size : sizeof nonce);
        witness_tap_udp(&tap, nonce, &r);
        break;
    }
    }
    return 0;
}
