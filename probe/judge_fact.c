/* Setting one fact: its answer, its basis and why (messages in a row and
 * their English). Shared by every judge. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "judge_fact.h"

void probe_fact_set(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *key, const char *spec,
                    ...) {
    f->answer = a;
    f->basis = b;
    memset(f->msg, 0, sizeof f->msg);
    va_list ap;
    va_start(ap, spec);
    fv_msg_setv(&f->msg[0], key, spec, ap);
    va_end(ap);
    f->nmsg = 1;
    fv_msg_text(&f->msg[0], f->why, sizeof f->why);
}

void probe_fact_add(struct probe_fact *f, const struct fv_msg *m) {
    fv_msg_row_put(f->msg, &f->nmsg, PROBE_WHY_PARTS, m, f->why, sizeof f->why);
}

void probe_fact_set_row(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const struct fv_msg *m, int n) {
    f->answer = a;
    f->basis = b;
    memset(f->msg, 0, sizeof f->msg);
    f->nmsg = 0;
    fv_msg_row_text(m, n, f->why, sizeof f->why);
    fv_msg_row_append(f->msg, &f->nmsg, PROBE_WHY_PARTS, m, n); /* -1 when it does not fit: why alone */
}

void probe_fact_set_text(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *why) {
    f->answer = a;
    f->basis = b;
    memset(f->msg, 0, sizeof f->msg);
    f->nmsg = 0;
    snprintf(f->why, sizeof f->why, "%s", why);
}
