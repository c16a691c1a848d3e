/* The privileged helper's side of the privilege separation of serve and
 * present (docs/PRIVILEGES.md, "What fragvote serve does"): a process that
 * keeps the capabilities the probe needs and does nothing but what a hub
 * process (or present's network-facing process) without any capability
 * may ask of it over one socket (privsep_wire.h): run one of the deck's
 * tests, quit. It never reads a spec, a scenario or a
 * path from the hub: those are the deck's, which it has from the fork. */
#ifndef FRAGVOTE_PRIVSEP_HELPER_H
#define FRAGVOTE_PRIVSEP_HELPER_H

#include "fragprobe.h"

struct privsep_helper_ops {
    int ntests;  /* the deck's tests: "run" accepts 0 .. ntests-1 */
    /* Runs test `test` into out (always a result: "unknown" with the reason
     * when it cannot run). */
    void (*run)(void *ctx, int test, struct probe_result *out);
    void *ctx;
};

/* Tells the hub the helper is ready ("ready", with lab: the lab as a JSON
 * object, or NULL) or why it is not ("fail WHY", why non-NULL). 0, or -1
 * (the hub is gone). */
int privsep_helper_hello(int fd, const char *lab, const char *why);
/* Answers requests on fd (a SOCK_SEQPACKET socket) until "quit", the hub
 * closing its end (its process died), or an error on the socket. A request
 * that is too long or malformed is refused ("err") and nothing runs.
 * Returns 0 on quit, 1 on the hub's end closing, -1 on a socket error. */
int privsep_helper_serve(int fd, const struct privsep_helper_ops *ops);

#endif
