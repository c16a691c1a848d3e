/* fragvote replay ID --remeasure against the namespace lab: a session is
 * recorded through the real room with real probe_run() results on a
 * 1500/1280/1500 lab; remeasuring on the same lab reports every question
 * "unchanged"; remeasuring on a 1500/1500/1500 lab reports the DONT 1400
 * "fragmented?" question CHANGED and names the path MTU. tcpdump on r2's
 * link from r1 is the ground truth of both runs: fragments behind the 1280
 * link, a whole 1400-byte packet without it. A lab the command builds itself
 * (--lab-mtus) is removed afterwards. Each run is stored as a new 'remeasure'
 * set while the session's scores stay as recorded. Needs root (namespaces). */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "db.h"
#include "deck.h"
#include "probe_json.h"
#include "session_fixture.h"
#include "replay.h"
#include "report.h"
#include "room.h"

static char prefix[PROBE_LAB_PREFIX_MAX + 1], prefix2[PROBE_LAB_PREFIX_MAX + 1], prefix3[PROBE_LAB_PREFIX_MAX + 1];
static char dbfile[256];
static int64_t session;
static double recorded_collective;

static const char deck_json[] =
    "{\"title\":\"Remeasure me\",\"target\":\"lab\",\"tests\":["
    "{\"proto\":\"udp4\",\"mode\":\"dont\",\"size\":1400,\"ask\":[\"sent\",\"fragmented\"]},"
    "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ask\":[\"sent\",\"df\"]}]}";
#define NQ 4
/* Q2 of the talk: udp4 dont 1400 "fragmented?" -- yes behind a 1280 link, no without one. */
#define FRAG_Q 1

static void lab_down(void) {
    char err[256];
    if (prefix[0]) probe_lab_down(prefix, err, sizeof err);
    if (prefix2[0]) probe_lab_down(prefix2, err, sizeof err);
    if (prefix3[0]) probe_lab_down(prefix3, err, sizeof err);
}

/* ---- ground truth: tcpdump on r2's interface towards r1 ---- */

struct capture {
    pid_t pid;
    char file[300], log[300];
};

static int capture_start(const char *pfx, struct capture *c) {
    char err[256];
    struct probe_lab lab;
    if (probe_lab_status(pfx, &lab, err, sizeof err) != 1) {
        fprintf(stderr, "capture: lab %s: %s\n", pfx, err);
        return -1;
    }
    snprintf(c->file, sizeof c->file, "%s/%s.pcap", check_tmpdir(), pfx);
    snprintf(c->log, sizeof c->log, "%s/%s.tcpdump.log", check_tmpdir(), pfx);
    c->pid = fork();
    if (c->pid < 0) return -1;
    if (c->pid == 0) {
        int fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); }
        execlp("ip", "ip", "netns", "exec", lab.ns[PROBE_LAB_R2], "tcpdump", "-i", lab.link[1].b_if, "-n", "-U", "--immediate-mode",
               "-w", c->file, "ip and src host 192.0.2.1", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) { /* up to 3 s for "listening on" */
        char *log = fx_slurp(c->log);
        int ready = log && strstr(log, "listening on");
        free(log);
        if (ready) return 0;
        usleep(10000);
    }
    fprintf(stderr, "capture: tcpdump did not start\n");
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    return -1;
}

static void capture_stop(struct capture *c) {
    usleep(200000); /* let the last packets reach the file */
    kill(c->pid, SIGINT);
    waitpid(c->pid, NULL, 0);
}

/* Packets in the capture that match filter, or -1. */
static int capture_count(const struct capture *c, const char *filter) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "tcpdump -r '%s' -nn '%s' 2>/dev/null | wc -l", c->file, filter);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    int n = -1;
    if (fscanf(p, "%d", &n) != 1) n = -1;
    pclose(p);
    return n;
}

#define FILTER_FRAGMENTS "ip[6:2] & 0x3fff != 0"
#define FILTER_WHOLE_1400 "ip[6:2] & 0x3fff = 0 and ip[2:2] = 1400"

/* The talk: every question opened, voted on by two phones, closed, measured
 * for real in the lab (probe_run, PMTU cache flushed first), revealed. */
static int record(const struct probe_lab *lab) {
    char err[512];
    struct deck d;
    if (deck_load_string(deck_json, "test deck", &d, err, sizeof err) < 0) {
        fprintf(stderr, "deck: %s\n", err);
        return -1;
    }
    char *labjs = probe_lab_json(lab);
    char host[256], kernel[320];
    cli_host_facts(host, sizeof host, kernel, sizeof kernel);
    struct db *db = db_open(dbfile, err, sizeof err);
    struct room_info info = {.code = "REMEAS", .host = host, .kernel = kernel, .observer = "raw", .target = "lab",
                             .lab_json = labjs};
    struct room *room = db ? room_create(db, &d, &info, err, sizeof err) : NULL;
    int rc = -1;
    if (!room) {
        fprintf(stderr, "room: %s\n", err);
        goto out;
    }
    session = room_session_id(room);
    struct probe_run_opts opts = {.observer = PROBE_OBS_RAW, .lab = lab, .flush_pmtu = 1};
    char ta[ROOM_TOKEN_HEX + 1], tb[ROOM_TOKEN_HEX + 1];
    if (room_token_new(room, ta, err, sizeof err) || room_token_new(room, tb, err, sizeof err)) goto fail;
    for (int pos = 0; pos < NQ; pos++) {
        if (room_act(room, ROOM_OPEN, err, sizeof err)) goto fail;
        struct room_write w[2];
        if (room_write_plan(room, &w[0], -1, ta, pos, 1, CONFIDENCE_NONE, 0, err, sizeof err) ||
            room_write_plan(room, &w[1], -1, tb, pos, pos % 2, CONFIDENCE_NONE, 1, err, sizeof err) ||
            room_write_commit(room, w, 2, err, sizeof err))
            goto fail;
        if (room_act(room, ROOM_CLOSE, err, sizeof err)) goto fail;
        int m = room_act(room, ROOM_MEASURE, err, sizeof err);
        if (m < 0) goto fail;
        if (m == QUIZ_MEASURE_PROBE) {
            struct probe_result res;
            int pr = probe_run(&opts, &quiz_test(room_quiz(room), pos)->spec, &res, err, sizeof err);
            if (pr < 0) goto fail;
            if (room_measured(room, pos, &res, err, sizeof err)) goto fail;
        }
        if (room_act(room, ROOM_REVEAL, err, sizeof err)) goto fail;
        if (pos < NQ - 1 && room_act(room, ROOM_NEXT, err, sizeof err)) goto fail;
    }
    rc = room_end(room, err, sizeof err);
    if (rc) goto fail;
    struct db_sscore sc;
    if (db_session_score(db, session, &sc, err, sizeof err)) goto fail;
    recorded_collective = sc.collective;
    goto out;
fail:
    fprintf(stderr, "recording: %s\n", err);
    rc = -1;
out:
    room_free(room);
    db_close(db);
    deck_free(&d);
    free(labjs);
    return rc;
}

struct verdicts {
    int found[NQ], changed[NQ], unchanged[NQ];
    char reason[NQ][640];
    char then[NQ][8], now[NQ][8];
};

/* Parses the remeasure output ("Q<n>  ..." then "    then A · now B · unchanged|CHANGED: why"). */
static void parse(char *out, struct verdicts *v) {
    memset(v, 0, sizeof *v);
    int cur = -1;
    char *save = NULL;
    for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int n;
        if (l[0] == 'Q' && sscanf(l, "Q%d ", &n) == 1) {
            cur = n >= 1 && n <= NQ ? n - 1 : -1;
            if (cur >= 0) v->found[cur]++;
            continue;
        }
        if (cur < 0 || strncmp(l, "    then ", 9)) continue;
        sscanf(l + 9, "%7s", v->then[cur]);
        const char *now = strstr(l, " · now ");
        if (now) sscanf(now + strlen(" · now "), "%7s", v->now[cur]);
        const char *ch = strstr(l, "CHANGED: ");
        if (ch) {
            v->changed[cur] = 1;
            snprintf(v->reason[cur], sizeof v->reason[cur], "%s", ch + 9);
        } else if (strstr(l, " · unchanged")) {
            v->unchanged[cur] = 1;
        }
    }
}

static int count_sets(const char *kind) {
    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    struct db_report *r = db ? db_report_open(db, err, sizeof err) : NULL;
    struct db_report_session s;
    int n = -1;
    if (r && db_report_session_load(db, r, session, &s, err, sizeof err) == 0) {
        n = 0;
        for (int i = 0; i < s.nsets; i++)
            if (!strcmp(s.sets[i].kind, kind)) n++;
        db_report_session_free(&s);
    }
    db_report_close(r);
    db_close(db);
    return n;
}

static void test_same_lab_reports_unchanged(void) {
    char args[512], *out, *errs;
    struct capture cap;
    REQUIRE(capture_start(prefix, &cap) == 0);
    snprintf(args, sizeof args, "replay %lld --remeasure --lab-prefix %s --observer raw --db '%s'",
             (long long)session, prefix, dbfile);
    int rc = fx_run(args, &out, &errs);
    capture_stop(&cap);
    CHECK_INT(rc, 0);
    /* On the wire: the DONT 1400 packet reached r2 as fragments (r1 cut it for its 1280 link). */
    CHECK(capture_count(&cap, FILTER_FRAGMENTS) >= 2);
    REQUIRE(out);
    if (errs && *errs) fprintf(stderr, "stderr: %s\n", errs);
    CHECK_CONTAINS(out, "4 unchanged, 0 changed, 0 not comparable");
    struct verdicts v;
    parse(out, &v);
    static const char *const want[NQ] = {"yes", "yes", "yes", "yes"}; /* sent, fragmented (by r1), sent, df */
    for (int i = 0; i < NQ; i++) {
        CHECK_INT(v.found[i], 1);
        CHECK_INT(v.unchanged[i], 1);
        CHECK_STR(v.then[i], want[i]);
        CHECK_STR(v.now[i], want[i]);
    }
    free(out);
    free(errs);
    CHECK_INT(count_sets("remeasure"), 1);
    /* the lab it found running is left running */
    struct probe_lab lab;
    char err[256];
    CHECK_INT(probe_lab_status(prefix, &lab, err, sizeof err), 1);
}

/* Runs the remeasure on lab pfx; checks the one change and its reason. */
static void expect_one_change(const char *pfx, const char *extra, int *remeasure_sets) {
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "replay %lld --remeasure --lab-prefix %s %s --observer raw --db '%s'",
             (long long)session, pfx, extra, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    if (errs && *errs) fprintf(stderr, "stderr: %s\n", errs);
    CHECK_CONTAINS(out, "3 unchanged, 1 changed, 0 not comparable");
    CHECK_CONTAINS(out, "then  host");
    CHECK_CONTAINS(out, "(1500/1280/1500)");
    CHECK_CONTAINS(out, "(1500/1500/1500)");
    struct verdicts v;
    parse(out, &v);
    CHECK_INT(v.changed[FRAG_Q], 1);
    CHECK_STR(v.then[FRAG_Q], "yes");
    CHECK_STR(v.now[FRAG_Q], "no");
    CHECK_CONTAINS(v.reason[FRAG_Q], "different path MTU (lab links 1500/1280/1500 then, 1500/1500/1500 now)");
    for (int i = 0; i < NQ; i++)
        if (i != FRAG_Q) CHECK_INT(v.unchanged[i], 1);
    free(out);
    free(errs);
    CHECK_INT(count_sets("remeasure"), ++*remeasure_sets);
}

static int remeasure_sets = 1;

static void test_other_mtu_reports_the_change_and_why(void) {
    char err[256];
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefix2);
    REQUIRE(probe_lab_parse_mtus("1500,1500,1500", &cfg, err, sizeof err) == 0);
    struct probe_lab lab;
    REQUIRE(probe_lab_up(&cfg, &lab, err, sizeof err) >= 0);
    struct capture cap;
    REQUIRE(capture_start(prefix2, &cap) == 0);
    expect_one_change(prefix2, "", &remeasure_sets);
    capture_stop(&cap);
    /* On the wire: whole 1400-byte packets, no fragment at all. */
    CHECK_INT(capture_count(&cap, FILTER_FRAGMENTS), 0);
    CHECK(capture_count(&cap, FILTER_WHOLE_1400) >= 1);
    /* and the recorded scores did not move */
    struct db *db = db_open(dbfile, err, sizeof err);
    REQUIRE(db);
    struct db_sscore sc;
    CHECK(db_session_score(db, session, &sc, err, sizeof err) == 0 && sc.collective == recorded_collective);
    db_close(db);
    probe_lab_down(prefix2, err, sizeof err);
}

/* With --lab-mtus and no lab up under that prefix, the command builds the
 * lab itself and removes it afterwards. */
static void test_lab_built_by_the_command_is_removed(void) {
    char err[256];
    struct probe_lab lab;
    REQUIRE(probe_lab_status(prefix3, &lab, err, sizeof err) == 0);
    expect_one_change(prefix3, "--lab-mtus 1500,1500,1500", &remeasure_sets);
    CHECK_INT(probe_lab_status(prefix3, &lab, err, sizeof err), 0);
    /* --lab-mtus on a lab that is up is refused: it would replace someone's lab */
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "replay %lld --remeasure --lab-prefix %s --lab-mtus 1500,1500,1500 --db '%s'",
             (long long)session, prefix, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 2);
    CHECK_CONTAINS(errs, "is up already");
    free(out);
    free(errs);
    CHECK_INT(probe_lab_status(prefix, &lab, err, sizeof err), 1);
}

/* Another target (loopback: no router, a 64 KiB MTU): the answer that
 * depended on r1 changes and the reason names the target. */
static void test_other_target_is_named(void) {
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "replay %lld --remeasure --target 127.0.0.1 --observer raw --db '%s'",
             (long long)session, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    if (errs && *errs) fprintf(stderr, "stderr: %s\n", errs);
    CHECK_CONTAINS(out, "now   host");
    CHECK_CONTAINS(out, "target 127.0.0.1");
    struct verdicts v;
    parse(out, &v);
    /* No router fragments on loopback: whatever the probe can tell ("no" or
     * "unknown" without an ICMP answer), it is not the "yes" r1 gave. */
    CHECK_INT(v.changed[FRAG_Q], 1);
    CHECK(!strcmp(v.now[FRAG_Q], "no") || !strcmp(v.now[FRAG_Q], "unknown"));
    CHECK_CONTAINS(v.reason[FRAG_Q], "different target (lab then, 127.0.0.1 now)");
    free(out);
    free(errs);
    CHECK_INT(count_sets("remeasure"), ++remeasure_sets);
}

static void test_remeasure_misuse(void) {
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "replay %lld --target lab --db '%s'", (long long)session, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 2); /* --target without --remeasure */
    free(out); free(errs);
    snprintf(args, sizeof args, "replay %lld --remeasure --observer psychic --lab-prefix %s --db '%s'",
             (long long)session, prefix, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 2);
    CHECK_CONTAINS(errs, "unknown observer 'psychic'");
    free(out); free(errs);
}

int main(void) {
    if (geteuid() != 0) SKIP_ALL("needs root to build network namespaces");
    snprintf(prefix, sizeof prefix, "fvrm%d", (int)(getpid() % 100000));
    snprintf(prefix2, sizeof prefix2, "fvrn%d", (int)(getpid() % 100000));
    snprintf(prefix3, sizeof prefix3, "fvro%d", (int)(getpid() % 100000));
    snprintf(dbfile, sizeof dbfile, "%s/remeasure.db", check_tmpdir());
    atexit(lab_down);
    check_cleanup_on_signals(lab_down);
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(cfg.prefix, sizeof cfg.prefix, "%s", prefix);
    struct probe_lab lab;
    char err[512];
    if (probe_lab_up(&cfg, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "lab: %s\n", err);
        return 1;
    }
    if (record(&lab)) return 1;
    RUN(test_same_lab_reports_unchanged);
    RUN(test_remeasure_misuse);
    RUN(test_other_mtu_reports_the_change_and_why);
    RUN(test_lab_built_by_the_command_is_removed);
    RUN(test_other_target_is_named);
    lab_down();
    return check_summary_and_clean();
}
