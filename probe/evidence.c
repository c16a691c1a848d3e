/* The evidence line as messages in a row (probe_result.ev; docs/LANGUAGES.md
 * "Texts worded in C") and its English (probe_result.evidence), which the
 * judge and its refinements write part by part. Each part carries its own
 * joint ("; ", ": "); the English is the parts' one after another, cut to
 * fit as the line always was. English the row does not say (a part that
 * did not fit, a line written before without messages) makes the row lost
 * (nev -1): the English goes on alone and the pages show it as English.
 * Pure. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"

void probe_ev_clear(struct probe_result *r) {
    r->evidence[0] = '\0';
    r->nev = 0;
}

static void put(struct probe_result *r, const struct fv_msg *m) {
    fv_msg_row_put(r->ev, &r->nev, PROBE_EVIDENCE_PARTS, m, r->evidence, sizeof r->evidence);
}

void probe_ev_add(struct probe_result *r, const char *key, const char *spec, ...) {
    struct fv_msg m;
    va_list ap;
    va_start(ap, spec);
    fv_msg_setv(&m, key, spec, ap);
    va_end(ap);
    put(r, &m);
}

void probe_ev_add_row(struct probe_result *r, const struct fv_msg *m, int n) {
    for (int i = 0; i < n; i++) put(r, &m[i]);
}

void probe_ev_add_fact(struct probe_result *r, const struct probe_fact *f) {
    char en[sizeof f->why];
    fv_msg_row_text(f->msg, f->nmsg, en, sizeof en);
    if (f->nmsg > 0 && !strcmp(en, f->why)) {
        probe_ev_add_row(r, f->msg, f->nmsg);
        return;
    }
    probe_ev_add_text(r, f->why); /* its why has no messages, or they say more than the why kept */
}

void probe_ev_add_text(struct probe_result *r, const char *english) {
    r->nev = -1;
    size_t k = strlen(r->evidence);
    snprintf(r->evidence + k, sizeof r->evidence - k, "%s", english);
}

int probe_ev_silence(const struct probe_result *r, struct fv_msg *m) {
    char target[96], said[256], want[256];
    snprintf(target, sizeof target, "%.80s", r->witness.target);
    snprintf(want, sizeof want, " [%s]", r->witness.note);
    fv_msg_set(m, "ev.witness_silent", "witness=%s ms=%d", target, r->witness.waited_ms);
    fv_msg_text(m, said, sizeof said);
    if (!strcmp(said, want)) return 0;
    fv_msg_set(m, "ev.witness_note", "note=%s", r->witness.note); /* words of its own: carried as they are */
    fv_msg_text(m, said, sizeof said);
    return strcmp(said, want) ? -1 : 0;
}

void probe_ev_check(struct probe_result *r) {
    if (r->nev <= 0) return;
    char en[sizeof r->evidence];
    fv_msg_row_text(r->ev, r->nev, en, sizeof en);
    if (strcmp(en, r->evidence)) r->nev = -1;
}
