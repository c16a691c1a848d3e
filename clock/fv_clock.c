/* The monotonic clock: the program's one reader of CLOCK_MONOTONIC. */
#include "fv_clock.h"

void fv_clock_now(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }

double fv_clock_ms_frac(void) {
    struct timespec t;
    fv_clock_now(&t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

long long fv_clock_ms(void) {
    struct timespec t;
    fv_clock_now(&t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

long long fv_clock_us(void) {
    struct timespec t;
    fv_clock_now(&t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

long long fv_clock_coarse_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void fv_clock_after(const struct timespec *t0, int ms, struct timespec *out) {
    *out = *t0;
    out->tv_sec += ms / 1000;
    out->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (out->tv_nsec >= 1000000000L) {
        out->tv_sec++;
        out->tv_nsec -= 1000000000L;
    }
}
