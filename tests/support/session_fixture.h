/* A recorded session, written through the db_* API exactly as a live talk
 * would write it, with every expected number worked out by hand below.
 * Shared by tests/fragvote/export, tests/fragvote/replay, tests/db and tests/fragvote/hub (include "session_fixture.h").
 *
 * Voters v1..v6 (v6 joins and never votes). Votes (Y yes, N no):
 *
 *   Q1 sent        udp4 do 1400 TTL 2   v1 Y v2 Y v3 Y v4 N v5 N  truth yes (v4 first voted Y, then N)
 *   Q2 df          udp4 want 1400       v1 Y v2 N v3 N v4 N v5 N  truth yes
 *   Q3 fragmented  udp4 want 1400       v1 Y v2 Y v3 N v4 N       truth no  (a first live "yes" was superseded)
 *   Q4 fragmented  udp6 dont 3000       v1 Y v5 Y                 truth unknown
 *   Q5 sent        tcp4 probe 1452      skipped, no votes, not measured
 *
 * plus a remeasure set saying Q2 "no" (never used for scores).
 *
 *   Q1: yes 3 no 2, majority yes, right  (1),   correct votes 3, accuracy 3/5
 *   Q2: yes 1 no 4, majority no,  wrong  (0),   correct votes 1, accuracy 1/5
 *   Q3: yes 2 no 2, tie,          tie    (0.5), correct votes 2, accuracy 2/4
 *   Q4: yes 2 no 0, majority yes, unscored (truth unknown)
 *   Q5: no votes, unscored
 *   collective = (1 + 0 + 0.5) / 3 = 0.5 ; vote accuracy = (3+1+2)/(5+5+4) = 6/14
 *   voters right (over Q1..Q3): v1 2, v2 1, v3 2, v4 1, v5 0; v6 unscored
 *   distribution: 0 right: 1, 1 right: 2, 2 right: 2, 3 right: 0 */
#ifndef FRAGVOTE_TEST_EXPORT_FIXTURE_H
#define FRAGVOTE_TEST_EXPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "db.h"

#define FX_TITLE "Fragmentation <quiz> & \"friends\""
#define FX_NQ 5
struct fx_expect {
    int yes, no;
    const char *truth, *majority;
    double correct;
    double accuracy;
};
static const struct fx_expect fx_q[FX_NQ] __attribute__((unused)) = {
    {3, 2, "yes", "yes", 1.0, 3.0 / 5},
    {1, 4, "yes", "no", 0.0, 1.0 / 5},
    {2, 2, "no", "tie", 0.5, 2.0 / 4},
    {2, 0, "unknown", "yes", -1, -1},
    {0, 0, "", "", -1, -1},
};
#define FX_COLLECTIVE 0.5
#define FX_VOTE_ACCURACY (6.0 / 14)
#define FX_VOTES_SCORED 14
#define FX_VOTES_CORRECT 6
#define FX_VOTERS 6
#define FX_SCORED 3
static const int fx_dist[4] __attribute__((unused)) = {1, 2, 2, 0};
#define FX_UNSCORED_VOTERS 1

#define FX_EVIDENCE_Q1 "sent whole: DF=1, 1400 bytes fit the 1500 link"
#define FX_EVIDENCE_Q2 "DF=1 seen in the quote of r1's Frag Needed" /* the remeasure set says otherwise */

static inline int64_t fx_question(struct db *db, int64_t sid, int pos, int test, const char *spec, enum qkind k,
                           const char *text) {
    char err[256];
    int64_t q = db_question_add(db, sid, pos, test, spec, k, text, err, sizeof err);
    if (q < 0) fprintf(stderr, "fixture: %s\n", err);
    return q;
}

/* v[i] = 1 yes, 0 no, -1 no vote, for voters[0..5]. */
static inline int fx_vote_round(struct db *db, int64_t q, const int64_t *voters, const int *v) {
    char err[256];
    if (db_question_set_state(db, q, "voting", err, sizeof err)) goto fail;
    for (int i = 0; i < 6; i++)
        if (v[i] >= 0 && db_vote_put(db, q, voters[i], v[i], CONFIDENCE_NONE, err, sizeof err) != DB_VOTE_OK) goto fail;
    return 0;
fail:
    fprintf(stderr, "fixture: %s\n", err);
    return -1;
}

static inline int fx_finish(struct db *db, int64_t q, int64_t live, const char *answer, const char *evidence) {
    char err[256];
    if (db_question_set_state(db, q, "closed", err, sizeof err)) goto fail;
    if (answer && db_measurement_add(db, live, q, answer, "observed", evidence, "{\"quoted_len\":1400}", "raw",
                                     err, sizeof err) < 0)
        goto fail;
    if (db_question_set_state(db, q, "measured", err, sizeof err)) goto fail;
    if (db_question_set_state(db, q, "revealed", err, sizeof err)) goto fail;
    return 0;
fail:
    fprintf(stderr, "fixture: %s\n", err);
    return -1;
}

/* The voter ids of the session fx_record() wrote last. */
static int64_t fx_last_voters[6] __attribute__((unused));

/* Records the session above in db; returns its id, or -1. qids gets the question ids. */
static inline int64_t fx_record(struct db *db, const char *title, int64_t qids[FX_NQ]) {
    char err[256];
    struct db_session_info info = {.title = title, .deck_json = "{\"title\":\"fixture\"}", .host = "laptop",
                                   .kernel = "Linux 6.1.0", .observer = "raw", .target = "lab",
                                   .lab_json = "{\"mtus\":[1500,1280,1500]}", .room = "K7QX2M"};
    int64_t sid = db_session_create(db, &info, err, sizeof err);
    if (sid < 0) { fprintf(stderr, "fixture: %s\n", err); return -1; }
    int64_t live = db_session_live_set(db, sid, err, sizeof err);
    if (live < 0) { fprintf(stderr, "fixture: %s\n", err); return -1; }
    int64_t voters[6];
    for (int i = 0; i < 6; i++) {
        char tok[40];
        snprintf(tok, sizeof tok, "%032x", 0xabc00 + i + (unsigned)(sid * 16));
        if ((voters[i] = db_voter_join(db, sid, tok, err, sizeof err)) < 0) {
            fprintf(stderr, "fixture: %s\n", err);
            return -1;
        }
        fx_last_voters[i] = voters[i];
    }
    qids[0] = fx_question(db, sid, 0, 0, "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ttl\":2}", QKIND_SENT,
                          "A 1400-byte UDP/IPv4 packet, IP_PMTUDISC_DO: is it sent?");
    qids[1] = fx_question(db, sid, 1, 1, "{\"proto\":\"udp4\",\"mode\":\"want\",\"size\":1400}", QKIND_DF,
                          "A 1400-byte UDP/IPv4 packet, IP_PMTUDISC_WANT: is DF set?");
    qids[2] = fx_question(db, sid, 2, 1, "{\"proto\":\"udp4\",\"mode\":\"want\",\"size\":1400}", QKIND_FRAGMENTED,
                          "A 1400-byte UDP/IPv4 packet, IP_PMTUDISC_WANT: is it fragmented?");
    qids[3] = fx_question(db, sid, 3, 2, "{\"proto\":\"udp6\",\"mode\":\"dont\",\"size\":3000}", QKIND_FRAGMENTED,
                          "A 3000-byte UDP/IPv6 packet, IPV6_PMTUDISC_DONT: is it fragmented, \"really\"?");
    qids[4] = fx_question(db, sid, 4, 3, "{\"proto\":\"tcp4\",\"mode\":\"probe\",\"size\":1452}", QKIND_SENT,
                          "A 1452-byte TCP/IPv4 segment, IP_PMTUDISC_PROBE: is it sent?");
    for (int i = 0; i < FX_NQ; i++)
        if (qids[i] < 0) return -1;

    /* Q1, with v4 changing its mind from yes to no. */
    if (db_question_set_state(db, qids[0], "voting", err, sizeof err) ||
        db_vote_put(db, qids[0], voters[3], 1, CONFIDENCE_NONE, err, sizeof err) != DB_VOTE_OK) {
        fprintf(stderr, "fixture: %s\n", err);
        return -1;
    }
    static const int v1[6] = {1, 1, 1, 0, 0, -1}, v2[6] = {1, 0, 0, 0, 0, -1}, v3[6] = {1, 1, 0, 0, -1, -1},
                     v4[6] = {1, -1, -1, -1, 1, -1};
    if (fx_vote_round(db, qids[0], voters, v1) || fx_finish(db, qids[0], live, "yes", FX_EVIDENCE_Q1)) return -1;
    if (fx_vote_round(db, qids[1], voters, v2) ||
        fx_finish(db, qids[1], live, "yes", FX_EVIDENCE_Q2))
        return -1;
    if (fx_vote_round(db, qids[2], voters, v3)) return -1;
    /* A first live measurement said yes; the rerun (newest) says no. */
    if (db_measurement_add(db, live, qids[2], "yes", "inferred", "cached PMTU 1280", "{}", "raw", err,
                           sizeof err) < 0 ||
        fx_finish(db, qids[2], live, "no", "one 1400-byte packet on the wire, MF=0 offset 0"))
        return -1;
    if (fx_vote_round(db, qids[3], voters, v4) ||
        fx_finish(db, qids[3], live, "unknown", "no ICMP answer within 2 s"))
        return -1;
    if (db_question_set_state(db, qids[4], "skipped", err, sizeof err)) {
        fprintf(stderr, "fixture: %s\n", err);
        return -1;
    }
    int64_t re = db_measurement_set_add(db, sid, "remeasure", "other", "Linux 6.9", "lab", NULL, err, sizeof err);
    if (re < 0 || db_measurement_add(db, re, qids[1], "no", "observed", "DF=0 now", "{}", "raw", err, sizeof err) < 0) {
        fprintf(stderr, "fixture: %s\n", err);
        return -1;
    }
    if (db_session_end(db, sid, err, sizeof err)) {
        fprintf(stderr, "fixture: %s\n", err);
        return -1;
    }
    return sid;
}

/* ---- running the real program ---- */

/* Runs "$FRAGVOTE_BIN args" with stdout into a malloc'd string (*out, caller
 * frees) and stderr into *errout (may be NULL); returns the exit status, or -1. */
static inline int fx_run(const char *args, char **out, char **errout) {
    *out = NULL;
    if (errout) *errout = NULL;
    const char *bin = getenv("FRAGVOTE_BIN");
    if (!bin) { fprintf(stderr, "FRAGVOTE_BIN not set\n"); return -1; }
    char errfile[256], cmd[4096];
    snprintf(errfile, sizeof errfile, "%s/stderr.txt", check_tmpdir());
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", bin, args, errfile);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    if (buf) buf[n] = '\0';
    int st = pclose(p);
    *out = buf;
    if (errout) {
        FILE *f = fopen(errfile, "r");
        char *e = calloc(1, 8192);
        if (f && e) e[fread(e, 1, 8191, f)] = '\0';
        if (f) fclose(f);
        *errout = e;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline char *fx_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); s = NULL; }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static inline const char *fx_path(const char *name) { return check_tmp_path(name); }

/* The database at path opened; NULL after printing why. */
static inline struct db *fx_open(const char *path) {
    char err[256];
    struct db *db = db_open(path, err, sizeof err);
    if (!db) fprintf(stderr, "%s: %s\n", path, err);
    return db;
}

/* A misuse of the CLI and what it must give: `fragvote ARGS --db DB` exits
 * rc with err on stderr (NULL: any message). */
struct fx_misuse {
    const char *args;
    int rc;
    const char *err;
};
static inline void fx_check_misuse(const struct fx_misuse *m, size_t n, const char *db) {
    for (size_t i = 0; i < n; i++) {
        char args[768], *out, *errs = NULL;
        snprintf(args, sizeof args, "%s --db '%s'", m[i].args, db);
        int rc = fx_run(args, &out, &errs);
        if (rc != m[i].rc || (m[i].err && (!errs || !strstr(errs, m[i].err)))) {
            check_cur_failed_ = 1;
            fprintf(stderr, "%s: fragvote %s: exit %d, expected %d with \"%s\"; stderr: %s\n", check_cur_name_, args, rc,
                    m[i].rc, m[i].err ? m[i].err : "", errs ? errs : "");
        }
        free(out);
        free(errs);
    }
}

#endif
