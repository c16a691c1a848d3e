/* fragvote replay: a recorded session's timeline in the terminal, or its
 * tests run again now (--remeasure). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_listen.h"
#include "export.h"
#include "replay.h"

#define REPLAY_TIMEOUT_MS_MAX PROBE_TIMEOUT_MS_MAX

static volatile sig_atomic_t replay_stop; /* SIGINT/SIGTERM during --remeasure */

static void on_signal(int sig) {
    (void)sig;
    replay_stop = 1;
}

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote replay ID [--db FILE]\n"
            "       fragvote replay ID --serve [--port N] [SERVE OPTIONS]\n"
            "       fragvote replay ID --remeasure [--target HOST|lab] [REMEASURE OPTIONS]\n"
            "\n"
            "Shows a recorded session question by question: the vote split, the\n"
            "measured truth with its evidence, right or wrong, and the timings.\n"
            "\n"
            "With --serve, the projector steps through the recorded session read-only:\n"
            "screen at /screen, controls at /presenter (the secret is printed) or as\n"
            "lines on stdin: next (n), back (b), quit (q). A private copy of the\n"
            "database is served and deleted afterwards: the file is never written.\n"
            "\n"
            "With --remeasure, runs the session's tests again now and prints, per\n"
            "question, whether the answer changed and why (different kernel, path MTU,\n"
            "cached PMTU, observer...). The results are stored as a new measurement set\n"
            "of the session; its scores keep using what was measured during the talk.\n"
            "\n"
            "Options:\n"
            "  --db FILE           the database (default ./%s); an older schema is migrated\n"
            "  --remeasure         run the tests again (needs root for the lab / raw observer)\n"
            "  --target HOST|lab   where to send them (default: where the session sent them)\n"
            "  --lab-prefix P      the lab's namespace prefix (default $%s or \"%s\"): a\n"
            "                      running lab is used as it is; otherwise one is built\n"
            "                      (with the session's MTUs) and removed afterwards\n"
            "  --lab-mtus A,B,C    build the lab with these link MTUs (the lab must not be up)\n"
            "  --observer MODE     auto, raw or recverr (default auto)\n"
            "  --keep-pmtu-cache   do not flush the PMTU cache before each test\n"
            "  --timeout MS        per test (default %d, at most %d)\n"
            "  --serve             projector read-only replay mode\n"
            "  --port N            with --serve: HTTP/websocket port (default %d; 0 = any free)\n"
            "  --bind ADDR         with --serve: listen on this address only\n"
            "  --public-url URL    with --serve: base URL to show (reverse proxy, DNS name)\n"
            "  --secret TEXT       with --serve: presenter secret (default: random)\n"
            "  --poll              with --serve: use lws's poll() loop instead of the libev\n"
            "                      (epoll) event loop, the default when its plugin is installed\n"
            "  --libev             with --serve: the default event loop (kept for old scripts)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Exit codes: 0 ok, 1 no such session or the remeasure failed, 2 usage error,\n"
            "3 missing privilege, 7 database missing, unreadable or newer.\n",
            EXPORT_DEFAULT_DB, PROBE_LAB_PREFIX_ENV, PROBE_LAB_PREFIX_DEFAULT, PROBE_TIMEOUT_MS_DEFAULT,
            REPLAY_TIMEOUT_MS_MAX, CLI_LISTEN_PORT_DEFAULT);
}

struct replay_args {
    const char *db, *id, *target, *lab_prefix, *lab_mtus, *observer;
    int remeasure, keep, timeout_ms;
    enum probe_observer_kind observer_kind; /* --observer MODE parsed (auto without it) */
    const char *secret;
    struct cli_listen listen; /* --bind, --port, --public-url, --poll, --libev */
    int serve;
};

/* The command line into *a: 0, 1 (--help), or -1 after saying why. */
static int parse_args(int argc, char **argv, struct replay_args *a) {
    memset(a, 0, sizeof *a);
    a->db = EXPORT_DEFAULT_DB;
    cli_listen_init(&a->listen);
    enum { O_DB = 256, O_TARGET, O_LAB_PREFIX, O_LAB_MTUS, O_OBSERVER, O_SECRET, O_TIMEOUT, O_REMEASURE, O_KEEP,
           O_SERVE };
    static const struct option opts[] = {
        {"db", required_argument, NULL, O_DB},           {"target", required_argument, NULL, O_TARGET},
        {"lab-prefix", required_argument, NULL, O_LAB_PREFIX}, {"lab-mtus", required_argument, NULL, O_LAB_MTUS},
        {"observer", required_argument, NULL, O_OBSERVER}, {"secret", required_argument, NULL, O_SECRET},
        {"timeout", required_argument, NULL, O_TIMEOUT}, {"remeasure", no_argument, NULL, O_REMEASURE},
        {"keep-pmtu-cache", no_argument, NULL, O_KEEP},  {"serve", no_argument, NULL, O_SERVE},
        CLI_LISTEN_ARGS_ADDR,                            CLI_LISTEN_ARGS_LOOP,
        {"help", no_argument, NULL, 'h'},                {NULL, 0, NULL, 0}};
    typedef struct replay_args A;
    static const struct cli_opt_store stored[] = {
        CLI_STORE_STR(O_DB, A, db),         CLI_STORE_STR(O_TARGET, A, target),
        CLI_STORE_STR(O_LAB_PREFIX, A, lab_prefix), CLI_STORE_STR(O_LAB_MTUS, A, lab_mtus),
        CLI_STORE_STR(O_OBSERVER, A, observer), CLI_STORE_STR(O_SECRET, A, secret),
        CLI_STORE_FLAG(O_REMEASURE, A, remeasure), CLI_STORE_FLAG(O_KEEP, A, keep),
        CLI_STORE_FLAG(O_SERVE, A, serve)};
    const struct cli_listen *l = &a->listen;
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (cli_opt_store(c, stored, sizeof stored / sizeof *stored, a)) continue;
        switch (c) {
        case O_TIMEOUT:
            if (cli_opt_int("replay", "timeout", optarg, 1, REPLAY_TIMEOUT_MS_MAX, "ms", &a->timeout_ms)) return -1;
            break;
        CLI_LISTEN_CASES:
            if (cli_listen_arg("replay", &a->listen, c, optarg, 0)) return -1;
            break;
        default: return cli_opt_other("replay", c, argv);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (a->id) return cli_opt_fail("replay", "more than one session id ('%s')", argv[i]);
        a->id = argv[i];
    }
    if (!a->remeasure && (a->target || a->lab_prefix || a->lab_mtus || a->observer || a->keep || a->timeout_ms))
        return cli_opt_fail("replay", "--target, --lab-*, --observer, --keep-pmtu-cache and --timeout go with --remeasure");
    if (!a->serve && (l->bind || l->public_url || a->secret || l->libev || l->poll || l->port != CLI_LISTEN_PORT_DEFAULT))
        return cli_opt_fail("replay", "--port, --bind, --public-url, --secret, --libev and --poll go with --serve");
    if (a->serve && a->remeasure) return cli_opt_fail("replay", "--serve or --remeasure, not both");
    if (a->lab_prefix && strlen(a->lab_prefix) > PROBE_LAB_PREFIX_MAX)
        return cli_opt_fail("replay", "--lab-prefix '%s' is too long", a->lab_prefix);
    if (a->observer && probe_observer_parse(a->observer, &a->observer_kind) < 0)
        return cli_opt_fail("replay", "unknown observer '%s' (auto, raw, recverr)", a->observer);
    return 0;
}

/* Runs the remeasure; returns the exit code. */
static int remeasure(struct db *db, struct db_report *r, struct db_report_session *s, const struct replay_args *a) {
    char err[512], host[256], kernel[320];
    struct replay_remeasure_opts o;
    memset(&o, 0, sizeof o);
    o.timeout_ms = a->timeout_ms;
    o.keep_pmtu_cache = a->keep;
    o.observer = a->observer_kind;
    cli_host_facts(host, sizeof host, kernel, sizeof kernel);
    o.host = host;
    o.kernel = kernel;
    const char *target = a->target ? a->target : *s->row.target ? s->row.target : "lab";
    int use_lab = !strcmp(target, "lab");
    if (!use_lab && a->lab_mtus)
        return cli_opts_end(cli_opt_fail("replay", "--lab-mtus needs the lab as target"), "replay", usage);
    o.target = target;
    if (!use_lab && a->target) o.host_override = a->target;

    struct probe_lab lab;
    int built = 0, rc = FV_EXIT_OK;
    if (use_lab) {
        struct probe_lab_config cfg;
        probe_lab_config_default(&cfg);
        if (a->lab_prefix) snprintf(cfg.prefix, sizeof cfg.prefix, "%s", a->lab_prefix);
        int up = probe_lab_status(cfg.prefix, &lab, err, sizeof err);
        if (up < 0) {
            fprintf(stderr, "fragvote replay: %s\n", err);
            return FV_EXIT_FAIL;
        }
        if (up == 1 && a->lab_mtus) {
            fprintf(stderr, "fragvote replay: lab \"%s\" is up already; --lab-mtus builds a new one: "
                    "give another --lab-prefix or take it down (fragvote lab down)\n", cfg.prefix);
            return FV_EXIT_USAGE;
        }
        if (up == 0) {
            /* Build one like the session's (or with the asked MTUs) and remove it afterwards. */
            const char *mtus = a->lab_mtus;
            char recorded[64];
            if (!mtus) {
                replay_lab_summary(s->row.lab_json, recorded, sizeof recorded);
                char *sp = strchr(recorded, ' ');
                if (sp) *sp = '\0';
                for (char *p = recorded; *p; p++)
                    if (*p == '/') *p = ',';
                if (*recorded) mtus = recorded;
            }
            if (mtus && probe_lab_parse_mtus(mtus, &cfg, err, sizeof err) < 0) {
                fprintf(stderr, "fragvote replay: %s\n", err);
                return FV_EXIT_USAGE;
            }
            int lr = probe_lab_up(&cfg, &lab, err, sizeof err);
            if (lr < 0) {
                fprintf(stderr, "fragvote replay: cannot build the namespace lab: %s\n", err);
                return cli_exit_probe(lr);
            }
            built = 1;
        }
        o.lab = &lab;
    }
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int64_t set = replay_remeasure(db, s, &o, &replay_stop, err, sizeof err);
    if (set < 0) {
        fprintf(stderr, "fragvote replay: remeasure: %s\n", err);
        rc = cli_exit_probe((int)set);
    }
    if (built && probe_lab_down(lab.cfg.prefix, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote replay: removing the lab: %s\n", err);
        if (!rc) rc = FV_EXIT_FAIL;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc) return rc;

    /* Read everything back from the store: what is printed is what was stored. */
    int64_t id = s->row.id;
    db_report_session_free(s);
    if (db_report_session_load(db, r, id, s, err, sizeof err)) {
        fprintf(stderr, "fragvote replay: %s\n", err);
        return FV_EXIT_DB;
    }
    int changed, unchanged;
    if (replay_print_remeasure(stdout, r, s, set, &changed, &unchanged, err, sizeof err)) {
        fprintf(stderr, "fragvote replay: %s\n", err);
        return FV_EXIT_DB;
    }
    return FV_EXIT_OK;
}

int cmd_replay(int argc, char **argv) {
    if (cli_help(argc, argv, usage)) return FV_EXIT_OK;
    struct replay_args a;
    int urc = cli_opts_end(parse_args(argc, argv, &a), "replay", usage);
    if (urc >= 0) return urc;
    int64_t id;
    if (!a.id || export_parse_id(a.id, &id)) {
        fprintf(stderr, "fragvote replay: give a session id (see `fragvote sessions`)%s%s%s\n",
                a.id ? ", not '" : "", a.id ? a.id : "", a.id ? "'" : "");
        return FV_EXIT_USAGE;
    }
    char err[512];
    struct db *db;
    struct db_report *r;
    int orc = cli_store_read("replay", a.db, &db, &r);
    if (orc) return orc;
    struct db_report_session s;
    int rc = FV_EXIT_OK;
    if (db_report_session_load(db, r, id, &s, err, sizeof err)) {
        fprintf(stderr, "fragvote replay: %s\n", err);
        rc = FV_EXIT_FAIL;
    } else {
        if (a.remeasure) {
            rc = remeasure(db, r, &s, &a);
        } else if (a.serve) {
            struct replay_serve_opts so = {.bind_addr = a.listen.bind, .port = a.listen.port,
                                           .public_url = a.listen.public_url, .secret = a.secret,
                                           .use_poll = a.listen.poll, .in_fd = 0, .out = stdout};
            if (replay_serve(db, r, id, &so, err, sizeof err)) {
                fprintf(stderr, "fragvote replay: %s\n", err);
                rc = FV_EXIT_FAIL;
            }
        } else {
            replay_print(stdout, &s);
        }
        db_report_session_free(&s);
    }
    db_report_close(r);
    db_close(db);
    return rc;
}
