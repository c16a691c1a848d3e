/* fragvote probe: run one test (or a deck) and show what the network did.
 * With no target the test runs in the namespace lab (built if missing). */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "deck.h"
#include "fragprobe.h"
#include "fv_clock.h"
#include "probe_json.h"
#include "cli_engine_args.h"
#include "cli_scenario.h"
#include "witness_cli.h"

#define PROBE_JOBS_MAX 8 /* deck tests run at once at most */

static void probe_usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote probe [-p PROTO] [-f MODE] [-s SIZE] [--ttl N|auto] [-a HOST[:PORT]] [--json]\n"
            "       fragvote probe --deck FILE [--jobs N] [--json]\n"
            "\n"
            "Sends one test and reports, with evidence: was it sent, was DF set on the\n"
            "wire, was it fragmented and by whom. Each answer says whether it was\n"
            "observed, inferred from the kernel's rules, or is unknown. With no -a the\n"
            "test runs in the namespace lab (`fragvote lab up`; built if missing).\n"
            "\n"
            "Options:\n"
            "  -p, --proto PROTO   udp4 (default) | tcp4 | udp6 | tcp6 | icmp4 | icmp6\n"
            "                      icmp4/icmp6: the echo request `ping -M MODE -s N` sends, with\n"
            "                      N = SIZE-28 (IPv6: SIZE-48); a ping socket, or a raw one as root\n"
            "  -f, --mode MODE     default (default) | dont | want | do | probe | interface | omit\n"
            "  -s, --size N        IP packet size in bytes, headers included (default 1400)\n"
            "      --ttl N|auto    TTL / hop limit (auto: lab topology, else TTL discovery)\n"
            "  -a, --addr HOST[:PORT]  target ([v6addr]:port for IPv6); TCP needs a listener;\n"
            "                      ICMP: PORT is the echo identifier (default: one per test)\n"
            "      --observer KIND auto (default) | raw | recverr\n"
            "      --timeout MS    wait for answers at most this long (default %d)\n"
            "      --flush         flush the PMTU cache before (each) test\n"
            "      --no-flush      with --deck: keep the cache between tests (default: flush in the lab)\n"
            "      --deck FILE     run every test of a deck and print a table\n"
            "      --jobs N        with --deck: tests at once (1..%d, default 1)\n"
            "      --prefix P      lab namespace prefix (default $%s or \"%s\")\n"
            "      --witness W     the far-end witness: HOST:PORT of `fragvote witness`, \"lab\"\n"
            "                      (one in the lab's dst; the default in the lab) or \"none\";\n"
            "                      UDP/TCP tests then go to it (docs/PROBE.md)\n"
            "      --witness-key HEX  its key (32 hex digits; also $%s)\n"
            "      --no-witness    the near end only (= --witness none)\n"
            "      --json          print JSON (docs/PROBE.md)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Exit codes: 0 ok, 1 failed, 2 usage, 3 no privilege, 4 unknown host, 5 no IPv6,\n"
            "6 timeout, 8 no route, 9 ICMP-silent network (TTL discovery: no hop answered).\n",
            PROBE_TIMEOUT_MS_DEFAULT, PROBE_JOBS_MAX, PROBE_LAB_PREFIX_ENV, PROBE_LAB_PREFIX_DEFAULT,
            WITNESS_CLI_KEY_ENV);
}

/* "host", "host:port", "[v6]:port", "v6" (more than one colon, no brackets). */
static int parse_addr(const char *s, struct probe_spec *spec) {
    const char *host = s, *port = NULL;
    size_t hl = strlen(s);
    if (s[0] == '[') {
        const char *end = strchr(s, ']');
        if (!end) return -1;
        host = s + 1;
        hl = (size_t)(end - host);
        if (end[1] == ':') port = end + 2;
        else if (end[1]) return -1;
    } else {
        const char *c = strchr(s, ':');
        if (c && !strchr(c + 1, ':')) {
            hl = (size_t)(c - s);
            port = c + 1;
        }
    }
    if (hl == 0 || hl >= sizeof spec->host) return -1;
    memcpy(spec->host, host, hl);
    spec->host[hl] = 0;
    if (port) {
        long p;
        if (cli_parse_long(port, 1, 65535, &p)) return -1;
        spec->port = (int)p;
    }
    return 0;
}

static const char *short_answer(const struct probe_fact *f) { return probe_answer_name(f->answer); }

static void print_fact(const struct probe_result *r, const char *q, const struct probe_fact *f) {
    printf("  %-12s %-7s (%s: %s)\n", q, probe_answer_name(f->answer), probe_fact_basis_label(r, f), f->why);
}

/* The path as a tracepath-like hop table (issue 20): hop, node, address,
 * the MTU of the link leaving it, what was seen there [and what shows it]. */
static void print_path(const struct probe_path *p) {
    static char text[PROBE_PATH_TEXT_MAX];
    if (probe_path_text(p, "    ", text, sizeof text)) printf("  path\n%s", text);
}

static void print_result(const struct probe_result *r) {
    char where[64];
    if (probe_proto_is_icmp(r->spec.proto)) /* no port: the echo identifier and the socket it went on */
        snprintf(where, sizeof where, "echo id %d (%s socket)", r->spec.port, r->egress.sock);
    else
        snprintf(where, sizeof where, "port %d", r->spec.port);
    printf("%s %s %d bytes, TTL %d (%s) to %s %s, observer %s, %.1f ms\n", probe_proto_name(r->spec.proto),
           probe_mode_name(r->spec.mode), r->spec.size, r->spec.ttl, r->route.ttl_basis, r->spec.host, where, r->egress.observer,
           r->elapsed_ms);
    print_fact(r, "sent?", &r->sent);
    print_fact(r, "DF set?", &r->df);
    print_fact(r, "fragmented?", &r->fragmented);
    printf("  %-12s %s\n", "by", probe_fragmenter_name(r->fragmenter));
    printf("  %-12s %s\n", "evidence", r->evidence);
    if (r->witness.target[0]) printf("  %-12s %s: %s\n", "witness", r->witness.target, r->witness.note);
    print_path(&r->path);
}

struct deck_run {
    const struct deck *deck;
    const struct probe_run_opts *opts;
    const char *host;       /* deck target, "" = lab */
    int ttl[2];             /* discovered once per family (IPv4, IPv6) off the lab, 0 = auto */
    int flush_each;
    struct probe_result *results;
    int *rcs;
    char (*errs)[256];
    int next, done;
    struct cli_scenario *scenario; /* the deck's lab scenarios (then one job), NULL none */
    pthread_mutex_t lock;
};

/* Test i's lab scenario, said on stderr when the lab changes. 0, or -1 with err. */
static int deck_scenario(struct deck_run *d, int i, char *err, size_t errlen) {
    double ms;
    int rebuilt;
    if (!d->scenario) return 0;
    if (cli_scenario_enter(d->scenario, deck_test_lab(d->deck, i), &ms, &rebuilt, err, errlen) < 0) return -1;
    if (ms > 0) {
        char does[512];
        probe_lab_behaviours_text(d->scenario->lab, 1, does, sizeof does);
        fprintf(stderr, "fragvote probe: test %d: the lab %s in %.0f ms: %s\n", i + 1,
                rebuilt ? "rebuilt" : "switched (rules only)", ms, does[0] ? does : "routers only forward");
    }
    return 0;
}

static void *deck_worker(void *p) {
    struct deck_run *d = p;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        int i = d->next < d->deck->ntests ? d->next++ : -1;
        pthread_mutex_unlock(&d->lock);
        if (i < 0) return NULL;
        struct probe_spec spec = d->deck->tests[i].spec;
        if (!spec.host[0] && d->host[0]) snprintf(spec.host, sizeof spec.host, "%s", d->host);
        if (spec.ttl == PROBE_TTL_AUTO) spec.ttl = d->deck->ttl;
        if (spec.ttl == PROBE_TTL_AUTO) spec.ttl = d->ttl[probe_proto_is_v6(spec.proto)];
        struct probe_run_opts o = *d->opts;
        o.flush_pmtu = d->flush_each;
        d->rcs[i] = deck_scenario(d, i, d->errs[i], sizeof d->errs[i]);
        if (d->rcs[i] == 0) d->rcs[i] = probe_run(&o, &spec, &d->results[i], d->errs[i], sizeof d->errs[i]);
        else d->results[i].spec = spec;
        pthread_mutex_lock(&d->lock);
        d->done++;
        /* One line per test on a log, one rewritten line on a terminal. */
        int tty = isatty(2);
        fprintf(stderr, "%s[%d/%d] %s %s %d %s%s", tty ? "\r" : "", d->done, d->deck->ntests,
                probe_proto_name(spec.proto), probe_mode_name(spec.mode), spec.size, d->rcs[i] < 0 ? "error" : "done",
                !tty || d->done == d->deck->ntests ? "\n" : "   ");
        fflush(stderr);
        pthread_mutex_unlock(&d->lock);
    }
}

/* The lab for a test with no target: the running one, or a new one (left up
 * so the PMTU cache carries to the next command). 0 or an exit code. */
static int lab_find_or_build(const struct probe_lab_config *cfg, struct probe_lab *lab) {
    char err[1024];
    int st = probe_lab_status(cfg->prefix, lab, err, sizeof err);
    if (st < 0) {
        fprintf(stderr, "fragvote probe: %s\n", err);
        return FV_EXIT_FAIL;
    }
    if (st == 0) {
        int rc = probe_lab_up(cfg, lab, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "fragvote probe: no target and the lab could not be built: %s\n", err);
            return cli_exit_probe(rc);
        }
        fprintf(stderr, "fragvote probe: built the lab \"%s\" (`fragvote lab down` removes it)\n", lab->cfg.prefix);
    }
    return 0;
}

/* Off the lab, TTL discovery runs once per family for the whole deck (into
 * d->ttl); a family that fails leaves each of its tests to report its own
 * error. */
static void deck_discover_ttl(struct deck_run *d, const struct probe_run_opts *opts, const char *host) {
    const struct deck *dk = d->deck;
    char err[1024];
    for (int v6 = 0; v6 <= 1 && !opts->lab && !dk->ttl; v6++) {
        int used = 0;
        for (int i = 0; i < dk->ntests; i++)
            used |= probe_proto_is_v6(dk->tests[i].spec.proto) == v6 && dk->tests[i].spec.ttl == PROBE_TTL_AUTO;
        if (!used) continue;
        struct probe_ttl_discovery disc;
        if (probe_ttl_discover(opts, v6, host, &disc, err, sizeof err) < 0) {
            fprintf(stderr, "fragvote probe: TTL discovery (%s): %s\n", v6 ? "IPv6" : "IPv4", err);
            continue; /* each test then reports its own error */
        }
        fprintf(stderr, "TTL discovery (%s): %s\n", v6 ? "IPv6" : "IPv4", disc.why);
        d->ttl[v6] = disc.ttl > 0 ? disc.ttl : disc.reached_dst ? disc.tried : 0;
    }
}

/* The deck's results as one JSON document on stdout; returns how many
 * tests failed to run. */
static int deck_print_json(const struct deck_run *d, double wall) {
    const struct deck *dk = d->deck;
    int failed = 0;
    json_t *arr = json_array();
    for (int i = 0; i < dk->ntests; i++) {
        if (d->rcs[i] < 0) {
            failed++;
            json_array_append_new(arr, json_pack("{s:o, s:s}", "spec", probe_spec_to_json(&d->results[i].spec),
                                                 "error", d->errs[i]));
        } else {
            json_array_append_new(arr, probe_result_to_json(&d->results[i]));
        }
    }
    json_t *o = json_pack("{s:s, s:o, s:f}", "deck", dk->title, "results", arr, "wall_ms", wall);
    json_dumpf(o, stdout, JSON_INDENT(2));
    printf("\n");
    json_decref(o);
    return failed;
}

/* The deck's results as a table on stdout; returns how many tests failed
 * to run. */
static int deck_print_table(const struct deck_run *d, double wall) {
    const struct deck *dk = d->deck;
    int failed = 0;
    printf("%-3s %-5s %-9s %5s %3s | %-7s %-7s %-11s | %s\n", "#", "proto", "mode", "size", "ttl", "sent?",
           "DF?", "fragmented", "evidence");
    for (int i = 0; i < dk->ntests; i++) {
        const struct probe_result *r = &d->results[i];
        if (d->rcs[i] < 0) {
            failed++;
            printf("%-3d %-5s %-9s %5d %3s | error: %s\n", i + 1, probe_proto_name(r->spec.proto),
                   probe_mode_name(r->spec.mode), r->spec.size, "-", d->errs[i]);
            continue;
        }
        char frag[24];
        snprintf(frag, sizeof frag, "%s%s%s%s", short_answer(&r->fragmented),
                 r->fragmented.answer == PROBE_ANS_YES ? "(" : "",
                 r->fragmented.answer == PROBE_ANS_YES ? probe_fragmenter_name(r->fragmenter) : "",
                 r->fragmented.answer == PROBE_ANS_YES ? ")" : "");
        printf("%-3d %-5s %-9s %5d %3d | %-7s %-7s %-11s | %s\n", i + 1, probe_proto_name(r->spec.proto),
               probe_mode_name(r->spec.mode), r->spec.size, r->spec.ttl, short_answer(&r->sent),
               short_answer(&r->df), frag, r->evidence);
    }
    printf("%d tests in %.0f ms (%d failed to run)\n", dk->ntests, wall, failed);
    return failed;
}

/* What probe's command line asks for. */
struct probe_args {
    struct probe_spec spec;
    struct probe_run_opts opts;
    struct probe_lab_config cfg;
    const char *deck;
    int json, jobs, flush, no_flush, observer_given;
    struct cli_engine_args wa; /* --witness, --witness-key, --no-witness: as serve's */
};

static int run_deck(struct probe_args *a, struct probe_lab *lab) {
    struct probe_run_opts *opts = &a->opts;
    const char *witness = a->wa.witness;
    int jobs = a->jobs, json = a->json;
    struct deck *dk = calloc(1, sizeof *dk); /* ~50 kB: not on the stack */
    char err[1024];
    if (!dk) {
        fprintf(stderr, "fragvote probe: out of memory\n");
        return FV_EXIT_FAIL;
    }
    if (deck_load_file(a->deck, dk, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote probe: %s\n", err);
        free(dk);
        return FV_EXIT_USAGE;
    }
    const char *host = a->spec.host[0] ? a->spec.host : (!strcmp(dk->target, "lab") ? "" : dk->target);
    if (!a->observer_given && dk->observer[0] && probe_observer_parse(dk->observer, &opts->observer) < 0) {
        fprintf(stderr, "fragvote probe: the deck names an unknown observer \"%s\"\n", dk->observer);
        deck_free(dk);
        free(dk);
        return FV_EXIT_USAGE;
    }
    if (!host[0]) {
        int rc = lab_find_or_build(&a->cfg, lab);
        if (rc) {
            deck_free(dk);
            free(dk);
            return rc;
        }
        opts->lab = lab;
    }
    struct witness_cli wc;
    if (witness_cli_setup(witness ? witness : dk->witness, a->wa.witness_key, opts->lab, &wc, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote probe: %s\n", err);
        deck_free(dk);
        free(dk);
        return FV_EXIT_USAGE;
    }
    opts->witness = wc.target;
    struct cli_scenario scen;
    if (opts->lab && deck_scenarios(dk)) {
        cli_scenario_init(&scen, lab, &wc);
        if (jobs > 1) fprintf(stderr, "fragvote probe: the deck names lab scenarios: one test at a time\n");
        jobs = 1;
    }
    /* In the lab every test starts from an empty PMTU cache unless --no-flush. */
    int flush_each = opts->lab ? !a->no_flush : a->flush;
    struct deck_run d = {.deck = dk, .opts = opts, .host = host,
                         .flush_each = flush_each && jobs == 1,
                         .scenario = opts->lab && deck_scenarios(dk) ? &scen : NULL};
    d.results = calloc((size_t)dk->ntests + 1, sizeof *d.results);
    d.rcs = calloc((size_t)dk->ntests + 1, sizeof *d.rcs);
    d.errs = calloc((size_t)dk->ntests + 1, sizeof *d.errs);
    if (!d.results || !d.rcs || !d.errs) {
        fprintf(stderr, "fragvote probe: out of memory\n");
        free(d.results);
        free(d.rcs);
        free(d.errs);
        deck_free(dk);
        free(dk);
        return FV_EXIT_FAIL;
    }
    pthread_mutex_init(&d.lock, NULL);
    if (flush_each && jobs > 1 && opts->lab) probe_lab_flush_pmtu(opts->lab, err, sizeof err);
    deck_discover_ttl(&d, opts, host);
    double t0 = fv_clock_ms_frac();
    pthread_t th[PROBE_JOBS_MAX];
    int started = 0;
    for (int j = 0; j < jobs; j++)
        if (pthread_create(&th[j], NULL, deck_worker, &d) == 0) started++;
    if (!started) deck_worker(&d);
    for (int j = 0; j < started; j++) pthread_join(th[j], NULL);
    double wall = fv_clock_ms_frac() - t0;
    int failed = json ? deck_print_json(&d, wall) : deck_print_table(&d, wall);
    if (d.scenario) {
        char sum[160];
        cli_scenario_summary(d.scenario, sum, sizeof sum);
        if (sum[0]) fprintf(stderr, "fragvote probe: %s\n", sum);
        if (cli_scenario_restore(d.scenario, err, sizeof err) < 0)
            fprintf(stderr, "fragvote probe: could not put the lab back as it was: %s\n", err);
    }
    witness_cli_stop(&wc);
    free(d.results);
    free(d.rcs);
    free(d.errs);
    pthread_mutex_destroy(&d.lock);
    deck_free(dk);
    free(dk);
    return failed ? FV_EXIT_FAIL : FV_EXIT_OK;
}


static const struct option probe_longopts[] = {
    {"proto", required_argument, NULL, 'p'}, {"mode", required_argument, NULL, 'f'},
    {"size", required_argument, NULL, 's'},  {"ttl", required_argument, NULL, 't'},
    {"addr", required_argument, NULL, 'a'},  {"json", no_argument, NULL, 'j'},
    {"deck", required_argument, NULL, 'd'},  {"observer", required_argument, NULL, 'o'},
    {"timeout", required_argument, NULL, 'T'}, {"flush", no_argument, NULL, 'F'},
    {"no-flush", no_argument, NULL, 'N'},    {"jobs", required_argument, NULL, 'J'},
    {"prefix", required_argument, NULL, 'P'}, CLI_ENGINE_ARGS_WITNESS,
    {NULL, 0, NULL, 0},
};

/* One option c (its value in optarg) into *a: 0, -1 a bad value, 1 not an
 * option of probe. */
static int probe_arg_take(struct probe_args *a, int c) {
    long num;
    char *end;
    switch (c) {
    case 'p': return probe_proto_parse(optarg, &a->spec.proto) < 0 ? -1 : 0;
    case 'f': return probe_mode_parse(optarg, &a->spec.mode) < 0 ? -1 : 0;
    case 's':
        a->spec.size = (int)strtol(optarg, &end, 10);
        return *end || !*optarg ? -1 : 0;
    case 't':
        if (!strcmp(optarg, "auto")) a->spec.ttl = PROBE_TTL_AUTO;
        else if (cli_parse_long(optarg, 1, 255, &num)) return -1;
        else a->spec.ttl = (int)num;
        return 0;
    case 'a': return parse_addr(optarg, &a->spec) < 0 ? -1 : 0;
    case 'j': a->json = 1; return 0;
    case 'd': a->deck = optarg; return 0;
    case 'o':
        a->observer_given = 1;
        return probe_observer_parse(optarg, &a->opts.observer) < 0 ? -1 : 0;
    case 'T':
        if (cli_parse_long(optarg, 1, PROBE_TIMEOUT_MS_MAX, &num)) return -1;
        a->opts.timeout_ms = (int)num;
        return 0;
    case 'F': a->flush = 1; return 0;
    case 'N': a->no_flush = 1; return 0;
    case 'J':
        if (cli_parse_long(optarg, 1, PROBE_JOBS_MAX, &num)) return -1;
        a->jobs = (int)num;
        return 0;
    case 'P':
        if (strlen(optarg) > PROBE_LAB_PREFIX_MAX) return -1;
        snprintf(a->cfg.prefix, sizeof a->cfg.prefix, "%s", optarg);
        return 0;
    default: return 1;
    }
}

/* The command line into *a: FV_EXIT_OK, or FV_EXIT_USAGE after saying why. */
static int probe_args_read(int argc, char **argv, struct probe_args *a) {
    memset(a, 0, sizeof *a);
    a->spec.proto = PROBE_UDP4;
    a->spec.mode = PROBE_MODE_DEFAULT;
    a->spec.size = 1400;
    a->spec.ttl = PROBE_TTL_AUTO;
    a->jobs = 1;
    probe_lab_config_default(&a->cfg);
    cli_opt_begin();
    int c, li;
    while ((li = -1, c = getopt_long(argc, argv, "p:f:s:a:", probe_longopts, &li)) != -1) {
        if (cli_engine_arg(&a->wa, c, optarg)) continue;
        int rc = probe_arg_take(a, c);
        if (rc > 0) {
            fprintf(stderr, "fragvote probe: unknown or incomplete option '%s'\n", argv[optind - 1]);
            probe_usage(stderr);
            return FV_EXIT_USAGE;
        }
        if (rc < 0) {
            /* Name the option as the user wrote it (-p or --proto), then the value. */
            if (li >= 0) fprintf(stderr, "fragvote probe: bad value for --%s: '%s'", probe_longopts[li].name, optarg);
            else fprintf(stderr, "fragvote probe: bad value for -%c: '%s'", c, optarg);
            fprintf(stderr, " (see fragvote probe --help for the accepted values)\n");
            return FV_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "fragvote probe: unexpected argument '%s'\n", argv[optind]);
        return FV_EXIT_USAGE;
    }
    char err[1024];
    if (!a->deck && probe_spec_check(&a->spec, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote probe: %s\n", err);
        return FV_EXIT_USAGE;
    }
    return FV_EXIT_OK;
}

/* One test from the command line, its result on stdout. */
static int run_one(struct probe_args *a) {
    const char *witness = a->wa.witness, *witness_key = a->wa.witness_key;
    struct probe_spec *spec = &a->spec;
    struct probe_run_opts *opts = &a->opts;
    char err[1024];
    struct probe_lab lab;
    /* A remote witness with no -a: the test goes to the witness's host. */
    struct probe_witness_target wt;
    if (!spec->host[0] && witness && strcmp(witness, "lab") && strcmp(witness, "none") &&
        probe_witness_target_parse(witness, &wt, err, sizeof err) == 0)
        snprintf(spec->host, sizeof spec->host, "%s", wt.host);
    if (!spec->host[0]) {
        int rc = lab_find_or_build(&a->cfg, &lab);
        if (rc) return rc;
        opts->lab = &lab;
    }
    opts->flush_pmtu = a->flush;
    struct witness_cli wc;
    if (witness_cli_setup(witness, witness_key, opts->lab, &wc, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote probe: %s\n", err);
        return FV_EXIT_USAGE;
    }
    opts->witness = wc.target;
    struct probe_result r;
    int rc = probe_run(opts, spec, &r, err, sizeof err);
    witness_cli_stop(&wc);
    if (rc < 0) {
        fprintf(stderr, "fragvote probe: %s\n", err);
        return cli_exit_probe(rc);
    }
    if (a->json) {
        json_t *o = probe_result_to_json(&r);
        json_dumpf(o, stdout, JSON_INDENT(2));
        printf("\n");
        json_decref(o);
    } else {
        print_result(&r);
    }
    return FV_EXIT_OK;
}

int cmd_probe(int argc, char **argv) {
    if (cli_help(argc, argv, probe_usage)) return FV_EXIT_OK;
    struct probe_args a;
    int rc = probe_args_read(argc, argv, &a);
    if (rc != FV_EXIT_OK) return rc;
    if (!a.deck) return run_one(&a);
    struct probe_lab lab;
    return run_deck(&a, &lab);
}
