/* Internal to libfragprobe: the observer plug-in interface (what the sender
 * tells observers is sendinfo.h, what they saw observation.h, the judges
 * that turn it into the facts judge.h).
 *
 * How an observer plugs in: probe_run() resolves the target, creates the
 * sending socket, then drives one struct probe_observer chosen by
 * probe_run_opts.observer:
 *   open()    before anything is sent (raw: ICMP socket + egress tap;
 *             recverr: counters before),
 *   arm(fd)   on the sending socket before the send (recverr: IP_RECVERR),
 *   collect() after the send, until a decisive answer or the deadline,
 *             filling a struct probe_observation (ICMP answers as
 *             struct probe_icmp, quote fields -1 where unseen; what left
 *             the host, -1 where unseen),
 *   close().
 * The judges (probe_judge and its refinements) alone turn spec + send
 * outcome + observation into the three facts; an observer never writes
 * answers itself, so both observers are judged by the same rules.
 * PROBE_OBS_AUTO = raw when the process has CAP_NET_RAW, else recverr. A new
 * observer: implement the ops in probe/observe_<name>*.c as `const struct
 * probe_observer probe_observer_<name>` and list it in probe/run.c
 * (observer_for). */
#ifndef FRAGPROBE_OBSERVE_H
#define FRAGPROBE_OBSERVE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "observation.h"
#include "probe_wire.h"
#include "sendinfo.h"

/* How long a collect loop still waits: until the deadline, or, once a
 * decisive answer came (probe_wait_decided), a short grace for the rest of
 * it -- never past the deadline. */
struct probe_wait {
    const struct timespec *deadline;
    int decided;
    struct timespec grace_end;
};
/* The first call starts the grace of grace_ms; later calls change nothing. */
void probe_wait_decided(struct probe_wait *w, int grace_ms);
int probe_wait_left_ms(const struct probe_wait *w); /* 0: stop waiting */

/* One observer. state is the observer's own (allocated by open, freed by close). */
struct probe_observer {
    const char *name;                /* "raw" / "recverr": goes into probe_result.observer */
    /* Before the socket sends: open listening resources for this family. */
    int (*open)(void **state, int family, char *err, size_t errlen);
    /* On the sending socket, before it sends. May be NULL. */
    int (*arm)(void *state, int fd, char *err, size_t errlen);
    /* After the send: gather until a decisive answer or deadline (CLOCK_MONOTONIC). */
    int (*collect)(void *state, const struct probe_sendinfo *si, const struct timespec *deadline,
                   struct probe_observation *obs, char *err, size_t errlen);
    void (*close)(void *state);
};

/* An observer's zeroed state of size bytes (open allocates it, close frees
 * it), or NULL with "out of memory for the NAME observer" in err. */
void *probe_observer_state_new(size_t size, const char *name, char *err, size_t errlen);

extern const struct probe_observer probe_observer_raw;     /* observe_raw.c: root */
extern const struct probe_observer probe_observer_recverr; /* observe_recverr.c: unprivileged */

/* True when answer a quotes a packet of this test (addresses, ports / IP ID). */
int probe_answer_matches(const struct probe_sendinfo *si, const struct probe_quote *q,
                         const int64_t *known_ids, int nids);

/* True when an Echo Reply with this identifier and sequence, from the
 * address at `from` (4 or 16 bytes), answers this ICMP test. */
int probe_echo_reply_matches(const struct probe_sendinfo *si, const void *from, int id, int seq);

#endif
