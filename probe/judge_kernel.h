/* Internal to libfragprobe: the kernel's own rules (ip(7)) as the judges,
 * the path and the predictor apply them (probe/judge_kernel.c). Pure. */
#ifndef FRAGPROBE_JUDGE_KERNEL_H
#define FRAGPROBE_JUDGE_KERNEL_H

#include "probe_spec.h"

/* The DF bit the kernel sets for this socket and mode. */
int probe_judge_rule_df(const struct probe_spec *s);
/* 1 when the kernel fragments this UDP datagram itself, given the device's
 * and the route's MTU. */
int probe_judge_host_frags(const struct probe_spec *s, int dev_mtu, int path_mtu);

#endif
