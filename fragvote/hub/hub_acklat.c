/* The vote-to-ack latency histogram (see hub_acklat.h). */
#include "hub_acklat.h"
#include "fv_clock.h"

void hub_acklat_add(struct hub_acklat *a, long long read_us) {
    long long us = fv_clock_us() - read_us;
    if (us < 0) us = 0;
    long long i = us / HUB_ACKLAT_STEP_US;
    a->bucket[i < HUB_ACKLAT_BUCKETS ? i : HUB_ACKLAT_BUCKETS - 1]++;
    a->n++;
    if (us > a->max_us) a->max_us = us;
}

double hub_acklat_ms(const struct hub_acklat *a, double q) {
    if (!a->n) return -1;
    if (q >= 1) return (double)a->max_us / 1000.0;
    /* the smallest bucket with more than q of the acks at or below it */
    unsigned long want = (unsigned long)(q * (double)a->n), seen = 0;
    for (int i = 0; i < HUB_ACKLAT_BUCKETS; i++) {
        seen += a->bucket[i];
        if (seen > want) {
            double edge = (double)(i + 1) * HUB_ACKLAT_STEP_US / 1000.0;
            double max = (double)a->max_us / 1000.0;
            return edge < max ? edge : max;
        }
    }
    return (double)a->max_us / 1000.0;
}
