/* Error buffers (see fv_err.h). */
#include "fv_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void fv_vseterr(char *err, size_t errlen, const char *fmt, va_list ap) {
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
}

void fv_seterr(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fv_vseterr(err, errlen, fmt, ap);
    va_end(ap);
}

int fv_fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fv_vseterr(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void *fv_zalloc(size_t size, char *err, size_t errlen) {
    void *p = calloc(1, size);
    if (!p) fv_seterr(err, errlen, "out of memory");
    return p;
}
