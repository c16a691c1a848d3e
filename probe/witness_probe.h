/* Internal to libfragprobe: the witness as the prober sees it. */
#ifndef FRAGPROBE_WITNESS_PROBE_H
#define FRAGPROBE_WITNESS_PROBE_H

#include <stddef.h>
#include <time.h>

#include "observation.h"
#include "probe_result.h"
#include "probe_witness.h"
#include "sendinfo.h"

/* The prober's side (probe/witness_probe.c), around one test in probe_run:
 * begin sets si's key and a fresh nonce (after probe_send_open, before the
 * send); collect reads the report from the sending socket (waiting until the
 * deadline unless the observation already holds a decisive ICMP answer) into
 * r->witness's report fields, or says in r->witness.note why there is none. */
int witness_probe_begin(struct probe_sendinfo *si, const struct probe_witness_target *t, char *err, size_t errlen);
void witness_probe_collect(const struct probe_sendinfo *si, const struct probe_observation *obs,
                           const struct timespec *deadline, int timeout_ms, struct probe_result *r);
#endif
