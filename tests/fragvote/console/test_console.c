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

static void test_parse_open_with_a_voting_timer(void) {
    struct console_cmd c;
    char err[256];
    CHECK(parse("open", &c, err) == 0);
    CHECK_INT(c.act, HUB_CMD_OPEN);
    CHECK_INT(c.seconds, 0);
    CHECK(parse("open 30  # half a minute\n", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_ACT);
    CHECK_INT(c.act, HUB_CMD_OPEN);
    CHECK_INT(c.seconds, 30);
    CHECK(parse("open 1", &c, err) == 0);
    CHECK_INT(c.seconds, 1);
    char line[64];
    snprintf(line, sizeof line, "open %d", HUB_COUNTDOWN_MAX_S);
    CHECK(parse(line, &c, err) == 0);
    CHECK_INT(c.seconds, HUB_COUNTDOWN_MAX_S);
    const char *bad[] = {"open 0", "open -5", "open 3601", "open 1e3", "open 30s", "open now", "open 99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(parse(bad[i], &c, err) < 0);
        CHECK_CONTAINS(err, "open: SECONDS (the voting timer) must be a number 1..3600");
    }
    CHECK(parse("open 30 40", &c, err) < 0);
    CHECK_CONTAINS(err, "'open' takes no argument");
    CHECK(parse("close 30", &c, err) < 0);
    CHECK_CONTAINS(err, "'close' takes no argument");
}

static void test_parse_waits_and_sleep(void) {
    struct console_cmd c;
    char err[256];
    CHECK(parse("wait-votes 50", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_WAIT_VOTES);
    CHECK_INT(c.n, 50);
    CHECK_INT(c.timeout_ms, CONSOLE_WAIT_MS_DEFAULT);
    CHECK(parse("wait-voters 7 1500", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_WAIT_VOTERS);
    CHECK_INT(c.n, 7);
    CHECK_INT(c.timeout_ms, 1500);
    CHECK(parse("wait-state measured", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_WAIT_STATE);
    CHECK_INT(c.state, QUIZ_MEASURED);
    CHECK(parse("wait-measured 20000", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_WAIT_MEASURED);
    CHECK_INT(c.timeout_ms, 20000);
    CHECK(parse("sleep 250", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_SLEEP);
    CHECK_INT(c.n, 250);
    CHECK(parse("expect-refused reveal", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_EXPECT_REFUSED);
    CHECK_INT(c.act, HUB_CMD_REVEAL);
    CHECK(parse("# only a comment", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_NOTHING);
    CHECK(parse("", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_NOTHING);
    CHECK(parse("stop-at-end", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_STOP_AT_END);
    CHECK(parse("quit-at-end", &c, err) == 0);
    CHECK_INT(c.verb, CONSOLE_QUIT_AT_END);
}

static void test_parse_refuses_garbage(void) {
    struct console_cmd c;
    char err[256];
    CHECK(parse("wait-votes", &c, err) < 0);
    CHECK_CONTAINS(err, "usage: wait-votes N");
    CHECK(parse("wait-votes -3", &c, err) < 0);
    CHECK(parse("wait-votes 99999999999", &c, err) < 0);
    CHECK(parse("sleep 1e3", &c, err) < 0);
    CHECK(parse("sleep 3600001", &c, err) < 0);
    CHECK(parse("wait-state sleeping", &c, err) < 0);
    CHECK_CONTAINS(err, "unknown state 'sleeping'");
    CHECK(parse("expect-refused quit", &c, err) < 0);
    CHECK(parse("expect-refused dance", &c, err) < 0);
    CHECK(parse("dance", &c, err) < 0);
    CHECK_CONTAINS(err, "unknown command 'dance'");
    char long_line[CONSOLE_LINE_MAX + 10];
    memset(long_line, 'a', sizeof long_line - 1);
    long_line[sizeof long_line - 1] = 0;
    CHECK(parse(long_line, &c, err) < 0);
    CHECK_CONTAINS(err, "longer than");
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

static int setup(struct console *c, FILE **logf) {
    char err[512], path[256];
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
    *logf = open_memstream(&log_text, &log_len);
    memset(c, 0, sizeof *c);
    c->be = (struct console_backend){rb_post, rb_status, &rb};
    c->out = *logf;
    c->view = (struct console_view){.title = "Console test", .join_url = "http://192.0.2.1:8080/?room=TESTRM",
                                    .room_code = "TESTRM", .secret = "s3cret", .target = "lab",
                                    .screen_url = "http://192.0.2.1:8080/screen/",
                                    .presenter_url = "http://192.0.2.1:8080/presenter/"};
    return 0;
}

static void teardown(FILE *logf) {
    fclose(logf);
    free(log_text);
    log_text = NULL;
    room_free(rb.room);
    db_close(rb.db);
    deck_free(&deck);
}

static int run(struct console *c, const char *script, char *err, size_t errlen) {
    FILE *in = fmemopen((void *)script, strlen(script), "r");
    int rc = console_run_script(c, in, "talk.script", err, errlen);
    fclose(in);
    return rc;
}

static void test_invalid_transitions_are_refused_with_the_quiz_reason(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    int rc = run(&c,
                 "expect-refused close\n"    /* pending: nothing to close */
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
                 "expect-refused next\n",    /* not revealed yet */
                 err, sizeof err);
    fflush(logf);
    if (rc) fprintf(stderr, "%s\n%s", err, log_text);
    CHECK_INT(rc, 0);
    CHECK_INT(c.refused_unexpected, 0);
    CHECK_INT(rb.refused, 9);
    CHECK_CONTAINS(log_text, "close refused as expected");
    struct quiz_qinfo qi;
    quiz_get(room_quiz(rb.room), 0, &qi);
    CHECK_INT(qi.state, QUIZ_CLOSED);
    teardown(logf);
}

static void test_expected_refusal_that_is_accepted_fails_the_script(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    CHECK(run(&c, "\n# open is fine on a pending question\nexpect-refused open\n", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "talk.script:3: expected 'open' to be refused, but the hub carried it out");
    teardown(logf);
}

static void test_unexpected_refusal_is_counted_and_printed(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    CHECK(run(&c, "reveal\nopen\n", err, sizeof err) == 0);
    fflush(logf);
    CHECK_INT(c.refused_unexpected, 1);
    CHECK_CONTAINS(log_text, "> reveal refused: ");
    CHECK_CONTAINS(log_text, "> open: question 1/");
    teardown(logf);
}

static void test_parse_error_names_script_line(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    CHECK(run(&c, "open\nwait-votes many\n", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "talk.script:2: wait-votes: N must be a number");
    teardown(logf);
}

static void test_wait_votes_sees_committed_votes_and_times_out_honestly(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    REQUIRE(run(&c, "open\n", err, sizeof err) == 0);
    /* Three phones vote through the room's group commit. */
    struct room_write w[3];
    for (int i = 0; i < 3; i++) {
        char tok[ROOM_TOKEN_HEX + 1];
        REQUIRE(room_token_new(rb.room, tok, err, sizeof err) == 0);
        REQUIRE(room_write_plan(rb.room, &w[i], -1, tok, 0, i != 1, CONFIDENCE_NONE, i, err, sizeof err) == 0);
    }
    REQUIRE(room_write_commit(rb.room, w, 3, err, sizeof err) == 0);
    for (int i = 0; i < 3; i++) REQUIRE(w[i].voter >= 0);
    CHECK(run(&c, "wait-voters 3 1000\nwait-votes 3 1000\n", err, sizeof err) == 0);
    CHECK(run(&c, "wait-votes 4 100\n", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "talk.script:1: wait-votes 4: timed out after 100 ms with 3 votes on question 1");
    CHECK(run(&c, "wait-state revealed 50\n", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "in state voting");
    /* While voting the screen shows the count but not the split. */
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    struct console_status st;
    rb_status(&rb, &st);
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "Votes: 3\n");
    CHECK(!strstr(screen, "yes 2"));
    free(screen);
    CHECK(run(&c, "close\n", err, sizeof err) == 0);
    sf = open_memstream(&screen, &slen);
    rb_status(&rb, &st);
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "Votes: 3 (yes 2 / no 1)");
    free(screen);
    teardown(logf);
}

static void test_measure_is_handed_to_the_worker_and_stop_at_end(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    CHECK(run(&c, "open\nclose\nmeasure\n", err, sizeof err) == 0);
    CHECK_INT(rb.measures, 1);
    struct quiz_qinfo qi;
    quiz_get(room_quiz(rb.room), 0, &qi);
    CHECK_INT(qi.measuring, 1);
    /* No result arrives here: wait-measured must time out, not pretend. */
    CHECK(run(&c, "wait-measured 50\n", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "probe still running");
    /* Skipping every question ends the quiz; stop-at-end stops before 'dance'. */
    CHECK(run(&c, "skip\nskip\nskip\nskip\nskip\nstop-at-end\ndance\n", err, sizeof err) == 0);
    CHECK(quiz_ended(room_quiz(rb.room)));
    teardown(logf);
}

static void test_open_key_and_script_pass_the_timer_to_the_hub(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    struct console_cmd key;
    REQUIRE(console_parse_key('t', &key) == 0);
    rb.seconds = -7;
    CHECK(console_exec(&c, &key, err, sizeof err) == 0); /* no --timer: the default */
    CHECK_INT(rb.seconds, CONSOLE_TIMER_S_DEFAULT);
    CHECK(run(&c, "close\nskip\nopen\n", err, sizeof err) == 0);
    CHECK_INT(rb.seconds, 0);
    CHECK(run(&c, "close\nskip\nopen 7\n", err, sizeof err) == 0);
    CHECK_INT(rb.seconds, 7);
    CHECK(run(&c, "close\nskip\n", err, sizeof err) == 0);
    c.timer_s = 45;                                      /* serve --timer 45 */
    CHECK(console_exec(&c, &key, err, sizeof err) == 0);
    CHECK_INT(rb.seconds, 45);
    fflush(logf);
    CHECK_INT(c.refused_unexpected, 0);
    CHECK_CONTAINS(log_text, "> open 30: question 1/5 voting");
    CHECK_CONTAINS(log_text, "> open: question 2/5 voting");
    CHECK_CONTAINS(log_text, "> open 7: question 3/5 voting");
    CHECK_CONTAINS(log_text, "> open 45: question 4/5 voting");
    teardown(logf);
}

static void test_render_counts_down_while_a_timer_runs(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    char err[512] = "";
    REQUIRE(run(&c, "open\n", err, sizeof err) == 0);
    struct console_status st;
    rb_status(&rb, &st);
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st); /* no timer */
    st.hub.closes_in_ms = 12400;      /* as hub_snapshot reports a running one */
    console_render(sf, &c.view, &st);
    st.hub.closes_in_ms = 1;
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "State: voting\n");
    CHECK_CONTAINS(screen, "State: voting   (closes in 13 s)\n");
    CHECK_CONTAINS(screen, "State: voting   (closes in 1 s)\n");
    free(screen);
    teardown(logf);
}

static void test_render_names_connections_refused(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    struct console_status st;
    rb_status(&rb, &st);
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st); /* nothing refused: no line */
    fclose(sf);
    CHECK(!strstr(screen, "Connections refused"));
    free(screen);
    st.hub.conns_refused = 1200; /* as hub_snapshot reports a host filling the room */
    st.hub.conns_evicted = 37;
    st.hub.origin_refused = 4;
    st.hub.resumes_refused = 280;
    sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "Connections refused: 1200 (an address's share taken, or the room full); 37 silent phones "
                           "closed to make room; 4 from other sites' pages; 280 reconnects of one phone too often");
    free(screen);
    teardown(logf);
}

/* Issue 37, item 4: once the quiz has ended, the console gives the short
 * link to the phones' self-paced replay (the hub's /r), not before. */
static void test_render_gives_the_replay_link_at_the_end(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    struct console_status st;
    rb_status(&rb, &st);
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK(!strstr(screen, "play it again"));
    free(screen);
    st.hub.ended = 1;
    sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st);
    fclose(sf);
    CHECK_CONTAINS(screen, "Phones play it again at http://192.0.2.1:8080/r");
    free(screen);
    teardown(logf);
}

static void test_render_shows_what_the_speaker_needs(void) {
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    c.view.show_qr = 1;
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    struct console_status st;
    rb_status(&rb, &st);
    console_render(sf, &c.view, &st);
    fclose(sf);
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
    c.view.show_secret = 1;
    sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st);
    console_render_secret(sf, &c.view);
    fclose(sf);
    CHECK_CONTAINS(screen, "Room: TESTRM   Presenter secret: s3cret   Target: lab");
    CHECK_CONTAINS(screen, "Presenter: http://192.0.2.1:8080/presenter/#secret=s3cret");
    free(screen);
    teardown(logf);
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
    struct console c;
    FILE *logf;
    REQUIRE(setup(&c, &logf) == 0);
    c.view.show_qr = 1;
    struct console_status st;
    rb_status(&rb, &st);
    /* 80x24: everything, the QR code beside the question, within 79 x 23
     * (the last column and the cursor's row stay free). */
    c.view.cols = 80;
    c.view.rows = 24;
    char *screen = NULL;
    size_t slen = 0;
    FILE *sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st);
    fclose(sf);
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
    c.view.cols = 60;
    c.view.rows = 20;
    sf = open_memstream(&screen, &slen);
    console_render(sf, &c.view, &st);
    fclose(sf);
    frame_size(screen, &lines, &widest);
    CHECK(lines <= 19);
    CHECK(widest <= 59);
    CHECK(!strstr(screen, "\xe2\x96\x88"));
    CHECK_CONTAINS(screen, "QR code for phones: on the projector");
    CHECK_CONTAINS(screen, "State: pending");
    free(screen);
    teardown(logf);
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
    RUN(test_expected_refusal_that_is_accepted_fails_the_script);
    RUN(test_unexpected_refusal_is_counted_and_printed);
    RUN(test_parse_error_names_script_line);
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
