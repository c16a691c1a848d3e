/* fragvote witness: the far end of a probe, run on a host the speaker
 * controls (a VM, the lab's dst). All the work is in libfragprobe
 * (probe/witness*.c); this file parses arguments, picks the key and prints. */
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_engine.h"
#include "fragprobe.h"

#define WITNESS_KEY_FILE_MAX 256   /* a key file holds 32 hex digits and maybe a newline */

static void witness_usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote witness [OPTIONS] PORT\n"
            "\n"
            "Receives probes on UDP and TCP PORT (IPv4 and IPv6) and answers each with a\n"
            "small report of what arrived: whole or in fragments (the largest fragment's\n"
            "size, from IP_RECVFRAGSIZE), its size, the TTL / hop limit on arrival, for TCP\n"
            "the data segments; with CAP_NET_RAW also the DF bit and the exact pieces.\n"
            "The prober runs `fragvote probe --witness HOST:PORT --witness-key KEY ...`.\n"
            "\n"
            "It is not a reflector: only well-formed probes tagged with the key and\n"
            "carrying a nonce not seen before are answered, with %d bytes (never more\n"
            "than the probe, at most %d), at most %d replies a second overall and %d a\n"
            "second to one source address.\n"
            "\n"
            "Options:\n"
            "  --key HEX        the shared key (32 hex digits); also $FRAGVOTE_WITNESS_KEY.\n"
            "                   Without one a fresh key is made and printed.\n"
            "  --key-file FILE  read the key from FILE\n"
            "  --raw            require CAP_NET_RAW (packet tap: DF and exact pieces)\n"
            "  --no-raw         never use the packet tap (default: when the process has it)\n"
            "  --rate N         at most N replies a second overall (1..%d)\n"
            "  --rate-source N  at most N replies a second to one source (1..%d)\n"
            "  --seconds N      stop after N seconds (default: until SIGINT/SIGTERM)\n"
            "  -h, --help       show this help\n"
            "\n"
            "Started as root it drops root once its sockets are open: to the invoking\n"
            "user (sudo, doas, pkexec) or else to nobody, keeping no capability.\n"
            "\n"
            "Exit codes: 0 ok, 1 failed, 2 usage, 3 missing capability (--raw).\n",
            PROBE_WITNESS_REPORT_BYTES, PROBE_WITNESS_REPLY_MAX, PROBE_WITNESS_RATE, PROBE_WITNESS_RATE_SOURCE,
            PROBE_WITNESS_RATE, PROBE_WITNESS_RATE_SOURCE);
}

static volatile sig_atomic_t witness_stop; /* set by SIGINT / SIGTERM */
static void on_stop_signal(int sig) {
    (void)sig;
    witness_stop = 1;
}

static int read_key_file(const char *path, uint8_t *key) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fragvote witness: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    char buf[WITNESS_KEY_FILE_MAX];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ')) buf[--n] = 0;
    if (probe_witness_key_parse(buf, key) < 0) {
        fprintf(stderr, "fragvote witness: %s does not hold a key (32 hex digits)\n", path);
        return -1;
    }
    return 0;
}

/* The options and PORT of argv into *o, *port and *have_key: 0, 1 (--help),
 * or -1 after saying why on stderr. */
static int witness_args(int argc, char **argv, struct probe_witness_opts *o, long *port, int *have_key) {
    enum { O_KEY = 256, O_KEY_FILE, O_RAW, O_NO_RAW, O_RATE, O_RATE_SOURCE, O_SECONDS };
    static const struct option opts[] = {
        {"key", required_argument, NULL, O_KEY},   {"key-file", required_argument, NULL, O_KEY_FILE},
        {"raw", no_argument, NULL, O_RAW},         {"no-raw", no_argument, NULL, O_NO_RAW},
        {"rate", required_argument, NULL, O_RATE}, {"rate-source", required_argument, NULL, O_RATE_SOURCE},
        {"seconds", required_argument, NULL, O_SECONDS}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_KEY:
            if (probe_witness_key_parse(optarg, o->key) < 0) return cli_opt_fail("witness", "--key takes 32 hex digits");
            *have_key = 1;
            break;
        case O_KEY_FILE:
            if (read_key_file(optarg, o->key) < 0) return -1;
            *have_key = 1;
            break;
        case O_RAW: o->raw = 1; break;
        case O_NO_RAW: o->raw = 0; break;
        case O_RATE:
            if (cli_opt_int("witness", "rate", optarg, 1, PROBE_WITNESS_RATE, NULL, &o->rate)) return -1;
            break;
        case O_RATE_SOURCE:
            if (cli_opt_int("witness", "rate-source", optarg, 1, PROBE_WITNESS_RATE_SOURCE, NULL, &o->rate_source))
                return -1;
            break;
        case O_SECONDS:
            if (cli_opt_int("witness", "seconds", optarg, 1, 86400, NULL, &o->seconds)) return -1;
            break;
        default: return cli_opt_other("witness", c, argv);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (*port >= 0 || argv[i][0] == '-') /* a second PORT, or "-" */
            return cli_opt_fail("witness", "unexpected argument '%s'", argv[i]);
        if (cli_parse_long(argv[i], 1, 65535, port))
            return cli_opt_fail("witness", "PORT must be 1..65535, not '%s'", argv[i]);
    }
    if (*port < 0) return cli_opt_fail("witness", "needs a PORT");
    return 0;
}

static int witness_ready(void *ctx, char *err, size_t errlen) {
    (void)ctx;
    int rc = cli_engine_drop_sockets_open(err, errlen);
    fflush(stdout);
    return rc;
}

int cmd_witness(int argc, char **argv) {
    if (cli_help(argc, argv, witness_usage)) return FV_EXIT_OK;
    struct probe_witness_opts o;
    memset(&o, 0, sizeof o);
    o.raw = -1;
    long port = -1;
    int have_key = 0;
    int urc = cli_opts_end(witness_args(argc, argv, &o, &port, &have_key), "witness", witness_usage);
    if (urc >= 0) return urc;
    if (o.raw == 1 && geteuid() != 0 && !probe_priv_has(CAP_NET_RAW)) {
        fprintf(stderr, "fragvote witness: --raw needs CAP_NET_RAW (the packet tap that sees DF and the pieces); "
                        "without --raw it runs unprivileged\n");
        return FV_EXIT_PERM;
    }
    const char *env = getenv("FRAGVOTE_WITNESS_KEY");
    char err[256];
    if (!have_key && env && env[0]) {
        if (probe_witness_key_parse(env, o.key) < 0) {
            fprintf(stderr, "fragvote witness: $FRAGVOTE_WITNESS_KEY is not a key (32 hex digits)\n");
            return FV_EXIT_USAGE;
        }
        have_key = 1;
    }
    if (!have_key && probe_witness_random(o.key, sizeof o.key, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote witness: %s\n", err);
        return FV_EXIT_FAIL;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    o.port = (int)port;
    o.stop = (volatile int *)&witness_stop;
    struct probe_witness_stats st;
    o.stats = &st;
    o.ready = witness_ready; /* sockets open: root is no longer needed */
    char hex[2 * PROBE_WITNESS_KEY_BYTES + 1];
    probe_witness_key_format(o.key, hex);
    if (!have_key) printf("key %s\n", hex);
    fprintf(stderr, "fragvote witness: answering probes on UDP and TCP port %ld%s\n", port,
            have_key ? "" : " (key above: give it to the prober with --witness-key)");
    fflush(stdout);
    int rc = probe_witness_run(&o, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fragvote witness: %s\n", err);
        return rc == PROBE_E_PERM ? FV_EXIT_PERM : FV_EXIT_FAIL;
    }
    printf("received %ld, replied %ld, refused: %ld malformed or untagged, %ld replayed, %ld over the rate, "
           "%ld TCP connections over the cap\n",
           st.received, st.replied, st.bad, st.replayed, st.rate_capped, st.tcp_refused);
    return FV_EXIT_OK;
}
