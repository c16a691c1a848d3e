/* How long the hub takes to answer a vote: from reading it to writing its
 * ack (its group commit included), on the hub's thread. A histogram in
 * HUB_ACKLAT_STEP_US steps, so a room of 20,000 costs no memory per vote;
 * percentiles are read from it at the status tick. Embedded in struct hub
 * (h->acklat), touched only by hub_acklat.c's functions. */
#ifndef FRAGVOTE_HUB_ACKLAT_H
#define FRAGVOTE_HUB_ACKLAT_H

#define HUB_ACKLAT_STEP_US 100         /* the histogram's resolution: 0.1 ms */
#define HUB_ACKLAT_BUCKETS 5000        /* up to 500 ms; slower acks count in the last bucket (max is exact) */

struct hub_acklat {
    unsigned long n;                   /* acks counted */
    long long max_us;
    unsigned long bucket[HUB_ACKLAT_BUCKETS];
};

/* One ack of a vote read at read_us (fv_clock_us; the group commit stamps it, hub_batch.c). */
void hub_acklat_add(struct hub_acklat *a, long long read_us);
/* The q-quantile (0..1) in ms, the upper edge of its bucket (the exact
 * max for the slowest); -1 before the first ack. */
double hub_acklat_ms(const struct hub_acklat *a, double q);

#endif
