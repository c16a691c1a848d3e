/* Console: the command parser, the QR code, the screen, and the script
 * runner driving a real room (quiz + SQLite store) through a backend that
 * carries actions out the way the hub does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qrencode.h>

#include "check.h"
#include "console.h"
#include "db.h"
#include "deck.h"
#include "room.h"

/* ---- parser ---- */

static int parse(const char *line, struct console_cmd *c, char *err) { return console_parse_line(line, c, err, 256); }

static void test_parse_actions(void) {
    struct console_cmd c;
    char err[256];
    const char *names[] = {"next", "open", "close", "measure", "reveal", "rerun", "skip", "back", "quit"};
    enum hub_cmd_kind kinds[] = {HUB_CMD_NEXT, HUB_CMD_OPEN,  HUB_CMD_CLOSE, HUB_CMD_MEASURE, HUB_CMD_REVEAL,
                                 HUB_CMD_RERUN, HUB_CMD_SKIP, HUB_CMD_BACK,  HUB_CMD_QUIT};
    for (int i = 0; i < 9; i++) {
        CHECK(parse(names[i], &c, err) == 0);
        CHECK_INT(c.verb, CONSOLE_ACT);
        CHECK_INT(c.act, kinds[i]);
        CHECK_STR(console_act_name(kinds[i]), names[i]);
    }
    CHECK(parse("  re-run   # again\n", &c, err) == 0);
    CHECK_INT(c.act, HUB_CMD_RERUN);
    CHECK(parse("close now", &c, err) < 0);
    CHECK_CONTAINS(err, "'close' takes no argument");
}

/* A line and what it parses to; ANY: a field the case does not check. */
#define ANY (-999)
struct parsed {
    const char *line;
    int verb, act, n, timeout_ms, state, seconds;
};

static void check_parsed(const struct parsed *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const struct parsed *p = &cases[i];
        struct console_cmd c;
        char err[256];
        CHECK(parse(p->line, &c, err) == 0);
        if (p->verb != ANY) CHECK_INT(c.verb, p->verb);
        if (p->act != ANY) CHECK_INT(c.act, p->act);
        if (p->n != ANY) CHECK_INT(c.n, p->n);
        if (p->timeout_ms != ANY) CHECK_INT(c.timeout_ms, p->timeout_ms);
        if (p->state != ANY) CHECK_INT(c.state, p->state);
        if (p->seconds != ANY) CHECK_INT(c.seconds, p->seconds);
    }
}

/* Lines refused, each with the words of its reason (NULL: not checked). */
struct refused {
    const char *line, *why;
};

static void check_refused(const struct refused *cases, size_t n) {
    for (size_t i = 0; i < n; i++) {
        struct console_cmd c;
        char err[256] = "";
        CHECK(parse(cases[i].line, &c, err) < 0);
        if (cases[i].why) CHECK_CONTAINS(err, cases[i].why);
    }
}

static void test_parse_open_with_a_voting_timer(void) {
    char max[64];
    snprintf(max, sizeof max, "open %d", HUB_COUNTDOWN_MAX_S);
    const struct parsed ok[] = {
        /* line                          verb        act           n    timeout state seconds */
        {"open",                         ANY,        HUB_CMD_OPEN, ANY, ANY,    ANY,  0},
        {"open 30  # half a minute\n",   CONSOLE_ACT, HUB_CMD_OPEN, ANY, ANY,    ANY,  30},
        {"open 1",                       ANY,        ANY,          ANY, ANY,    ANY,  1},
        {max,                            ANY,        ANY,          ANY, ANY,    ANY,  HUB_COUNTDOWN_MAX_S},
    };
    check_parsed(ok, sizeof ok / sizeof ok[0]);
    const char *timer = "open: SECONDS (the voting timer) must be a number 1..3600";
    const struct refused bad[] = {
        {"open 0", timer},    {"open -5", timer},   {"open 3601", timer},          {"open 1e3", timer},
        {"open 30s", timer},  {"open now", timer},  {"open 99999999999", timer},
        {"open 30 40", "'open' takes no argument"}, {"close 30", "'close' takes no argument"},
    };
    check_refused(bad, sizeof bad / sizeof bad[0]);
}

static void test_parse_waits_and_sleep(void) {
    static const struct parsed ok[] = {
        /* line                    verb                    act             n    timeout                  state          seconds */
        {"wait-votes 50",          CONSOLE_WAIT_VOTES,     ANY,            50,  CONSOLE_WAIT_MS_DEFAULT, ANY,           ANY},
        {"wait-voters 7 1500",     CONSOLE_WAIT_VOTERS,    ANY,            7,   1500,                    ANY,           ANY},
        {"wait-state measured",    CONSOLE_WAIT_STATE,     ANY,            ANY, ANY,                     QUIZ_MEASURED, ANY},
        {"wait-measured 20000",    CONSOLE_WAIT_MEASURED,  ANY,            ANY, 20000,                   ANY,           ANY},
        {"sleep 250",              CONSOLE_SLEEP,          ANY,            250, ANY,                     ANY,           ANY},
        {"expect-refused reveal",  CONSOLE_EXPECT_REFUSED, HUB_CMD_REVEAL, ANY, ANY,                     ANY,           ANY},
        {"# only a comment",       CONSOLE_NOTHING,        ANY,            ANY, ANY,                     ANY,           ANY},
        {"",                       CONSOLE_NOTHING,        ANY,            ANY, ANY,                     ANY,           ANY},
        {"stop-at-end",            CONSOLE_STOP_AT_END,    ANY,            ANY, ANY,                     ANY,           ANY},
        {"quit-at-end",            CONSOLE_QUIT_AT_END,    ANY,            ANY, ANY,                     ANY,           ANY},
    };
    check_parsed(ok, sizeof ok / sizeof ok[0]);
}

static void test_parse_refuses_garbage(void) {
    char long_line[CONSOLE_LINE_MAX + 10];
    memset(long_line, 'a', sizeof long_line - 1);
    long_line[sizeof long_line - 1] = 0;
    const struct refused bad[] = {
        {"wait-votes", "usage: wait-votes N"},
        {"wait-votes -3", NULL},
        {"wait-votes 99999999999", NULL},
        {"sleep 1e3", NULL},
        {"sleep 3600001", NULL},
        {"wait-state sleeping", "unknown state 'sleeping'"},
        {"expect-refused quit", NULL},
        {"expect-refused dance", NULL},
        {"dance", "unknown command 'dance'"},
        {long_line, "longer than"},
    };
    check_refused(bad, sizeof bad / sizeof bad[0]);
}

static void test_keys(void) {
    struct console_cmd c;
    const char *keys = "ocmrensbqw";
    enum hub_cmd_kind kinds[] = {HUB_CMD_OPEN, HUB_CMD_CLOSE, HUB_CMD_MEASURE, HUB_CMD_REVEAL, HUB_CMD_RERUN,
                                 HUB_CMD_NEXT, HUB_CMD_SKIP,  HUB_CMD_BACK,    HUB_CMD_QUIT,  HUB_CMD_WHY};
    for (int i = 0; keys[i]; i++) {
        CHECK(console_parse_key(keys[i], &c) == 0);
        CHECK_INT(c.verb, CONSOLE_ACT);
        CHECK_INT(c.act, kinds[i]);
    }
    CHECK(console_parse_key('o', &c) == 0 && c.seconds == 0);
    CHECK(console_parse_key('t', &c) == 0);
    CHECK_INT(c.verb, CONSOLE_ACT);
    CHECK_INT(c.act, HUB_CMD_OPEN);
    CHECK_INT(c.seconds, CONSOLE_TIMER_KEY);
    CHECK_CONTAINS(console_keys_help(), "[t]imed open");
    CHECK(console_parse_key(' ', &c) == 0 && c.act == HUB_CMD_NEXT);
    CHECK(console_parse_key('?', &c) == 0 && c.verb == CONSOLE_HELP);
    CHECK(console_parse_key('p', &c) == 0 && c.verb == CONSOLE_SECRET);
    CHECK_CONTAINS(console_keys_help(), "[p]resenter secret");
    CHECK_CONTAINS(console_keys_help(), "[w]hy");
    char err[64];
    CHECK(console_parse_line("why", &c, err, sizeof err) == 0 && c.verb == CONSOLE_ACT && c.act == HUB_CMD_WHY);
    CHECK_STR(console_act_name(HUB_CMD_WHY), "why");
    CHECK(console_parse_line("secret", &c, err, sizeof err) == 0 && c.verb == CONSOLE_SECRET);
    CHECK(console_parse_line("secret now", &c, err, sizeof err) < 0);
    CHECK(console_parse_key('z', &c) < 0);
    CHECK(console_parse_key('\n', &c) < 0);
}

/* ---- QR: decode the drawn half blocks back into modules ---- */

static void test_qr_draw_round_trips_to_the_symbol(void) {
    const char *url = "http://192.0.2.10:8080/?room=K7QX2M";
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    REQUIRE(f);
    char err[128];
    REQUIRE(console_qr_draw(f, url, err, sizeof err) == 0);
    fclose(f);
    QRcode *qr = QRcode_encodeString(url, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
    REQUIRE(qr);
    int w = qr->width + 4, rows = 0, bad = 0;
    /* Each line is w cells; each cell is a space or a 3-byte block. */
    const char *p = text;
    for (int y = 0; y < w; y += 2, rows++) {
        for (int x = 0; x < w; x++) {
            int top, bottom;
            if (*p == ' ') { top = 0; bottom = 0; p += 1; }
            else if (!strncmp(p, "\xe2\x96\x84", 3)) { top = 0; bottom = 1; p += 3; }
            else if (!strncmp(p, "\xe2\x96\x80", 3)) { top = 1; bottom = 0; p += 3; }
            else if (!strncmp(p, "\xe2\x96\x88", 3)) { top = 1; bottom = 1; p += 3; }
            else { bad++; break; }
            for (int h = 0; h < 2; h++) {
                int yy = y + h - 2, xx = x - 2;
                if (y + h >= w) continue;
                int light = (xx < 0 || yy < 0 || xx >= qr->width || yy >= qr->width) ? 1
                                                                                     : !(qr->data[yy * qr->width + xx] & 1);
                if (light != (h ? bottom : top)) bad++;
            }
        }
        if (*p != '\n') bad++;
        else p++;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(rows, (w + 1) / 2);
    CHECK(*p == 0);
    QRcode_free(qr);
    free(text);
}

/* ---- a real room behind the backend ---- */

struct rb {
    struct room *room;
    struct db *db;
    unsigned long refused, measures;
    char last[256];
    int seconds;            /* what the console asked open for (the hub's timer is tested in tests/fragvote/hub) */
};

static int rb_post(void *ctx, enum hub_cmd_kind k, int seconds) {
    struct rb *b = ctx;
    if (k == HUB_CMD_OPEN) b->seconds = seconds;
    enum room_action a;
    switch (k) {
    case HUB_CMD_OPEN: a = ROOM_OPEN; break;
    case HUB_CMD_CLOSE: a = ROOM_CLOSE; break;
    case HUB_CMD_MEASURE: a = ROOM_MEASURE; break;
    case HUB_CMD_RERUN: a = ROOM_RERUN; break;
    case HUB_CMD_REVEAL: a = ROOM_REVEAL; break;
    case HUB_CMD_NEXT: a = ROOM_NEXT; break;
    case HUB_CMD_BACK: a = ROOM_BACK; break;
    case HUB_CMD_SKIP: a = ROOM_SKIP; break;
    default: return 0;
    }
    char err[256];
    int rc = room_act(b->room, a, err, sizeof err);
    if (rc < 0) {
        b->refused++;
        snprintf(b->last, sizeof b->last, "%s", err);
    } else if (rc == QUIZ_MEASURE_PROBE) {
        b->measures++;
    }
    return 0;
}

static void rb_status(void *ctx, struct console_status *out) {
    struct rb *b = ctx;
    memset(out, 0, sizeof *out);
    struct quiz *q = room_quiz(b->room);
    out->hub.cursor = quiz_cursor(q);
    out->hub.nquestions = quiz_count(q);
    out->hub.ended = quiz_ended(q);
    if (!out->hub.ended) quiz_get(q, out->hub.cursor, &out->hub.current);
    out->hub.voters = room_voter_count(b->room);
    out->hub.refused_total = b->refused;
    snprintf(out->hub.last_error, sizeof out->hub.last_error, "%s", b->last);
    int scored;
    out->hub.collective = quiz_collective(q, &scored);
    out->measure_requests = b->measures;
}

static struct deck deck;
static struct rb rb;
static char *log_text;
static size_t log_len;

static struct console con; /* the console under test, on rb's room */
static FILE *log_out;         /* its output, read back as log_text */
static char err[512];      /* the last script's or command's error */

/* A console on a fresh room of a two-test deck. */
static int setup(void) {
    char path[256];
    err[0] = '\0';
    static int n;
    snprintf(path, sizeof path, "%s/console%d.db", check_tmpdir(), ++n);
    memset(&rb, 0, sizeof rb);
    if (deck_load_string("{\"title\":\"Console test\",\"tests\":[{\"proto\":\"udp4\",\"size\":1400},"
                         "{\"proto\":\"udp6\",\"size\":2000}]}",
                         "t.json", &deck, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    rb.db = db_open(path, err, sizeof err);
    if (!rb.db) return -1;
    struct room_info info = {.code = "TESTRM", .target = "lab"};
    rb.room = room_create(rb.db, &deck, &info, err, sizeof err);
    if (!rb.room) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    log_out = open_memstream(&log_text, &log_len);
    memset(&con, 0, sizeof con);
    con.be = (struct console_backend){rb_post, rb_status, &rb};
    con.out = log_out;
    con.view = (struct console_view){.title = "Console test", .join_url = "http://192.0.2.1:8080/?room=TESTRM",
                                    .room_code = "TESTRM", .secret = "s3cret", .target = "lab",
                                    .screen_url = "http://192.0.2.1:8080/screen/",
                                    .presenter_url = "http://192.0.2.1:8080/presenter/"};
    return 0;
}

static void teardown(void) {
    fclose(log_out);
    free(log_text);
    log_text = NULL;
    room_free(rb.room);
    db_close(rb.db);
    deck_free(&deck);
}

/* The console runs script as the file talk.script; its error in err. */
static int run(const char *script) {
    FILE *in = fmemopen((void *)script, strlen(script), "r");
    int rc = console_run_script(&con, in, "talk.script", err, sizeof err);
    fclose(in);
    return rc;
}

/* The console's log so far: refused_unexpected refusals nobody expected, and
 * each of lines (up to a NULL) in it. */
static void check_log(int refused_unexpected, const char *const lines[]) {
    fflush(log_out);
    CHECK_INT(con.refused_unexpected, refused_unexpected);
    for (size_t i = 0; lines[i]; i++) CHECK_CONTAINS(log_text, lines[i]);
}

/* The console's frame for st, malloc'd; with_secret: and the lines the
 * 'secret' command prints under it. */
static char *render(const struct console_status *st, int with_secret) {
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    console_render(sf, &con.view, st);
    if (with_secret) console_render_secret(sf, &con.view);
    fclose(sf);
    return screen;
}

/* The console's frame for st holds has and not lacks (NULL: not checked). */
static void screen_has(const struct console_status *st, const char *has, const char *lacks) {
    char *screen = render(st, 0);
    if (has) CHECK_CONTAINS(screen, has);
    if (lacks) CHECK(!strstr(screen, lacks));
    free(screen);
}

static void test_invalid_transitions_are_refused_with_the_quiz_reason(void) {
    REQUIRE(setup() == 0);
    int rc = run("expect-refused close\n"    /* pending: nothing to close */
                 "expect-refused measure\n"  /* not closed yet */
                 "expect-refused reveal\n"   /* not measured */
                 "open\n"
                 "wait-state voting 1000\n"
                 "expect-refused open\n"     /* already voting */
                 "expect-refused next\n"     /* cannot leave a voting question */
                 "expect-refused back\n"
                 "expect-refused reveal\n"
                 "close\n"
                 "expect-refused open\n"     /* closed stays closed */
                 "expect-refused next\n");   /* not revealed yet */
    fflush(log_out);
    if (rc) fprintf(stderr, "%s\n%s", err, log_text);
    CHECK_INT(rc, 0);
    CHECK_INT(con.refused_unexpected, 0);
    CHECK_INT(rb.refused, 9);
    CHECK_CONTAINS(log_text, "close refused as expected");
    struct quiz_qinfo qi;
    quiz_get(room_quiz(rb.room), 0, &qi);
    CHECK_INT(qi.state, QUIZ_CLOSED);
    teardown();
}

/* A script that fails names its line: an expected refusal the hub carried
 * out, a parse error. */
static void test_failing_scripts_name_their_line(void) {
    static const struct {
        const char *script, *err;
    } cases[] = {
        {"\n# open is fine on a pending question\nexpect-refused open\n",
         "talk.script:3: expected 'open' to be refused, but the hub carried it out"},
        {"open\nwait-votes many\n", "talk.script:2: wait-votes: N must be a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        REQUIRE(setup() == 0);
        CHECK(run(cases[i].script) < 0);
        CHECK_CONTAINS(err, cases[i].err);
        teardown();
    }
}

static void test_unexpected_refusal_is_counted_and_printed(void) {
    REQUIRE(setup() == 0);
    CHECK(run("reveal\nopen\n") == 0);
    check_log(1, (const char *const[]){"> reveal refused: ", "> open: question 1/", NULL});
    teardown();
}

static void test_wait_votes_sees_committed_votes_and_times_out_honestly(void) {
    REQUIRE(setup() == 0);
    REQUIRE(run("open\n") == 0);
    /* Three phones vote through the room's group commit. */
    struct room_write w[3];
    for (int i = 0; i < 3; i++) {
        char tok[ROOM_TOKEN_HEX + 1];
        REQUIRE(room_token_new(rb.room, tok, err, sizeof err) == 0);
        REQUIRE(room_write_plan(rb.room, &w[i], -1, tok, 0, i != 1, CONFIDENCE_NONE, i, err, sizeof err) == 0);
    }
    REQUIRE(room_write_commit(rb.room, w, 3, err, sizeof err) == 0);
    for (int i = 0; i < 3; i++) REQUIRE(w[i].voter >= 0);
    CHECK(run("wait-voters 3 1000\nwait-votes 3 1000\n") == 0);
    CHECK(run("wait-votes 4 100\n") < 0);
    CHECK_CONTAINS(err, "talk.script:1: wait-votes 4: timed out after 100 ms with 3 votes on question 1");
    CHECK(run("wait-state revealed 50\n") < 0);
    CHECK_CONTAINS(err, "in state voting");
    /* While voting the screen shows the count but not the split. */
    struct console_status st;
    rb_status(&rb, &st);
    screen_has(&st, "Votes: 3\n", "yes 2");
    CHECK(run("close\n") == 0);
    rb_status(&rb, &st);
    screen_has(&st, "Votes: 3 (yes 2 / no 1)", NULL);
    teardown();
}

static void test_measure_is_handed_to_the_worker_and_stop_at_end(void) {
    REQUIRE(setup() == 0);
    CHECK(run("open\nclose\nmeasure\n") == 0);
    CHECK_INT(rb.measures, 1);
    struct quiz_qinfo qi;
    quiz_get(room_quiz(rb.room), 0, &qi);
    CHECK_INT(qi.measuring, 1);
    /* No result arrives here: wait-measured must time out, not pretend. */
    CHECK(run("wait-measured 50\n") < 0);
    CHECK_CONTAINS(err, "probe still running");
    /* Skipping every question ends the quiz; stop-at-end stops before 'dance'. */
    CHECK(run("skip\nskip\nskip\nskip\nskip\nstop-at-end\ndance\n") == 0);
    CHECK(quiz_ended(room_quiz(rb.room)));
    teardown();
}

static void test_open_key_and_script_pass_the_timer_to_the_hub(void) {
    REQUIRE(setup() == 0);
    struct console_cmd key;
    REQUIRE(console_parse_key('t', &key) == 0);
    rb.seconds = -7;
    CHECK(console_exec(&con, &key, err, sizeof err) == 0); /* no --timer: the default */
    CHECK_INT(rb.seconds, CONSOLE_TIMER_S_DEFAULT);
    CHECK(run("close\nskip\nopen\n") == 0);
    CHECK_INT(rb.seconds, 0);
    CHECK(run("close\nskip\nopen 7\n") == 0);
    CHECK_INT(rb.seconds, 7);
    CHECK(run("close\nskip\n") == 0);
    con.timer_s = 45;                                      /* serve --timer 45 */
    CHECK(console_exec(&con, &key, err, sizeof err) == 0);
    CHECK_INT(rb.seconds, 45);
    check_log(0, (const char *const[]){"> open 30: question 1/5 voting", "> open: question 2/5 voting",
                                       "> open 7: question 3/5 voting", "> open 45: question 4/5 voting", NULL});
    teardown();
}

static void test_render_counts_down_while_a_timer_runs(void) {
    REQUIRE(setup() == 0);
    REQUIRE(run("open\n") == 0);
    struct console_status st;
    rb_status(&rb, &st);
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    console_render(sf, &con.view, &st); /* no timer */
    st.hub.closes_in_ms = 12400;      /* as hub_snapshot reports a running one */
    console_render(sf, &con.view, &st);
    st.hub.closes_in_ms = 1;
    console_render(sf, &con.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "State: voting\n");
    CHECK_CONTAINS(screen, "State: voting   (closes in 13 s)\n");
    CHECK_CONTAINS(screen, "State: voting   (closes in 1 s)\n");
    free(screen);
    teardown();
}

static void test_render_names_connections_refused(void) {
    REQUIRE(setup() == 0);
    struct console_status st;
    rb_status(&rb, &st);
    screen_has(&st, NULL, "Connections refused"); /* nothing refused: no line */
    st.hub.conns_refused = 1200; /* as hub_snapshot reports a host filling the room */
    st.hub.conns_evicted = 37;
    st.hub.origin_refused = 4;
    st.hub.resumes_refused = 280;
    screen_has(&st, "Connections refused: 1200 (an address's share taken, or the room full); 37 silent phones "
                    "closed to make room; 4 from other sites' pages; 280 reconnects of one phone too often", NULL);
    teardown();
}

/* Issue 37, item 4: once the quiz has ended, the console gives the short
 * link to the phones' self-paced replay (the hub's /r), not before. */
static void test_render_gives_the_replay_link_at_the_end(void) {
    REQUIRE(setup() == 0);
    struct console_status st;
    rb_status(&rb, &st);
    screen_has(&st, NULL, "play it again");
    st.hub.ended = 1;
    screen_has(&st, "Phones play it again at http://192.0.2.1:8080/r", NULL);
    teardown();
}

static void test_render_shows_what_the_speaker_needs(void) {
    REQUIRE(setup() == 0);
    con.view.show_qr = 1;
    struct console_status st;
    rb_status(&rb, &st);
    char *screen = render(&st, 0);
    CHECK_CONTAINS(screen, "Join: http://192.0.2.1:8080/?room=TESTRM");
    CHECK_CONTAINS(screen, "Room: TESTRM");
    CHECK_CONTAINS(screen, "Projector: http://192.0.2.1:8080/screen/");
    CHECK_CONTAINS(screen, "Presenter: http://192.0.2.1:8080/presenter/   (secret hidden: type 'secret')");
    CHECK(!strstr(screen, "s3cret")); /* a mirrored laptop screen shows no secret */
    CHECK_CONTAINS(screen, "\xe2\x96\x88");  /* the QR code */
    CHECK_CONTAINS(screen, "Question 1/5");  /* udp4: 3 questions, udp6: 2 */
    CHECK_CONTAINS(screen, "A 1400-byte UDP/IPv4 packet, default socket options: is it sent?");
    CHECK_CONTAINS(screen, "State: pending");
    CHECK_CONTAINS(screen, "[o]pen");
    free(screen);
    /* Asked for: the secret and the presenter URL that carries it. */
    con.view.show_secret = 1;
    screen = render(&st, 1);
    CHECK_CONTAINS(screen, "Room: TESTRM   Presenter secret: s3cret   Target: lab");
    CHECK_CONTAINS(screen, "Presenter: http://192.0.2.1:8080/presenter/#secret=s3cret");
    free(screen);
    teardown();
}

/* Lines of a frame and the widest one, in cells (UTF-8 code points). */
static void frame_size(const char *s, int *lines, int *widest) {
    *lines = 0;
    *widest = 0;
    int w = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\n') {
            (*lines)++;
            if (w > *widest) *widest = w;
            w = 0;
        } else if (((unsigned char)*p & 0xC0) != 0x80)
            w++;
    }
}

static void test_render_fits_the_terminal(void) {
    REQUIRE(setup() == 0);
    con.view.show_qr = 1;
    struct console_status st;
    rb_status(&rb, &st);
    /* 80x24: everything, the QR code beside the question, within 79 x 23
     * (the last column and the cursor's row stay free). */
    con.view.cols = 80;
    con.view.rows = 24;
    char *screen = render(&st, 0);
    int lines, widest;
    frame_size(screen, &lines, &widest);
    CHECK(lines <= 23);
    CHECK(widest <= 79);
    CHECK_CONTAINS(screen, "Join: http://192.0.2.1:8080/?room=TESTRM");
    CHECK_CONTAINS(screen, "Projector: http://192.0.2.1:8080/screen/");
    CHECK_CONTAINS(screen, "Presenter: http://192.0.2.1:8080/presenter/   (secret hidden: press p)");
    CHECK_CONTAINS(screen, "\xe2\x96\x88"); /* the QR code */
    CHECK_CONTAINS(screen, "State: pending");
    CHECK_CONTAINS(screen, "keys: o t c v m r w n e s a b f p q  (? help)"); /* beside the QR code: letters only */
    CHECK(!strstr(screen, "s3cret"));
    free(screen);
    /* 60x20: no room for the QR code; it says where it is, the rest fits. */
    con.view.cols = 60;
    con.view.rows = 20;
    screen = render(&st, 0);
    frame_size(screen, &lines, &widest);
    CHECK(lines <= 19);
    CHECK(widest <= 59);
    CHECK(!strstr(screen, "\xe2\x96\x88"));
    CHECK_CONTAINS(screen, "QR code for phones: on the projector");
    CHECK_CONTAINS(screen, "State: pending");
    free(screen);
    teardown();
}

static void test_page_urls_beside_the_join_url(void) {
    char u[128];
    CHECK(console_page_url("http://192.0.2.1:8080/?room=K7QX2M", "screen/", u, sizeof u) == 0);
    CHECK_STR(u, "http://192.0.2.1:8080/screen/");
    CHECK(console_page_url("https://quiz.example.org/talk/?room=K7QX2M", "presenter/", u, sizeof u) == 0);
    CHECK_STR(u, "https://quiz.example.org/talk/presenter/");
    CHECK(console_page_url("https://quiz.example.org?room=K7QX2M", "screen/", u, sizeof u) == 0);
    CHECK_STR(u, "https://quiz.example.org/screen/");
    CHECK(console_page_url("http://192.0.2.1:8080/?room=K7QX2M", "presenter/", u, 10) < 0);
}

/* A hub in this process: the result line comes from the room's revealed
 * truth and final-round votes in the snapshot, scored by score/'s rule, and
 * never before the reveal. */
static void test_result_from_the_hubs_snapshot(void) {
    struct console_status st;
    memset(&st, 0, sizeof st);
    st.hub.current.state = QUIZ_MEASURED;
    st.hub.current.yes = 7;
    st.hub.current.no = 3;
    console_status_result(&st);
    CHECK_INT(st.revealed, 0); /* measured: the truth is the room's, not the console's */
    st.hub.current.state = QUIZ_REVEALED;
    snprintf(st.hub.truth, sizeof st.hub.truth, "no");
    console_status_result(&st);
    CHECK_INT(st.revealed, 1);
    CHECK_STR(st.truth, "no");
    CHECK_STR(st.majority, "yes");
    CHECK(st.correct == 0);
    CHECK_INT(st.correct_votes, 3);
    st.hub.current.yes = st.hub.current.no = 5; /* a tie */
    snprintf(st.hub.truth, sizeof st.hub.truth, "yes");
    console_status_result(&st);
    CHECK_STR(st.majority, "tie");
    CHECK(st.correct == 0.5);
    CHECK_INT(st.correct_votes, 5);
    st.hub.current.yes = st.hub.current.no = 0; /* no votes, unknown truth: unscored */
    snprintf(st.hub.truth, sizeof st.hub.truth, "unknown");
    console_status_result(&st);
    CHECK_INT(st.revealed, 1);
    CHECK_STR(st.truth, "unknown");
    CHECK_STR(st.majority, "");
    CHECK(st.correct < 0);
    CHECK_INT(st.correct_votes, -1);
    st.hub.ended = 1; /* the final screen shows no question's result */
    console_status_result(&st);
    CHECK_INT(st.revealed, 0);
}

int main(void) {
    RUN(test_parse_actions);
    RUN(test_parse_open_with_a_voting_timer);
    RUN(test_parse_waits_and_sleep);
    RUN(test_parse_refuses_garbage);
    RUN(test_keys);
    RUN(test_qr_draw_round_trips_to_the_symbol);
    RUN(test_invalid_transitions_are_refused_with_the_quiz_reason);
    RUN(test_failing_scripts_name_their_line);
    RUN(test_unexpected_refusal_is_counted_and_printed);
    RUN(test_wait_votes_sees_committed_votes_and_times_out_honestly);
    RUN(test_measure_is_handed_to_the_worker_and_stop_at_end);
    RUN(test_open_key_and_script_pass_the_timer_to_the_hub);
    RUN(test_render_counts_down_while_a_timer_runs);
    RUN(test_render_shows_what_the_speaker_needs);
    RUN(test_render_names_connections_refused);
    RUN(test_render_gives_the_replay_link_at_the_end);
    RUN(test_render_fits_the_terminal);
    RUN(test_page_urls_beside_the_join_url);
    RUN(test_result_from_the_hubs_snapshot);
    return check_summary();
}
