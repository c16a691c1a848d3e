/* clock/fv_clock.c, the program's one monotonic clock: a deadline after a
 * given time carries the nanoseconds over (canned times), the units agree
 * with each other and with a sleep the kernel timed, and the clock never
 * goes back. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fv_clock.h"

static void test_after_carries_nanoseconds(void) {
    struct timespec t0 = {.tv_sec = 10, .tv_nsec = 999500000L}, out;
    fv_clock_after(&t0, 1, &out);
    CHECK_INT(out.tv_sec, 11);
    CHECK_INT(out.tv_nsec, 500000L);
    fv_clock_after(&t0, 2500, &out);
    CHECK_INT(out.tv_sec, 13);
    CHECK_INT(out.tv_nsec, 499500000L);
    fv_clock_after(&t0, 0, &out);
    CHECK_INT(out.tv_sec, 10);
    CHECK_INT(out.tv_nsec, 999500000L);
    out = t0; /* out may be t0 */
    fv_clock_after(&out, 500, &out);
    CHECK_INT(out.tv_sec, 11);
    CHECK_INT(out.tv_nsec, 499500000L);
}

static void test_units_agree_over_a_sleep(void) {
    struct timespec t;
    fv_clock_now(&t);
    long long ms0 = fv_clock_ms(), us0 = fv_clock_us(), c0 = fv_clock_coarse_ms();
    double f0 = fv_clock_ms_frac();
    CHECK(ms0 >= (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000);
    CHECK(us0 / 1000 >= ms0);
    CHECK(f0 >= (double)ms0);
    usleep(50000);
    long long ms1 = fv_clock_ms(), us1 = fv_clock_us(), c1 = fv_clock_coarse_ms();
    double f1 = fv_clock_ms_frac();
    CHECK(ms1 - ms0 >= 50);
    CHECK(us1 - us0 >= 50000);
    CHECK(f1 - f0 >= 50.0);
    CHECK(ms1 - ms0 < 5000); /* the same clock in every unit: not seconds apart */
    /* the reads are a few calls apart: a busy machine may preempt between them */
    CHECK(llabs((us1 - us0) / 1000 - (ms1 - ms0)) < 50);
    /* coarse: the same clock, a few ticks (at most tens of ms) behind */
    CHECK(c1 - c0 >= 30 && c1 - c0 < 5000);
    CHECK(c1 <= fv_clock_ms() && fv_clock_ms() - c1 < 100);
}

int main(void) {
    RUN(test_after_carries_nanoseconds);
    RUN(test_units_agree_over_a_sleep);
    return check_summary();
}
