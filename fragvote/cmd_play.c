/* fragvote play: fragquiz's own game, alone at a terminal. The same quiz,
 * room, deck and probe worker as `serve`, with one voter (the player) and
 * the terminal instead of the hub: per question open, ask y/n, vote (one
 * committed batch), close, measure, reveal, next. The session is stored like
 * a talk's, so `sessions`, `replay` and `export` show it.
 *
 * Threads: the main thread owns the room; the probe worker (the room's
 * prober) delivers results through a small mailbox (mutex + condition) that
 * the main thread hands to the room. Signals only set a flag
 * that the prompt and the wait look at, so every way out removes the lab. */
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_engine_args.h"
#include "console.h"
#include "console_ask.h"
#include "deck.h"
#include "export.h"
#include "probe_json.h"
#include "room.h"
#include "cli_scenario.h"
#include "witness_cli.h"
#include "worker.h"

#define PLAY_MEASURE_MS 60000 /* a probe result not back after this long is answered "unknown" */
#define PLAY_WAIT_SLICE_MS 200
#define PLAY_MAILBOX 8        /* results delivered and not yet handed to the room */

static volatile sig_atomic_t play_stop;

static void on_signal(int sig) {
    (void)sig;
    play_stop = 1;
}

struct play_opts {
    const char *deck, *db;
    struct cli_engine_args engine; /* --target, --observer, --keep-pmtu-cache */
    int no_prefetch;
};

struct play {
    struct play_opts o;
    struct deck deck;
    struct probe_lab lab;
    int use_lab, lab_up;
    struct witness_cli witness;     /* the deck's "witness" (lab's by default on the lab) */
    struct cli_scenario scenario;   /* the lab switched between the deck's scenarios (worker thread) */
    char *labjs;
    struct db *db;
    struct room *room;
    struct worker *worker;
    int voter;
    char observer[16], host[256], kernel[320], target[256];
    /* the worker's mailbox */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int nbox;
    uint64_t box_rid[PLAY_MAILBOX];
    struct probe_result box[PLAY_MAILBOX];
};

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote play [OPTIONS]\n"
            "\n"
            "fragquiz's game, alone at a terminal: for each test the questions are asked,\n"
            "you answer y or n, the laptop sends the packet for real and shows the truth\n"
            "with its evidence. At the end: your score and a share grid (+ right,\n"
            "- wrong, . unscored; one row per test). The game is stored in the database\n"
            "as a session with one voter (`fragvote sessions`, `replay`, `export`).\n"
            "\n"
            "Options:\n"
            "  --deck FILE        deck to play (default: the built-in fragquiz deck)\n"
            "  --target HOST|lab  probe this host instead of the deck's target; \"lab\" (the\n"
            "                     default) uses the running namespace lab or builds one and\n"
            "                     removes it at the end (root)\n"
            "  --observer MODE    auto, raw or recverr (default: the deck's, else auto =\n"
            "                     raw with CAP_NET_RAW, recverr without: no privilege needed)\n"
            "  --db FILE          database file (default: ./%s)\n"
            "  --keep-pmtu-cache  do not flush the PMTU cache before each test\n"
            "  --no-prefetch      do not start the probe while you think\n"
            "  -h, --help         show this help\n"
            "\n"
            "On a terminal each answer is one key (y, n; q quits); from a pipe, one line\n"
            "each (y, yes, n, no, q, quit). End of input quits.\n"
            "\n"
            "The lab needs root (CAP_SYS_ADMIN + CAP_NET_ADMIN); its namespaces are named\n"
            "from $" PROBE_LAB_PREFIX_ENV " (default \"" PROBE_LAB_PREFIX_DEFAULT "\"). A real --target\n"
            "needs no privilege.\n"
            "\n"
            "Exit codes: 0 ok (also when you quit early), 1 failed, 2 usage, 3 missing\n"
            "privilege, 4 unknown target host, 5 no IPv6, 7 database error.\n",
            EXPORT_DEFAULT_DB);
}

static int parse_opts(int argc, char **argv, struct play_opts *o) {
    enum { O_DECK = 256, O_DB, O_NOPRE };
    static const struct option longopts[] = {
        {"deck", required_argument, NULL, O_DECK}, {"db", required_argument, NULL, O_DB},
        {"no-prefetch", no_argument, NULL, O_NOPRE}, CLI_ENGINE_ARGS_TARGET,
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    *o = (struct play_opts){.db = EXPORT_DEFAULT_DB};
    cli_opt_begin();
    for (int c; (c = cli_engine_args_next(&o->engine, argc, argv, longopts)) != -1;) {
        switch (c) {
        case O_DECK: o->deck = optarg; break;
        case O_DB: o->db = optarg; break;
        case O_NOPRE: o->no_prefetch = 1; break;
        default: return cli_opt_other("play", c, argv);
        }
    }
    if (cli_opt_no_args("play", argc, argv) || cli_engine_args_check("play", &o->engine)) return -1;
    return 0;
}

/* ---- the worker's results (deliver runs on the worker thread) ---- */

static void deliver(void *ctx, uint64_t rid, const struct probe_result *r) {
    struct play *p = ctx;
    pthread_mutex_lock(&p->mu);
    while (p->nbox == PLAY_MAILBOX && !play_stop) pthread_cond_wait(&p->cv, &p->mu);
    if (p->nbox < PLAY_MAILBOX) {
        p->box_rid[p->nbox] = rid;
        p->box[p->nbox++] = *r;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Hands the room the worker's results until question pos has its truth: 0,
 * or -1 when stopped. A probe that never answers becomes an honest "unknown"
 * after PLAY_MEASURE_MS. */
static int wait_result(struct play *p, int pos, const struct probe_spec *spec) {
    char err[512];
    struct quiz_qinfo qi;
    struct probe_result *r = malloc(sizeof *r);
    if (!r) return -1;
    for (long waited = 0; !quiz_get(room_quiz(p->room), pos, &qi) && qi.measuring; waited += PLAY_WAIT_SLICE_MS) {
        if (play_stop) break;
        if (waited >= PLAY_MEASURE_MS) {
            prober_result_unknown(spec, "the probe did not answer within 60 s", r);
            if (room_measured(p->room, pos, r, err, sizeof err) < 0) fprintf(stderr, "fragvote play: measurement: %s\n", err);
            break;
        }
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += PLAY_WAIT_SLICE_MS * 1000000L;
        t.tv_sec += t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&p->mu);
        if (!p->nbox) pthread_cond_timedwait(&p->cv, &p->mu, &t);
        int got = p->nbox > 0;
        uint64_t rid = got ? p->box_rid[0] : 0;
        if (got) {
            *r = p->box[0];
            p->nbox--;
            memmove(p->box_rid, p->box_rid + 1, sizeof p->box_rid[0] * (size_t)p->nbox);
            memmove(p->box, p->box + 1, sizeof p->box[0] * (size_t)p->nbox);
            pthread_cond_broadcast(&p->cv);
        }
        pthread_mutex_unlock(&p->mu);
        if (got && room_prober_result(p->room, rid, r, err, sizeof err) < 0)
            fprintf(stderr, "fragvote play: measurement: %s\n", err);
    }
    free(r);
    return play_stop ? -1 : 0;
}

/* ---- one question ---- */

static int act(struct play *p, enum room_action a) {
    char err[512];
    int rc = room_act(p->room, a, err, sizeof err);
    if (rc < 0) fprintf(stderr, "fragvote play: %s: %s\n", room_action_name(a), err);
    return rc;
}

static int vote(struct play *p, int pos, int yes) {
    char err[512];
    struct room_write w;
    if (room_write_plan(p->room, &w, p->voter, NULL, pos, yes, CONFIDENCE_NONE, 0, err, sizeof err) ||
        room_write_commit(p->room, &w, 1, err, sizeof err)) {
        fprintf(stderr, "fragvote play: your answer could not be stored: %s\n", err);
        return -1;
    }
    return 0;
}

/* Measures the current question (reusing its test's result when the quiz
 * has one) and reveals it. 0, 1 stopped, -1 failed. */
static int measure_and_reveal(struct play *p, int pos) {
    int rc = act(p, ROOM_MEASURE);
    if (rc < 0) return -1;
    if (rc == QUIZ_MEASURE_PROBE && wait_result(p, pos, &quiz_test(room_quiz(p->room), pos)->spec) < 0) return 1;
    return act(p, ROOM_REVEAL) < 0 ? -1 : 0;
}

static void show_truth(struct play *p, int pos, int yes) {
    struct quiz_truth tr, *t = &tr; /* what the reveal may show: evidence once the test is done */
    if (quiz_truth(room_quiz(p->room), pos, t)) return;
    const char *ans = probe_answer_name(t->answer);
    const char *verdict = t->answer == PROBE_ANS_UNKNOWN ? "not scored"
                          : (yes == (t->answer == PROBE_ANS_YES)) ? "you were right" : "you were wrong";
    if (t->surprise[0]) printf("    %s\n", t->surprise);
    printf("    truth     %s (%s, %s observer): %s\n", ans, probe_basis_name(t->basis), p->observer, verdict);
    if (t->evidence[0]) printf("    evidence  %s\n", t->evidence);
    if (t->why[0] && strcmp(t->why, t->evidence)) printf("    why       %s\n", t->why);
    if (t->explain[0]) printf("    the rules %s\n", t->explain);
}

/* ---- the end ---- */

/* The share grid: one row per test, one mark per question. */
static void print_grid(struct play *p) {
    struct quiz *q = room_quiz(p->room);
    int n = quiz_count(q), last_test = -1;
    for (int pos = 0; pos < n; pos++) {
        struct quiz_qinfo qi;
        quiz_get(q, pos, &qi);
        if (qi.test_index != last_test && last_test >= 0) putchar('\n');
        last_test = qi.test_index;
        struct quiz_truth t;
        int known = quiz_truth(q, pos, &t) == 0 && t.answer != PROBE_ANS_UNKNOWN;
        int v = room_voter_vote(p->room, p->voter, pos);
        char mark = '.';
        if (known && v >= 0) mark = (v == 1) == (t.answer == PROBE_ANS_YES) ? '+' : '-';
        putchar(mark);
    }
    putchar('\n');
}

static void print_score(struct play *p) {
    int answered, scored, correct;
    room_voter_score(p->room, p->voter, &answered, &scored, &correct);
    printf("\nMy fragvote score: %d/%d\n", correct, scored);
    print_grid(p);
    printf("\n(%d answered, %d with a known truth. Stored as session %lld in %s: `fragvote export %lld`.)\n",
           answered, scored, (long long)room_session_id(p->room), p->o.db, (long long)room_session_id(p->room));
}

/* ---- the game ---- */

static int play_game(struct play *p) {
    struct quiz *q = room_quiz(p->room);
    int last_test = -1, ntests_shown = 0;
    printf("fragvote play \xc2\xb7 %s\nTarget: %s   Observer: %s   %d questions\n", room_title(p->room), p->target,
           p->observer, quiz_count(q));
    printf("Answer each question with y or n (q quits).\n");
    while (!quiz_ended(q) && !play_stop) {
        int pos = quiz_cursor(q);
        struct quiz_qinfo qi;
        quiz_get(q, pos, &qi);
        if (qi.state != QUIZ_PENDING) { /* revealed (or a skip moved us here): go on */
            if (act(p, ROOM_NEXT) < 0) return -1;
            continue;
        }
        if (qi.test_index != last_test) {
            printf("\nTest %d: %s\n", ++ntests_shown, qi.summary);
            last_test = qi.test_index;
        }
        if (act(p, ROOM_OPEN) < 0) return -1; /* the room asks its prober for the test meanwhile */
        char prompt[QUIZ_TEXT_MAX + 32], err[512];
        snprintf(prompt, sizeof prompt, "  Q%d  %s [y/n] ", pos + 1, qi.text);
        int a = console_ask_yn(STDIN_FILENO, stdout, prompt, &play_stop, err, sizeof err);
        if (a < 0) {
            fprintf(stderr, "fragvote play: %s\n", err);
            return -1;
        }
        if (a == CONSOLE_ANSWER_QUIT) {
            act(p, ROOM_SKIP); /* unanswered: not left open in the store */
            break;
        }
        if (vote(p, pos, a == CONSOLE_ANSWER_YES) < 0 || act(p, ROOM_CLOSE) < 0) return -1;
        int mr = measure_and_reveal(p, pos);
        if (mr < 0) return -1;
        if (mr > 0) break;
        show_truth(p, pos, a == CONSOLE_ANSWER_YES);
        fflush(stdout);
    }
    if (play_stop) printf("\n(stopped)\n");
    print_score(p);
    return 0;
}

/* Before each test (on the worker thread): the lab scenario it names. */
static int before_test(void *ctx, int test_index, char *err, size_t errlen) {
    struct play *p = ctx;
    double ms;
    int rebuilt;
    return cli_scenario_enter(&p->scenario, deck_test_lab(&p->deck, test_index), &ms, &rebuilt, err, errlen);
}

/* ---- setup ---- */

static int setup_target(struct play *p) {
    char err[1024];
    const char *obs_name = p->o.engine.observer ? p->o.engine.observer : p->deck.observer;
    enum probe_observer_kind obs;
    if (probe_observer_parse(obs_name, &obs) < 0) {
        fprintf(stderr, "fragvote play: --observer wants auto, raw or recverr, not '%s'\n", obs_name);
        return FV_EXIT_USAGE;
    }
    if (obs == PROBE_OBS_AUTO) obs = probe_priv_has(CAP_NET_RAW) ? PROBE_OBS_RAW : PROBE_OBS_RECVERR;
    snprintf(p->observer, sizeof p->observer, "%s", probe_observer_name(obs));
    p->use_lab = !p->deck.target[0] || !strcmp(p->deck.target, "lab");
    snprintf(p->target, sizeof p->target, "%s", p->use_lab ? "lab" : p->deck.target);
    if (!p->use_lab) {
        struct sockaddr_storage ss;
        int hr = probe_pmtu_resolve(p->target, AF_UNSPEC, &ss, err, sizeof err);
        if (hr < 0) {
            fprintf(stderr, "fragvote play: target %s: %s\n", p->target, err);
            return cli_exit_probe(hr);
        }
    } else {
        struct probe_lab_config cfg;
        probe_lab_config_default(&cfg);
        if (probe_lab_status(cfg.prefix, &p->lab, err, sizeof err) != 1) {
            int lr = probe_lab_up(&cfg, &p->lab, err, sizeof err);
            if (lr < 0) {
                fprintf(stderr, "fragvote play: cannot build the namespace lab: %s\n", err);
                if (lr == PROBE_E_PERM) fprintf(stderr, "  (run as root, or give --target HOST)\n");
                return cli_exit_probe(lr);
            }
            p->lab_up = 1;
        }
        p->labjs = probe_lab_json(&p->lab);
    }
    int flush = !(p->o.engine.keep_pmtu_cache || p->deck.keep_pmtu_cache);
    if (flush && !probe_priv_has(CAP_NET_ADMIN)) {
        flush = 0;
        printf("Note: without CAP_NET_ADMIN the PMTU cache is not flushed before each test.\n");
    }
    if (witness_cli_setup(p->deck.witness, NULL, p->use_lab ? &p->lab : NULL, &p->witness, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote play: %s\n", err);
        return FV_EXIT_USAGE;
    }
    struct worker_config wc = {
        .opts = {.observer = obs, .lab = p->use_lab ? &p->lab : NULL, .flush_pmtu = flush,
                 .witness = p->witness.target},
        .deliver = deliver,
        .ctx = p,
    };
    if (p->use_lab && deck_scenarios(&p->deck)) {
        cli_scenario_init(&p->scenario, &p->lab, &p->witness);
        wc.steps = (struct worker_steps){.before = before_test, .ctx = p};
    }
    p->worker = worker_new(&wc, err, sizeof err);
    if (!p->worker) {
        fprintf(stderr, "fragvote play: %s\n", err);
        return FV_EXIT_FAIL;
    }
    return FV_EXIT_OK;
}

static int setup_room(struct play *p) {
    char err[1024];
    cli_host_facts(p->host, sizeof p->host, p->kernel, sizeof p->kernel);
    int orc = cli_store_open("play", p->o.db, &p->db);
    if (orc) return orc;
    struct room_info info = {.title = p->deck.title, .host = p->host, .kernel = p->kernel, .observer = p->observer,
                             .target = p->target, .lab_json = p->labjs};
    p->room = room_create(p->db, &p->deck, &info, err, sizeof err);
    char token[ROOM_TOKEN_HEX + 1];
    if (!p->room || room_token_new(p->room, token, err, sizeof err)) {
        fprintf(stderr, "fragvote play: %s\n", err);
        return FV_EXIT_DB;
    }
    struct room_write w;
    if (room_write_plan_join(p->room, &w, token, 0, err, sizeof err) ||
        room_write_commit(p->room, &w, 1, err, sizeof err)) {
        fprintf(stderr, "fragvote play: cannot store the player: %s\n", err);
        return FV_EXIT_DB;
    }
    p->voter = w.voter;
    room_set_prefetch(p->room, !p->o.no_prefetch);
    room_set_prober(p->room, &(struct prober){worker_prober_ask, p->worker});
    return FV_EXIT_OK;
}

int cmd_play(int argc, char **argv) {
    static struct play p; /* large (deck); one per process */
    memset(&p, 0, sizeof p);
    int rc = cli_opts_end(parse_opts(argc, argv, &p.o), "play", usage);
    if (rc >= 0) return rc;
    char err[1024];
    if (deck_load_arg(p.o.deck, p.o.engine.target, &p.deck, err, sizeof err)) {
        fprintf(stderr, "fragvote play: %s\n", err);
        return FV_EXIT_USAGE;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    play_stop = 0;
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a waiting poll returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);

    int code = setup_target(&p);
    if (code == FV_EXIT_OK && !play_stop) code = setup_room(&p);
    if (code == FV_EXIT_OK && !play_stop && play_game(&p) < 0) code = FV_EXIT_FAIL;

    pthread_mutex_lock(&p.mu); /* a worker waiting for room in the mailbox sees the stop */
    play_stop = 1;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
    worker_free(p.worker);
    char switched[160];
    cli_scenario_summary(&p.scenario, switched, sizeof switched);
    if (switched[0]) printf("Lab scenarios: %s.\n", switched);
    if (!p.lab_up && cli_scenario_restore(&p.scenario, err, sizeof err) < 0)
        fprintf(stderr, "fragvote play: could not put the lab back as it was: %s\n", err);
    witness_cli_stop(&p.witness);
    if (p.room && room_end(p.room, err, sizeof err) < 0) fprintf(stderr, "fragvote play: %s\n", err);
    room_free(p.room);
    db_close(p.db);
    if (p.lab_up && probe_lab_down(p.lab.cfg.prefix, err, sizeof err) < 0)
        fprintf(stderr, "fragvote play: could not remove the lab '%s': %s\n", p.lab.cfg.prefix, err);
    free(p.labjs);
    deck_free(&p.deck);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    return code;
}
