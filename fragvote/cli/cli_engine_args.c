/* The probe engine's shared options (cli_engine_args.h). */
#include "cli_engine_args.h"

#include <stdio.h>
#include <string.h>

#include "fragprobe.h"

int cli_engine_arg(struct cli_engine_args *o, int c, const char *arg) {
    switch (c) {
    case CLI_ENGINE_A_TARGET: o->target = arg; return 1;
    case CLI_ENGINE_A_OBSERVER: o->observer = arg; return 1;
    case CLI_ENGINE_A_KEEP_PMTU: o->keep_pmtu_cache = 1; return 1;
    case CLI_ENGINE_A_WITNESS: o->witness = arg; return 1;
    case CLI_ENGINE_A_WITNESS_KEY: o->witness_key = arg; return 1;
    case CLI_ENGINE_A_NO_WITNESS: o->witness = "none"; return 1;
    case CLI_ENGINE_A_KEEP_ROOT: o->keep_root = 1; return 1;
    case CLI_ENGINE_A_USER: o->user = arg; return 1;
    default: return 0;
    }
}

int cli_engine_args_next(struct cli_engine_args *e, int argc, char **argv, const struct option *longopts) {
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1)
        if (!cli_engine_arg(e, c, optarg)) break;
    return c;
}

int cli_engine_args_check(const char *cmd, const struct cli_engine_args *o) {
    if (o->target && strlen(o->target) >= sizeof(((struct probe_spec *)0)->host)) {
        fprintf(stderr, "fragvote %s: --target is too long\n", cmd);
        return -1;
    }
    if (o->user && o->keep_root) {
        fprintf(stderr, "fragvote %s: --user drops root, --keep-root keeps it: give one\n", cmd);
        return -1;
    }
    return 0;
}
