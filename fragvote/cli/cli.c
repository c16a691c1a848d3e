#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fragprobe.h"

int cli_not_implemented(const char *cmd) {
    fprintf(stderr, "fragvote %s: not implemented yet\n", cmd);
    return FV_EXIT_USAGE;
}

int cli_exit_probe(int rc) {
    switch (rc) {
    case PROBE_E_PERM: return FV_EXIT_PERM;
    case PROBE_E_HOST: return FV_EXIT_HOST;
    case PROBE_E_NOROUTE: return FV_EXIT_NOROUTE;
    case PROBE_E_NOV6: return FV_EXIT_NOV6;
    case PROBE_E_TIMEOUT: return FV_EXIT_TIMEOUT;
    case PROBE_E_SILENT: return FV_EXIT_SILENT;
    default: return FV_EXIT_FAIL;
    }
}

int cli_parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) return 0;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    }
    return 0;
}

int cli_help(int argc, char **argv, void (*usage)(FILE *out)) {
    if (!cli_wants_help(argc, argv)) return 0;
    usage(stdout);
    return 1;
}

int cli_opts_end(int rc, const char *cmd, void (*usage)(FILE *out)) {
    if (rc > 0) {
        usage(stdout);
        return FV_EXIT_OK;
    }
    if (rc < 0) {
        fprintf(stderr, "Try 'fragvote %s --help'.\n", cmd);
        return FV_EXIT_USAGE;
    }
    return -1;
}

void cli_opt_begin(void) {
    optind = 1;
    opterr = 0;
}

int cli_opt_other(const char *cmd, int c, char **argv) {
    if (c == 'h') return 1;
    if (c == ':') fprintf(stderr, "fragvote %s: %s needs a value\n", cmd, argv[optind - 1]);
    else fprintf(stderr, "fragvote %s: unknown option '%s'\n", cmd, argv[optind - 1]);
    return -1;
}

int cli_opt_store(int c, const struct cli_opt_store *t, size_t n, void *opts) {
    for (size_t i = 0; i < n; i++) {
        if (t[i].code != c) continue;
        void *f = (char *)opts + t[i].off;
        if (t[i].flag) *(int *)f = 1;
        else *(const char **)f = optarg;
        return 1;
    }
    return 0;
}

int cli_opt_no_args(const char *cmd, int argc, char **argv) {
    if (optind >= argc) return 0;
    fprintf(stderr, "fragvote %s: unexpected argument '%s'\n", cmd, argv[optind]);
    return -1;
}

int cli_opt_range(const char *cmd, const char *name, const char *arg, long lo, long hi, const char *unit, long *out) {
    if (!cli_parse_long(arg, lo, hi, out)) return 0;
    fprintf(stderr, "fragvote %s: --%s wants %ld..%ld%s%s, not '%s'\n", cmd, name, lo, hi, unit ? " " : "",
            unit ? unit : "", arg);
    return -1;
}

int cli_opt_int(const char *cmd, const char *name, const char *arg, int lo, int hi, const char *unit, int *out) {
    long v;
    if (cli_opt_range(cmd, name, arg, lo, hi, unit, &v)) return -1;
    *out = (int)v;
    return 0;
}

int cli_opt_fail(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fragvote %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}
