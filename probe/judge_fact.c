/* Setting one fact: its answer, its basis and why. Shared by every judge. */
#include <stdarg.h>
#include <stdio.h>

#include "observe.h"

void probe_fact_setv(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *fmt, va_list ap) {
    f->answer = a;
    f->basis = b;
    vsnprintf(f->why, sizeof f->why, fmt, ap);
}

void probe_fact_set(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    probe_fact_setv(f, a, b, fmt, ap);
    va_end(ap);
}
