/* The kernel's rules (Linux, ip(7)): the DF bit a socket and mode set, and
 * whether the host fragments a datagram itself. Pure. */
#include "judge_kernel.h"

int probe_judge_rule_df(const struct probe_spec *s) {
    enum probe_mode m = s->mode;
    if (probe_proto_is_tcp(s->proto))
        return !(m == PROBE_MODE_DONT || m == PROBE_MODE_PROBE || m == PROBE_MODE_INTERFACE || m == PROBE_MODE_OMIT);
    return !(m == PROBE_MODE_DONT || m == PROBE_MODE_INTERFACE || m == PROBE_MODE_OMIT);
}

/* 1 when the kernel fragments this datagram itself (UDP only). */
int probe_judge_host_frags(const struct probe_spec *s, int dev_mtu, int path_mtu) {
    if (probe_proto_is_tcp(s->proto) || dev_mtu <= 0) return 0;
    int path = path_mtu > 0 ? path_mtu : dev_mtu;
    switch (s->mode) {
    case PROBE_MODE_DEFAULT: case PROBE_MODE_WANT: case PROBE_MODE_DONT: return s->size > path;
    case PROBE_MODE_OMIT: return s->size > dev_mtu;
    default: return 0;
    }
}
