/* fragvote lab up|set|down|status: the namespace lab a speaker rehearses with. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fragprobe.h"
#include "fv_clock.h"

static void lab_usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote lab up|set|down|status [OPTIONS]\n"
            "\n"
            "Builds, changes, removes or shows the network-namespace lab:\n"
            "src -- r1 -- r2 -- dst (or --routers N) on documentation prefixes\n"
            "(192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8:1..3::/64).\n"
            "`fragvote probe` and `fragvote serve` with no target send from src to dst.\n"
            "`set` turns the running lab into the one the options describe, changing\n"
            "only what differs (nft rules, rate limits); other routers or MTUs rebuild it.\n"
            "Needs root. See docs/LAB.md.\n"
            "\n"
            "Options (up and set):\n"
            "  --prefix P          namespace name prefix (default $%s or \"%s\")\n"
            "  --routers N         routers between src and dst, 1..%d (default 2)\n"
            "  --mtu A,B,...       the N+1 link MTUs from src to dst (default 1500,1280,1500)\n"
            "  --reassemble rK     that router reassembles fragments (conntrack defrag)\n"
            "  --ratelimit rK      rK keeps the kernel's default ICMP rate limits\n"
            "  --dropfrag rK       rK drops every fragment that reaches it\n"
            "  --blackhole rK      rK drops the ICMP errors it forwards (PMTUD black hole)\n"
            "  --silent rK         rK sends no Time Exceeded\n"
            "  --nat rK            rK masquerades IPv4 with conntrack (home/venue router)\n"
            "  --cleardf rK        rK clears DF on the whole IPv4 packets it forwards (and so\n"
            "                      fragments them: a box that breaks the rules)\n"
            "                      (each behaviour may be given several times)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Exit codes: 0 ok (status: lab is up), 1 failed (status: lab is not up),\n"
            "2 usage error, 3 not root.\n",
            PROBE_LAB_PREFIX_ENV, PROBE_LAB_PREFIX_DEFAULT, PROBE_LAB_ROUTERS_MAX);
}

/* The options into cfg; *shape says whether any beyond --prefix was given,
 * *verb the action. FV_EXIT_OK or FV_EXIT_USAGE (after saying why). */
static int lab_args(int argc, char **argv, struct probe_lab_config *cfg, int *shape, const char **verb) {
    static const struct option opts[] = {
        {"prefix", required_argument, NULL, 'P'},    {"mtu", required_argument, NULL, 'm'},
        {"reassemble", required_argument, NULL, 'r'}, {"routers", required_argument, NULL, 'n'},
        {"ratelimit", required_argument, NULL, 'L'},  {"dropfrag", required_argument, NULL, 'F'},
        {"blackhole", required_argument, NULL, 'B'},  {"silent", required_argument, NULL, 'S'},
        {"nat", required_argument, NULL, 'N'},        {"cleardf", required_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    const char *mtus = NULL;
    char err[512];
    unsigned bit;
    int c;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        *shape |= c != 'P';
        switch (c) {
        case 'P':
            if (!*optarg || strlen(optarg) > PROBE_LAB_PREFIX_MAX ||
                strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(optarg)) {
                fprintf(stderr, "fragvote lab: --prefix must be 1..%d of [A-Za-z0-9_-], not '%s'\n",
                        PROBE_LAB_PREFIX_MAX, optarg);
                return FV_EXIT_USAGE;
            }
            snprintf(cfg->prefix, sizeof cfg->prefix, "%s", optarg);
            break;
        case 'm':
            mtus = optarg;
            break;
        case 'n':
            if (cli_opt_int("lab", "routers", optarg, 1, PROBE_LAB_ROUTERS_MAX, "routers", &cfg->routers))
                return FV_EXIT_USAGE;
            break;
        case 'r':
            cfg->reassemble = strcmp(optarg, "none") ? probe_lab_router_parse(optarg) : 0;
            if (cfg->reassemble < 0) {
                fprintf(stderr, "fragvote lab: --reassemble wants r1..r%d or none, not \"%s\"\n",
                        PROBE_LAB_ROUTERS_MAX, optarg);
                return FV_EXIT_USAGE;
            }
            break;
        case 'L': case 'F': case 'B': case 'S': case 'N': case 'C':
            bit = c == 'L' ? PROBE_LAB_RATELIMIT : c == 'F' ? PROBE_LAB_DROPFRAG : c == 'B' ? PROBE_LAB_BLACKHOLE
                : c == 'S' ? PROBE_LAB_SILENT : c == 'N' ? PROBE_LAB_NAT : PROBE_LAB_CLEARDF;
            if (probe_lab_config_add(cfg, bit, optarg, err, sizeof err) < 0) {
                fprintf(stderr, "fragvote lab: %s\n", err);
                return FV_EXIT_USAGE;
            }
            break;
        default:
            fprintf(stderr, "fragvote lab: unknown or incomplete option '%s'\n", argv[optind - 1]);
            lab_usage(stderr);
            return FV_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fragvote lab: say up, set, down or status\n");
        lab_usage(stderr);
        return FV_EXIT_USAGE;
    }
    *verb = argv[optind];
    /* After the loop: --routers may follow --mtu. */
    if (mtus && probe_lab_parse_mtus(mtus, cfg, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote lab: %s\n", err);
        return FV_EXIT_USAGE;
    }
    struct probe_lab check;
    if (*shape && probe_lab_plan(cfg, &check, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote lab: %s\n", err);
        return FV_EXIT_USAGE;
    }
    return FV_EXIT_OK;
}

static void lab_print(const struct probe_lab *lab) {
    char desc[2048];
    probe_lab_describe(lab, desc, sizeof desc);
    printf("%s\n", desc);
}

/* up: a new lab; set: the running one changed into cfg (only what differs). */
static int lab_build(const char *verb, const struct probe_lab_config *cfg) {
    struct probe_lab lab;
    char err[1024];
    double t0 = fv_clock_ms_frac();
    int rebuilt = 1, rc;
    if (!strcmp(verb, "up")) {
        rc = probe_lab_up(cfg, &lab, err, sizeof err);
    } else {
        rc = probe_lab_status(cfg->prefix, &lab, err, sizeof err);
        if (rc == 0) snprintf(err, sizeof err, "no lab \"%s\" is up: `fragvote lab up` builds one", cfg->prefix);
        if (rc == 1) rc = probe_lab_reconfigure(&lab, cfg, &rebuilt, err, sizeof err);
        else if (rc == 0) rc = PROBE_E_FAIL;
    }
    if (rc < 0) {
        fprintf(stderr, "fragvote lab %s: %s\n", verb, err);
        return cli_exit_probe(rc);
    }
    lab_print(&lab);
    printf("%s in %.0f ms\n", !strcmp(verb, "up") ? "up" : rebuilt ? "rebuilt" : "switched (rules only)",
           fv_clock_ms_frac() - t0);
    return FV_EXIT_OK;
}

int cmd_lab(int argc, char **argv) {
    if (cli_help(argc, argv, lab_usage)) return FV_EXIT_OK;
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    char err[1024];
    int shape = 0;
    const char *verb = NULL;
    int rc = lab_args(argc, argv, &cfg, &shape, &verb);
    if (rc != FV_EXIT_OK) return rc;
    if (!strcmp(verb, "up") || !strcmp(verb, "set")) return lab_build(verb, &cfg);
    if (shape) {
        fprintf(stderr, "fragvote lab %s: --mtu, --routers, --reassemble and the behaviours only go with `up` or `set`\n",
                verb);
        return FV_EXIT_USAGE;
    }
    struct probe_lab lab;
    if (!strcmp(verb, "down")) {
        rc = probe_lab_down(cfg.prefix, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "fragvote lab down: %s\n", err);
            return FV_EXIT_FAIL;
        }
        printf(rc ? "lab \"%s\" removed\n" : "no lab \"%s\" to remove\n", cfg.prefix);
        return FV_EXIT_OK;
    }
    if (!strcmp(verb, "status")) {
        rc = probe_lab_status(cfg.prefix, &lab, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "fragvote lab status: %s\n", err);
            return FV_EXIT_FAIL;
        }
        if (rc == 0) {
            printf("lab \"%s\" is not up (fragvote lab up%s%s)\n", cfg.prefix,
                   strcmp(cfg.prefix, PROBE_LAB_PREFIX_DEFAULT) ? " --prefix " : "",
                   strcmp(cfg.prefix, PROBE_LAB_PREFIX_DEFAULT) ? cfg.prefix : "");
            return FV_EXIT_FAIL;
        }
        lab_print(&lab);
        return FV_EXIT_OK;
    }
    fprintf(stderr, "fragvote lab: unknown action '%s' (up, set, down or status)\n", verb);
    return FV_EXIT_USAGE;
}
