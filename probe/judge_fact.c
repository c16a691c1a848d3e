/* Setting one fact: its answer, its basis and why (a message and its
 * English). Shared by every judge. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "observe.h"

void probe_fact_set(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *key, const char *spec,
                    ...) {
    f->answer = a;
    f->basis = b;
    va_list ap;
    va_start(ap, spec);
    fv_msg_setv(&f->msg, key, spec, ap);
    va_end(ap);
    fv_msg_text(&f->msg, f->why, sizeof f->why);
}

void probe_fact_set_text(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *why) {
    f->answer = a;
    f->basis = b;
    memset(&f->msg, 0, sizeof f->msg);
    snprintf(f->why, sizeof f->why, "%s", why);
}
