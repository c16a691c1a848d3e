/* The monotonic clock (CLOCK_MONOTONIC; "coarse": CLOCK_MONOTONIC_COARSE),
 * read in the units its callers count in. The time since an arbitrary point:
 * only differences mean anything. */
#ifndef FRAGVOTE_FV_CLOCK_H
#define FRAGVOTE_FV_CLOCK_H
#include <time.h>

void fv_clock_now(struct timespec *t);        /* now, as a timespec */
double fv_clock_ms_frac(void);                /* milliseconds, fractional (timers, elapsed times) */
long long fv_clock_ms(void);                  /* whole milliseconds, precise (deadlines) */
long long fv_clock_us(void);                  /* whole microseconds, precise (latencies) */
long long fv_clock_coarse_ms(void);           /* whole milliseconds, cheap: a few ms coarse (rate caps) */
/* out = t0 + ms milliseconds (ms >= 0), normalized; out may be t0. */
void fv_clock_after(const struct timespec *t0, int ms, struct timespec *out);

#endif
