/* fragvote lab — placeholder until its issue lands. */
#include <stdio.h>

#include "cli.h"

int cmd_lab(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        printf("Usage: fragvote lab [OPTIONS]\n\nNot implemented yet.\n");
        return FV_EXIT_OK;
    }
    return cli_not_implemented("lab");
}
