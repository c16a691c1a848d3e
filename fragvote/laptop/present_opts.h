/* fragvote present's command line: its options (struct present_opts), their
 * parser with every check that needs nothing but the command line, and
 * --help. cmd_present.c wires what they say together. */
#ifndef FRAGVOTE_PRESENT_OPTS_H
#define FRAGVOTE_PRESENT_OPTS_H

#include "cli_engine_args.h"
#include "cli_secret.h"

#define PRESENT_EXPORTS_MAX 4      /* --export files per run */

struct present_opts {
    const char *url, *secret, *deck, *script, *ca;
    struct cli_secret secret_src;      /* --secret-file, --secret, $FRAGVOTE_SECRET; secret may point into it */
    struct cli_engine_args engine;     /* --target ... --keep-root: as serve's */
    int no_qr, take_over;
    int timer_s;
    const char *export_file[PRESENT_EXPORTS_MAX], *export_format[PRESENT_EXPORTS_MAX];
    int nexports;
};

/* Reads present's command line into *o (its strings point into argv; *o is
 * not copied: secret may point into secret_src): -1 when present goes on;
 * else the exit code it ends with: FV_EXIT_OK after --help on stdout,
 * FV_EXIT_USAGE after "fragvote present: why" and the hint on stderr. */
int present_opts_read(int argc, char **argv, struct present_opts *o);

#endif
