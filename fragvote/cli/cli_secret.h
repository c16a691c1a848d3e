/* The presenter secret on the command line of serve and present, without
 * putting it in argv: --secret-file FILE (a systemd credential, a 0600
 * file), $FRAGVOTE_SECRET, or --secret TEXT (visible to every local user in
 * ps; kept for rehearsals). And serve's rule for a secret it is given:
 * not the shipped placeholder, at least CLI_SECRET_MIN bytes
 * (docs/SECURITY.md says why 16). */
#ifndef FRAGVOTE_CLI_SECRET_H
#define FRAGVOTE_CLI_SECRET_H

#include <stddef.h>

#define CLI_SECRET_ENV "FRAGVOTE_SECRET"
#define CLI_SECRET_MIN 16       /* bytes; shorter ones are refused by serve */
#define CLI_SECRET_MAX 127      /* bytes; the hub's HUB_SECRET_MAX - 1 */
#define CLI_SECRET_MIN_TEXT "16"
/* The value deploy/systemd/room1.env once shipped: refused however long. */
#define CLI_SECRET_PLACEHOLDER "change-me-before-the-talk"

struct cli_secret {
    const char *arg;            /* --secret TEXT, or NULL */
    const char *file;           /* --secret-file FILE, or NULL */
    char buf[CLI_SECRET_MAX + 2];
};

/* The secret s's options and the environment give: --secret-file, else
 * --secret, else $FRAGVOTE_SECRET; *out is NULL when none is given (serve
 * then makes a random one). 0, or -1 after "fragvote CMD: why" on stderr
 * (both options, an unreadable, empty or too long file). A file's one
 * trailing newline (LF or CRLF) is not part of the secret. */
int cli_secret_resolve(const char *cmd, struct cli_secret *s, const char **out);

/* serve's rule: 0 when secret may guard the presenter; else -1 after
 * "fragvote CMD: why" on stderr (the placeholder, shorter than
 * CLI_SECRET_MIN bytes). */
int cli_secret_strong(const char *cmd, const char *secret);

#endif
