/* fragvote serve's command line: its options (struct serve_opts), their
 * parser with every check that needs nothing but the command line, and
 * --help. cmd_serve.c wires what they say together. */
#ifndef FRAGVOTE_SERVE_OPTS_H
#define FRAGVOTE_SERVE_OPTS_H

#include <stdio.h>

#include "cli_engine_args.h"
#include "cli_listen.h"
#include "cli_secret.h"
#include "hub.h"

#define SERVE_DB_DEFAULT "fragvote.db"
#define SERVE_HTTP_RATE_MAX 1000000

struct serve_opts {
    const char *deck, *db, *title, *script, *room;
    const char *lang;                 /* --lang: the pages' language (NULL: the deck's) */
    const char *questions;             /* --questions LIST: the talk's questions of the deck (deck_select) */
    const char *frame_ancestors;   /* --frame-ancestors: who may frame the projector's page (hub_config) */
    const char *secret;            /* from secret_src (--secret-file, --secret, $FRAGVOTE_SECRET); NULL: random */
    struct cli_secret secret_src;  /* secret may point into it: *o is not copied */
    const char *tls_cert, *tls_key;
    struct cli_engine_args engine; /* --target, --observer, --witness..., --keep-pmtu-cache, --keep-root */
    struct cli_listen listen;      /* --bind, --port, --public-url, --poll, --libev */
    int live_split, no_prefetch, no_qr, leaderboard;
    int prober_remote;             /* --prober remote: no probe here, the laptop measures (hub_prober.c) */
    int timer_s;                   /* the console's 't' key: voting timer in seconds */
    int http_rate;                 /* hub_config.http_rate: 0 default, -1 no cap */
    int voter_rate;                /* hub_config.voter_rate: 0 default, -1 no cap */
    int ws_per_addr;               /* hub_config.ws_per_addr: 0 default, -1 no cap */
    struct hub_proxy trust_proxy;  /* --trust-proxy (n 0: X-Forwarded-For is never read) */
    long long resume;              /* session id to continue, 0 = a new session */
    long retain;                   /* --retain DAYS: purge older sessions' voters at start; -1: never */
};

/* Reads serve's command line into *o (its strings point into argv): -1
 * when serve goes on; else the exit code it ends with: FV_EXIT_OK after
 * --help on stdout, FV_EXIT_USAGE after "fragvote serve: why" and the hint
 * on stderr. */
int serve_opts_read(int argc, char **argv, struct serve_opts *o);

#endif
