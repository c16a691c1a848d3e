/* libfragprobe: the program's one include of the probe engine.
 *
 * The contract with the rest of fragvote (deck, quiz, serve, replay), by
 * subject: what a test is and the facts it answers (probe_spec.h), its
 * result (probe_result.h), the path hop by hop (probe_path.h), running a
 * test and TTL discovery (probe_run.h), the far-end witness
 * (probe_witness.h), the namespace lab (probe_lab.h), path MTUs
 * (probe_pmtu.h), privileges (probe_priv.h). Extend them; do not change the
 * meaning of what is there. The probe knows nothing of votes, JSON
 * libraries, SQLite or libwebsockets. The wire decoders (probe_wire.h), the
 * observers (observe.h), the judges (judge.h) and the headers of their parts
 * are internal to probe/ and its tests. */
#ifndef FRAGPROBE_H
#define FRAGPROBE_H

#include "probe_spec.h"
#include "probe_path.h"
#include "probe_result.h"
#include "probe_run.h"
#include "probe_witness.h"
#include "probe_lab.h"
#include "probe_pmtu.h"
#include "probe_priv.h"
#include "probe_pace.h"
#include "probe_predict.h"

#endif
