/* The command-line options of the local probe engine that the measuring
 * subcommands share (serve, present, play): where to probe (--target), how
 * to observe (--observer), the PMTU cache (--keep-pmtu-cache), the far-end
 * witness (--witness, --witness-key, --no-witness) and the privilege drop
 * (--keep-root). A subcommand puts the groups it takes into its getopt_long
 * table (the CLI_ENGINE_ARGS_* entries) and hands every option to
 * cli_engine_arg first; what these options mean at run time is
 * cli_engine.h's. Each --help keeps its own lines: they differ per
 * subcommand. */
#ifndef FRAGVOTE_CLI_ENGINE_ARGS_H
#define FRAGVOTE_CLI_ENGINE_ARGS_H

#include <getopt.h>

struct cli_engine_args {
    const char *target;     /* --target HOST or "lab"; NULL: the deck's */
    const char *observer;   /* --observer MODE; NULL: the deck's */
    const char *witness;    /* --witness W; --no-witness: "none"; NULL: the deck's */
    const char *witness_key;/* --witness-key HEX; NULL: $FRAGVOTE_WITNESS_KEY */
    int keep_pmtu_cache;    /* --keep-pmtu-cache */
    int keep_root;          /* --keep-root */
    const char *user;       /* --user NAME: whom root becomes; NULL: sudo's, doas's or pkexec's user */
};

/* getopt_long values of the shared options (above any short option's). */
enum {
    CLI_ENGINE_A_TARGET = 0x1000, CLI_ENGINE_A_OBSERVER, CLI_ENGINE_A_KEEP_PMTU, CLI_ENGINE_A_WITNESS,
    CLI_ENGINE_A_WITNESS_KEY, CLI_ENGINE_A_NO_WITNESS, CLI_ENGINE_A_KEEP_ROOT, CLI_ENGINE_A_USER
};

/* Entries of a getopt_long table: the target group (serve, present, play),
 * the witness group (serve, present), --keep-root and --user (serve, present). */
#define CLI_ENGINE_ARGS_TARGET                                                                                    \
    {"target", required_argument, NULL, CLI_ENGINE_A_TARGET},                                                         \
        {"observer", required_argument, NULL, CLI_ENGINE_A_OBSERVER},                                                 \
        {"keep-pmtu-cache", no_argument, NULL, CLI_ENGINE_A_KEEP_PMTU}
#define CLI_ENGINE_ARGS_WITNESS                                                                                   \
    {"witness", required_argument, NULL, CLI_ENGINE_A_WITNESS},                                                       \
        {"witness-key", required_argument, NULL, CLI_ENGINE_A_WITNESS_KEY},                                           \
        {"no-witness", no_argument, NULL, CLI_ENGINE_A_NO_WITNESS}
#define CLI_ENGINE_ARGS_ROOT                                                                                      \
    {"keep-root", no_argument, NULL, CLI_ENGINE_A_KEEP_ROOT}, {"user", required_argument, NULL, CLI_ENGINE_A_USER}

/* One option getopt_long returned (c, with its arg): 1 when it is one of
 * the shared options (stored in *o; arg is kept, not copied), 0 when it is
 * the subcommand's own. */
int cli_engine_arg(struct cli_engine_args *o, int c, const char *arg);
/* The next option of a subcommand's getopt_long loop (optstring ":h",
 * after cli_opt_begin) that is not one of the shared options, which go to
 * *e: c for the subcommand's own switch, or -1 at the end. */
int cli_engine_args_next(struct cli_engine_args *e, int argc, char **argv, const struct option *longopts);
/* After the loop: 0, or -1 after "fragvote CMD: why" on stderr (--target
 * too long for a probe_spec's host; --user with --keep-root). */
int cli_engine_args_check(const char *cmd, const struct cli_engine_args *o);

#endif
