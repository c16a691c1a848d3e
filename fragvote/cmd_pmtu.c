/* fragvote pmtu: show or flush the kernel's path-MTU cache, and the
 * article's 1-RTT path-MTU discovery (with the classic sequential search for
 * comparison, and --watch for the rest of the article's algorithm). All the work is in libfragprobe; this file parses arguments,
 * prints, and maps the probe's error codes to the documented exit codes. */
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fragprobe.h"

static void pmtu_usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote pmtu show HOST\n"
            "       fragvote pmtu flush [HOST]\n"
            "       fragvote pmtu discover [--sequential] [--timeout MS] HOST[:PORT]\n"
            "       fragvote pmtu discover --watch [--interval S] [--seconds N] [--verbose] [--timeout MS]\n"
            "                              HOST[:PORT]\n"
            "       fragvote pmtu respond [--seconds N] PORT\n"
            "\n"
            "show      print the path MTU the kernel has cached for HOST and when it expires\n"
            "flush     forget learned path MTUs: all of them, or HOST's address family\n"
            "          (IPv6: only HOST; IPv4: the kernel can only flush the whole cache).\n"
            "          Needs CAP_NET_ADMIN.\n"
            "discover  send all common sizes (1280 1360 1400 1500 8000 9000, up to the local\n"
            "          MTU) at once with PMTUD mode PROBE and report the largest acknowledged\n"
            "          after one round trip. Acknowledgements are ICMP echo replies (ping\n"
            "          socket; net.ipv4.ping_group_range must include your group) or, with\n"
            "          :PORT, UDP datagrams echoed by `fragvote pmtu respond PORT` there.\n"
            "          IPv6 with a port: [ADDR]:PORT.\n"
            "          --watch keeps going with the article's whole algorithm: every interval\n"
            "          reprobe the current path MTU and the next size up; the next size\n"
            "          acknowledged = the path grew: reprobe every larger size at once; the\n"
            "          current size lost = start over with the full discovery. Each change is\n"
            "          printed with a UTC timestamp; SIGINT/SIGTERM or --seconds end it.\n"
            "respond   answer discovery probes on UDP PORT (IPv4 and IPv6) until interrupted\n"
            "          or N seconds pass: run it on the far end (e.g. in the lab's dst namespace).\n"
            "          Replies are at most %d bytes, never longer than the probe, only to\n"
            "          probes, and at most %d a second.\n"
            "\n"
            "Options:\n"
            "  --sequential   classic binary search, one probe per round trip (for comparison)\n"
            "  --timeout MS   how long to wait for each round trip (default %d)\n"
            "  --seconds N    with respond or --watch: stop after N seconds (default: until\n"
            "                 SIGINT/SIGTERM)\n"
            "  --watch        with discover: keep watching the path MTU (see above)\n"
            "  --interval S   with --watch: seconds between reprobes (default %d, the article's\n"
            "                 ten minutes; 1..%d)\n"
            "  --verbose      with --watch: also print the reprobes that changed nothing\n"
            "  -h, --help     show this help\n"
            "\n"
            "Exit codes: 0 ok, 1 failed, 2 usage, 3 missing capability, 4 unknown host,\n"
            "5 no IPv6, 6 timeout, 8 no route, 9 ICMP-silent path.\n",
            PROBE_PMTU_REPLY_BYTES, PROBE_PMTU_REPLY_RATE, PROBE_PMTU_TIMEOUT_MS, PROBE_PMTU_WATCH_INTERVAL_S,
            PROBE_PMTU_WATCH_INTERVAL_MAX_S);
}

static int pmtu_show(const char *host) {
    char err[256];
    struct probe_pmtu_entry e;
    int rc = probe_pmtu_show(host, &e, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fragvote pmtu: %s\n", err);
        return cli_exit_probe(rc);
    }
    if (e.mtu)
        printf("%s via %s (mtu %d): cached path MTU %d, expires in %d s\n", e.addr,
               e.dev[0] ? e.dev : "?", e.dev_mtu, e.mtu, e.expires_s);
    else
        printf("%s via %s (mtu %d): no cached path MTU\n", e.addr, e.dev[0] ? e.dev : "?", e.dev_mtu);
    return FV_EXIT_OK;
}

static int pmtu_flush(const char *host) {
    char err[256];
    int rc = probe_pmtu_flush(host, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fragvote pmtu: %s\n", err);
        return cli_exit_probe(rc);
    }
    printf("flushed the path-MTU cache%s%s\n", host ? " for " : "", host ? host : "");
    return FV_EXIT_OK;
}

/* Splits HOST[:PORT] / [V6]:PORT / bare V6 into host and port (0 = none). */
static int split_host_port(const char *arg, char *host, size_t hostlen, int *port) {
    *port = 0;
    const char *colon = strrchr(arg, ':');
    if (arg[0] == '[') {
        const char *close = strchr(arg, ']');
        if (!close || (close[1] && close[1] != ':')) return -1;
        snprintf(host, hostlen, "%.*s", (int)(close - arg - 1), arg + 1);
        colon = close[1] == ':' ? close + 1 : NULL;
    } else if (colon && strchr(arg, ':') == colon) {
        snprintf(host, hostlen, "%.*s", (int)(colon - arg), arg);
    } else {
        snprintf(host, hostlen, "%s", arg); /* no port, or a bare IPv6 address */
        colon = NULL;
    }
    if (colon) {
        long p;
        if (cli_parse_long(colon + 1, 1, 65535, &p)) return -1;
        *port = (int)p;
    }
    return host[0] ? 0 : -1;
}

static volatile sig_atomic_t respond_stop; /* set by SIGINT / SIGTERM (respond, discover --watch) */
static void on_stop_signal(int sig) {
    (void)sig;
    respond_stop = 1;
}

/* SIGINT/SIGTERM set respond_stop; no SA_RESTART, so a sleep or poll ends early. */
static void catch_stop_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

struct watch_print {
    int verbose, changes;
};

/* One watch event as a line: UTC timestamp, the path MTU, what was seen. */
static void watch_print_event(const struct probe_pmtu_watch_event *ev, void *arg) {
    struct watch_print *wp = arg;
    if (ev->kind == PROBE_PMTU_WATCH_SAME && !wp->verbose) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    printf("%s.%03ldZ  ", when, ts.tv_nsec / 1000000);
    switch (ev->kind) {
    case PROBE_PMTU_WATCH_START:
        printf("path MTU %d  (%s)\n", ev->pmtu, ev->why);
        break;
    case PROBE_PMTU_WATCH_SAME:
        printf("path MTU %d unchanged  (%s)\n", ev->pmtu, ev->why);
        break;
    case PROBE_PMTU_WATCH_GREW:
    case PROBE_PMTU_WATCH_RESTART:
        if (ev->pmtu != ev->old_pmtu) {
            wp->changes++;
            printf("path MTU %d -> %d  (%s: %s)\n", ev->old_pmtu, ev->pmtu,
                   ev->kind == PROBE_PMTU_WATCH_GREW ? "grew" : "lost", ev->why);
        } else {
            printf("path MTU %d again  (%s: %s)\n", ev->pmtu, ev->kind == PROBE_PMTU_WATCH_GREW ? "grew" : "lost",
                   ev->why);
        }
        break;
    }
    fflush(stdout);
}

static int pmtu_watch(const char *host, int port, int timeout, long interval, long seconds, int verbose) {
    catch_stop_signals();
    struct watch_print wp = {.verbose = verbose};
    struct probe_pmtu_watch_opts o = {.interval_ms = (int)(interval * 1000), .seconds = (int)seconds,
                                      .timeout_ms = timeout, .stop = (volatile int *)&respond_stop,
                                      .on_event = watch_print_event, .arg = &wp};
    printf("watching the path MTU to %s%s every %ld s%s\n", host, port ? "" : " (ICMP echo)", interval,
           seconds ? "" : " until SIGINT/SIGTERM");
    fflush(stdout);
    char err[256];
    int rc = probe_pmtu_watch(host, port, &o, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fragvote pmtu: %s\n", err);
        return cli_exit_probe(rc);
    }
    printf("watch ended%s: %d round%s of probes, %d change%s\n", respond_stop ? " by signal" : "", rc,
           rc == 1 ? "" : "s", wp.changes, wp.changes == 1 ? "" : "s");
    return FV_EXIT_OK;
}

static int pmtu_unexpected(const char *arg) {
    fprintf(stderr, "fragvote pmtu: unexpected argument '%s'\n", arg);
    return FV_EXIT_USAGE;
}

/* pmtu_discover and pmtu_respond: argv[0] is the action, in the place of
 * getopt's program name. */
static int pmtu_discover(int argc, char **argv) {
    int sequential = 0, timeout = PROBE_PMTU_TIMEOUT_MS, watch = 0, verbose = 0;
    long interval = 0, seconds = 0;
    const char *target = NULL;
    enum { O_SEQUENTIAL = 256, O_WATCH, O_VERBOSE, O_INTERVAL, O_SECONDS, O_TIMEOUT };
    static const struct option opts[] = {
        {"sequential", no_argument, NULL, O_SEQUENTIAL}, {"watch", no_argument, NULL, O_WATCH},
        {"verbose", no_argument, NULL, O_VERBOSE},       {"interval", required_argument, NULL, O_INTERVAL},
        {"seconds", required_argument, NULL, O_SECONDS}, {"timeout", required_argument, NULL, O_TIMEOUT},
        {NULL, 0, NULL, 0}};
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case O_SEQUENTIAL: sequential = 1; break;
        case O_WATCH: watch = 1; break;
        case O_VERBOSE: verbose = 1; break;
        case O_INTERVAL:
            if (cli_opt_range("pmtu", "interval", optarg, 1, PROBE_PMTU_WATCH_INTERVAL_MAX_S, "seconds", &interval))
                return FV_EXIT_USAGE;
            break;
        case O_SECONDS:
            if (cli_opt_range("pmtu", "seconds", optarg, 1, 86400 * 365, NULL, &seconds)) return FV_EXIT_USAGE;
            break;
        case O_TIMEOUT:
            if (cli_opt_int("pmtu", "timeout", optarg, 1, 60000, "ms", &timeout)) return FV_EXIT_USAGE;
            break;
        default: cli_opt_other("pmtu", c, argv); return FV_EXIT_USAGE;
        }
    }
    for (int i = optind; i < argc; i++) {
        if (argv[i][0] == '-' || target) return pmtu_unexpected(argv[i]);
        target = argv[i];
    }
    char host[256];
    int port;
    if (!target || split_host_port(target, host, sizeof host, &port) < 0) {
        fprintf(stderr, "fragvote pmtu: discover needs HOST[:PORT] (IPv6 with a port: [ADDR]:PORT)\n");
        return FV_EXIT_USAGE;
    }
    if (!watch && (interval || seconds || verbose)) {
        fprintf(stderr, "fragvote pmtu: --interval, --seconds and --verbose go with --watch\n");
        return FV_EXIT_USAGE;
    }
    if (watch && sequential) {
        fprintf(stderr, "fragvote pmtu: --watch runs the 1-RTT algorithm; it does not take --sequential\n");
        return FV_EXIT_USAGE;
    }
    if (watch) return pmtu_watch(host, port, timeout, interval ? interval : PROBE_PMTU_WATCH_INTERVAL_S, seconds, verbose);
    char err[256];
    struct probe_pmtu_discovery d;
    int rc = sequential ? probe_pmtu_discover_sequential(host, port, timeout, &d, err, sizeof err)
                        : probe_pmtu_discover(host, port, timeout, &d, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fragvote pmtu: %s\n", err);
        return cli_exit_probe(rc);
    }
    printf("%s %s%s: local MTU %d\n", sequential ? "sequential search" : "1-RTT discovery", d.addr,
           port ? "" : " (ICMP echo)", d.local_mtu);
    for (int i = 0; i < d.n; i++) {
        printf("  %5d  %s", d.sizes[i], d.acked[i] ? "acknowledged" : "no answer");
        if (d.reported[i]) printf(" (router reports MTU %d)", d.reported[i]);
        printf("\n");
    }
    int silent = 0;
    for (int i = 0; i < d.n; i++)
        if (d.sizes[i] > d.pmtu && !d.acked[i] && !d.reported[i]) silent++;
    if (silent)
        printf("note: %d size%s above %d got neither an answer nor Frag Needed / Packet Too Big: "
               "the path drops them silently (ICMP-silent, a PMTUD black hole)\n",
               silent, silent == 1 ? "" : "s", d.pmtu);
    printf("path MTU %d", d.pmtu);
    if (d.reported_mtu) printf(" (smallest MTU reported by %s: %d)", d.reporter, d.reported_mtu);
    printf("\nround trips %d, probes %d, %.1f ms\n", d.round_trips, d.probes_sent, d.elapsed_ms);
    return FV_EXIT_OK;
}

static int pmtu_respond(int argc, char **argv) {
    long port = 0, seconds = 0;
    static const struct option opts[] = {{"seconds", required_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c != 's') {
            cli_opt_other("pmtu", c, argv);
            return FV_EXIT_USAGE;
        }
        if (cli_opt_range("pmtu", "seconds", optarg, 1, 86400, NULL, &seconds)) return FV_EXIT_USAGE;
    }
    for (int i = optind; i < argc; i++) {
        if (port || argv[i][0] == '-') return pmtu_unexpected(argv[i]);
        if (cli_parse_long(argv[i], 1, 65535, &port)) {
            fprintf(stderr, "fragvote pmtu: respond needs a PORT 1..65535, not '%s'\n", argv[i]);
            return FV_EXIT_USAGE;
        }
    }
    if (!port) {
        fprintf(stderr, "fragvote pmtu: respond needs a PORT\n");
        return FV_EXIT_USAGE;
    }
    catch_stop_signals();
    fprintf(stderr, "fragvote pmtu: answering discovery probes on UDP port %ld\n", port);
    char err[256];
    int rc = probe_pmtu_respond((int)port, (int)seconds, (volatile int *)&respond_stop, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fragvote pmtu: %s\n", err);
        return cli_exit_probe(rc);
    }
    printf("answered %d probes\n", rc);
    return FV_EXIT_OK;
}

int cmd_pmtu(int argc, char **argv) {
    if (cli_help(argc, argv, pmtu_usage)) return FV_EXIT_OK;
    if (argc < 2) {
        pmtu_usage(stderr);
        return FV_EXIT_USAGE;
    }
    const char *verb = argv[1];
    /* show/flush take no options: a leading '-' is a mistake, not a host name. */
    if ((!strcmp(verb, "show") || !strcmp(verb, "flush")) && argc >= 3 && argv[2][0] == '-') {
        fprintf(stderr, "fragvote pmtu %s: unknown option '%s'\n", verb, argv[2]);
        return FV_EXIT_USAGE;
    }
    if (!strcmp(verb, "show")) {
        if (argc != 3) {
            fprintf(stderr, "fragvote pmtu: show needs exactly one HOST\n");
            return FV_EXIT_USAGE;
        }
        return pmtu_show(argv[2]);
    }
    if (!strcmp(verb, "flush")) {
        if (argc > 3) {
            fprintf(stderr, "fragvote pmtu: flush takes at most one HOST\n");
            return FV_EXIT_USAGE;
        }
        return pmtu_flush(argc == 3 ? argv[2] : NULL);
    }
    if (!strcmp(verb, "discover")) return pmtu_discover(argc - 1, argv + 1);
    if (!strcmp(verb, "respond")) return pmtu_respond(argc - 1, argv + 1);
    fprintf(stderr, "fragvote pmtu: unknown action '%s' (show, flush, discover, respond)\n", verb);
    pmtu_usage(stderr);
    return FV_EXIT_USAGE;
}
