/* JSON form of probe results (docs/PROBE.md): fragvote probe --json, and the
 * observations serve/quiz store with a session. */
#ifndef FRAGVOTE_PROBE_JSON_H
#define FRAGVOTE_PROBE_JSON_H

#include <jansson.h>

#include "fragprobe.h"

/* A new object (caller owns the reference) describing r; NULL on out of memory. */
json_t *probe_result_to_json(const struct probe_result *r);
/* The one writer of a measurement's stored observation (the measurements
 * table's observation column, live and re-measured alike): r as
 * probe_result_to_json() has it, compact text. Caller frees; NULL on out of
 * memory. Live rows written before this writer existed are flat instead
 * (proto/mode/size/ttl/host and quoted_* at the top, no "spec", "quote",
 * "icmp", "dev_mtu" or "path_mtu_before"; kernel_mtu and cached_pmtu_before
 * 0 where this writes null): readers take what both shapes share, the facts
 * sent/df/fragmented, fragmenter, witness, kernel_mtu, cached_pmtu_before,
 * observer and evidence, and treat a missing field as unknown. */
char *probe_observation_json(const struct probe_result *r);
/* The reader of probe_result_to_json()'s object (a remote prober's
 * observation, docs/PROTOCOL.md "The remote prober"; probe_json_read.c):
 * fills r, unseen fields as probe_run leaves them. Strict: wrong types,
 * unknown names, numbers out of range and strings longer than their field
 * are refused. Returns 0, or -1 with the first problem in err. */
int probe_result_from_json(json_t *o, struct probe_result *r, char *err, size_t errlen);
/* The spec alone: {"proto","mode","size","ttl","host","port"}. */
json_t *probe_spec_to_json(const struct probe_spec *s);
/* One fact of r: {"answer","basis","why"} and "observed_at": "far end" when
 * the witness saw it (issue 19). */
json_t *probe_fact_to_json(const struct probe_result *r, const struct probe_fact *f);
/* r's witness: null without one, else {"target","heard",...,"note"}. */
json_t *probe_witness_to_json(const struct probe_result *r);
/* The lab topology (for the session record). */
json_t *probe_lab_to_json(const struct probe_lab *lab);
/* The same as JSON text, as serve, present and play store it with a session
 * (malloc'd, caller frees; NULL when out of memory). */
char *probe_lab_json(const struct probe_lab *lab);

#endif
