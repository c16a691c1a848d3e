/* Internal to libfragprobe: the evidence line of a result (probe/evidence.c),
 * which the judge and its refinements write part by part. */
#ifndef FRAGPROBE_EVIDENCE_H
#define FRAGPROBE_EVIDENCE_H

#include "fv_msg.h"
#include "probe_result.h"

/* The evidence line as messages in a row and its English: clear it, add a
 * part (a catalog key "ev.*" and its arguments, as fv_msg_set), a row of
 * them, or a fact's why (its messages, or its English alone when it has
 * none: the row is lost then, nev -1, and the pages show the English).
 * check: the row is lost unless its English is the line. */
void probe_ev_clear(struct probe_result *r);
void probe_ev_add(struct probe_result *r, const char *key, const char *spec, ...) __attribute__((format(printf, 3, 4)));
void probe_ev_add_row(struct probe_result *r, const struct fv_msg *m, int n);
void probe_ev_add_fact(struct probe_result *r, const struct probe_fact *f);
void probe_ev_add_text(struct probe_result *r, const char *english); /* English no message says: the row is lost */
void probe_ev_check(struct probe_result *r);
/* " [the witness ... did not answer within 1000 ms: ...]", a silent
 * witness's note after the line, as m: 0, or -1 when no message says the
 * note (English alone then). */
int probe_ev_silence(const struct probe_result *r, struct fv_msg *m);

#endif
