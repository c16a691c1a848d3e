/* The monotonic clock helpers of libfragprobe: deadlines of a test, rate
 * windows of the responders, on the program's one clock (clock/fv_clock.h). */
#include "base.h"

double probe_clock_s(void) { return fv_clock_ms_frac() / 1e3; }

double probe_ms_since(const struct timespec *t0) {
    struct timespec t;
    fv_clock_now(&t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

void probe_deadline_in(struct timespec *out, int ms) {
    struct timespec now;
    fv_clock_now(&now);
    fv_clock_after(&now, ms, out);
}

int probe_ms_until(const struct timespec *deadline) {
    double left = -probe_ms_since(deadline);
    return left <= 0 ? 0 : (int)(left + 0.999);
}
