/* fragvote serve: the product a speaker runs on stage. Joins the deck, the
 * namespace lab (or a real target), the store, the hub, the probe worker and
 * the console.
 *
 * Threads: the main thread runs the hub's lws loop; a console thread reads
 * keys / script lines and talks to the hub only through hub_post() and
 * hub_snapshot(); the probe worker runs probe_run() and posts results; a
 * signal thread turns SIGINT/SIGTERM/SIGHUP into hub_stop(). Every exit path
 * after the lab came up goes through the one cleanup at the end, which
 * removes the lab. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_purge.h"
#include "cli_summary.h"
#include "cli_engine.h"
#include "cli_scenario.h"
#include "cli_signals.h"
#include "console.h"
#include "deck.h"
#include "export.h"
#include "fv_file.h"
#include "hub.h"
#include "probe_json.h"
#include "room.h"
#include "engine_helper.h"
#include "serve_opts.h"
#include "worker.h"

#define SERVE_REMOTE_TARGET "remote"   /* the session's target with --prober remote (resume checks it) */


/* Everything one run holds; one instance, on main's stack. */
struct serve {
    struct serve_opts o;
    struct deck deck;
    struct cli_engine engine;      /* observer, target, lab, witness (cli/cli_engine.h) */
    struct cli_scenario scenario;  /* the lab switched between the deck's scenarios (on the worker thread) */
    struct db *db;
    struct room *room;
    struct hub *hub;
    struct worker *worker;
    struct privsep_client *helper; /* the privileged helper that measures, when serve started as root */
    FILE *script;                  /* --script, opened with the hub's files (open_files) until the console runs it */
    char *tls_cert, *tls_key;      /* --tls-cert, --tls-key: read with the hub's files */
    int web_dir;                   /* the pages' directory, opened with the hub's files until hub_new takes it */
    char web_path[4096];           /* ... and its path */
    size_t tls_cert_len, tls_key_len;
    struct console con;
    pthread_mutex_t lock;          /* guards hub (for the signal thread) */
    volatile int stop;             /* set by the signal thread or at the end */
    int exiting;
    int signal_no;
    int script_failed;
    struct cli_signals sigs;
    pthread_t con_thread;
    int con_started;
    char host[256], kernel[320], resume_target[256];
    char screen_url[600], presenter_url[600]; /* the console shows them beside the join URL */
};

/* ---- the deck ---- */

/* Whether session id (row) had its voters purged: then it cannot go on (its
 * room would start without them): says so, 1; else 0. */
static int resume_purged(long long id, const struct db_session_row *row) {
    if (row->purged_at <= 0) return 0;
    fprintf(stderr,
            "fragvote serve: session %lld had its voters purged (docs/PRIVACY.md), so it cannot go on; "
            "`fragvote replay %lld` and `fragvote export %lld` still show it\n",
            id, id, id);
    return 1;
}

/* --retain DAYS: the voters of older sessions purged before the room opens;
 * a session --resume continues must not be one of them. FV_EXIT_OK, or the
 * exit code after saying why. */
static int retain(struct serve *s) {
    int code = cli_purge_older("serve", s->db, s->o.retain, stdout);
    if (code != FV_EXIT_OK || !s->o.resume) return code;
    char err[512];
    struct db_session_row row;
    if (db_session_get(s->db, s->o.resume, &row, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_DB;
    }
    code = resume_purged(s->o.resume, &row) ? FV_EXIT_USAGE : FV_EXIT_OK;
    db_session_row_free(&row);
    return code;
}

/* The deck of this run: a resumed session's own (its deck, title and target;
 * hosted the same way, --prober) or --deck's or the built-in one; then
 * --title and --target. FV_EXIT_OK, or the exit code after saying why (the
 * store a resume opened is closed again). */
static int load_deck(struct serve *s) {
    char err[1024] = "";
    if (s->o.resume) {
        int orc = cli_store_open("serve", s->o.db, &s->db);
        if (orc) return orc;
        struct db_session_row row;
        if (db_session_get(s->db, s->o.resume, &row, err, sizeof err) < 0) {
            fprintf(stderr, "fragvote serve: cannot resume session %lld: %s\n", s->o.resume, err);
            db_close(s->db);
            return FV_EXIT_USAGE;
        }
        if (resume_purged(s->o.resume, &row)) {
            db_session_row_free(&row);
            db_close(s->db);
            return FV_EXIT_USAGE;
        }
        int dl = deck_load_string(row.deck_json, "stored deck", &s->deck, err, sizeof err);
        if (dl == 0 && (strcmp(row.target, SERVE_REMOTE_TARGET) == 0) != (s->o.prober_remote != 0)) {
            fprintf(stderr, "fragvote serve: session %lld %s; resume it %s --prober remote\n", s->o.resume,
                    s->o.prober_remote ? "measured on this host" : "was measured by a remote laptop",
                    s->o.prober_remote ? "without" : "with");
            db_session_row_free(&row);
            deck_free(&s->deck);
            db_close(s->db);
            return FV_EXIT_USAGE;
        }
        if (dl == 0) {
            snprintf(s->deck.title, sizeof s->deck.title, "%s", row.title);
            if (!s->o.prober_remote && !s->o.engine.target && row.target[0] && strcmp(row.target, "lab")) {
                snprintf(s->resume_target, sizeof s->resume_target, "%s", row.target);
                s->o.engine.target = s->resume_target;
            }
        }
        db_session_row_free(&row);
        if (dl < 0) {
            fprintf(stderr, "fragvote serve: session %lld: %s\n", s->o.resume, err);
            db_close(s->db);
            return FV_EXIT_DB;
        }
    } else if (deck_load_arg(s->o.deck, NULL, &s->deck, err, sizeof err)) { /* --target after --questions, below */
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_USAGE;
    }
    if (s->o.questions && deck_select(&s->deck, s->o.questions, err, sizeof err)) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        deck_free(&s->deck);
        return FV_EXIT_USAGE;
    }
    if (s->o.title) snprintf(s->deck.title, sizeof s->deck.title, "%s", s->o.title);
    if (s->o.engine.target) deck_set_target(&s->deck, s->o.engine.target);
    return FV_EXIT_OK;
}

/* ---- the local prober's results (on the worker thread) ---- */

static void deliver(void *ctx, uint64_t rid, const struct probe_result *r) {
    struct serve *s = ctx;
    struct hub_cmd *cmd = malloc(sizeof *cmd);
    if (!cmd) return;
    memset(cmd, 0, sizeof *cmd);
    cmd->kind = HUB_CMD_MEASURED;
    cmd->rid = rid;
    cmd->result = *r;
    for (int tries = 0; hub_post(s->hub, cmd) < 0 && tries < 100 && !s->stop; tries++) usleep(10000);
    free(cmd);
}

/* A test in the privileged helper (engine_helper.h), on the worker thread. */
static int run_in_helper(void *ctx, int test_index, const struct probe_spec *spec, struct probe_result *out, char *err,
                         size_t errlen) {
    struct serve *s = ctx;
    return privsep_client_run(s->helper, test_index, spec, out, err, errlen);
}

/* Before each test: the lab scenario it names (docs/DECKS.md). */
static int before_test(void *ctx, int test_index, char *err, size_t errlen) {
    struct serve *s = ctx;
    double ms;
    int rebuilt;
    if (cli_scenario_enter(&s->scenario, deck_test_lab(&s->deck, test_index), &ms, &rebuilt, err, errlen) < 0) return -1;
    return 0;
}

/* A line about the remote prober (hub_prober.c) for the console: on the
 * VM's journal or terminal, where nobody may be watching, so it is a plain
 * line with the time. */
static void on_note(void *ctx, const char *line) {
    (void)ctx;
    time_t now = time(NULL);
    struct tm tm;
    char when[16] = "";
    if (localtime_r(&now, &tm)) strftime(when, sizeof when, "%H:%M:%S", &tm);
    printf("%s %s\n", when, line);
    fflush(stdout);
}

/* The session's export for the laptop (protocol `export`), on the hub's thread. */
static int on_export(void *ctx, const char *format, char **out, char *err, size_t errlen) {
    struct serve *s = ctx;
    return export_session_text(s->db, room_session_id(s->room), format, out, err, errlen);
}

/* ---- console backend: the hub ---- */

static int be_post(void *ctx, enum hub_cmd_kind k, int seconds) {
    struct serve *s = ctx;
    struct hub_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = k;
    cmd.seconds = k == HUB_CMD_OPEN ? seconds : 0;
    return hub_post(s->hub, &cmd);
}

/* The console's status: the hub's snapshot, and the revealed question's
 * result as the room holds it (the same numbers the screen shows). */
static void be_status(void *ctx, struct console_status *out) {
    struct serve *s = ctx;
    memset(out, 0, sizeof *out);
    hub_snapshot(s->hub, &out->hub);
    out->measure_requests = out->hub.measure_asks;
    console_status_result(out);
}

static void *console_main(void *arg) {
    struct serve *s = arg;
    char err[512] = "";
    if (s->script) {
        FILE *f = s->script;
        s->script = NULL; /* console_run_open closes it */
        if (console_run_open(&s->con, f, s->o.script, err, sizeof err) < 0) {
            fprintf(stderr, "fragvote serve: %s\n", err);
            s->script_failed = 1;
            be_post(s, HUB_CMD_QUIT, 0);
        }
        return NULL;
    }
    if (console_run_interactive(&s->con, STDIN_FILENO, err, sizeof err) < 0)
        fprintf(stderr, "fragvote serve: console: %s\n", err);
    return NULL;
}

/* ---- signals (cli_signals: one thread sigwait()s, nothing runs in a handler) ---- */

static void on_signal(void *ctx, int sig) {
    struct serve *s = ctx;
    pthread_mutex_lock(&s->lock);
    if (!s->exiting) {
        s->stop = 1;
        s->signal_no = sig;
        if (s->hub) hub_stop(s->hub);
    }
    pthread_mutex_unlock(&s->lock);
}

/* ---- the hub's files ---- */

#define SERVE_TLS_FILE_MAX (1024 * 1024) /* a certificate chain or a key, as PEM */

/* Every file the hub process reads or writes after its start, opened now
 * (those already open stay): the store with every connection it will use,
 * each with the -wal and -shm (db_hold_files), the script, the TLS
 * certificate and key (read), the pages' directory (hub_web_dir_open: the
 * hub reads each page relative to it, so nobody serves a build tree in
 * root's 0700 home). Called before the drop when the hub becomes
 * nobody (a root shell: the files are root's, in root's directories; all
 * later I/O then goes through these descriptors), else after it, as the
 * user (docs/PRIVILEGES.md). FV_EXIT_OK or the exit code (said). */
static int open_files(struct serve *s) {
    char err[1024];
    int code = s->db ? FV_EXIT_OK : cli_store_open("serve", s->o.db, &s->db);
    if (code != FV_EXIT_OK) return code;
    if (db_hold_files(s->db, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_DB;
    }
    if (s->o.script && !s->script && !(s->script = console_script_open(s->o.script, err, sizeof err))) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_USAGE;
    }
    if (s->o.tls_cert && !s->tls_cert &&
        (!(s->tls_cert = fv_file_read(s->o.tls_cert, SERVE_TLS_FILE_MAX, &s->tls_cert_len, err, sizeof err)) ||
         !(s->tls_key = fv_file_read(s->o.tls_key, SERVE_TLS_FILE_MAX, &s->tls_key_len, err, sizeof err)))) {
        fprintf(stderr, "fragvote serve: --tls-cert/--tls-key %s\n", err);
        return FV_EXIT_USAGE;
    }
    if (s->web_dir <= 0) {
        int dir = hub_web_dir_open(NULL, s->web_path, sizeof s->web_path, err, sizeof err);
        if (dir < 0) {
            fprintf(stderr, "fragvote serve: %s\n", err);
            return FV_EXIT_FAIL;
        }
        s->web_dir = dir;
    }
    return FV_EXIT_OK;
}

/* What open_files read or opened and nobody took over, released. */
static void close_files(struct serve *s) {
    if (s->script) fclose(s->script);
    s->script = NULL;
    free(s->tls_cert);
    free(s->tls_key);
    s->tls_cert = s->tls_key = NULL;
    if (s->web_dir > 0) close(s->web_dir);
    s->web_dir = 0;
}

/* ---- the engine: this process's, the privileged helper's, or none ---- */

/* An exit before the signal thread starts: the deck, the hub's files and a
 * store a resume opened are released. Returns code. */
static int serve_abort(struct serve *s, int code) {
    deck_free(&s->deck);
    close_files(s);
    db_close(s->db);
    return code;
}

/* Before any thread starts (capabilities are per thread): the drop of a hub
 * that measures nothing (--prober remote), or the privileged helper forked
 * and this process's drop (engine_helper.h). FV_EXIT_OK or the exit code. */
static int drop_before_threads(struct serve *s, int scenarios) {
    const struct cli_engine_args *ea = &s->o.engine;
    if (s->o.prober_remote)
        return cli_engine_drop_all("serve", ea->keep_root, ea->user, "no capability (the laptop measures)");
    if (!engine_helper_wanted(ea->keep_root)) return FV_EXIT_OK;
    struct engine_helper_config hc = {.cmd = "serve",
        .engine = &s->engine, .deck = &s->deck, .witness = ea->witness ? ea->witness : s->deck.witness,
        .witness_key = ea->witness_key, .user = ea->user,
        .keep_pmtu_cache = ea->keep_pmtu_cache || s->deck.keep_pmtu_cache, .scenarios = scenarios,
        .note = on_note, .ctx = s};
    return engine_helper_start(&hc, &s->helper);
}

/* The engine up: the helper's "ready", or the lab, the witness and the drop
 * here (--keep-root, not root); *labjs the lab for the session's record.
 * FV_EXIT_OK or the exit code (said). */
static int engine_up(struct serve *s, int scenarios, char **labjs) {
    const struct cli_engine_args *ea = &s->o.engine;
    if (s->helper) return engine_helper_ready("serve", &s->helper, labjs);
    if (s->o.prober_remote) return FV_EXIT_OK;
    s->engine.lab_switches = scenarios > 0;
    int code = cli_engine_up("serve", &s->engine, ea->witness ? ea->witness : s->deck.witness, ea->witness_key,
                             ea->keep_root, ea->user);
    if (code == FV_EXIT_OK && s->engine.use_lab) *labjs = probe_lab_json(&s->engine.lab);
    return code;
}

/* The talk's length said, and the probe worker started (none with --prober
 * remote): it runs tests here or hands them to the helper. FV_EXIT_OK or
 * FV_EXIT_FAIL (said). */
static int worker_start(struct serve *s, int scenarios) {
    const struct cli_engine_args *ea = &s->o.engine;
    struct worker_config wc = {.deliver = deliver, .ctx = s};
    if (s->helper) wc.steps = (struct worker_steps){.run = run_in_helper, .ctx = s}; /* the helper has the options, the lab and the scenarios */
    else if (!s->o.prober_remote) cli_engine_opts(&s->engine, ea->keep_pmtu_cache || s->deck.keep_pmtu_cache, &wc.opts);
    printf("Talk: %d questions, about %d minutes at %d s each%s\n", deck_question_count(&s->deck),
           deck_talk_minutes(&s->deck), DECK_QUESTION_S, s->o.questions ? "" : " (--questions picks fewer)");
    if (scenarios) {
        if (!s->helper) {
            cli_scenario_init(&s->scenario, &s->engine.lab, &s->engine.witness);
            wc.steps = (struct worker_steps){.before = before_test, .ctx = s};
        }
        printf("Lab scenarios: %d of %d tests name one; the lab switches before each (docs/DECKS.md).\n", scenarios,
               s->deck.ntests);
    }
    if (s->o.prober_remote) {
        printf("Prober: remote. No probe runs here: the presenter's laptop connects with\n"
               "      fragvote present URL --secret SECRET and measures on its own network;\n"
               "      the room votes meanwhile, measurements wait for it.\n");
        return FV_EXIT_OK;
    }
    char err[512];
    if (!(s->worker = worker_new(&wc, err, sizeof err))) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_FAIL;
    }
    return FV_EXIT_OK;
}

/* Every exit after the signal thread started: the console and the worker
 * stopped, the helper told to quit (it takes the lab down), the summaries,
 * everything freed. Returns the exit code. */
static int serve_end(struct serve *s, int code, char *labjs) {
    char err[1024];
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    s->exiting = 1;
    pthread_mutex_unlock(&s->lock);
    if (s->con_started) {
        /* The console may sit in read(): it polls with a timeout and sees stop. */
        pthread_join(s->con_thread, NULL);
    }
    if (s->worker && s->room) {
        unsigned long runs = worker_runs(s->worker), measures, hits;
        room_measure_counts(s->room, &measures, &hits);
        printf("Probe worker: %lu probe runs, %lu measurements answered by a probe started while the room voted.\n",
               runs, hits);
    }
    worker_free(s->worker);
    privsep_client_free(s->helper); /* it puts the lab back, takes it down, says its scenarios' summary */
    char switched[160];
    cli_scenario_summary(&s->scenario, switched, sizeof switched);
    if (switched[0]) printf("Lab scenarios: %s.\n", switched);
    if (!s->engine.lab_built && cli_scenario_restore(&s->scenario, err, sizeof err) < 0)
        fprintf(stderr, "fragvote serve: could not put the lab back as it was: %s\n", err);
    if (s->room) {
        if (room_end(s->room, err, sizeof err) < 0) fprintf(stderr, "fragvote serve: %s\n", err);
        cli_summary_print(stdout, s->db, room_session_id(s->room), "serve");
    }
    if (s->hub) {
        struct hub_status st;
        hub_snapshot(s->hub, &st);
        if (st.acks)
            printf("Votes acked: %lu; from the hub reading a vote to writing its ack (its COMMIT included): "
                   "p50 %.1f ms, p99 %.1f ms, max %.1f ms.\n",
                   st.acks, st.ack_p50_ms, st.ack_p99_ms, st.ack_max_ms);
        hub_free(s->hub);
    }
    room_free(s->room);
    db_close(s->db);
    close_files(s);
    cli_engine_down("serve", &s->engine);
    free(labjs);
    cli_signals_stop(&s->sigs);
    pthread_mutex_destroy(&s->lock);
    if (s->signal_no) fprintf(stderr, "fragvote serve: stopped by signal %d\n", s->signal_no);
    if (code == FV_EXIT_OK && s->script_failed) code = FV_EXIT_FAIL;
    if (code == FV_EXIT_OK && s->con.refused_unexpected) {
        fprintf(stderr, "fragvote serve: %lu console actions were refused\n", s->con.refused_unexpected);
        if (s->o.script) code = FV_EXIT_FAIL;
    }
    deck_free(&s->deck);
    return code;
}

/* The session: a new room, or the one --resume names; the store then runs
 * on the hub's thread. FV_EXIT_OK, or FV_EXIT_DB after saying why. */
static int room_up(struct serve *s, const char *labjs) {
    char err[1024] = "";
    struct room_info info = {.title = s->deck.title, .host = s->host, .kernel = s->kernel,
                             .observer = s->engine.observer_name, .target = s->engine.target, .lab_json = labjs,
                             .code = s->o.room};
    s->room = s->o.resume ? room_resume(s->db, s->o.resume, &s->deck, err, sizeof err)
                          : room_create(s->db, &s->deck, &info, err, sizeof err);
    if (!s->room) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_DB;
    }
    /* From here on the store runs on the hub's thread: a foreign lock must
     * cost phones a refused vote, not a frozen room (docs/SECURITY.md). */
    db_set_busy_timeout(s->db, DB_BUSY_LIVE_MS);
    return FV_EXIT_OK;
}

#define SERVE_STOPPED (-1) /* hub_up: a signal came while the hub started */

/* The hub over the room, and the room's prober. FV_EXIT_OK, FV_EXIT_FAIL
 * after saying why, or SERVE_STOPPED. */
static int hub_up(struct serve *s) {
    char err[1024] = "";
    int remote = s->o.prober_remote;
    struct hub_config hc = {.bind_addr = s->o.listen.bind, .port = s->o.listen.port,
                            .public_url = s->o.listen.public_url, .web_root = s->web_path, .web_dir = s->web_dir,
                            .frame_ancestors = s->o.frame_ancestors, .secret = s->o.secret,
                            .live_split = s->o.live_split, .lang = s->o.lang, .leaderboard = s->o.leaderboard,
                            .http_rate = s->o.http_rate, .voter_rate = s->o.voter_rate,
                            .ws_per_addr = s->o.ws_per_addr, .trust_proxy = &s->o.trust_proxy,
                            .use_poll = s->o.listen.poll, .tls_cert = s->tls_cert, .tls_key = s->tls_key,
                            .tls_cert_len = s->tls_cert_len, .tls_key_len = s->tls_key_len,
                            .prober_remote = remote, .on_note = on_note, .export_session = on_export, .ctx = s};
    struct hub *h = hub_new(&hc, s->room, err, sizeof err);
    s->web_dir = 0; /* the hub's now, also when it failed */
    if (!h) {
        fprintf(stderr, "fragvote serve: %s\n", err);
        return FV_EXIT_FAIL;
    }
    if (hub_conn_cap(h) < HUB_CONN_MAX)
        printf("Open-files limit %ld: at most %d websockets at once (phones, screens, presenters); "
               "ulimit -n %ld allows all %d\n",
               hub_open_files(h), hub_conn_cap(h), HUB_CONN_MAX + hub_open_files(h) - hub_conn_cap(h), HUB_CONN_MAX);
    pthread_mutex_lock(&s->lock);
    s->hub = h;
    int stop_now = s->stop;
    room_set_prefetch(s->room, !s->o.no_prefetch);
    if (!remote) room_set_prober(s->room, &(struct prober){worker_prober_ask, s->worker}); /* remote: the hub's */
    pthread_mutex_unlock(&s->lock);
    return stop_now ? SERVE_STOPPED : FV_EXIT_OK;
}

/* The presenter's terminal, on its own thread (failing to start it leaves
 * the presenter page). */
static void console_up(struct serve *s, struct hub *h) {
    s->con = (struct console){
        .be = {be_post, be_status, s},
        .view = {room_title(s->room), hub_join_url(h), room_code(s->room), hub_secret(h), s->engine.target,
                 !s->o.no_qr,
                 console_page_url(hub_join_url(h), "screen/", s->screen_url, sizeof s->screen_url) ? NULL
                                                                                                : s->screen_url,
                 console_page_url(hub_join_url(h), "presenter/", s->presenter_url, sizeof s->presenter_url)
                     ? NULL
                     : s->presenter_url},
        .out = stdout,
        .timer_s = s->o.timer_s,
        .stop = (volatile int *)&s->stop,
    };
    if (pthread_create(&s->con_thread, NULL, console_main, s) == 0) s->con_started = 1;
    else fprintf(stderr, "fragvote serve: cannot start the console thread; use the presenter page\n");
}

int cmd_serve(int argc, char **argv) {
    static struct serve s; /* large (deck); one per process */
    memset(&s, 0, sizeof s);
    int rc = serve_opts_read(argc, argv, &s.o);
    if (rc >= 0) return rc;
    int code = load_deck(&s);
    if (code != FV_EXIT_OK) return code;
    const struct cli_engine_args *ea = &s.o.engine;
    int remote = s.o.prober_remote; /* the laptop measures: no engine here at all */
    int pick = remote ? FV_EXIT_OK
                      : cli_engine_pick("serve", ea->observer ? ea->observer : s.deck.observer, s.deck.target,
                                        &s.engine);
    if (remote) snprintf(s.engine.target, sizeof s.engine.target, "%s", SERVE_REMOTE_TARGET);
    if (pick != FV_EXIT_OK) return serve_abort(&s, pick);
    cli_host_facts(s.host, sizeof s.host, s.kernel, sizeof s.kernel);

    /* Before any thread starts (capabilities are per thread); a hub that
     * becomes nobody opens its files first. */
    char *labjs = NULL;
    int scenarios = remote || !s.engine.use_lab ? 0 : deck_scenarios(&s.deck);
    if (cli_engine_to_nobody(ea->keep_root, ea->user) && (code = open_files(&s)) != FV_EXIT_OK)
        return serve_abort(&s, code);
    if ((code = drop_before_threads(&s, scenarios)) != FV_EXIT_OK) return serve_abort(&s, code);

    /* Signals go to one thread from here on, so every path reaches cleanup. */
    pthread_mutex_init(&s.lock, NULL);
    if (cli_signals_start(&s.sigs, on_signal, &s) < 0) {
        fprintf(stderr, "fragvote serve: cannot start the signal thread\n");
        privsep_client_free(s.helper);
        return serve_abort(&s, FV_EXIT_FAIL);
    }

    code = engine_up(&s, scenarios, &labjs);
    if (code != FV_EXIT_OK) goto cleanup;
    if (s.stop) goto cleanup;

    if ((code = open_files(&s)) != FV_EXIT_OK) goto cleanup;
    if (s.o.retain >= 0 && (code = retain(&s)) != FV_EXIT_OK) goto cleanup;
    if ((code = room_up(&s, labjs)) != FV_EXIT_OK) goto cleanup;

    if ((code = worker_start(&s, scenarios)) != FV_EXIT_OK) goto cleanup;

    if ((code = hub_up(&s)) != FV_EXIT_OK) {
        if (code == SERVE_STOPPED) code = FV_EXIT_OK;
        goto cleanup;
    }

    console_up(&s, s.hub);

    if (hub_run(s.hub) < 0) {
        fprintf(stderr, "fragvote serve: the hub's service loop failed\n");
        code = FV_EXIT_FAIL;
    }

cleanup:
    return serve_end(&s, code, labjs);
}
