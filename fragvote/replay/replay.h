/* Replay of a recorded session: the terminal timeline (each question with its
 * vote split, the measured truth with its evidence, right/wrong and timings,
 * read back from the store through db/report.h; pure formatting), and
 * remeasure (run the tests again now, store a new measurement set, explain
 * what changed). */
#ifndef FRAGVOTE_REPLAY_H
#define FRAGVOTE_REPLAY_H

#include <signal.h>
#include <stdio.h>

#include "db.h"
#include "fragprobe.h"
#include "report.h"

/* Writes the timeline of s to out. Lines a script may rely on (docs/EXPORT.md
 * "Replay"): "Q<n>  ..." starts a question; then
 *   "    votes     yes <Y> · no <N> ..." and "    truth     <yes|no|unknown|not measured> ...";
 * a measured question with a stored path then has "    path" and its hop
 * table (probe_path_text), each line indented six spaces. */
void replay_print(FILE *out, const struct db_report_session *s);

/* ---- remeasure: what changed and why (fragvote/replay/replay_diff.c, pure) ---- */

#define REPLAY_REASON_MAX 640

struct replay_diff {
    int changed;                   /* 1: the answer differs (both measured) */
    int comparable;                /* 0: one side was never measured */
    char then_answer[8], now_answer[8]; /* "" when not measured */
    char reason[REPLAY_REASON_MAX];     /* one line: why it changed, or what differs though it did not */
};

/* Compares the measurement of one question in two sets (stored form: answer,
 * evidence, observation JSON; set host/kernel/target/lab JSON). Pure: no I/O. */
void replay_diff_explain(const struct db_report_measure *then, const struct db_report_set *then_set,
                         const struct db_report_measure *now, const struct db_report_set *now_set,
                         struct replay_diff *out);
/* "1500/1280/1500" (+ " reassembling at r1") from a lab JSON as serve stores
 * it; "" when lab_json is NULL or has no links. */
void replay_lab_summary(const char *lab_json, char *buf, size_t len);

/* ---- remeasure: run the tests again (fragvote/replay/replay_remeasure.c) ---- */

struct replay_remeasure_opts {
    enum probe_observer_kind observer;
    int timeout_ms;                /* per test; 0 = the probe's default */
    int keep_pmtu_cache;           /* 0: flush the PMTU cache before each test, as serve does */
    const struct probe_lab *lab;   /* non-NULL: run in this lab (its dst; stored hosts ignored) */
    const char *host_override;     /* without lab: probe this host instead of each test's stored one */
    const char *host, *kernel;     /* this machine, stored with the new set */
    const char *target;            /* stored with the new set: "lab" or the host */
};
/* Runs each distinct test of s once (probe_run) and stores one measurement
 * per question in a new 'remeasure' set of s (one transaction). A test that
 * cannot run is stored as "unknown" with the reason. Stops between tests when
 * *stop becomes non-zero. Returns the new set's id, PROBE_E_PERM (no
 * privilege: nothing stored), or -1 with err. */
int64_t replay_remeasure(struct db *db, const struct db_report_session *s, const struct replay_remeasure_opts *o,
                         volatile sig_atomic_t *stop, char *err, size_t errlen);
/* Prints, per question, the live answer against set_id's and why they differ;
 * counts into *changed / *unchanged. Lines: "Q<n>  ..." then
 * "    then A · now B · unchanged ..." or "... · CHANGED: reason". */
int replay_print_remeasure(FILE *out, struct db_report *r, const struct db_report_session *s, int64_t set_id,
                           int *changed, int *unchanged, char *err, size_t errlen);
/* A stored test spec (deck_spec_json) back into a probe_spec; 0 or -1 with err. */
int replay_spec_from_json(const char *spec_json, struct probe_spec *out, char *err, size_t errlen);


/* ---- read-only projector replay (fragvote/replay/replay_serve.c) ---- */

struct replay_serve_opts {
    const char *bind_addr;         /* NULL: all addresses */
    int port;                      /* 0: any free port (printed) */
    const char *web_root, *public_url, *secret; /* as in struct hub_config; NULL: defaults */
    int use_poll;                  /* 1: lws's poll() loop; 0: libev (epoll), as in struct hub_config */
    int in_fd;                     /* commands: next / back / quit (n b q), one per line; -1: none */
    FILE *out;                     /* the URLs and messages (NULL: stdout) */
};
/* Serves session_id of db on the projector, read-only (a private copy of the
 * database is served and deleted afterwards), starting at the first question;
 * the presenter steps with next/back from in_fd or the /presenter page.
 * Blocks until quit, SIGINT or SIGTERM. Returns 0, or -1 with err. */
int replay_serve(struct db *db, struct db_report *r, int64_t session_id, const struct replay_serve_opts *o,
                 char *err, size_t errlen);

#endif
