/* The messages between serve's hub process (or present's network-facing
 * process; both "the hub" below) and its privileged helper
 * (privsep_helper.h, docs/PRIVILEGES.md): one SOCK_SEQPACKET message each,
 * ASCII, parsed strictly here (pure: canned bytes in
 * tests/fragvote/privsep/test_privsep_wire.c).
 *
 * Hub -> helper (at most PRIVSEP_REQ_MAX bytes):
 *   "run SEQ TEST"   run the deck's test TEST (its spec, lab scenario and
 *                    the PMTU flush are the helper's own, from the deck it
 *                    was forked with); SEQ 1..PRIVSEP_SEQ_MAX
 *   "quit"           put the lab back, take it down, exit
 * Helper -> hub (at most PRIVSEP_REPLY_MAX bytes):
 *   "ready" or "ready LAB"  the helper is ready (the lab built, its witness
 *                    running, its drop done); LAB: the lab in use as a JSON
 *                    object (the session's record of it)
 *   "fail WHY"       the helper could not start (WHY: printable, one line)
 *   "ok SEQ JSON"    the result of run SEQ (probe_result_to_json's object)
 *   "err SEQ WHY"    a request refused (SEQ 0 when it could not be read)
 * Decimal numbers without sign or leading zero; single spaces; no
 * trailing bytes, no NUL, nothing else. */
#ifndef FRAGVOTE_PRIVSEP_WIRE_H
#define FRAGVOTE_PRIVSEP_WIRE_H

#include <stddef.h>

#include "fragprobe.h"

#define PRIVSEP_REQ_MAX 32               /* bytes of a request */
#define PRIVSEP_REPLY_MAX (128 * 1024)   /* bytes of a reply (a result's JSON is a few KB) */
#define PRIVSEP_WHY_MAX 240              /* bytes of a reason */
#define PRIVSEP_SEQ_MAX 2000000000L

enum privsep_req_kind { PRIVSEP_RUN = 1, PRIVSEP_QUIT };
struct privsep_req {
    enum privsep_req_kind kind;
    long seq;       /* PRIVSEP_RUN */
    int test;       /* PRIVSEP_RUN: 0 .. ntests-1 */
};

enum privsep_reply_kind { PRIVSEP_READY = 1, PRIVSEP_FAIL, PRIVSEP_OK, PRIVSEP_ERR };
struct privsep_reply {
    enum privsep_reply_kind kind;
    long seq;                       /* PRIVSEP_OK, PRIVSEP_ERR */
    char why[PRIVSEP_WHY_MAX + 1];  /* PRIVSEP_FAIL, PRIVSEP_ERR */
    struct probe_result result;     /* PRIVSEP_OK */
    char *lab;                      /* PRIVSEP_READY: LAB as text, or NULL (malloc'd: the caller frees) */
};

/* A request of len bytes (not NUL-terminated) for a deck of ntests tests:
 * 0 with *out, or -1 with what is wrong in err. */
int privsep_req_parse(const char *buf, size_t len, int ntests, struct privsep_req *out, char *err, size_t errlen);
/* r as its message into buf: its length, or -1 when it does not fit. */
int privsep_req_format(const struct privsep_req *r, char *buf, size_t len);

/* A reply of len bytes: 0 with *out (an "ok" result read by
 * probe_result_from_json, strict), or -1 with what is wrong in err. */
int privsep_reply_parse(const char *buf, size_t len, struct privsep_reply *out, char *err, size_t errlen);
/* A reply as its message: a new string (caller frees) or NULL (out of
 * memory, or longer than PRIVSEP_REPLY_MAX). r->why is cut to one printable
 * line of PRIVSEP_WHY_MAX bytes. */
char *privsep_reply_format(const struct privsep_reply *r);

#endif
