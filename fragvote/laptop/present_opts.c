/* fragvote present's options and --help (present_opts.h). */
#include "present_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "console.h"
#include "hub_control.h"
#include "witness_cli.h"

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
            "  --keep-root          started as root: one process that keeps root (as serve:\n"
            "                       by default a privileged helper measures, the process\n"
            "                       that talks to the hub keeps no capability, and both\n"
            "                       become the user of SUDO_UID, DOAS_USER or PKEXEC_UID)\n"
            "  --user NAME          started as root: drop to NAME; from a root shell or su,\n"
            "                       where none is set, present becomes nobody after opening\n"
            "                       its script, --ca and each --export file\n"
            "  -h, --help           show this help\n"
            "\n"
            "Console keys as serve's (o t c v m r w n e s a b f p ?); q quits this laptop's\n"
            "console only: the hosted room goes on, and present can connect again.\n"
            "\n"
            "Exit codes: 0 ok, 1 failed (a refused secret or prober, a failed script),\n"
            "2 usage, 3 missing privilege, 4 unknown target host, 5 no IPv6.\n",
            PRESENT_EXPORTS_MAX, HUB_COUNTDOWN_MAX_S, CONSOLE_TIMER_S_DEFAULT);
}

static int parse(int argc, char **argv, struct present_opts *o) {
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
        case O_TIMER:
            if (cli_opt_int("present", "timer", optarg, 1, HUB_COUNTDOWN_MAX_S, "seconds", &o->timer_s)) return -1;
            break;
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

int present_opts_read(int argc, char **argv, struct present_opts *o) {
    return cli_opts_end(parse(argc, argv, o), "present", usage);
}
