/* The monotonic clock helpers of libfragprobe: deadlines of a test, rate
 * windows of the responders. */
#include "base.h"

double probe_clock_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double probe_ms_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

void probe_deadline_after(const struct timespec *t0, int ms, struct timespec *out) {
    *out = *t0;
    out->tv_sec += ms / 1000;
    out->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (out->tv_nsec >= 1000000000L) {
        out->tv_sec++;
        out->tv_nsec -= 1000000000L;
    }
}

void probe_deadline_in(struct timespec *out, int ms) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    probe_deadline_after(&now, ms, out);
}

int probe_ms_until(const struct timespec *deadline) {
    double left = -probe_ms_since(deadline);
    return left <= 0 ? 0 : (int)(left + 0.999);
}
