/* The presenter secret from a file, the environment or argv (cli_secret.h). */
#include "cli_secret.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads FILE's secret into s->buf: 0, or -1 after saying why. */
static int read_file(const char *cmd, struct cli_secret *s) {
    FILE *f = fopen(s->file, "rb");
    if (!f) {
        fprintf(stderr, "fragvote %s: --secret-file %s: %s\n", cmd, s->file, strerror(errno));
        return -1;
    }
    size_t n = fread(s->buf, 1, sizeof s->buf - 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "fragvote %s: --secret-file %s: read error\n", cmd, s->file);
        return -1;
    }
    s->buf[n] = '\0';
    if (n && s->buf[n - 1] == '\n') s->buf[--n] = '\0';
    if (n && s->buf[n - 1] == '\r') s->buf[--n] = '\0';
    if (n > CLI_SECRET_MAX) {
        fprintf(stderr, "fragvote %s: --secret-file %s: the secret is longer than %d bytes\n", cmd, s->file,
                CLI_SECRET_MAX);
        return -1;
    }
    if (!n || strlen(s->buf) != n) {
        fprintf(stderr, "fragvote %s: --secret-file %s: %s\n", cmd, s->file,
                n ? "the secret holds a NUL byte" : "the file is empty");
        return -1;
    }
    return 0;
}

int cli_secret_resolve(const char *cmd, struct cli_secret *s, const char **out) {
    *out = NULL;
    if (s->arg && s->file) {
        fprintf(stderr, "fragvote %s: give --secret or --secret-file, not both\n", cmd);
        return -1;
    }
    if (s->file) {
        if (read_file(cmd, s)) return -1;
        *out = s->buf;
        return 0;
    }
    const char *v = s->arg ? s->arg : getenv(CLI_SECRET_ENV);
    if (v && *v) *out = v;
    return 0;
}

int cli_secret_strong(const char *cmd, const char *secret) {
    if (!strcmp(secret, CLI_SECRET_PLACEHOLDER)) {
        fprintf(stderr, "fragvote %s: the presenter secret is the example's placeholder \"%s\": make one, e.g.\n"
                        "  head -c 18 /dev/urandom | base64\n", cmd, CLI_SECRET_PLACEHOLDER);
        return -1;
    }
    if (strlen(secret) < CLI_SECRET_MIN) {
        fprintf(stderr, "fragvote %s: the presenter secret is shorter than %d bytes (docs/SECURITY.md); make one,\n"
                        "  e.g. head -c 18 /dev/urandom | base64, or give none for a random one\n", cmd,
                CLI_SECRET_MIN);
        return -1;
    }
    return 0;
}
