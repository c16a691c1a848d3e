/* fragvote sessions — placeholder until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cmd_sessions(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        printf("Usage: fragvote sessions [OPTIONS]\n\nNot implemented yet.\n");
        return FV_EXIT_OK;
    }
    return cli_not_implemented("sessions");
}
