/* fragvote check: the venue check for the week and the hour before the talk
 * (issue 39, docs/CHECK.md). Each check is one line, ✔ or ✘ and what to
 * do; then "this deck will measure N of M tests on this network". The
 * judges and the measurements are fragvote/check/; this file wires them. */
#include <getopt.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_venue.h"
#include "cli.h"
#include "cli_engine.h"
#include "cli_engine_args.h"
#include "cli_listen.h"
#include "cli_secret.h"
#include "console.h"
#include "deck.h"
#include "hub.h"
#include "present_check.h"
#include "witness_cli.h"

#define CHECK_HUB_HOLD_S_MAX 60
#define CHECK_PHONE_WAIT_S_MAX 900

struct check_opts {
    const char *deck;
    struct cli_listen listen;      /* serve's --bind, --port, --public-url */
    const char *hub, *ca;          /* --hub URL of a hosted room, --ca its certificate */
    int hub_hold_s;
    int phone, phone_wait_s;       /* --phone: wait for a phone to join through the hub */
    struct cli_secret secret;      /* --secret-file, $FRAGVOTE_SECRET: the room's presenter secret */
    struct cli_engine_args engine; /* --target, --observer, --keep-pmtu-cache, --witness... as serve's */
    int tls, burst;
};

struct check_run {
    struct check_opts o;
    struct deck deck;
    int lines, failed;
    struct check_target targets[DECK_TESTS_MAX];
    int ntargets, lab_tests, lab_ok;
    struct witness_cli witness;
    struct check_witness wres;
    int witness_asked;
};

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote check [OPTIONS]\n"
            "\n"
            "The venue check, for the week and the hour before the talk: run it on the\n"
            "laptop, on the venue's network, with the options serve will get. One line per\n"
            "check, \u2714 or \u2718 with what to do, then \"this deck will measure N of M tests\n"
            "on this network\". Probes go only to the deck's targets and the witness: TTL\n"
            "discovery and a burst of at most %d TTL-limited datagrams per target.\n"
            "\n"
            "Checks: the join URL's address (phones can reach it: not loopback, not\n"
            "link-local, on the interface of the default route); the privileges the probe\n"
            "needs; each target of the deck (reachable, routers answer Time Exceeded, at\n"
            "what rate before they rate-limit); the witness, if one is named (reachable\n"
            "and keyed); IPv6 (a default route, when the deck has IPv6 tests); with\n"
            "--hub, a websocket through the hosted room's hub.\n"
            "\n"
            "Options:\n"
            "  --deck FILE          the talk's deck (default: the built-in deck)\n"
            "  --target HOST        probe HOST instead of the deck's target (as serve)\n"
            "  --observer MODE      auto, raw or recverr (recverr needs no CAP_NET_RAW)\n"
            "  --keep-pmtu-cache    serve will not flush the PMTU cache (no CAP_NET_ADMIN needed)\n"
            "  --witness W          HOST:PORT of `fragvote witness` (default: the deck's)\n"
            "  --witness-key HEX    its key (32 hex digits; also $%s)\n"
            "  --no-witness         no witness (= --witness none)\n"
            "  --bind ADDR          the address serve will listen on (default: all)\n"
            "  --port N             serve's port (default %d)\n"
            "  --public-url URL     the join URL serve will show\n"
            "  --tls                serve will have --tls-cert (https)\n"
            "  --burst N            TTL-limited datagrams of each rate burst, 0..%d (default %d;\n"
            "                       0: no burst)\n"
            "  --hub URL            a hosted room's hub (docs/DEPLOY.md): hold a websocket\n"
            "                       to it open and time the protocol's ping\n"
            "  --hub-hold S         hold it S seconds, 1..%d (default %d)\n"
            "  --ca FILE            wss: trust this PEM certificate (a self-signed hub)\n"
            "  --phone              with --hub: show the room's join URL and its QR code and\n"
            "                       wait for a phone on the venue's wifi to join through the hub\n"
            "                       and report its round trip to the hub\n"
            "  --phone-wait S       wait at most S seconds, 1..%d (default %d)\n"
            "  --secret-file FILE   --phone: the room's presenter secret (also $%s)\n"
            "  -h, --help           show this help\n"
            "\n"
            "Exit codes: 0 every check \u2714, 10 at least one \u2718, 2 usage error.\n",
            PROBE_TTL_BURST_MAX, WITNESS_CLI_KEY_ENV, CLI_LISTEN_PORT_DEFAULT, PROBE_TTL_BURST_MAX,
            CHECK_BURST_DEFAULT, CHECK_HUB_HOLD_S_MAX, CHECK_HUB_HOLD_S_DEFAULT, CHECK_PHONE_WAIT_S_MAX,
            CHECK_PHONE_WAIT_S_DEFAULT, CLI_SECRET_ENV);
}

static int parse_opts(int argc, char **argv, struct check_opts *o) {
    enum { O_DECK = 256, O_TLS, O_BURST, O_HUB, O_HOLD, O_CA, O_PHONE, O_PWAIT, O_SECF };
    static const struct option longopts[] = {
        {"deck", required_argument, NULL, O_DECK},     CLI_LISTEN_ARGS_ADDR,
        {"tls", no_argument, NULL, O_TLS},             {"burst", required_argument, NULL, O_BURST},
        {"hub", required_argument, NULL, O_HUB},       {"hub-hold", required_argument, NULL, O_HOLD},
        {"ca", required_argument, NULL, O_CA},         {"phone", no_argument, NULL, O_PHONE},
        {"phone-wait", required_argument, NULL, O_PWAIT}, {"secret-file", required_argument, NULL, O_SECF},
        CLI_ENGINE_ARGS_TARGET,                        CLI_ENGINE_ARGS_WITNESS,
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0}};
    *o = (struct check_opts){.burst = CHECK_BURST_DEFAULT, .hub_hold_s = CHECK_HUB_HOLD_S_DEFAULT,
                             .phone_wait_s = CHECK_PHONE_WAIT_S_DEFAULT};
    cli_listen_init(&o->listen);
    cli_opt_begin();
    for (int c; (c = cli_engine_args_next(&o->engine, argc, argv, longopts)) != -1;) {
        switch (c) {
        case O_DECK: o->deck = optarg; break;
        case O_TLS: o->tls = 1; break;
        case O_HUB: o->hub = optarg; break;
        case O_CA: o->ca = optarg; break;
        case O_PHONE: o->phone = 1; break;
        case O_SECF: o->secret.file = optarg; break;
        case O_PWAIT:
            if (cli_opt_int("check", "phone-wait", optarg, 1, CHECK_PHONE_WAIT_S_MAX, "seconds", &o->phone_wait_s))
                return -1;
            break;
        case O_HOLD:
            if (cli_opt_int("check", "hub-hold", optarg, 1, CHECK_HUB_HOLD_S_MAX, "seconds", &o->hub_hold_s)) return -1;
            break;
        case O_BURST:
            if (cli_opt_int("check", "burst", optarg, 0, PROBE_TTL_BURST_MAX, "datagrams", &o->burst)) return -1;
            break;
        CLI_LISTEN_CASES:
            if (cli_listen_arg("check", &o->listen, c, optarg, 1)) return -1;
            break;
        default: return cli_opt_other("check", c, argv);
        }
    }
    if (cli_opt_no_args("check", argc, argv) || cli_engine_args_check("check", &o->engine)) return -1;
    if (o->phone && !o->hub) {
        fprintf(stderr, "fragvote check: --phone needs --hub URL (the hosted room's hub)\n");
        return -1;
    }
    return 0;
}

static void say(struct check_run *r, const struct check_line *l) {
    check_line_print(stdout, l);
    fflush(stdout);
    r->lines++;
    r->failed += !l->ok;
}

/* 1. The join URL serve would show, and whether phones can reach it. */
static void check_join(struct check_run *r) {
    struct check_join j;
    memset(&j, 0, sizeof j);
    char warn[256];
    hub_join_url_make(r->o.listen.public_url, r->o.listen.bind, r->o.tls, r->o.listen.port, "ROOM", j.url, sizeof j.url, warn,
                      sizeof warn);
    j.public_url = r->o.listen.public_url && r->o.listen.public_url[0];
    j.bound = !j.public_url && r->o.listen.bind && r->o.listen.bind[0];
    check_join_facts(&j);
    struct check_line l;
    check_judge_join(&j, &l);
    say(r, &l);
}

/* 3. The capabilities the engine keeps when serve drops root (cli_engine_caps). */
static void check_privileges(struct check_run *r) {
    struct cli_engine e;
    memset(&e, 0, sizeof e);
    e.use_lab = r->lab_tests > 0;
    e.lab_switches = deck_scenarios(&r->deck) > 0;
    char err[256];
    struct probe_lab lab;
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    e.lab_built = e.use_lab && probe_lab_status(cfg.prefix, &lab, err, sizeof err) != 1;
    const char *obs = r->o.engine.observer ? r->o.engine.observer : r->deck.observer;
    int keep = r->o.engine.keep_pmtu_cache || r->deck.keep_pmtu_cache;
    int caps[CLI_ENGINE_CAPS_MAX];
    int n = cli_engine_caps(&e, caps);
    r->lab_ok = 1;
    for (int i = 0; i < n; i++) {
        if ((caps[i] == CAP_NET_RAW && obs && !strcmp(obs, "recverr")) || (caps[i] == CAP_NET_ADMIN && keep)) continue;
        int has = probe_priv_has(caps[i]);
        if (caps[i] == CAP_SYS_ADMIN || caps[i] == CAP_DAC_OVERRIDE) r->lab_ok &= has;
        struct check_line l;
        check_judge_cap(caps[i], has, &l);
        say(r, &l);
    }
}

/* The deck's targets off the lab, one per host and family. */
static void collect_targets(struct check_run *r) {
    for (int i = 0; i < r->deck.ntests; i++) {
        const struct probe_spec *s = &r->deck.tests[i].spec;
        if (!s->host[0] || !strcmp(s->host, "lab")) {
            r->lab_tests++;
            continue;
        }
        int v6 = probe_proto_is_v6(s->proto), k = 0;
        while (k < r->ntargets && (strcmp(r->targets[k].host, s->host) || r->targets[k].v6 != v6)) k++;
        if (k == r->ntargets) {
            snprintf(r->targets[k].host, sizeof r->targets[k].host, "%s", s->host);
            r->targets[k].v6 = v6;
            r->ntargets++;
        }
        r->targets[k].tests++;
    }
}

/* 2. Each target: reachable, Time Exceeded, the rate. */
static void check_targets(struct check_run *r) {
    struct check_line l;
    if (r->lab_tests) {
        snprintf(l.what, sizeof l.what, "target the namespace lab (%d test%s)", r->lab_tests,
                 r->lab_tests == 1 ? "" : "s");
        l.ok = r->lab_ok;
        snprintf(l.says, sizeof l.says, "%s", r->lab_ok ? "on this laptop: its tests do not cross this network"
                                                        : "its privileges are missing (above)");
        say(r, &l);
    }
    int raw = probe_priv_has(CAP_NET_RAW);
    for (int k = 0; k < r->ntargets; k++) {
        struct check_target *t = &r->targets[k];
        t->raw = raw;
        check_target_run(t, r->o.burst);
        check_judge_path(t, &l);
        say(r, &l);
        if (check_judge_rate(t, &l)) say(r, &l);
    }
}

/* 4. The witness the options or the deck name (HOST:PORT; "lab" runs here). */
static void check_witness(struct check_run *r) {
    const char *spec = r->o.engine.witness ? r->o.engine.witness : r->deck.witness;
    if (!spec || !spec[0] || !strcmp(spec, "none") || !strcmp(spec, "lab")) return;
    struct check_line l;
    char err[sizeof r->wres.err];
    r->witness_asked = 1;
    snprintf(r->wres.label, sizeof r->wres.label, "%s", spec);
    if (witness_cli_setup(spec, r->o.engine.witness_key, NULL, &r->witness, err, sizeof err) < 0) {
        r->wres.rc = PROBE_E_FAIL;
        snprintf(r->wres.err, sizeof r->wres.err, "%s", err);
    } else {
        check_witness_run(r->witness.target, probe_priv_has(CAP_NET_RAW) ? PROBE_OBS_RAW : PROBE_OBS_RECVERR,
                          &r->wres);
    }
    check_judge_witness(&r->wres, &l);
    say(r, &l);
}

/* 5. IPv6, when the deck has IPv6 tests off the lab (else said, never ✘). */
static void check_v6(struct check_run *r) {
    struct check_v6 v;
    memset(&v, 0, sizeof v);
    for (int k = 0; k < r->ntargets; k++)
        if (r->targets[k].v6) v.tests += r->targets[k].tests;
    check_v6_facts(&v);
    struct check_line l;
    check_judge_v6(&v, &l);
    say(r, &l);
}

/* 6. A websocket through the hosted room's hub (--hub). */
static void check_hub(struct check_run *r) {
    if (!r->o.hub) return;
    struct check_hub h;
    memset(&h, 0, sizeof h);
    snprintf(h.url, sizeof h.url, "%s", r->o.hub);
    h.hold_ms = r->o.hub_hold_s * 1000;
    char err[sizeof h.why];
    if (present_check_hub(&h, r->o.ca, err, sizeof err) < 0) {
        h.connected = 0;
        snprintf(h.why, sizeof h.why, "%s", err);
    }
    struct check_line l;
    check_judge_hub(&h, &l);
    say(r, &l);
}

static void show_join(void *ctx, const char *join_url) {
    (void)ctx;
    char err[256];
    printf("  Open this on a phone on the venue's wifi (its camera: the QR code):\n  %s\n", join_url);
    if (console_qr_draw(stdout, join_url, err, sizeof err) < 0) printf("  (no QR code: %s)\n", err);
    fflush(stdout);
}

/* --phone: a phone joins the room through the hub. */
static int check_phone(struct check_run *r) {
    if (!r->o.phone) return FV_EXIT_OK;
    const char *secret = NULL;
    if (cli_secret_resolve("check", &r->o.secret, &secret) < 0) return FV_EXIT_USAGE;
    struct check_phone p;
    memset(&p, 0, sizeof p);
    snprintf(p.url, sizeof p.url, "%s", r->o.hub);
    p.wait_ms = r->o.phone_wait_s * 1000;
    char err[sizeof p.why];
    if (!secret) snprintf(p.why, sizeof p.why, "no presenter secret given");
    else if (present_check_phone(&p, r->o.ca, secret, show_join, r, err, sizeof err) < 0)
        snprintf(p.why, sizeof p.why, "%s", err);
    struct check_line l;
    check_judge_phone(&p, &l);
    say(r, &l);
    return FV_EXIT_OK;
}

static void summary(struct check_run *r) {
    int n = r->lab_ok ? r->lab_tests : 0;
    for (int k = 0; k < r->ntargets; k++) {
        const struct check_target *t = &r->targets[k];
        int wok = r->witness_asked && r->wres.heard && r->witness.target &&
                  !strcmp(r->witness.target->host, t->host);
        if (check_target_measures(t, wok)) n += t->tests;
    }
    printf("\nThis deck will measure %d of %d tests on this network; %d check%s, %d \u2718.\n", n, r->deck.ntests,
           r->lines, r->lines == 1 ? "" : "s", r->failed);
}

int cmd_check(int argc, char **argv) {
    static struct check_run r; /* the targets are large: not on the stack */
    memset(&r, 0, sizeof r);
    int rc = cli_opts_end(parse_opts(argc, argv, &r.o), "check", usage);
    if (rc >= 0) return rc;
    char err[1024];
    if (deck_load_arg(r.o.deck, r.o.engine.target, &r.deck, err, sizeof err)) {
        fprintf(stderr, "fragvote check: %s\n", err);
        return FV_EXIT_USAGE;
    }
    printf("Venue check of \"%s\" (%d tests)\n\n", r.deck.title, r.deck.ntests);
    collect_targets(&r);
    check_join(&r);
    check_privileges(&r);
    check_targets(&r);
    check_witness(&r);
    check_v6(&r);
    check_hub(&r);
    rc = check_phone(&r);
    if (rc != FV_EXIT_OK) {
        witness_cli_stop(&r.witness);
        deck_free(&r.deck);
        return rc;
    }
    summary(&r);
    witness_cli_stop(&r.witness);
    deck_free(&r.deck);
    return r.failed ? FV_EXIT_CHECK : FV_EXIT_OK;
}
