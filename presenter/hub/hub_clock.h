/* The hub's clocks (hub.c). Internal to presenter/hub. */
#ifndef FRAGVOTE_HUB_CLOCK_H
#define FRAGVOTE_HUB_CLOCK_H

long long hub_mono_ms(void);                    /* precise monotonic ms (deadlines) */
long long hub_mono_us(void);                    /* precise monotonic µs (the acks' times) */
long long hub_now_ms(void);                     /* cheap monotonic ms (rate caps), any thread */

#endif
