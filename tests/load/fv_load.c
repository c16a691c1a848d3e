/* fv_load: command line of the keynote-room load generator (see load.h and
 * docs/LOAD.md). Exit codes: 0 the run passed, 1 it ran and failed (lost or
 * unacknowledged votes, errors), 2 usage, 4 it could not run. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define EXIT_CANNOT_RUN 4

static void usage(FILE *f) {
    fprintf(f,
            "Usage: fv_load --port N --secret S --db FILE [OPTIONS]\n"
            "\n"
            "Opens N audience websockets to a running `fragvote serve` on loopback,\n"
            "joins them, opens the current question as the presenter, lets every phone\n"
            "vote once at a random time within the window, closes the question, and\n"
            "checks that SQLite holds exactly the acknowledged votes. With --rejoin,\n"
            "every phone then closes at once and comes back with its token (a wifi blip).\n"
            "\n"
            "Options:\n"
            "  --host ADDR          server address, 127.0.0.0/8 only (default 127.0.0.1)\n"
            "  --port N             server port (required)\n"
            "  --secret TEXT        presenter secret of the server (required)\n"
            "  --db FILE            the server's database, checked read-only after the run (required)\n"
            "  --phones N           audience connections, 1..%d (default 500)\n"
            "  --window-ms N        every phone votes at a random time in [0, N) ms (default 2000)\n"
            "  --idle S             hold everyone joined and idle S seconds before voting (default 0)\n"
            "  --drain-ms N         after the window, wait at most N ms for acks/tallies (default 10000)\n"
            "  --connect-timeout S  all phones must have joined within S seconds (default 120)\n"
            "  --inflight N         handshakes in flight at most (default 256)\n"
            "  --sources N          spread phones over 127.0.0.2 .. 127.0.0.(N+1) (default: 1 per 1000, max %d)\n"
            "  --server-pid PID     sample the server's RSS and CPU time from /proc/PID\n"
            "  --poll               use lws's poll() loop instead of libev (epoll)\n"
            "  --tls                wss:// (e.g. through a TLS reverse proxy); the certificate is not\n"
            "                       checked (tests use a self-signed one)\n"
            "  --seed N             vote (and reconnect) schedule seed (default 1)\n"
            "  --storm              the join storm: every phone first loads the phone page and every\n"
            "                       resource it names over HTTP (keep-alive), then opens its websocket;\n"
            "                       reports pages/s, page-load p99, welcome p99 (from the storm's start)\n"
            "  --storm-no-keepalive  with --storm: one connection per request (Connection: close)\n"
            "  --rejoin             after the vote: all phones close at once and reconnect with their\n"
            "                       token; checks same token, same vote, no new voter, all online again\n"
            "  --rejoin-spread-ms N reconnect at random times in [0, N) ms after the close\n"
            "                       (default 0: all at once, the worst case; max %d)\n"
            "  --rejoin-forget-token  phones come back without their token, as new voters: the run\n"
            "                       must fail (shows that the identity checks can fail)\n"
            "  --json FILE          also write the result as one JSON object\n"
            "  --csv FILE           one line per phone: planned, seen, sent, ack, tally (ms after the open),\n"
            "                       rejoin (ms from its reconnect time to its new welcome)\n"
            "  -v, --verbose        progress on stderr (twice: lws notices)\n"
            "  -h, --help           show this help\n"
            "\n"
            "Exit codes: 0 passed, 1 ran and failed (lost/unacknowledged votes, errors),\n"
            "2 usage, 4 could not run.\n",
            LOAD_PHONES_MAX, LOAD_SOURCES_MAX, LOAD_SPREAD_MS_MAX);
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static void print_lat(FILE *f, const char *name, const struct load_lat *l) {
    fprintf(f, "%-14s n=%zu p50=%.1f ms p90=%.1f ms p99=%.1f ms max=%.1f ms\n", name, l->n, l->p50, l->p90, l->p99,
            l->max);
}

static void json_lat(FILE *f, const char *name, const struct load_lat *l) {
    fprintf(f, "\"%s\":{\"n\":%zu,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f},", name, l->n, l->p50, l->p90,
            l->p99, l->max);
}

static void json_proc(FILE *f, const char *name, const struct load_proc *p) {
    fprintf(f, "\"%s\":{\"ok\":%d,\"rss_kb\":%ld,\"cpu_s\":%.2f},", name, p->ok, p->rss_kb, p->cpu_s);
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* "rejoin": null when the storm did not run. */
static void json_rejoin(FILE *f, const struct load_rejoin_result *j) {
    if (!j->ran) {
        fprintf(f, "\"rejoin\":null");
        return;
    }
    fprintf(f, "\"rejoin\":{\"phones\":%d,\"back\":%d,\"errors\":%d,\"token_changed\":%d,\"votes_wrong\":%d,"
               "\"online_min\":%d,\"online_max\":%d,\"online_end\":%d,\"total_s\":%.3f,\"online_ms\":%.1f,"
               "\"db_voters\":%lld,\"db_votes\":%lld,\"gen_cpu_s\":%.2f,",
            j->phones, j->back, j->errors, j->token_changed, j->votes_wrong, j->online_min, j->online_max,
            j->online_end, j->total_s, j->online_ms, j->db_voters, j->db_votes, j->gen_cpu_s);
    json_lat(f, "welcome_ms", &j->lat);
    json_lat(f, "closed_ms", &j->closed);
    json_proc(f, "srv_start", &j->srv_start);
    fprintf(f, "\"srv_end\":{\"ok\":%d,\"rss_kb\":%ld,\"cpu_s\":%.2f}}", j->srv_end.ok, j->srv_end.rss_kb,
            j->srv_end.cpu_s);
}

/* The headline of issue 38: the server's CPU (its /proc utime + stime, both
 * threads) from just before the open to the close confirmed, over the votes
 * it acknowledged; 0 when it was not sampled or nothing was acked. */
static double hub_us_per_vote(const struct load_result *r) {
    if (!r->srv_idle.ok || !r->srv_end.ok || r->acked <= 0) return 0;
    return (r->srv_end.cpu_s - r->srv_idle.cpu_s) * 1e6 / r->acked;
}

static void json_storm(FILE *f, const struct load_storm_result *s) {
    if (!s->ran) {
        fprintf(f, "\"storm\":null,");
        return;
    }
    fprintf(f, "\"storm\":{\"pages\":%d,\"failed\":%d,\"errors\":%d,\"requests\":%lld,\"not_modified\":%lld,"
               "\"bytes\":%lld,\"pages_s\":%.1f,\"all_joined_s\":%.3f,",
            s->pages, s->failed, s->errors, s->requests, s->not_modified, s->bytes, s->pages_s, s->all_joined_s);
    json_lat(f, "page_ms", &s->page);
    fprintf(f, "\"welcome_ms\":{\"n\":%zu,\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}},", s->welcome.n,
            s->welcome.p50, s->welcome.p90, s->welcome.p99, s->welcome.max);
}

static void print_rejoin(const struct load_config *cfg, const struct load_rejoin_result *j) {
    if (!j->ran) {
        printf("rejoin: not run (the vote phase failed first)\n");
        return;
    }
    printf("rejoin (spread %d ms): %d phones closed at once, %d welcomed again in %.2f s, errors %d, "
           "new tokens %d, wrong votes %d\n",
           cfg->rejoin_spread_ms, j->phones, j->back, j->total_s, j->errors, j->token_changed, j->votes_wrong);
    print_lat(stdout, "close->welcome", &j->lat);
    print_lat(stdout, "close->closed", &j->closed);
    printf("rejoin: tallies said online min %d max %d last %d; all %d online after %.1f ms; SQLite %lld voters, "
           "%lld votes\n",
           j->online_min, j->online_max, j->online_end, cfg->phones, j->online_ms, j->db_voters, j->db_votes);
    if (cfg->server_pid)
        printf("rejoin: server CPU %.2f s, RSS %ld -> %ld kB; generator CPU %.2f s\n",
               j->srv_end.cpu_s - j->srv_start.cpu_s, j->srv_start.rss_kb, j->srv_end.rss_kb, j->gen_cpu_s);
}

static int write_json(const char *path, const struct load_config *cfg, const struct load_result *r) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    double kb_conn = r->srv_joined.ok && r->joined ? (double)(r->srv_joined.rss_kb - r->srv_base.rss_kb) / r->joined : -1;
    fprintf(f, "{\"phones\":%d,\"window_ms\":%d,\"idle_s\":%d,\"libev\":%d,\"connected\":%d,\"joined\":%d,"
               "\"voted\":%d,\"acked\":%d,\"tallied\":%d,\"refused\":%d,\"errors\":%d,\"idle_drops\":%d,"
               "\"question\":%d,\"db_votes\":%lld,\"db_voters\":%lld,\"connect_s\":%.2f,\"vote_s\":%.3f,"
               "\"screen_last_ms\":%.1f,\"kb_per_conn\":%.2f,\"gen_cpu_s\":%.2f,\"gen_rss_kb\":%ld,"
               "\"open_ms\":%.1f,\"close_ms\":%.1f,\"rx_tally\":[%lld,%lld,%lld],\"rx_state\":[%lld,%lld,%lld],"
               "\"rx_other\":[%lld,%lld,%lld],\"rejoin_spread_ms\":%d,",
            cfg->phones, cfg->window_ms, cfg->idle_s, r->event_loop_libev, r->connected, r->joined, r->voted, r->acked,
            r->tallied, r->refused, r->errors, r->idle_drops, r->question, r->db_votes, r->db_voters, r->connect_s,
            r->vote_s, r->screen_last_ms, kb_conn, r->gen_cpu_s, r->gen_rss_kb, r->open_ms, r->close_ms, r->rx_tally[0],
            r->rx_tally[1], r->rx_tally[2], r->rx_state[0], r->rx_state[1], r->rx_state[2], r->rx_other[0],
            r->rx_other[1], r->rx_other[2], cfg->rejoin_spread_ms);
    json_lat(f, "ack_ms", &r->ack);
    json_lat(f, "tally_ms", &r->tally);
    json_lat(f, "screen_ms", &r->screen);
    json_lat(f, "presenter_ms", &r->presenter);
    json_lat(f, "screen_sent_ms", &r->screen_sent);
    fprintf(f, "\"screen_exact\":%d,", r->screen_exact);
    json_lat(f, "send_lag_ms", &r->send_lag);
    json_lat(f, "open_seen_ms", &r->open_seen);
    fprintf(f, "\"gen_cpu_vote_s\":%.2f,", r->gen_cpu_vote_s);
    json_storm(f, &r->storm);
    fprintf(f, "\"storm_keepalive\":%d,", cfg->storm_keepalive);
    json_proc(f, "srv_base", &r->srv_base);
    json_proc(f, "srv_joined", &r->srv_joined);
    json_proc(f, "srv_idle", &r->srv_idle);
    json_proc(f, "srv_end", &r->srv_end);
    fprintf(f, "\"hub_us_per_vote\":%.1f,", hub_us_per_vote(r));
    fprintf(f, "\"first_error\":");
    json_str(f, r->first_error);
    fprintf(f, ",");
    json_rejoin(f, &r->rejoin);
    fprintf(f, ",\"verdict\":");
    json_str(f, r->verdict);
    fprintf(f, ",\"passed\":%s}\n", r->verdict[0] ? "false" : "true");
    return fclose(f);
}

int main(int argc, char **argv) {
    struct load_config cfg = {.host = "127.0.0.1", .phones = 500, .window_ms = 2000, .drain_ms = 10000,
                              .connect_timeout_s = 120, .connect_inflight = 256, .use_libev = 1, .seed = 1};
    const char *json = NULL;
    enum { O_HOST = 256, O_PORT, O_SECRET, O_DB, O_PHONES, O_WINDOW, O_IDLE, O_DRAIN, O_CTO, O_INFLIGHT, O_SOURCES,
           O_PID, O_POLL, O_SEED, O_JSON, O_CSV, O_REJOIN, O_SPREAD, O_FORGET, O_STORM, O_STORM_CLOSE, O_TLS };
    static const struct option opts[] = {
        {"host", required_argument, NULL, O_HOST},       {"port", required_argument, NULL, O_PORT},
        {"secret", required_argument, NULL, O_SECRET},   {"db", required_argument, NULL, O_DB},
        {"phones", required_argument, NULL, O_PHONES},   {"window-ms", required_argument, NULL, O_WINDOW},
        {"idle", required_argument, NULL, O_IDLE},       {"drain-ms", required_argument, NULL, O_DRAIN},
        {"connect-timeout", required_argument, NULL, O_CTO}, {"inflight", required_argument, NULL, O_INFLIGHT},
        {"sources", required_argument, NULL, O_SOURCES}, {"server-pid", required_argument, NULL, O_PID},
        {"poll", no_argument, NULL, O_POLL},             {"tls", no_argument, NULL, O_TLS},
        {"seed", required_argument, NULL, O_SEED},
        {"json", required_argument, NULL, O_JSON},       {"csv", required_argument, NULL, O_CSV},
        {"rejoin", no_argument, NULL, O_REJOIN},       {"rejoin-spread-ms", required_argument, NULL, O_SPREAD},
        {"rejoin-forget-token", no_argument, NULL, O_FORGET},
        {"storm", no_argument, NULL, O_STORM},          {"storm-no-keepalive", no_argument, NULL, O_STORM_CLOSE},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},                {NULL, 0, NULL, 0}};
    int o, bad = 0, seed = 1;
    while ((o = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        switch (o) {
        case O_HOST: cfg.host = optarg; break;
        case O_PORT: bad |= parse_int(optarg, 1, 65535, &cfg.port); break;
        case O_SECRET: cfg.secret = optarg; break;
        case O_DB: cfg.db_path = optarg; break;
        case O_PHONES: bad |= parse_int(optarg, 1, LOAD_PHONES_MAX, &cfg.phones); break;
        case O_WINDOW: bad |= parse_int(optarg, 1, LOAD_WINDOW_MS_MAX, &cfg.window_ms); break;
        case O_IDLE: bad |= parse_int(optarg, 0, LOAD_IDLE_S_MAX, &cfg.idle_s); break;
        case O_DRAIN: bad |= parse_int(optarg, 0, LOAD_WINDOW_MS_MAX, &cfg.drain_ms); break;
        case O_CTO: bad |= parse_int(optarg, 1, LOAD_IDLE_S_MAX, &cfg.connect_timeout_s); break;
        case O_INFLIGHT: bad |= parse_int(optarg, 1, LOAD_PHONES_MAX, &cfg.connect_inflight); break;
        case O_SOURCES: bad |= parse_int(optarg, 1, LOAD_SOURCES_MAX, &cfg.sources); break;
        case O_PID: bad |= parse_int(optarg, 1, INT_MAX, &cfg.server_pid); break;
        case O_POLL: cfg.use_libev = 0; break;
        case O_TLS: cfg.tls = 1; break;
        case O_SEED: bad |= parse_int(optarg, 0, INT_MAX, &seed); break;
        case O_JSON: json = optarg; break;
        case O_CSV: cfg.csv_path = optarg; break;
        case O_REJOIN: cfg.rejoin = 1; break;
        case O_FORGET: cfg.rejoin_forget_token = 1; break;
        case O_STORM: cfg.storm = 1; break;
        case O_STORM_CLOSE: cfg.storm_keepalive = -1; break;
        case O_SPREAD: bad |= parse_int(optarg, 0, LOAD_SPREAD_MS_MAX, &cfg.rejoin_spread_ms); break;
        case 'v': cfg.verbose++; break;
        case 'h': usage(stdout); return 0;
        default: bad = 1; break;
        }
    }
    cfg.seed = (unsigned)seed;
    if (bad || optind != argc) {
        fprintf(stderr, "fv_load: bad option or value (see --help)\n");
        return EXIT_USAGE;
    }
    if (!cfg.port || !cfg.secret || !cfg.db_path) {
        fprintf(stderr, "fv_load: --port, --secret and --db are required (see --help)\n");
        return EXIT_USAGE;
    }
    if ((cfg.rejoin_spread_ms || cfg.rejoin_forget_token) && !cfg.rejoin) {
        fprintf(stderr, "fv_load: --rejoin-spread-ms and --rejoin-forget-token need --rejoin\n");
        return EXIT_USAGE;
    }
    if (cfg.storm_keepalive < 0 && !cfg.storm) {
        fprintf(stderr, "fv_load: --storm-no-keepalive needs --storm\n");
        return EXIT_USAGE;
    }
    cfg.storm_keepalive = cfg.storm_keepalive == 0;
    if (!load_is_loopback4(cfg.host)) {
        fprintf(stderr, "fv_load: --host %s: only numeric addresses in 127.0.0.0/8 are allowed\n", cfg.host);
        return EXIT_USAGE;
    }
    if (!cfg.sources) {
        /* a storm: ~4 requests per phone, 100 phones (~400 requests) per address, well under the
         * hub's per-address HTTP burst */
        cfg.sources = cfg.storm ? (cfg.phones + 99) / 100 : (cfg.phones + 999) / 1000;
        if (cfg.sources > LOAD_SOURCES_MAX) cfg.sources = LOAD_SOURCES_MAX;
    }

    struct load_result r;
    char err[512] = "";
    int rc = load_run(&cfg, &r, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "fv_load: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    printf("fv_load: %d phones, window %d ms, idle %d s, event loop %s, %d source addresses\n", cfg.phones,
           cfg.window_ms, cfg.idle_s, r.event_loop_libev ? "libev" : "poll", cfg.sources);
    printf("connected %d, joined %d in %.2f s; voted %d, acked %d, refused %d, tallied %d, errors %d, idle drops %d\n",
           r.connected, r.joined, r.connect_s, r.voted, r.acked, r.refused, r.tallied, r.errors, r.idle_drops);
    print_lat(stdout, "vote->ack", &r.ack);
    print_lat(stdout, "vote->tally", &r.tally);
    print_lat(stdout, r.screen_exact ? "vote->screen" : "vote->screen (acks without a count: every vote sent before the ack)", &r.screen);
    print_lat(stdout, "vote->screen counting every vote sent before the ack", &r.screen_sent);
    print_lat(stdout, "vote->presenter", &r.presenter);
    if (r.storm.ran) {
        printf("join storm (%s): %d pages in, %d failed, %.1f pages/s, %lld requests (%lld x 304), %lld bytes; "
               "all joined %.2f s after the QR appeared\n",
               cfg.storm_keepalive ? "keep-alive" : "a connection per request", r.storm.pages, r.storm.failed,
               r.storm.pages_s, r.storm.requests, r.storm.not_modified, r.storm.bytes, r.storm.all_joined_s);
        print_lat(stdout, "page load", &r.storm.page);
        print_lat(stdout, "QR->welcome", &r.storm.welcome);
    }
    print_lat(stdout, "open->phone", &r.open_seen);
    print_lat(stdout, "send lag", &r.send_lag);
    printf("last vote -> screen shows all: %.1f ms; open -> last ack: %.2f s\n", r.screen_last_ms, r.vote_s);
    printf("presenter: open confirmed in %.1f ms, close in %.1f ms\n", r.open_ms, r.close_ms);
    printf("messages received (connect+idle / vote / rejoin): tally %lld / %lld / %lld, state %lld / %lld / %lld, "
           "other %lld / %lld / %lld\n",
           r.rx_tally[0], r.rx_tally[1], r.rx_tally[2], r.rx_state[0], r.rx_state[1], r.rx_state[2], r.rx_other[0],
           r.rx_other[1], r.rx_other[2]);
    printf("SQLite: %lld votes on question %d, %lld voters\n", r.db_votes, r.question, r.db_voters);
    if (cfg.server_pid) {
        printf("server RSS: base %ld kB, joined %ld kB, before vote %ld kB, end %ld kB", r.srv_base.rss_kb,
               r.srv_joined.rss_kb, r.srv_idle.rss_kb, r.srv_end.rss_kb);
        if (r.joined) printf(" (%.2f kB per connection)", (double)(r.srv_joined.rss_kb - r.srv_base.rss_kb) / r.joined);
        printf("\nserver CPU: connect %.2f s, idle %.2f s, vote %.2f s (total %.2f s)\n",
               r.srv_joined.cpu_s - r.srv_base.cpu_s, r.srv_idle.cpu_s - r.srv_joined.cpu_s,
               r.srv_end.cpu_s - r.srv_idle.cpu_s, r.srv_end.cpu_s - r.srv_base.cpu_s);
        printf("hub CPU per vote: %.1f us (the vote phase's %.2f s over %d acked votes)\n", hub_us_per_vote(&r),
               r.srv_end.cpu_s - r.srv_idle.cpu_s, r.acked);
    }
    if (cfg.rejoin) print_rejoin(&cfg, &r.rejoin);
    printf("generator: CPU %.2f s (%.2f s while voting), max RSS %ld kB\n", r.gen_cpu_s, r.gen_cpu_vote_s, r.gen_rss_kb);
    if (r.verdict[0]) printf("FAILED: %s\n", r.verdict);
    else printf("PASSED: every acknowledged vote is in SQLite, none lost%s\n",
                cfg.rejoin ? "; every phone came back as itself with its vote" : "");
    if (json && write_json(json, &cfg, &r)) {
        fprintf(stderr, "fv_load: cannot write %s\n", json);
        return EXIT_CANNOT_RUN;
    }
    return rc ? EXIT_RUN_FAILED : 0;
}
