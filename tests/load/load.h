/* fv_load: the load generator for a keynote room (issue 10).
 *
 * N audience websockets to a running `fragvote serve` on loopback, spread
 * over source addresses 127.0.0.x; all join; the generator (as presenter,
 * with the secret) opens the current question; every phone votes once at a
 * random time inside the window; per vote it measures send -> ack and
 * send -> the first tally on that phone that certainly includes the vote;
 * then it closes the question and checks that SQLite holds exactly as many
 * votes as were acknowledged. With --rejoin, every phone then closes at once
 * and comes back with its token (load_rejoin.c): same token, same vote, no
 * new voter in SQLite, all online again. Everything is bounded in count and
 * time.
 *
 * load_gen.c is the libwebsockets engine (one state struct, struct lrun, in
 * load_internal.h, shared with load_rejoin.c, the reconnect storm);
 * load_parse.c holds the pure pieces (JSON field scanner, percentiles,
 * /proc parsers) that tests/load/test_load_parse.c feeds canned bytes. */
#ifndef FRAGVOTE_LOAD_H
#define FRAGVOTE_LOAD_H

#include <stddef.h>
#include <stdint.h>

/* Caps on what the generator accepts (the server is untrusted too). */
#define LOAD_PHONES_MAX 19990          /* audience connections (the hub's HUB_CONN_MAX) */
#define LOAD_MSG_MAX (256 * 1024)      /* one reassembled server message; larger: that phone fails */
#define LOAD_SOURCES_MAX 250           /* source addresses 127.0.0.2 .. 127.0.0.251 */
#define LOAD_SCREEN_LOG_MAX 100000     /* tallies remembered for the screen connection */
#define LOAD_WINDOW_MS_MAX 600000      /* vote window */
#define LOAD_IDLE_S_MAX 3600           /* idle hold before voting */
#define LOAD_SPREAD_MS_MAX 600000      /* --rejoin-spread-ms */

struct load_config {
    const char *host;                  /* numeric IPv4 in 127.0.0.0/8 only */
    int port;
    int phones;
    int window_ms;                     /* every phone votes at a uniformly random time in [0, window) */
    int idle_s;                        /* hold all phones joined and idle this long before voting */
    int sources;                       /* source addresses to spread over (127.0.0.2 ...) */
    int connect_inflight;              /* handshakes in flight at most */
    int connect_timeout_s;             /* all phones must have joined within this */
    int drain_ms;                      /* after the window: wait this long at most for acks and tallies */
    const char *secret;                /* presenter secret */
    const char *db_path;               /* the server's SQLite file (read-only check after the run) */
    const char *csv_path;              /* NULL, or: one line per phone with its times (ms after the open) */
    int server_pid;                    /* 0: no /proc sampling */
    int use_libev;                     /* 1: libev event-lib (epoll); falls back to poll */
    int tls;                           /* 1: wss:// (any certificate: a test's self-signed one) */
    int rejoin;                        /* 1: after the vote, every phone closes and comes back with its token */
    int rejoin_spread_ms;              /* reconnects at uniformly random times in [0, this) after the close */
    int rejoin_forget_token;           /* 1: phones come back without their token (a page that lost its
                                          storage): each becomes a new voter, so the run must fail */
    int storm;                         /* 1: the join storm, each phone loads the page over HTTP first */
    int storm_keepalive;               /* 1: a phone's requests share one connection (browsers do) */
    unsigned seed;
    int verbose;
};

/* A sample of a process from /proc/PID. */
struct load_proc {
    int ok;
    long rss_kb;
    double cpu_s;                      /* utime + stime */
};

/* Latency summary in milliseconds (n == 0: none measured). */
struct load_lat {
    size_t n;
    double p50, p90, p99, max;
};

/* The reconnect storm (--rejoin). */
struct load_rejoin_result {
    int ran;                           /* 0: not asked for, or the vote phase failed first */
    int phones;                        /* phones closed at once (all joined ones) */
    int back;                          /* welcomed again */
    int errors;                        /* errors counted during the storm (failed or dropped connections,
                                          error messages, new tokens, wrong votes) */
    int token_changed;                 /* new welcome with another token: a new identity */
    int votes_wrong;                   /* new welcome whose votes[q] is not the vote acked before */
    int online_min, online_max;        /* `online` in the tallies received during the storm (-1: none) */
    int online_end;                    /* ... the last one seen */
    double total_s;                    /* mass close -> the last phone welcomed again (-1: never) */
    double online_ms;                  /* mass close -> a screen tally with online == phones (-1: never) */
    struct load_lat lat;               /* per phone: its reconnect time -> its new welcome */
    struct load_lat closed;            /* per phone: the mass close -> its old socket gone (close handshake) */
    long long db_voters, db_votes;     /* SQLite after the storm (-1: not checked) */
    struct load_proc srv_start, srv_end; /* the server at the mass close and when all were back */
    double gen_cpu_s;                  /* the generator's CPU time during the storm */
};

/* The join storm (--storm, load_storm.c). */
struct load_storm_result {
    int ran;
    int pages;                         /* phones whose page and every resource arrived */
    int failed;                        /* phones whose page load failed */
    int errors;
    long long requests, not_modified, bytes;
    double pages_s;                    /* pages completed / (storm start -> the last one) */
    double all_joined_s;               /* storm start -> the last welcome (-1: not all) */
    struct load_lat page;              /* per phone: first connect -> last resource received */
    struct load_lat welcome;           /* per phone: storm start (the QR appears) -> its welcome */
};

struct load_result {
    int phones, connected, joined, voted, acked, tallied;
    int errors;                        /* error messages, failed connections, unexpected closes */
    int refused;                       /* votes answered by an error */
    int idle_drops;                    /* phones that dropped during the idle hold */
    int question;                      /* position voted on */
    long long db_votes;                /* votes in SQLite for that question (-1: not checked) */
    long long db_voters;
    struct load_lat ack, tally;        /* vote -> ack, vote -> first tally including it */
    struct load_lat screen, presenter; /* vote -> the first screen / presenter tally including it: votes >=
                                        * its ack's count (exact), or need_votes where the ack said none */
    struct load_lat screen_sent;       /* vote -> the first screen tally counting every vote sent before its ack
                                        * arrived (the measure before acks carried the count; >= screen) */
    int screen_exact;                  /* every ack carried its count (else screen fell back to need_votes) */
    double screen_last_ms;             /* last vote sent -> screen tally counting every ack (-1: never) */
    double connect_s, vote_s;          /* duration of the connect phase and open -> last ack */
    double open_ms, close_ms;          /* presenter command -> its cmd_ok (-1: never) */
    /* server messages received by all connections, per phase (connect+idle / voting+closing / rejoin) */
    long long rx_tally[3], rx_state[3], rx_other[3]; /* [2]: during the reconnect storm */
    int event_loop_libev;
    struct load_proc srv_base, srv_joined, srv_idle, srv_end;
    double gen_cpu_s;                  /* the generator's own CPU time */
    double gen_cpu_vote_s;             /* ... of which from the open to the end of voting */
    struct load_lat send_lag;          /* max(planned vote time, saw voting) -> sent: the generator's own delay */
    struct load_lat open_seen;         /* presenter's open written -> a phone sees the question voting */
    long gen_rss_kb;
    struct load_rejoin_result rejoin;
    struct load_storm_result storm;
    char first_error[256];
    char verdict[256];                 /* "" if the run passed */
};

/* Runs the whole scenario; fills *res. Returns 0 if the run passed, 1 if it
 * ran and failed (lost or unacknowledged votes, errors; res->verdict says
 * why), -1 if it could not run (err filled). */
int load_run(const struct load_config *cfg, struct load_result *res, char *err, size_t errlen);

/* ---- pure helpers (load_parse.c) ---- */

/* Finds the value of the top-level member `key` of the JSON object in
 * buf[0..len): *val points into buf, *vlen is the raw token's length (a
 * string keeps its quotes). Keys are compared byte for byte (no unescaping).
 * Returns 0 found, -1 absent or malformed. */
int load_json_field(const char *buf, size_t len, const char *key, const char **val, size_t *vlen);
/* The member as an integer: 0, or -1 if absent or not an integer. */
int load_json_int(const char *buf, size_t len, const char *key, long long *out);
/* 1 if the member is the string `want` (no escapes), 0 if another value, -1 if absent. */
int load_json_str_is(const char *buf, size_t len, const char *key, const char *want);

/* Copies the member, a string without escapes, into out (NUL-terminated):
 * 0, or -1 if absent, not such a string, or not shorter than outlen. */
int load_json_str_copy(const char *buf, size_t len, const char *key, char *out, size_t outlen);
/* Element idx of the member, an array, as an integer: 0, or -1 if absent,
 * not an array, too short, or that element is not an integer. */
int load_json_array_int(const char *buf, size_t len, const char *key, int idx, long long *out);

/* Sorts v in place and fills the summary (nearest-rank percentiles). */
void load_lat_summarize(double *v, size_t n, struct load_lat *out);

/* /proc/PID/stat text -> utime + stime in clock ticks; 0 or -1 if malformed. */
int load_proc_stat_ticks(const char *buf, unsigned long long *ticks);
/* /proc/PID/status text -> VmRSS in kB; 0 or -1 if absent. */
int load_proc_status_rss(const char *buf, long *rss_kb);
/* Reads both for pid; out->ok = 0 when the process is gone. */
void load_proc_sample(int pid, struct load_proc *out);

/* The first of n logged tallies (receive times t, vote counts votes; both
 * never decrease) received at or after `after` that counts at least `need`
 * votes: its index, or n when none does. */
int load_first_tally(const double *t, const long long *votes, int n, double after, long long need);

/* The local resources an HTML page loads (src="..." and href="..." with a
 * path of this server: "/x" or "x", not "//host", "scheme:", "#", data:),
 * each once, in order, into out[i] (NUL-terminated, at most
 * LOAD_PATH_MAX - 1 bytes; longer ones are skipped). Returns how many (at
 * most max). */
#define LOAD_PATH_MAX 256
int load_html_resources(const char *html, size_t len, char out[][LOAD_PATH_MAX], int max);

/* An HTTP/1.1 response being read: 1 when buf[0..len) holds a whole one
 * (status, header_len incl. the blank line, body_len; keep_alive 0 when
 * the server will close), 0 when more is needed (or, without a length,
 * the body runs to the close: body_len -1), -1 when malformed. */
int load_http_response(const char *buf, size_t len, int *status, size_t *header_len, long long *body_len,
                       int *keep_alive);
/* Whether the response headers buf[0..header_len) say "Content-Encoding: gzip". */
int load_http_gzip(const char *buf, size_t header_len);
/* The gzip bytes in[0..n) inflated into a malloc'd, NUL-terminated buffer of
 * at most cap bytes (*outlen); NULL if not gzip, truncated or larger. */
char *load_gunzip(const void *in, size_t n, size_t cap, size_t *outlen);

/* 1 if s is a numeric IPv4 address inside 127.0.0.0/8. */
int load_is_loopback4(const char *s);

#endif
