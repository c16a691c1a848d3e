/* Where a hub listens, the options that serve, replay --serve and check
 * share: --bind, --port and --public-url (the join URL's parts: check
 * takes serve's to judge the URL serve would show), and the event loop's
 * --poll and --libev (serve, replay --serve). A subcommand puts the groups
 * it takes into its getopt_long table (the CLI_LISTEN_ARGS_* entries) and
 * hands those options (CLI_LISTEN_CASES) to cli_listen_arg. Each --help
 * keeps its own lines: they differ per subcommand. */
#ifndef FRAGVOTE_CLI_LISTEN_H
#define FRAGVOTE_CLI_LISTEN_H

#include <getopt.h>

#define CLI_LISTEN_PORT_DEFAULT 8080

struct cli_listen {
    const char *bind;       /* --bind ADDR; NULL: every address */
    const char *public_url; /* --public-url URL; NULL: the URL is made from the address */
    int port;               /* --port N; CLI_LISTEN_PORT_DEFAULT unless given */
    int poll;               /* --poll: lws's poll() loop instead of libev (hub_config.use_poll) */
    int libev;              /* --libev: the default loop, accepted for old scripts */
};

/* getopt_long values of the shared options (above any short option's and
 * cli_engine_args.h's). */
enum { CLI_LISTEN_A_BIND = 0x1100, CLI_LISTEN_A_PORT, CLI_LISTEN_A_PUBLIC_URL, CLI_LISTEN_A_POLL, CLI_LISTEN_A_LIBEV };

/* Entries of a getopt_long table: the address group (serve, replay, check)
 * and the loop group (serve, replay). */
#define CLI_LISTEN_ARGS_ADDR                                                                                      \
    {"bind", required_argument, NULL, CLI_LISTEN_A_BIND}, {"port", required_argument, NULL, CLI_LISTEN_A_PORT},       \
        {"public-url", required_argument, NULL, CLI_LISTEN_A_PUBLIC_URL}
#define CLI_LISTEN_ARGS_LOOP {"poll", no_argument, NULL, CLI_LISTEN_A_POLL}, {"libev", no_argument, NULL, CLI_LISTEN_A_LIBEV}
/* The case labels of a subcommand's switch that go to cli_listen_arg. */
#define CLI_LISTEN_CASES                                                                                          \
    case CLI_LISTEN_A_BIND:                                                                                       \
    case CLI_LISTEN_A_PORT:                                                                                       \
    case CLI_LISTEN_A_PUBLIC_URL:                                                                                 \
    case CLI_LISTEN_A_POLL:                                                                                       \
    case CLI_LISTEN_A_LIBEV

/* No option given yet: every address, CLI_LISTEN_PORT_DEFAULT, libev. */
void cli_listen_init(struct cli_listen *l);
/* One of the shared options (c, with its arg) into *l: 0, or -1 after
 * "fragvote CMD: --port wants PORT_LO..65535, not 'ARG'" on stderr
 * (port_lo: 0 where 0 means any free port, 1 where a real one is meant). */
int cli_listen_arg(const char *cmd, struct cli_listen *l, int c, const char *arg, int port_lo);

#endif
