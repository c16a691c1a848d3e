/* fragvote serve's options and --help (serve_opts.h). */
#include "serve_opts.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_purge.h"
#include "console.h"
#include "deck.h"
#include "hub.h"
#include "hub_origin.h"
#include "leaderboard.h"
#include "room.h"
#include "witness_cli.h"

/* --help, in three parts (what and where, the room and its limits, secrets,
 * loop, TLS, privileges and the console's keys): one fprintf each, its
 * numbers beside its text. */
static void usage_where(FILE *out) {
    fprintf(out,
            "Usage: fragvote serve [OPTIONS]\n"
            "\n"
            "Runs a live quiz: phones vote on the join URL, the laptop sends each test\n"
            "packet for real, the projector shows the truth, SQLite records everything.\n"
            "\n"
            "Options:\n"
            "  --deck FILE          deck to play (default: the built-in fragquiz deck)\n"
            "  --questions LIST     play only these of the deck's questions, numbered as the\n"
            "                       console counts them: e.g. 1-9,19 (a 30-minute talk);\n"
            "                       serve prints the talk's estimated length\n"
            "  --prober WHERE       local (default): measure on this host; remote: a hosted hub\n"
            "                       that runs no probe: the presenter's laptop connects with\n"
            "                       `fragvote present URL` and measures there (docs/SERVE.md)\n"
            "  --target HOST        probe this host instead of the deck's target; \"lab\"\n"
            "                       (the default) builds the namespace lab and removes it on exit\n"
            "  --db FILE            database file (default: ./" SERVE_DB_DEFAULT ")\n"
            "  --port N             HTTP/websocket port (default: %d; 0 = any free port)\n"
            "  --bind ADDR          listen on this address only (default: all addresses); the\n"
            "                       join URL names it unless --public-url is given\n"
            "  --public-url URL     join URL to show (reverse proxy, DNS name)\n"
            "  --frame-ancestors SOURCES\n"
            "                       the sites whose pages may show the projector's page\n"
            "                       (/screen/, /screen/?q=N) in a frame, e.g. a slide deck:\n"
            "                       'self' and origins http[s]://HOST[:PORT], space-separated\n"
            "                       (docs/SLIDES.md). Default: no site may frame it. The\n"
            "                       phone's and the presenter's pages are never framed\n"
            "  --title TEXT         session title (default: the deck's)\n"
            "  --lang CODE          the projector's and presenter page's language: de, fr, es,\n"
            "                       en ... (default: the deck's \"lang\", else English; a\n"
            "                       language without a catalog shows English). Phones follow\n"
            "                       their browser's language (docs/LANGUAGES.md)\n"
            "  --observer MODE      auto, raw or recverr (default: the deck's, else auto)\n"
            "  --witness W          far-end witness: HOST:PORT of `fragvote witness` (the\n"
            "                       target's host), \"lab\" (one in the lab's dst; the default\n"
            "                       with the lab) or \"none\" (default: the deck's \"witness\")\n"
            "  --witness-key HEX    its key (32 hex digits; also $" WITNESS_CLI_KEY_ENV ")\n"
            "  --no-witness         the near end only\n",
            CLI_LISTEN_PORT_DEFAULT);
}

static void usage_room(FILE *out) {
    fprintf(out,
            "  --live-split         show the yes/no split to the room while it votes\n"
            "  --leaderboard        phones may pick a nickname (optional, at most %d bytes,\n"
            "                       control characters dropped, kept in memory only); the\n"
            "                       final screen shows the top %d by personal score\n"
            "  --keep-pmtu-cache    do not flush the PMTU cache before each test\n"
            "  --no-prefetch        do not start probing while the room votes\n"
            "  --timer SECONDS      voting timer of the console's t key (1..%d, default %d):\n"
            "                       voting closes by itself when it runs out\n"
            "  --http-rate N        page requests per second per phone address (default %d,\n"
            "                       burst 5x; beyond: 429). 0: no cap, e.g. behind a reverse\n"
            "                       proxy on another host, where every phone has its address\n"
            "  --voter-rate N       new voters per second per phone address after a burst of\n"
            "                       %d (default %d; beyond: the first vote is refused busy).\n"
            "                       0: no cap (reverse proxy on another host, huge NAT)\n"
            "  --ws-per-address N   phone websockets open at once per address (IPv6: per /64;\n"
            "                       default %d, which a venue NATing 2,000 phones stays under;\n"
            "                       beyond: 503). 0: no cap. Screens and presenter pages keep\n"
            "                       %d places of the room whatever the phones do\n"
            "  --trust-proxy ADDR   a reverse proxy in front of serve (IPv4/IPv6 address or\n"
            "                       network ADDR/BITS; a comma list or repeated, at most %d):\n"
            "                       the per-address limits (--http-rate, --voter-rate, wrong\n"
            "                       secrets) read the address from X-Forwarded-For when a\n"
            "                       request comes from ADDR, never otherwise (docs/DEPLOY.md)\n"
            "  --script FILE        read console commands from FILE (rehearsal, tests)\n"
            "  --resume ID          continue session ID after a crash or restart (same deck,\n"
            "                       room code, votes and measurements)\n"
            "  --retain DAYS        at start, delete the voters of every ended session that\n"
            "                       started more than DAYS days ago (0..%d): their token\n"
            "                       hashes go, their votes stay without a voter, so scores,\n"
            "                       replay and export read as before (docs/PRIVACY.md;\n"
            "                       fragvote sessions purges by hand)\n",
            LEADERBOARD_NICK_MAX, LEADERBOARD_TOP, HUB_COUNTDOWN_MAX_S, CONSOLE_TIMER_S_DEFAULT, HUB_HTTP_RATE,
            HUB_VOTER_BURST, HUB_VOTER_RATE, HUB_WS_PER_ADDR, HUB_CONN_RESERVE, HUB_PROXY_MAX, CLI_PURGE_DAYS_MAX);
}

static void usage_rest(FILE *out) {
    fprintf(out,
            "  --secret-file FILE   read the presenter secret from FILE (one line; a systemd\n"
            "                       credential: --secret-file %%d/secret with LoadCredential=)\n"
            "  --secret TEXT        presenter secret on the command line, where every local\n"
            "                       user sees it in ps: prefer --secret-file or $" CLI_SECRET_ENV ".\n"
            "                       Default: a random one. A given secret must have at least\n"
            "                       " CLI_SECRET_MIN_TEXT " bytes and not be the example's placeholder\n"
            "  --room CODE          room code (default: random)\n"
            "  --no-qr              do not draw the QR code in the terminal\n"
            "  --poll               use lws's poll() loop instead of the libev (epoll) event\n"
            "                       loop, which is the default when its plugin is installed\n"
            "  --libev              the default event loop (kept for old scripts)\n"
            "  --tls-cert FILE      serve HTTPS/WSS with this PEM certificate (with --tls-key);\n"
            "                       phones then get a secure context (clipboard, Web Share)\n"
            "  --tls-key FILE       the certificate's PEM private key\n"
            "  --keep-root          started as root: one process that keeps root (by default a\n"
            "                       privileged helper builds the lab and measures, keeping only\n"
            "                       the capabilities the probe needs, and the process serving\n"
            "                       the room keeps none; both become the user sudo, doas or\n"
            "                       pkexec ran serve for: SUDO_UID, DOAS_USER, PKEXEC_UID;\n"
            "                       docs/PRIVILEGES.md)\n"
            "  --user NAME          started as root: drop to NAME (before those variables);\n"
            "                       from a root shell or su, where none is set, both become\n"
            "                       nobody, after the room's process opened its files\n"
            "  -h, --help           show this help\n"
            "\n"
            "Console keys: o open, t open with the --timer countdown, c close, v re-vote (a\n"
            "second round after close; the final round is scored), m measure, r reveal,\n"
            "w why (the projector's view of the revealed question: what happened, or the\n"
            "rules' explanation and the evidence; again: back), n/space next, e re-run,\n"
            "s skip, a answer (a pending question measured and revealable without a\n"
            "vote), b back, f finish (skip what is left, go to\n"
            "the final board), p show the presenter secret (it is never on the screen\n"
            "otherwise), q quit. Without a terminal, the same words\n"
            "one per line on stdin, \"open SECONDS\" for a timed open, \"secret\" to print\n"
            "the secret (see docs/DECKS.md for the script commands).\n"
            "\n"
            "The lab needs root (CAP_SYS_ADMIN + CAP_NET_ADMIN); its namespaces are named\n"
            "from $" PROBE_LAB_PREFIX_ENV " (default \"" PROBE_LAB_PREFIX_DEFAULT "\").\n"
            "\n"
            "Exit codes: 0 ok, 1 failed (incl. a failed script), 2 usage, 3 missing\n"
            "privilege, 4 unknown target host, 5 no IPv6, 7 database error.\n");
}

static void usage(FILE *out) {
    usage_where(out);
    usage_room(out);
    usage_rest(out);
}

/* A per-second cap given to --NAME (optarg): 0..SERVE_HTTP_RATE_MAX, 0 for
 * no cap, which hub_config spells -1 (its 0 is the default). 0 and *out,
 * or -1 after saying why. */
static int rate_arg(const char *name, const char *what, int *out) {
    long num;
    if (cli_parse_long(optarg, 0, SERVE_HTTP_RATE_MAX, &num)) {
        fprintf(stderr, "fragvote serve: --%s wants 0..%d %s per second (0: no cap), not '%s'\n", name,
                SERVE_HTTP_RATE_MAX, what, optarg);
        return -1;
    }
    *out = num ? (int)num : -1;
    return 0;
}

/* What the deck's fields take: --title's length, --lang a language tag's
 * shape (deck_lang_ok; which have a catalog is the pages' business). 0, or
 * -1 after saying why. */
static int deck_values_check(const struct serve_opts *o) {
    if (o->title && strlen(o->title) >= DECK_TEXT_MAX) {
        fprintf(stderr, "fragvote serve: --title is longer than %d bytes\n", DECK_TEXT_MAX - 1);
        return -1;
    }
    if (!o->lang || deck_lang_ok(o->lang)) return 0;
    fprintf(stderr, "fragvote serve: --lang wants a language tag such as de, fr or pt-BR, not '%s'\n", o->lang);
    return -1;
}

/* serve's own options (beyond cli/'s engine and listen ones). */
enum { O_DECK = 256, O_DB, O_TITLE, O_LIVE, O_SCRIPT, O_SECRET, O_ROOM, O_NOPRE, O_NOQR, O_RESUME, O_TLSCERT,
       O_TLSKEY, O_TIMER, O_HTTPRATE, O_TRUSTPROXY, O_LEADERBOARD, O_VOTERRATE, O_PROBER, O_WSPERADDR,
       O_SECRETFILE, O_RETAIN, O_QUESTIONS, O_FRAME, O_LANG };

/* The options that are only stored. */
typedef struct serve_opts O;
static const struct cli_opt_store serve_stored[] = {
    CLI_STORE_STR(O_DECK, O, deck),   CLI_STORE_STR(O_DB, O, db),           CLI_STORE_STR(O_TITLE, O, title),
    CLI_STORE_STR(O_LANG, O, lang),   CLI_STORE_STR(O_QUESTIONS, O, questions), CLI_STORE_STR(O_SCRIPT, O, script),
    CLI_STORE_STR(O_ROOM, O, room),   CLI_STORE_STR(O_SECRET, O, secret_src.arg),
    CLI_STORE_STR(O_SECRETFILE, O, secret_src.file), CLI_STORE_STR(O_TLSCERT, O, tls_cert),
    CLI_STORE_STR(O_TLSKEY, O, tls_key), CLI_STORE_FLAG(O_LIVE, O, live_split),
    CLI_STORE_FLAG(O_LEADERBOARD, O, leaderboard), CLI_STORE_FLAG(O_NOPRE, O, no_prefetch),
    CLI_STORE_FLAG(O_NOQR, O, no_qr)};

/* An option whose value is checked here. 0, -1 after saying why, or 1: not
 * one of these. */
static int take_checked(int c, struct serve_opts *o) {
    long num;
    switch (c) {
    CLI_LISTEN_CASES:
        if (cli_listen_arg("serve", &o->listen, c, optarg, 0)) return -1;
        break;
    case O_TIMER:
        if (cli_opt_int("serve", "timer", optarg, 1, HUB_COUNTDOWN_MAX_S, "seconds", &o->timer_s)) return -1;
        break;
    case O_HTTPRATE:
        if (rate_arg("http-rate", "requests", &o->http_rate)) return -1;
        break;
    case O_VOTERRATE:
        if (rate_arg("voter-rate", "new voters", &o->voter_rate)) return -1;
        break;
    case O_RETAIN:
        if (cli_opt_range("serve", "retain", optarg, 0, CLI_PURGE_DAYS_MAX, "days", &o->retain)) return -1;
        break;
    case O_WSPERADDR:
        if (cli_opt_range("serve", "ws-per-address", optarg, 0, HUB_CONN_MAX, "websockets (0: no cap)", &num))
            return -1;
        o->ws_per_addr = num ? (int)num : -1;
        break;
    case O_TRUSTPROXY: {
        char perr[160];
        if (hub_proxy_add(&o->trust_proxy, optarg, perr, sizeof perr)) {
            fprintf(stderr, "fragvote serve: %s\n", perr);
            return -1;
        }
        break;
    }
    case O_FRAME: {
        char why[200];
        if (hub_origin_frame_sources_check(optarg, why, sizeof why)) {
            fprintf(stderr, "fragvote serve: --frame-ancestors: %s\n", why);
            return -1;
        }
        o->frame_ancestors = optarg;
        break;
    }
    case O_PROBER:
        if (strcmp(optarg, "local") && strcmp(optarg, "remote")) {
            fprintf(stderr, "fragvote serve: --prober wants local or remote, not '%s'\n", optarg);
            return -1;
        }
        o->prober_remote = !strcmp(optarg, "remote");
        break;
    case O_RESUME:
        if (cli_parse_long(optarg, 1, LONG_MAX, &num)) {
            fprintf(stderr, "fragvote serve: --resume wants a session id (see fragvote sessions), not '%s'\n",
                    optarg);
            return -1;
        }
        o->resume = num;
        break;
    default: return 1;
    }
    return 0;
}

/* What the options say together. 0, or -1 after saying why. */
static int opts_agree(int argc, char **argv, struct serve_opts *o) {
    if (!o->tls_cert != !o->tls_key) {
        fprintf(stderr, "fragvote serve: --tls-cert and --tls-key go together\n");
        return -1;
    }
    if (cli_opt_no_args("serve", argc, argv)) return -1;
    if (cli_secret_resolve("serve", &o->secret_src, &o->secret)) return -1;
    if (o->secret && cli_secret_strong("serve", o->secret)) return -1;
    if (o->resume && (o->deck || o->title || o->room || o->questions)) {
        fprintf(stderr, "fragvote serve: --resume continues a session with its own deck, questions, title and room; "
                        "drop --deck, --questions, --title and --room\n");
        return -1;
    }
    const struct cli_engine_args *e = &o->engine;
    if (o->prober_remote && (e->target || e->observer || e->witness || e->witness_key || e->keep_pmtu_cache)) {
        fprintf(stderr, "fragvote serve: with --prober remote the laptop measures: --target, --observer, --witness, "
                        "--witness-key, --no-witness and --keep-pmtu-cache are options of fragvote present there\n");
        return -1;
    }
    if (deck_values_check(o) || cli_engine_args_check("serve", e)) return -1;
    if (o->room) {
        if (strlen(o->room) != ROOM_CODE_LEN || strspn(o->room, ROOM_CODE_ALPHABET) != ROOM_CODE_LEN) {
            fprintf(stderr, "fragvote serve: --room wants %d characters of %s\n", ROOM_CODE_LEN, ROOM_CODE_ALPHABET);
            return -1;
        }
    }
    return 0;
}

static int parse(int argc, char **argv, struct serve_opts *o) {
    static const struct option longopts[] = {
        CLI_ENGINE_ARGS_TARGET, CLI_ENGINE_ARGS_WITNESS, CLI_ENGINE_ARGS_ROOT, CLI_LISTEN_ARGS_ADDR, CLI_LISTEN_ARGS_LOOP,
        {"deck", required_argument, NULL, O_DECK},     {"questions", required_argument, NULL, O_QUESTIONS},
        {"db", required_argument, NULL, O_DB},         {"title", required_argument, NULL, O_TITLE},
        {"live-split", no_argument, NULL, O_LIVE},     {"frame-ancestors", required_argument, NULL, O_FRAME},
        {"script", required_argument, NULL, O_SCRIPT}, {"secret", required_argument, NULL, O_SECRET},
        {"secret-file", required_argument, NULL, O_SECRETFILE},
        {"room", required_argument, NULL, O_ROOM},     {"no-prefetch", no_argument, NULL, O_NOPRE},
        {"no-qr", no_argument, NULL, O_NOQR},          {"resume", required_argument, NULL, O_RESUME},
        {"tls-cert", required_argument, NULL, O_TLSCERT}, {"tls-key", required_argument, NULL, O_TLSKEY},
        {"timer", required_argument, NULL, O_TIMER}, {"http-rate", required_argument, NULL, O_HTTPRATE},
        {"trust-proxy", required_argument, NULL, O_TRUSTPROXY},
        {"leaderboard", no_argument, NULL, O_LEADERBOARD},
        {"voter-rate", required_argument, NULL, O_VOTERRATE}, {"prober", required_argument, NULL, O_PROBER},
        {"ws-per-address", required_argument, NULL, O_WSPERADDR},
        {"retain", required_argument, NULL, O_RETAIN}, {"lang", required_argument, NULL, O_LANG},
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0}};
    *o = (struct serve_opts){.db = SERVE_DB_DEFAULT, .timer_s = CONSOLE_TIMER_S_DEFAULT, .retain = -1};
    cli_listen_init(&o->listen);
    cli_opt_begin();
    for (int c; (c = cli_engine_args_next(&o->engine, argc, argv, longopts)) != -1;) {
        if (cli_opt_store(c, serve_stored, sizeof serve_stored / sizeof *serve_stored, o)) continue;
        int rc = take_checked(c, o);
        if (rc == 1) return cli_opt_other("serve", c, argv);
        if (rc) return -1;
    }
    return opts_agree(argc, argv, o);
}

int serve_opts_read(int argc, char **argv, struct serve_opts *o) {
    return cli_opts_end(parse(argc, argv, o), "serve", usage);
}
