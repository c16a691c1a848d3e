/* fragvote present: the laptop's side of a hosted room. One outbound
 * websocket to `fragvote serve --prober remote` on another host, as the
 * presenter (the same console as serve: keys, script words, timer, the QR
 * code of the hub's join URL) and as the room's prober (every measurement
 * runs here, on the laptop's own network, with serve's probe engine, and
 * goes back over that connection). Nothing on the laptop listens.
 *
 * Threads: the main thread runs the link's lws loop (present_link.c) and
 * handles every frame; the console thread (started with the hub's first
 * state) talks to the hub only through the remote backend
 * (present_console.c); the probe worker (present_prober.c -> worker.c);
 * a signal thread. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_engine.h"
#include "cli_engine_args.h"
#include "cli_scenario.h"
#include "cli_secret.h"
#include "cli_signals.h"
#include "console.h"
#include "deck.h"
#include "fv_file.h"
#include "present_console.h"
#include "present_frame.h"
#include "present_link.h"
#include "present_prober.h"
#include "replay.h"

#define PRESENT_EXPORTS_MAX 4      /* --export files per run */
#define PRESENT_EXPORT_MS 15000    /* the hub's answer to an export, at most this long */

struct present_opts {
    const char *url, *secret, *deck, *script, *ca;
    struct cli_secret secret_src;      /* --secret-file, --secret, $FRAGVOTE_SECRET; secret may point into it */
    struct cli_engine_args engine;     /* --target ... --keep-root: as serve's */
    int no_qr, take_over;
    int timer_s;
    const char *export_file[PRESENT_EXPORTS_MAX], *export_format[PRESENT_EXPORTS_MAX];
    int nexports;
};

struct present {
    struct present_opts o;
    struct present_url url;
    struct deck deck;
    struct cli_engine engine;          /* observer, target, lab, witness: as serve's */
    struct cli_scenario scenario;      /* the lab switched between the deck's scenarios (worker thread) */
    struct cli_signals sigs;
    char host[256], kernel[256], instance[33];
    char *lab_json;                    /* the lab's layout for the hub (replay_lab_json), NULL off the lab */
    struct present_link *link;
    struct present_console *remote;
    struct present_prober *prober;
    struct console con;
    char title[512], room[16], join_url[PRESENT_URL_MAX], screen_url[600], presenter_url[600];
    /* the loop's own */
    int authed, con_started, downs;
    int was_prober;                    /* the hub said prober_ok to this process at least once */
    int displaced;                     /* another connection took the prober role over: present only */
    int took_over;                     /* this connection sent take_over after prober_busy */
    /* an export waiting for the hub's answer (the console thread waits on export_cv) */
    pthread_cond_t export_cv;
    int export_waiting, export_ok;
    const char *export_to;
    char export_msg[300];
    char *last_state;                  /* the newest full state (the summary at the end) */
    pthread_t con_thread;
    pthread_mutex_t lock;
    volatile int stop;
    int signal_no, script_failed, export_failed, fatal;
    char fatal_msg[400];
};

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote present URL [--secret-file FILE] [OPTIONS]\n"
            "\n"
            "Presents a room hosted elsewhere (`fragvote serve --prober remote` on a VM,\n"
            "usually behind nginx): one outbound websocket to URL (ws://, wss://, or the\n"
            "hub's http(s) join URL) as the presenter and as the room's prober. The\n"
            "console is serve's; every measurement runs here, on this laptop's network,\n"
            "and its result goes back over the connection. Nothing here listens. When\n"
            "the connection drops, present reconnects (backoff 0.25 s doubling to 8 s)\n"
            "and delivers what was measured meanwhile.\n"
            "\n"
            "Options:\n"
            "  --secret-file FILE   read the hub's presenter secret from FILE (one line)\n"
            "  --secret SECRET      the secret on the command line, where every local user\n"
            "                       sees it in ps (and sudo logs it): prefer --secret-file\n"
            "                       or $" CLI_SECRET_ENV ", which is read when neither is given\n"
            "  --deck FILE          deck to play (default: the built-in fragquiz deck); sent\n"
            "                       to the hub, which checks it and records it\n"
            "  --target HOST        probe this host instead of the deck's target; \"lab\" (the\n"
            "                       default) builds the namespace lab here and removes it on exit\n"
            "  --observer MODE      auto, raw or recverr (default: the deck's, else auto)\n"
            "  --witness W          far-end witness: HOST:PORT, \"lab\" or \"none\" (as serve)\n"
            "  --witness-key HEX    its key (32 hex digits; also $" WITNESS_CLI_KEY_ENV ")\n"
            "  --no-witness         the near end only\n"
            "  --keep-pmtu-cache    do not flush the PMTU cache before each test\n"
            "  --ca FILE            wss: trust this PEM certificate or CA for the hub (a\n"
            "                       self-signed hub); the host name is still checked\n"
            "  --take-over          become the room's prober even if another laptop is\n"
            "                       (the hub tells both consoles)\n"
            "  --script FILE        read console commands from FILE (rehearsal, tests)\n"
            "  --export FILE        once the talk has ended, download the session's export\n"
            "                       from the hub into FILE (.json, .csv, .md or .svg, as\n"
            "                       fragvote export writes it; repeatable, at most %d)\n"
            "  --timer SECONDS      voting timer of the console's t key (1..%d, default %d)\n"
            "  --no-qr              do not draw the QR code in the terminal\n"
            "  --keep-root          started as root: do not drop root (as serve: by default\n"
            "                       present drops to the user of SUDO_UID, DOAS_USER or\n"
            "                       PKEXEC_UID once the lab is up)\n"
            "  --user NAME          started as root: drop to NAME (a root shell, su)\n"
            "  -h, --help           show this help\n"
            "\n"
            "Console keys as serve's (o t c v m r n e s b p ?); q quits this laptop's\n"
            "console only: the hosted room goes on, and present can connect again.\n"
            "\n"
            "Exit codes: 0 ok, 1 failed (a refused secret or prober, a failed script),\n"
            "2 usage, 3 missing privilege, 4 unknown target host, 5 no IPv6.\n",
            PRESENT_EXPORTS_MAX, HUB_COUNTDOWN_MAX_S, CONSOLE_TIMER_S_DEFAULT);
}

static int parse_opts(int argc, char **argv, struct present_opts *o) {
    enum { O_SECRET = 256, O_SECRETFILE, O_DECK, O_CA, O_TAKEOVER, O_SCRIPT, O_TIMER, O_NOQR, O_EXPORT };
    static const struct option longopts[] = {
        {"secret", required_argument, NULL, O_SECRET},     {"deck", required_argument, NULL, O_DECK},
        {"secret-file", required_argument, NULL, O_SECRETFILE},
        CLI_ENGINE_ARGS_TARGET, CLI_ENGINE_ARGS_WITNESS, CLI_ENGINE_ARGS_ROOT,
        {"ca", required_argument, NULL, O_CA},             {"take-over", no_argument, NULL, O_TAKEOVER},
        {"script", required_argument, NULL, O_SCRIPT},     {"timer", required_argument, NULL, O_TIMER},
        {"no-qr", no_argument, NULL, O_NOQR},              {"export", required_argument, NULL, O_EXPORT},
        {"help", no_argument, NULL, 'h'},                  {NULL, 0, NULL, 0}};
    *o = (struct present_opts){.timer_s = CONSOLE_TIMER_S_DEFAULT};
    cli_opt_begin();
    for (int c; (c = cli_engine_args_next(&o->engine, argc, argv, longopts)) != -1;) {
        switch (c) {
        case O_TIMER: {
            long num;
            if (cli_opt_range("present", "timer", optarg, 1, HUB_COUNTDOWN_MAX_S, "seconds", &num)) return -1;
            o->timer_s = (int)num;
            break;
        }
        case O_SECRET: o->secret_src.arg = optarg; break;
        case O_SECRETFILE: o->secret_src.file = optarg; break;
        case O_DECK: o->deck = optarg; break;
        case O_CA: o->ca = optarg; break;
        case O_TAKEOVER: o->take_over = 1; break;
        case O_SCRIPT: o->script = optarg; break;
        case O_NOQR: o->no_qr = 1; break;
        case O_EXPORT: {
            const char *dot = strrchr(optarg, '.');
            const char *fmt = !dot ? NULL : !strcmp(dot, ".json") ? "json" : !strcmp(dot, ".csv") ? "csv"
                                          : !strcmp(dot, ".md") ? "markdown" : !strcmp(dot, ".svg") ? "svg" : NULL;
            if (!fmt) {
                fprintf(stderr, "fragvote present: --export FILE must end in .json, .csv, .md or .svg, not '%s'\n",
                        optarg);
                return -1;
            }
            if (o->nexports == PRESENT_EXPORTS_MAX) {
                fprintf(stderr, "fragvote present: at most %d --export files\n", PRESENT_EXPORTS_MAX);
                return -1;
            }
            o->export_file[o->nexports] = optarg;
            o->export_format[o->nexports++] = fmt;
            break;
        }
        default: return cli_opt_other("present", c, argv);
        }
    }
    if (optind < argc) o->url = argv[optind++];
    if (cli_opt_no_args("present", argc, argv)) return -1;
    if (!o->url) {
        fprintf(stderr, "fragvote present: the hub's URL is missing (e.g. wss://vote.example.org/)\n");
        return -1;
    }
    if (cli_secret_resolve("present", &o->secret_src, &o->secret)) return -1;
    if (!o->secret) {
        fprintf(stderr, "fragvote present: --secret-file (or $" CLI_SECRET_ENV ", or --secret) is needed: the hub's "
                        "presenter secret\n");
        return -1;
    }
    return cli_engine_args_check("present", &o->engine);
}

/* ---- the link's side: frames in, frames out (on the loop's thread) ---- */

static int link_send(void *ctx, const char *text) {
    struct present *s = ctx;
    return present_link_send(s->link, text);
}

static void fatal(struct present *s, const char *fmt, const char *a, const char *b) {
    pthread_mutex_lock(&s->lock);
    if (!s->fatal) {
        s->fatal = 1;
        /* A cut message is fine; using the count keeps -Wformat-truncation
         * quiet whatever GCC decides to inline here. */
        if (snprintf(s->fatal_msg, sizeof s->fatal_msg, fmt, a, b) < 0) s->fatal_msg[0] = '\0';
    }
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    present_link_stop(s->link);
}

static void on_up(void *ctx) {
    struct present *s = ctx;
    s->authed = 0;
    s->took_over = 0;
    char *auth = present_frame_auth(s->o.secret);
    if (!auth || present_link_send(s->link, auth) < 0) present_link_drop(s->link, "could not send auth");
    free(auth);
}

static void on_down(void *ctx, const char *why, int next_ms) {
    struct present *s = ctx;
    s->authed = 0;
    s->downs++;
    present_prober_lost(s->prober);
    present_console_link(s->remote, 0, why, next_ms);
    /* On a terminal the console's screen says it; a log (or no console yet) gets a line. */
    if (!s->con_started || !isatty(STDOUT_FILENO)) {
        printf("Hub: hub unreachable (%s): trying again in %.1f s\n", why, next_ms / 1000.0);
        fflush(stdout);
    }
}

static void *console_main(void *arg);

static void start_console(struct present *s) {
    present_console_facts(s->remote, s->room, sizeof s->room, s->title, sizeof s->title, s->join_url,
                         sizeof s->join_url);
    s->con = (struct console){
        .be = present_console_backend(s->remote),
        .view = {s->title, s->join_url, s->room, s->o.secret, s->engine.target, !s->o.no_qr,
                 console_page_url(s->join_url, "screen/", s->screen_url, sizeof s->screen_url) ? NULL : s->screen_url,
                 console_page_url(s->join_url, "presenter/", s->presenter_url, sizeof s->presenter_url)
                     ? NULL
                     : s->presenter_url},
        .out = stdout,
        .timer_s = s->o.timer_s,
        .stop = (volatile int *)&s->stop,
    };
    if (pthread_create(&s->con_thread, NULL, console_main, s) == 0) s->con_started = 1;
    else fatal(s, "cannot start the console thread%s%s", "", "");
}

static int fatal_code(const char *code) {
    static const char *const codes[] = {"bad_secret", "prober_busy", "bad_deck", "deck_mismatch", "not_remote",
                                        "forbidden"};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(code, codes[i])) return 1;
    return 0;
}

static void send_prober(struct present *s, int take_over) {
    struct present_facts f = {.host = s->host, .kernel = s->kernel, .observer = s->engine.observer_name,
                              .target = s->engine.target, .lab_json = s->lab_json};
    char *hello = present_frame_prober(s->deck.json, &f, take_over, s->instance);
    if (hello && strlen(hello) > HUB_PROBER_MSG_MAX) {
        char n[32], max[32];
        snprintf(n, sizeof n, "%zu", strlen(hello));
        snprintf(max, sizeof max, "%d", HUB_PROBER_MSG_MAX);
        fatal(s, "the deck is too large for the hub: its prober hello is %s bytes, the hub takes %s at most", n, max);
    } else if (!hello || present_link_send(s->link, hello) < 0) {
        present_link_drop(s->link, "could not send the prober hello");
    }
    free(hello);
}

/* The end of an export the console thread waits for (loop thread). */
static void export_answer(struct present *s, int ok, const char *msg) {
    pthread_mutex_lock(&s->lock);
    if (s->export_waiting) {
        s->export_waiting = 0;
        s->export_ok = ok;
        snprintf(s->export_msg, sizeof s->export_msg, "%s", msg);
        pthread_cond_broadcast(&s->export_cv);
    }
    pthread_mutex_unlock(&s->lock);
}

static void on_export(struct present *s, const char *text, size_t len) {
    char err[200], msg[300];
    size_t n = 0;
    char *data = present_frame_export_data(text, len, &n, err, sizeof err);
    pthread_mutex_lock(&s->lock);
    const char *to = s->export_waiting ? s->export_to : NULL;
    pthread_mutex_unlock(&s->lock);
    if (!to) {
        free(data);
        return;
    }
    char tmp[PATH_MAX + 16];
    FILE *f = data ? fv_file_begin(to, tmp, sizeof tmp, err, sizeof err) : NULL; /* 0600, written whole */
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && !ok) {
        snprintf(err, sizeof err, "writing %s failed: %s", to, strerror(errno));
        fv_file_abort(f, tmp);
    } else if (f && fv_file_commit(f, tmp, to, err, sizeof err)) {
        ok = 0;
    }
    if (ok) snprintf(msg, sizeof msg, "%s: %zu bytes", to, n);
    else if (!data) snprintf(msg, sizeof msg, "%s: %s", to, err);
    else snprintf(msg, sizeof msg, "%s", err);
    free(data);
    export_answer(s, ok, msg);
}

static void on_error(struct present *s, const struct present_frame *f) {
    if (f->rid >= 0) { /* the hub did not take a result: nothing to send again */
        fprintf(stderr, "fragvote present: the hub refused the result of measurement %lld: %s\n", f->rid,
                f->message[0] ? f->message : f->code);
        present_prober_done(s->prober, f->rid);
        return;
    }
    if (!s->authed && !strcmp(f->code, "throttled")) {
        present_link_drop(s->link, "the hub throttled the secret; waiting");
        return;
    }
    pthread_mutex_lock(&s->lock);
    int exporting = s->export_waiting;
    pthread_mutex_unlock(&s->lock);
    if (exporting) { /* the console is done: this answers the export */
        export_answer(s, 0, f->message[0] ? f->message : f->code);
        return;
    }
    if (!strcmp(f->code, "prober_busy") && s->was_prober && !s->displaced && !s->took_over) {
        /* After a cut link the hub may still hold this laptop's old connection as the prober. */
        fprintf(stderr, "fragvote present: the hub still holds this laptop's previous connection as the prober; "
                        "taking the role over from it\n");
        s->took_over = 1;
        send_prober(s, 1);
        return;
    }
    if (fatal_code(f->code)) {
        fatal(s, "the hub refused: %s (%s)", f->message[0] ? f->message : f->code, f->code);
        return;
    }
    present_console_answer(s->remote, f); /* a refused command: the console shows why */
}

static void on_frame(void *ctx, const char *text, size_t len) {
    struct present *s = ctx;
    struct present_frame f;
    char err[300];
    if (present_frame_parse(text, len, &f, err, sizeof err) < 0) {
        char why[360];
        snprintf(why, sizeof why, "the hub sent a malformed frame: %s", err);
        present_link_drop(s->link, why);
        return;
    }
    switch (f.type) {
    case PF_AUTH_OK: {
        s->authed = 1;
        if (!s->displaced) send_prober(s, s->o.take_over);
        present_console_link(s->remote, 1, "", 0);
        if (s->displaced) present_console_note(s->remote, "another laptop measures for the room now; this one only presents");
        if (s->downs && (!s->con_started || !isatty(STDOUT_FILENO))) {
            printf("Hub: connected to the hub again\n");
            fflush(stdout);
        }
        break;
    }
    case PF_STATE:
        if (!s->authed) break; /* the public view before auth_ok: the full one follows */
        if (present_console_state(s->remote, text, len, err, sizeof err) < 0) {
            present_link_drop(s->link, err);
            break;
        }
        free(s->last_state);
        s->last_state = strndup(text, len);
        if (!s->con_started) start_console(s);
        break;
    case PF_TALLY:
        if (s->authed && present_console_tally(s->remote, text, len, err, sizeof err) < 0) present_link_drop(s->link, err);
        break;
    case PF_CMD_OK: present_console_answer(s->remote, &f); break;
    case PF_ERROR: on_error(s, &f); break;
    case PF_PROBER_OK:
        if (!s->was_prober || s->downs)
            fprintf(stderr, "fragvote present: measuring for session %lld, room %s (deck %s; %d measurement%s waiting)\n",
                    f.session, f.room, f.deck[0] ? f.deck : "?", f.pending, f.pending == 1 ? "" : "s");
        s->was_prober = 1;
        present_prober_ready(s->prober, f.epoch);
        break;
    case PF_PROBER_GONE:
        s->displaced = 1;
        present_prober_lost(s->prober);
        fprintf(stderr, "fragvote present: another connection measures for the room now (%s); this console "
                        "still presents\n", f.message[0] ? f.message : f.reason);
        present_console_note(s->remote, "another laptop measures for the room now; this one only presents");
        break;
    case PF_EXPORT_OK: on_export(s, text, len); break;
    case PF_MEASURE:
        if (present_prober_measure(s->prober, &f, err, sizeof err) < 0)
            fprintf(stderr, "fragvote present: %s (answered unknown)\n", err);
        break;
    case PF_RESULT_OK: present_prober_done(s->prober, f.rid); break;
    default: break;
    }
}

/* ---- the console thread ---- */

/* Asks the hub for one export and waits for it to be written (console thread). */
static int export_one(struct present *s, const char *file, const char *format) {
    char *req = present_frame_export(format);
    pthread_mutex_lock(&s->lock);
    s->export_waiting = 1;
    s->export_to = file;
    s->export_msg[0] = 0;
    pthread_mutex_unlock(&s->lock);
    if (!req || present_link_send(s->link, req) < 0) {
        free(req);
        export_answer(s, 0, "the hub is unreachable");
    } else {
        free(req);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += PRESENT_EXPORT_MS / 1000;
    pthread_mutex_lock(&s->lock);
    while (s->export_waiting && pthread_cond_timedwait(&s->export_cv, &s->lock, &until) == 0) {
    }
    int timed_out = s->export_waiting, ok = s->export_ok;
    s->export_waiting = 0;
    char msg[300];
    snprintf(msg, sizeof msg, "%s", s->export_msg);
    pthread_mutex_unlock(&s->lock);
    if (timed_out) {
        fprintf(stderr, "fragvote present: export %s: no answer from the hub within %d s\n", file,
                PRESENT_EXPORT_MS / 1000);
        return -1;
    }
    if (!ok) {
        fprintf(stderr, "fragvote present: export %s: %s\n", file, msg);
        return -1;
    }
    printf("Export: %s\n", msg);
    return 0;
}

static void *console_main(void *arg) {
    struct present *s = arg;
    char err[512] = "";
    int rc;
    if (s->o.script) {
        rc = console_run_file(&s->con, s->o.script, err, sizeof err);
        if (rc < 0) s->script_failed = 1;
    } else {
        rc = console_run_interactive(&s->con, STDIN_FILENO, err, sizeof err);
    }
    if (rc < 0) fprintf(stderr, "fragvote present: %s\n", err);
    for (int i = 0; i < s->o.nexports && !s->signal_no && !s->fatal; i++)
        if (export_one(s, s->o.export_file[i], s->o.export_format[i]) < 0) s->export_failed = 1;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_mutex_unlock(&s->lock);
    present_link_stop(s->link);
    return NULL;
}

/* ---- signals (cli_signals: one thread sigwait()s) ---- */

static void on_signal(void *ctx, int sig) {
    struct present *s = ctx;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    s->signal_no = sig;
    pthread_mutex_unlock(&s->lock);
    if (s->link) present_link_stop(s->link);
}

/* ---- the probe engine here ---- */

/* This laptop's facts, which the hub stores with the session and shows on
 * its console: name, kernel, and the lab's layout when it measures there. */
static void host_facts(struct present *s) {
    cli_host_facts(s->host, sizeof s->host, s->kernel, sizeof s->kernel);
    s->lab_json = s->engine.use_lab ? replay_lab_json(&s->engine.lab) : NULL;
}

/* Before each test (on the worker thread): the lab scenario it names. */
static int before_test(void *ctx, int test_index, char *err, size_t errlen) {
    struct present *s = ctx;
    double ms;
    int rebuilt;
    return cli_scenario_enter(&s->scenario, deck_test_lab(&s->deck, test_index), &ms, &rebuilt, err, errlen);
}

/* The deck (with --target), then the probe engine as serve sets it up. FV_EXIT_OK or an exit code. */
static int engine_up(struct present *s) {
    char err[1024];
    if (s->o.deck ? deck_load_file(s->o.deck, &s->deck, err, sizeof err) : deck_load_builtin(&s->deck, err, sizeof err)) {
        fprintf(stderr, "fragvote present: %s\n", err);
        return FV_EXIT_USAGE;
    }
    const struct cli_engine_args *a = &s->o.engine;
    if (a->target) deck_set_target(&s->deck, a->target);
    int code = cli_engine_pick("present", a->observer ? a->observer : s->deck.observer, s->deck.target, &s->engine);
    if (code != FV_EXIT_OK) return code;
    s->engine.lab_switches = s->engine.use_lab && deck_scenarios(&s->deck) > 0;
    return cli_engine_up("present", &s->engine, a->witness ? a->witness : s->deck.witness, a->witness_key,
                         a->keep_root, a->user);
}

/* ---- the end ---- */

/* Per revealed question, from the hub's newest state (the database is the hub's). */
static void print_summary(struct present *s) {
    json_t *o = s->last_state ? json_loads(s->last_state, 0, NULL) : NULL;
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
    int rc = cli_opts_end(parse_opts(argc, argv, &s.o), "present", usage);
    if (rc >= 0) return rc;
    char err[1024] = "";
    if (present_url_parse(s.o.url, &s.url, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote present: %s\n", err);
        return FV_EXIT_USAGE;
    }
    if (s.o.ca && access(s.o.ca, R_OK) < 0) {
        fprintf(stderr, "fragvote present: --ca %s: %s\n", s.o.ca, strerror(errno));
        return FV_EXIT_USAGE;
    }
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        fprintf(stderr, "fragvote present: getrandom failed\n");
        return FV_EXIT_FAIL;
    }
    for (int i = 0; i < 16; i++) snprintf(s.instance + 2 * i, 3, "%02x", rnd[i]);

    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.export_cv, NULL);
    if (cli_signals_start(&s.sigs, on_signal, &s) < 0) {
        fprintf(stderr, "fragvote present: cannot start the signal thread\n");
        return FV_EXIT_FAIL;
    }

    int code = engine_up(&s);
    if (code != FV_EXIT_OK || s.stop) goto cleanup;
    struct present_prober_config pc = {.deck = &s.deck, .send = link_send, .ctx = &s};
    cli_engine_opts(&s.engine, s.o.engine.keep_pmtu_cache || s.deck.keep_pmtu_cache, &pc.opts);
    if (s.engine.lab_switches) {
        cli_scenario_init(&s.scenario, &s.engine.lab, &s.engine.witness);
        pc.before = before_test;
    }
    host_facts(&s);
    struct present_link_config lc = {.url = s.url, .ca_file = s.o.ca, .on_up = on_up, .on_frame = on_frame,
                                     .on_down = on_down, .ctx = &s};
    s.link = present_link_new(&lc, err, sizeof err);
    s.remote = present_console_new(link_send, &s);
    if (s.link && s.remote) s.prober = present_prober_new(&pc, err, sizeof err);
    if (!s.link || !s.remote || !s.prober) {
        fprintf(stderr, "fragvote present: %s\n", err[0] ? err : "out of memory");
        code = FV_EXIT_FAIL;
        goto cleanup;
    }
    printf("Connecting to %s (observer %s, target %s) ...\n", s.o.url, s.engine.observer_name, s.engine.target);
    fflush(stdout);
    if (!s.stop && present_link_run(s.link) < 0) {
        fprintf(stderr, "fragvote present: the websocket loop failed\n");
        code = FV_EXIT_FAIL;
    }

cleanup:
    pthread_mutex_lock(&s.lock);
    s.stop = 1;
    pthread_mutex_unlock(&s.lock);
    if (s.con_started) pthread_join(s.con_thread, NULL);
    if (s.prober) {
        struct present_prober_counts n;
        present_prober_counts(s.prober, &n);
        printf("Prober: %lu measurements asked, %lu probe runs, %lu results sent (%lu again after a reconnect), "
               "%lu stored by the hub",
               n.asked, n.runs, n.results_sent, n.resent, n.acked);
        if (n.kept) printf("; %d measured but not delivered (the hub asks again when present reconnects)", n.kept);
        printf(".\n");
    }
    present_prober_free(s.prober);
    char switched[160];
    cli_scenario_summary(&s.scenario, switched, sizeof switched);
    if (switched[0]) printf("Lab scenarios: %s.\n", switched);
    if (!s.engine.lab_built && cli_scenario_restore(&s.scenario, err, sizeof err) < 0)
        fprintf(stderr, "fragvote present: could not put the lab back as it was: %s\n", err);
    present_link_free(s.link);
    present_console_free(s.remote);
    print_summary(&s);
    cli_engine_down("present", &s.engine);
    free(s.lab_json);
    cli_signals_stop(&s.sigs);
    pthread_mutex_destroy(&s.lock);
    pthread_cond_destroy(&s.export_cv);
    if (s.signal_no) fprintf(stderr, "fragvote present: stopped by signal %d\n", s.signal_no);
    if (s.fatal) {
        fprintf(stderr, "fragvote present: %s\n", s.fatal_msg);
        if (code == FV_EXIT_OK) code = FV_EXIT_FAIL;
    }
    if (code == FV_EXIT_OK && (s.script_failed || s.export_failed)) code = FV_EXIT_FAIL;
    if (code == FV_EXIT_OK && s.con.refused_unexpected) {
        fprintf(stderr, "fragvote present: %lu console actions were refused\n", s.con.refused_unexpected);
        if (s.o.script) code = FV_EXIT_FAIL;
    }
    free(s.last_state);
    deck_free(&s.deck);
    return code;
}
