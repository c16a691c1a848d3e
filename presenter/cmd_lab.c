/* fragvote lab up|down|status: the namespace lab a speaker rehearses with. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fragprobe.h"
#include "fv_clock.h"

static void lab_usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote lab up|down|status [OPTIONS]\n"
            "\n"
            "Builds, removes or shows the network-namespace lab: src -- r1 -- r2 -- dst\n"
            "on documentation prefixes (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,\n"
            "2001:db8:1..3::/64). `fragvote probe` and `fragvote serve` with no target\n"
            "send from src to dst. Needs root. See docs/LAB.md.\n"
            "\n"
            "Options:\n"
            "  --prefix P          namespace name prefix (default $%s or \"%s\")\n"
            "  --mtu A,B,C         link MTUs src-r1, r1-r2, r2-dst (default 1500,1280,1500)\n"
            "  --reassemble r1|r2  that router reassembles fragments (conntrack defrag)\n"
            "  -h, --help          show this help\n"
            "\n"
            "Exit codes: 0 ok (status: lab is up), 1 failed (status: lab is not up),\n"
            "2 usage error, 3 not root.\n",
            PROBE_LAB_PREFIX_ENV, PROBE_LAB_PREFIX_DEFAULT);
}

int cmd_lab(int argc, char **argv) {
    if (cli_help(argc, argv, lab_usage)) return FV_EXIT_OK;
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    char err[1024];
    static const struct option opts[] = {
        {"prefix", required_argument, NULL, 'P'},
        {"mtu", required_argument, NULL, 'm'},
        {"reassemble", required_argument, NULL, 'r'},
        {NULL, 0, NULL, 0},
    };
    int c, set_mtu = 0, set_re = 0;
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'P':
            if (!*optarg || strlen(optarg) > PROBE_LAB_PREFIX_MAX ||
                strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(optarg)) {
                fprintf(stderr, "fragvote lab: --prefix must be 1..%d of [A-Za-z0-9_-], not '%s'\n",
                        PROBE_LAB_PREFIX_MAX, optarg);
                return FV_EXIT_USAGE;
            }
            snprintf(cfg.prefix, sizeof cfg.prefix, "%s", optarg);
            break;
        case 'm':
            if (probe_lab_parse_mtus(optarg, &cfg, err, sizeof err) < 0) {
                fprintf(stderr, "fragvote lab: %s\n", err);
                return FV_EXIT_USAGE;
            }
            set_mtu = 1;
            break;
        case 'r':
            if (!strcmp(optarg, "r1")) cfg.reassemble = 1;
            else if (!strcmp(optarg, "r2")) cfg.reassemble = 2;
            else if (!strcmp(optarg, "none")) cfg.reassemble = 0;
            else {
                fprintf(stderr, "fragvote lab: --reassemble wants r1, r2 or none, not \"%s\"\n", optarg);
                return FV_EXIT_USAGE;
            }
            set_re = 1;
            break;
        default:
            fprintf(stderr, "fragvote lab: unknown or incomplete option '%s'\n", argv[optind - 1]);
            lab_usage(stderr);
            return FV_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fragvote lab: say up, down or status\n");
        lab_usage(stderr);
        return FV_EXIT_USAGE;
    }
    const char *verb = argv[optind];
    struct probe_lab lab;
    if (!strcmp(verb, "up")) {
        double t0 = fv_clock_ms_frac();
        int rc = probe_lab_up(&cfg, &lab, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "fragvote lab up: %s\n", err);
            return cli_exit_probe(rc);
        }
        char desc[768];
        probe_lab_describe(&lab, desc, sizeof desc);
        printf("%s\nup in %.0f ms\n", desc, fv_clock_ms_frac() - t0);
        return FV_EXIT_OK;
    }
    if (set_mtu || set_re) {
        fprintf(stderr, "fragvote lab %s: --mtu and --reassemble only go with `up`\n", verb);
        return FV_EXIT_USAGE;
    }
    if (!strcmp(verb, "down")) {
        int rc = probe_lab_down(cfg.prefix, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "fragvote lab down: %s\n", err);
            return FV_EXIT_FAIL;
        }
        printf(rc ? "lab \"%s\" removed\n" : "no lab \"%s\" to remove\n", cfg.prefix);
        return FV_EXIT_OK;
    }
    if (!strcmp(verb, "status")) {
        int rc = probe_lab_status(cfg.prefix, &lab, err, sizeof err);
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
        char desc[768];
        probe_lab_describe(&lab, desc, sizeof desc);
        printf("%s\n", desc);
        return FV_EXIT_OK;
    }
    fprintf(stderr, "fragvote lab: unknown action '%s' (up, down or status)\n", verb);
    return FV_EXIT_USAGE;
}
