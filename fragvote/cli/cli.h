/* Subcommand entry points and the exit codes every subcommand shares.
 * Each cmd_* lives in its own fragvote/cmd_<name>.c; argv[0] is the
 * subcommand name; it returns the process exit code (never calls exit). */
#ifndef FRAGVOTE_CLI_H
#define FRAGVOTE_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "fv_err.h"

/* Documented in README.md "Exit codes"; keep both in step. */
enum fv_exit {
    FV_EXIT_OK = 0,          /* success */
    FV_EXIT_FAIL = 1,        /* the job ran and failed (I/O, database, probe error) */
    FV_EXIT_USAGE = 2,       /* misuse: bad flag or argument, or subcommand not implemented yet */
    FV_EXIT_PERM = 3,        /* missing privilege (CAP_NET_RAW / CAP_NET_ADMIN / root) */
    FV_EXIT_HOST = 4,        /* unknown host (name does not resolve) */
    FV_EXIT_NOV6 = 5,        /* IPv6 unavailable on this host */
    FV_EXIT_TIMEOUT = 6,     /* timed out: no answer within the deadline */
    FV_EXIT_DB = 7,          /* database could not be opened, migrated or written */
    FV_EXIT_NOROUTE = 8,     /* no route to the target address */
    FV_EXIT_SILENT = 9,      /* ICMP-silent path: no hop ever answered TTL discovery */
    FV_EXIT_CHECK = 10,      /* fragvote check: at least one check failed (a ✘ line) */
};

int cmd_serve(int argc, char **argv);
int cmd_present(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_lab(int argc, char **argv);
int cmd_pmtu(int argc, char **argv);
int cmd_witness(int argc, char **argv);
int cmd_sessions(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* The exit code of a probe error (a negative PROBE_E_* from probe/): the one
 * mapping of probe errors to the documented codes above; anything else is
 * FV_EXIT_FAIL. */
int cli_exit_probe(int probe_rc);

/* The store, opened for subcommand cmd ("serve", "export"...): FV_EXIT_OK
 * and *db (the caller's: db_close), or FV_EXIT_DB after printing "fragvote
 * CMD: why" on stderr. cli_store_open creates a missing file (a session is
 * about to be recorded); cli_store_read refuses one (never creates it),
 * migrates an older schema, refuses a newer one, and opens a report reader
 * *r too (db_report_close, then db_close). */
struct db;
struct db_report;
int cli_store_open(const char *cmd, const char *path, struct db **db);
int cli_store_read(const char *cmd, const char *path, struct db **db, struct db_report **r);

/* This machine's host name (gethostname) and kernel ("uname -sr"; "unknown"
 * when either fails), as a session records them (cli_host.c). */
void cli_host_facts(char *host, size_t hostlen, char *kernel, size_t kernellen);

/* Prints "fragvote CMD: not implemented yet" on stderr; returns FV_EXIT_USAGE. */
int cli_not_implemented(const char *cmd);
/* A whole decimal number in lo..hi (no trailing text, no overflow): 0 and
 * *out, or -1 (out untouched). The one parser of numeric CLI arguments. */
int cli_parse_long(const char *s, long lo, long hi, long *out);
/* True when argv holds -h or --help (before any "--"). */
int cli_wants_help(int argc, char **argv);
/* cli_wants_help, and if so usage(stdout): 1; else 0. */
int cli_help(int argc, char **argv, void (*usage)(FILE *out));
/* Before a subcommand's getopt_long loop: it starts over at argv[1], and
 * getopt itself prints nothing (cli_opt_other says what was wrong). */
void cli_opt_begin(void);
/* The end of a getopt_long switch (optstring ":h", opterr 0) for what no
 * case took: 'h' (-h, --help): 1; ':' (a value missing): "fragvote CMD:
 * OPT needs a value" on stderr and -1; anything else: "fragvote CMD:
 * unknown option 'OPT'" and -1. */
int cli_opt_other(const char *cmd, int c, char **argv);
/* After getopt_long: 0 when no argument is left (from optind on), else
 * "fragvote CMD: unexpected argument 'ARG'" on stderr and -1. */
int cli_opt_no_args(const char *cmd, int argc, char **argv);
/* The value of --NAME (arg) as a whole number in lo..hi: 0 and *out, or -1
 * after "fragvote CMD: --NAME wants LO..HI[ UNIT], not 'ARG'" on stderr
 * (unit NULL: none). */
int cli_opt_range(const char *cmd, const char *name, const char *arg, long lo, long hi, const char *unit, long *out);
/* cli_opt_range into an int. */
int cli_opt_int(const char *cmd, const char *name, const char *arg, int lo, int hi, const char *unit, int *out);
/* A command line refused for a reason of the subcommand's own: "fragvote
 * CMD: " and the formatted text on stderr; returns -1, the option parser's
 * "said why" (cli_opts_end then adds the --help hint). */
int cli_opt_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Options that only store what they were given: a string (optarg) or a
 * flag (1), into a field of the command's options struct. The macros check
 * the field's type (const char * or int): another does not compile. */
struct cli_opt_store {
    int code;   /* getopt_long's value for the option */
    size_t off; /* the field */
    int flag;   /* 1: set the int to 1; 0: point the string at optarg */
};
#define CLI_STORE_STR(code, type, field) {code, _Generic(((type *)0)->field, const char *: offsetof(type, field)), 0}
#define CLI_STORE_FLAG(code, type, field) {code, _Generic(((type *)0)->field, int: offsetof(type, field)), 1}
/* Option c (its value in optarg) into opts when the table t of n names it:
 * 1 stored, 0 not one of these. */
int cli_opt_store(int c, const struct cli_opt_store *t, size_t n, void *opts);
/* What a subcommand does with its option parser's result rc: 1 (--help):
 * usage on stdout, FV_EXIT_OK; -1 (the parser said why on stderr): "Try
 * 'fragvote CMD --help'." and FV_EXIT_USAGE; 0: -1, go on. */
int cli_opts_end(int rc, const char *cmd, void (*usage)(FILE *out));

#endif
