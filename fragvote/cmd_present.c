/* fragvote present: the laptop's side of a hosted room. One outbound
 * websocket to `fragvote serve --prober remote` on another host, as the
 * presenter (the same console as serve: keys, script words, timer, the QR
 * code of the hub's join URL) and as the room's prober (every measurement
 * runs here, on the laptop's own network, with serve's probe engine, and
 * goes back over that connection). Nothing on the laptop listens.
 *
 * This file wires the parts: the options (laptop/present_opts.c), the
 * probe engine here (cli/'s, as serve's), the session with the hub
 * (laptop/present_session.c: the protocol, the console thread, the export
 * rendezvous of present_export.c) on the link (present_link.c), the remote
 * console (present_console.c) and the prober (present_prober.c); then the
 * loop, and the end.
 *
 * Threads: the main thread runs the link's lws loop (present_link.c) and
 * handles every frame (present_session.c); the console thread (started with
 * the hub's first state) talks to the hub only through the remote backend
 * (present_console.c); the probe worker (present_prober.c -> worker.c);
 * a signal thread. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_engine.h"
#include "cli_scenario.h"
#include "cli_signals.h"
#include "deck.h"
#include "engine_helper.h"
#include "fv_file.h"
#include "present_console.h"
#include "present_link.h"
#include "present_opts.h"
#include "present_prober.h"
#include "present_session.h"
#include "probe_json.h"

/* What the wiring holds: the options, the probe engine here, the session. */
struct present {
    struct present_opts o;
    struct deck deck;
    struct cli_engine engine;          /* observer, target, lab, witness: as serve's */
    struct cli_scenario scenario;      /* the lab switched between the deck's scenarios (worker thread) */
    struct privsep_client *helper;     /* the privileged helper that measures, when present started as root */
    struct cli_signals sigs;
    char host[256], kernel[256];
    char *lab_json;                    /* the lab's layout for the hub (probe_lab_json), NULL off the lab */
    char *ca;                          /* --ca, read (open_files) */
    size_t ca_len;
    struct present_session session;
};

/* ---- the files ---- */

#define PRESENT_CA_MAX (1024 * 1024)

/* Every file present uses after its start, opened or read now (those
 * already are stay): the script, the --ca certificate and, when early (the
 * drop goes to nobody: a root shell, whose directories are root's), each
 * --export file, written through its descriptor at the end; otherwise an
 * export is written as the user (fv_file) when it comes. FV_EXIT_OK or the
 * exit code (said). */
static int open_files(struct present *s, int early) {
    char err[1024];
    struct present_session *ses = &s->session;
    if (s->o.script && !ses->script && !(ses->script = console_script_open(s->o.script, err, sizeof err))) {
        fprintf(stderr, "fragvote present: %s\n", err);
        return FV_EXIT_USAGE;
    }
    if (s->o.ca && !s->ca && !(s->ca = fv_file_read(s->o.ca, PRESENT_CA_MAX, &s->ca_len, err, sizeof err))) {
        fprintf(stderr, "fragvote present: --ca %s\n", err);
        return FV_EXIT_USAGE;
    }
    for (int i = 0; early && i < s->o.nexports; i++)
        if (ses->export_fd[i] < 0 &&
            (ses->export_fd[i] = fv_file_open_early(s->o.export_file[i], err, sizeof err)) < 0) {
            fprintf(stderr, "fragvote present: --export %s\n", err);
            return FV_EXIT_USAGE;
        }
    return FV_EXIT_OK;
}

/* ---- the probe engine here ---- */

/* This laptop's facts, which the hub stores with the session and shows on
 * its console: name, kernel, and the lab's layout when it measures there. */
static void host_facts(struct present *s) {
    cli_host_facts(s->host, sizeof s->host, s->kernel, sizeof s->kernel);
    s->session.deck_json = s->deck.json;
    s->session.facts = (struct present_facts){.host = s->host, .kernel = s->kernel,
                                              .observer = s->engine.observer_name, .target = s->engine.target,
                                              .lab_json = s->lab_json};
}

/* Before each test (on the worker thread): the lab scenario it names. */
static int before_test(void *ctx, int test_index, char *err, size_t errlen) {
    struct present *s = ctx;
    double ms;
    int rebuilt;
    return cli_scenario_enter(&s->scenario, deck_test_lab(&s->deck, test_index), &ms, &rebuilt, err, errlen);
}

/* The prober's frames go out on the session's link (worker thread). */
static int prober_send(void *ctx, const char *text) {
    struct present *s = ctx;
    return present_session_send(&s->session, text);
}

/* A test in the privileged helper (engine_helper.h), on the worker thread. */
static int run_in_helper(void *ctx, int test_index, const struct probe_spec *spec, struct probe_result *out, char *err,
                         size_t errlen) {
    struct present *s = ctx;
    return privsep_client_run(s->helper, test_index, spec, out, err, errlen);
}

/* A line about the privileged helper (privsep_client.h), from any thread. */
static void on_note(void *ctx, const char *line) {
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* The deck (with --target), the observer and the target. FV_EXIT_OK or an exit code (said). */
static int engine_pick(struct present *s) {
    char err[1024];
    const struct cli_engine_args *a = &s->o.engine;
    if (deck_load_arg(s->o.deck, a->target, &s->deck, err, sizeof err)) {
        fprintf(stderr, "fragvote present: %s\n", err);
        return FV_EXIT_USAGE;
    }
    return cli_engine_pick("present", a->observer ? a->observer : s->deck.observer, s->deck.target, &s->engine);
}

/* Before any thread starts (capabilities are per thread): started as root
 * (not --keep-root), the privileged helper forked and this process's drop
 * (engine_helper.h), so the process that reads the hub's frames keeps no
 * capability. FV_EXIT_OK or the exit code (said). */
static int helper_start(struct present *s) {
    const struct cli_engine_args *a = &s->o.engine;
    if (!engine_helper_wanted(a->keep_root)) return FV_EXIT_OK;
    struct engine_helper_config hc = {
        .cmd = "present", .engine = &s->engine, .deck = &s->deck, .witness = a->witness ? a->witness : s->deck.witness,
        .witness_key = a->witness_key, .user = a->user, .keep_pmtu_cache = a->keep_pmtu_cache || s->deck.keep_pmtu_cache,
        .scenarios = s->engine.use_lab ? deck_scenarios(&s->deck) : 0, .note = on_note, .ctx = s};
    return engine_helper_start(&hc, &s->helper);
}

/* The engine up: the helper's "ready", or the lab, the witness and the drop
 * here (--keep-root, not root); the lab's layout for the hub. FV_EXIT_OK or
 * an exit code (said). */
static int engine_up(struct present *s) {
    if (s->helper) return engine_helper_ready("present", &s->helper, &s->lab_json);
    const struct cli_engine_args *a = &s->o.engine;
    s->engine.lab_switches = s->engine.use_lab && deck_scenarios(&s->deck) > 0;
    int code = cli_engine_up("present", &s->engine, a->witness ? a->witness : s->deck.witness, a->witness_key,
                             a->keep_root, a->user);
    if (code == FV_EXIT_OK && s->engine.use_lab) s->lab_json = probe_lab_json(&s->engine.lab);
    return code;
}

/* The probe worker's options: through the helper, or here (with the lab's scenarios). */
static void prober_engine(struct present *s, struct present_prober_config *pc) {
    if (s->helper) {
        pc->steps = (struct worker_steps){.run = run_in_helper, .ctx = s}; /* the helper has the options, the lab and the scenarios */
        return;
    }
    cli_engine_opts(&s->engine, s->o.engine.keep_pmtu_cache || s->deck.keep_pmtu_cache, &pc->opts);
    if (s->engine.lab_switches) {
        cli_scenario_init(&s->scenario, &s->engine.lab, &s->engine.witness);
        pc->steps = (struct worker_steps){.before = before_test, .ctx = s};
    }
}

/* ---- the end ---- */

/* Per revealed question, from the hub's newest state (the database is the hub's). */
static void print_summary(const char *last_state) {
    json_t *o = last_state ? json_loads(last_state, 0, NULL) : NULL;
    json_t *qs = json_object_get(o, "questions");
    if (!json_is_array(qs)) {
        json_decref(o);
        return;
    }
    printf("\nRoom %s: %s\n", json_string_value(json_object_get(o, "room")) ? json_string_value(json_object_get(o, "room")) : "",
           json_string_value(json_object_get(o, "title")) ? json_string_value(json_object_get(o, "title")) : "");
    size_t i;
    json_t *q;
    json_array_foreach(qs, i, q) {
        const char *st = json_string_value(json_object_get(q, "state"));
        if (!st || strcmp(st, "revealed")) continue;
        json_t *cr = json_object_get(q, "correct");
        double c = json_is_number(cr) ? json_number_value(cr) : -1;
        const char *truth = json_string_value(json_object_get(q, "truth"));
        printf("  Q%-3d %-10s truth %-7s %s  (%lld yes, %lld no)\n", (int)json_integer_value(json_object_get(q, "pos")) + 1,
               json_string_value(json_object_get(q, "kind")) ? json_string_value(json_object_get(q, "kind")) : "?",
               truth ? truth : "-", c < 0 ? "unscored" : c == 1 ? "right" : c == 0 ? "wrong" : "tie",
               (long long)json_integer_value(json_object_get(q, "yes")),
               (long long)json_integer_value(json_object_get(q, "no")));
    }
    json_t *coll = json_object_get(o, "collective");
    if (json_is_number(coll) && json_number_value(coll) >= 0)
        printf("This room scored %.0f%% so far (the hub's database has every vote).\n", json_number_value(coll) * 100);
    json_decref(o);
}

int cmd_present(int argc, char **argv) {
    static struct present s; /* large (deck); one per process */
    memset(&s, 0, sizeof s);
    struct present_session *ses = &s.session;
    int rc = present_opts_read(argc, argv, &s.o);
    if (rc >= 0) return rc;
    char err[1024] = "";
    struct present_link_config lc = {.ca_file = s.o.ca};
    if (present_url_parse(s.o.url, &lc.url, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote present: %s\n", err);
        return FV_EXIT_USAGE;
    }
    if (present_session_init(ses, &s.o, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote present: %s\n", err);
        return FV_EXIT_FAIL;
    }
    /* Its files now, unless the drop goes to a user (then after it, as them): before a drop to nobody. */
    const struct cli_engine_args *ea = &s.o.engine;
    int nobody = cli_engine_to_nobody(ea->keep_root, ea->user);
    if ((nobody || geteuid() != 0 || ea->keep_root) && (rc = open_files(&s, nobody)) != FV_EXIT_OK) {
        present_session_destroy(ses);
        return rc;
    }
    if ((rc = engine_pick(&s)) != FV_EXIT_OK || (rc = helper_start(&s)) != FV_EXIT_OK) {
        present_session_destroy(ses);
        deck_free(&s.deck);
        free(s.ca);
        return rc;
    }
    if (cli_signals_start(&s.sigs, present_session_signal, ses) < 0) {
        fprintf(stderr, "fragvote present: cannot start the signal thread\n");
        privsep_client_free(s.helper);
        return FV_EXIT_FAIL;
    }

    int code = engine_up(&s);
    if (code == FV_EXIT_OK) code = open_files(&s, 0);
    if (code != FV_EXIT_OK || ses->stop) goto cleanup;
    lc.ca_pem = s.ca;
    lc.ca_len = s.ca_len;
    struct present_prober_config pc = {.deck = &s.deck, .send = prober_send, .ctx = &s};
    prober_engine(&s, &pc);
    host_facts(&s);
    present_session_link(ses, &lc);
    ses->link = present_link_new(&lc, err, sizeof err);
    ses->remote = present_console_new(present_session_send, ses);
    if (ses->link && ses->remote) ses->prober = present_prober_new(&pc, err, sizeof err);
    if (!ses->link || !ses->remote || !ses->prober) {
        fprintf(stderr, "fragvote present: %s\n", err[0] ? err : "out of memory");
        code = FV_EXIT_FAIL;
        goto cleanup;
    }
    printf("Connecting to %s (observer %s, target %s) ...\n", s.o.url, s.engine.observer_name, s.engine.target);
    fflush(stdout);
    if (!ses->stop && present_link_run(ses->link) < 0) {
        fprintf(stderr, "fragvote present: the websocket loop failed\n");
        code = FV_EXIT_FAIL;
    }

cleanup:
    present_session_stop(ses);
    if (ses->prober) {
        struct present_prober_counts n;
        present_prober_counts(ses->prober, &n);
        printf("Prober: %lu measurements asked, %lu probe runs, %lu results sent (%lu again after a reconnect), "
               "%lu stored by the hub",
               n.asked, n.runs, n.results_sent, n.resent, n.acked);
        if (n.kept) printf("; %d measured but not delivered (the hub asks again when present reconnects)", n.kept);
        printf(".\n");
    }
    present_prober_free(ses->prober);
    privsep_client_free(s.helper); /* it puts the lab back, takes it down, says its scenarios' summary */
    char switched[160];
    cli_scenario_summary(&s.scenario, switched, sizeof switched);
    if (switched[0]) printf("Lab scenarios: %s.\n", switched);
    if (!s.engine.lab_built && cli_scenario_restore(&s.scenario, err, sizeof err) < 0)
        fprintf(stderr, "fragvote present: could not put the lab back as it was: %s\n", err);
    present_link_free(ses->link);
    present_console_free(ses->remote);
    print_summary(ses->last_state);
    cli_engine_down("present", &s.engine);
    free(s.lab_json);
    free(s.ca);
    cli_signals_stop(&s.sigs);
    present_session_destroy(ses);
    if (ses->signal_no) fprintf(stderr, "fragvote present: stopped by signal %d\n", ses->signal_no);
    if (ses->fatal) {
        fprintf(stderr, "fragvote present: %s\n", ses->fatal_msg);
        if (code == FV_EXIT_OK) code = FV_EXIT_FAIL;
    }
    if (code == FV_EXIT_OK && (ses->script_failed || ses->export_failed)) code = FV_EXIT_FAIL;
    if (code == FV_EXIT_OK && ses->con.refused_unexpected) {
        fprintf(stderr, "fragvote present: %lu console actions were refused\n", ses->con.refused_unexpected);
        if (s.o.script) code = FV_EXIT_FAIL;
    }
    deck_free(&s.deck);
    return code;
}
