/* Internal to libfragprobe: setting one fact's verdict (probe/judge_fact.c),
 * shared by every judge. */
#ifndef FRAGPROBE_JUDGE_FACT_H
#define FRAGPROBE_JUDGE_FACT_H

#include "fv_msg.h"
#include "probe_spec.h"

/* Sets one of the judge's facts: its answer, basis and the why line, as a
 * message (fv_msg_set: a catalog key "why.*" and the spec of its arguments)
 * whose English is the why. The one writer of a struct probe_fact's verdict
 * (judge.c); the refinements use it too. */
void probe_fact_set(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *key, const char *spec,
                    ...) __attribute__((format(printf, 5, 6)));
/* Adds message m after the fact's why (the far end's words after the
 * judge's: witness_merge.c), the why their English (fv_msg_row_put). */
void probe_fact_add(struct probe_fact *f, const struct fv_msg *m);
/* Sets the fact with a why made of the messages m[0..n) in a row (the far
 * end's arrival, witness_merge.c). */
void probe_fact_set_row(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const struct fv_msg *m, int n);
/* The same with a why worded elsewhere: English only, no message (tests
 * and results stored before the messages). */
void probe_fact_set_text(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *why);

#endif
