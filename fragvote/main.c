/* fragvote: subcommand dispatch. The top level is the only place that decides
 * the exit code; subcommands return it. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    {"serve", cmd_serve, "run a live quiz: console, phones, projector (default)"},
    {"present", cmd_present, "present a hosted room: this console and probe, one outbound websocket"},
    {"play", cmd_play, "fragquiz's game alone at a terminal: answer y/n, see the truth, get a score"},
    {"probe", cmd_probe, "send one test (or a whole deck) and show what the network did"},
    {"lab", cmd_lab, "build, inspect or remove the network-namespace lab"},
    {"witness", cmd_witness, "the far end: report what arrived of each probe (fragments, size, TTL)"},
    {"pmtu", cmd_pmtu, "show or flush the path-MTU cache; 1-RTT path-MTU discovery"},
    {"sessions", cmd_sessions, "list recorded sessions with their collective score; purge their voters"},
    {"replay", cmd_replay, "replay a recorded session in the terminal or on the projector"},
    {"export", cmd_export, "export a session's score summary (csv, json, markdown, svg)"},
    {"check", cmd_check, "the venue check before a talk: join URL, targets, ICMP, privileges, witness, IPv6"},
};
#define N_SUBCOMMANDS (sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote [COMMAND] [OPTIONS]\n"
            "\n"
            "A live audience quiz on IP fragmentation: the room votes from phones, then\n"
            "the laptop sends the packet for real and the projector shows the truth.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        fprintf(out, "  %-9s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out,
            "\n"
            "With no command, fragvote runs `serve` with its defaults: the built-in\n"
            "deck, the namespace lab as target, ./fragvote.db, port 8080.\n"
            "\n"
            "Options:\n"
            "  -h, --help     show this help (or `fragvote COMMAND --help`)\n"
            "  -V, --version  show the version\n"
            "\n"
            "Exit codes: 0 ok, 1 failed, 2 usage error, 3 missing privilege,\n"
            "4 unknown host, 5 no IPv6, 6 timeout, 7 database error, 8 no route,\n"
            "9 ICMP-silent path, 10 a venue check failed (fragvote check).\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        char *def[] = {"serve", NULL};
        return cmd_serve(1, def);
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return FV_EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("fragvote %s\n", FRAGVOTE_VERSION);
        return FV_EXIT_OK;
    }
    if (cmd[0] == '-') {
        /* `fragvote --port 9000` means `fragvote serve --port 9000`. */
        argv[0] = "serve";
        return cmd_serve(argc, argv);
    }
    for (size_t i = 0; i < N_SUBCOMMANDS; i++)
        if (!strcmp(cmd, subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fragvote: unknown command '%s'\nTry 'fragvote --help'.\n", cmd);
    return FV_EXIT_USAGE;
}
