/* The path of a test as JSON (issue 20; docs/PROBE.md "The path"): the
 * writer behind probe_result_to_json's "path" and a reveal's "path", and the
 * reader for stored measurements (replay, export, room resume). */
#ifndef FRAGVOTE_PATH_JSON_H
#define FRAGVOTE_PATH_JSON_H

#include <jansson.h>

#include "fragprobe.h"

/* A new object for p as far as its view shows it (p->shown, each event's
 * shown: a key is left out where its bit is clear); json null when p->v is 0
 * (no path). Caller owns the reference; NULL on out of memory. */
json_t *path_json_from(const struct probe_path *p);
/* Reads a "path" object back (what path_json_from wrote, full view). Returns
 * 1 with *out filled, 0 when o is absent or null (an old row: out->v = 0),
 * -1 with err when it is malformed or of another version. Caps: at most
 * PROBE_PATH_NODES_MAX nodes, PROBE_PATH_EVENTS_MAX events,
 * PROBE_PATH_PIECES_MAX pieces listed per list; more is malformed. */
int path_json_read(const json_t *o, struct probe_path *out, char *err, size_t errlen);

#endif
