/* Where a hub listens: the options serve, replay --serve and check share (cli_listen.h). */
#include "cli_listen.h"

#include "cli.h"

void cli_listen_init(struct cli_listen *l) { *l = (struct cli_listen){.port = CLI_LISTEN_PORT_DEFAULT}; }

int cli_listen_arg(const char *cmd, struct cli_listen *l, int c, const char *arg, int port_lo) {
    switch (c) {
    case CLI_LISTEN_A_BIND: l->bind = arg; return 0;
    case CLI_LISTEN_A_PUBLIC_URL: l->public_url = arg; return 0;
    case CLI_LISTEN_A_PORT: return cli_opt_int(cmd, "port", arg, port_lo, 65535, NULL, &l->port);
    case CLI_LISTEN_A_POLL: l->poll = 1; return 0;
    case CLI_LISTEN_A_LIBEV: l->libev = 1; return 0;
    default: return 0;
    }
}
