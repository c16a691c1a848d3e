/* The league of rooms: the order (score, then scored questions, then the
 * older session), the RIPE 87 reference row in its place, solo games and
 * unscored sessions left out, and the "This room: 84 % — RIPE 87's network
 * engineers: just under 80 %" line in every export format. On a database
 * made by hand through the db_* API, read by the real `fragvote`. */
#include "session_fixture.h"
#include "league.h"

#define LINE_84 "This room: 84 % \xe2\x80\x94 RIPE 87's network engineers: just under 80 %"

static void test_line_and_rank_are_pure(void) {
    char buf[LEAGUE_LINE_MAX];
    league_line(0.84, buf, sizeof buf);
    CHECK_STR(buf, LINE_84);
    struct fv_msg m; /* the line as a message: its English is the line */
    league_line_msg(0.84, &m);
    CHECK_STR(m.key, "league.line");
    fv_msg_text(&m, buf, sizeof buf);
    CHECK_STR(buf, LINE_84);
    league_line(-1, buf, sizeof buf);
    CHECK_STR(buf, "");
    league_line_msg(-1, &m);
    CHECK_STR(m.key, "");
    struct league_entry e[] = {{1, 0.75, 4, 2}, {2, 0.80, 5, 2}, {3, 0.75, 8, 3}, {4, 0.8333, 6, 2}, {5, 0.75, 4, 9}};
    int ref = league_rank(e, 5);
    CHECK_INT(ref, 2);  /* 83 %, 80 %, then the reference */
    int64_t want[] = {4, 2, 3, 1, 5}; /* ties: more scored first, then the older id */
    for (int i = 0; i < 5; i++) CHECK_INT(e[i].id, want[i]);
    struct league_entry low[] = {{1, 0.5, 2, 2}};
    CHECK_INT(league_rank(low, 1), 0);
    CHECK_INT(league_rank(NULL, 0), 0);
    CHECK(!league_is_room(1.0, 1));
    CHECK(!league_is_room(-1, 50));
    CHECK(league_is_room(0.0, 2));
}

/* A session of nq questions (truth yes for the first right ones, no for the
 * rest), voters voters all voting yes on each: the majority is right on
 * exactly `right` of nq. Returns the session id. */
static int64_t room(struct db *db, const char *title, int nq, int right, int voters) {
    char err[256];
    struct db_session_info info = {.title = title, .deck_json = "{}", .host = "h", .kernel = "k",
                                   .observer = "raw", .target = "lab", .room = "ABCDEF"};
    int64_t sid = db_session_create(db, &info, err, sizeof err);
    int64_t live = db_session_live_set(db, sid, err, sizeof err);
    if (sid < 0 || live < 0) return -1;
    int64_t v[16];
    for (int i = 0; i < voters; i++) {
        char tok[40];
        snprintf(tok, sizeof tok, "%016llx%016x", (unsigned long long)sid, i);
        if ((v[i] = db_voter_join(db, sid, tok, err, sizeof err)) < 0) return -1;
    }
    for (int p = 0; p < nq; p++) {
        int64_t q = db_question_add(db, sid, p, p, "{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400}", QKIND_SENT,
                                    "sent?", err, sizeof err);
        if (q < 0 || db_question_set_state(db, q, "voting", err, sizeof err)) return -1;
        for (int i = 0; i < voters; i++)
            if (db_vote_put(db, q, v[i], 1, CONFIDENCE_NONE, err, sizeof err) != DB_VOTE_OK) return -1;
        if (db_question_set_state(db, q, "closed", err, sizeof err) ||
            db_measurement_add(db, live, q, p < right ? "yes" : "no", "observed", "ev", "{}", "raw", err,
                               sizeof err) < 0 ||
            db_question_set_state(db, q, "revealed", err, sizeof err))
            return -1;
    }
    return db_session_end(db, sid, err, sizeof err) ? -1 : sid;
}

/* The session ids of the ranked rows, in order, with 0 for the reference row. */
static int ranked_ids(const char *out, long *ids, int max) {
    int n = 0;
    const char *line = out;
    while (line && *line && n < max) {
        long rank, id;
        char pct[8];
        if (!strncmp(line, "   -", 4) && strstr(line, "RIPE 87's network engineers (reference)")) ids[n++] = 0;
        else if (sscanf(line, "%ld %7s %ld", &rank, pct, &id) == 3) ids[n++] = id;
        line = strchr(line, '\n');
        if (line) line++;
    }
    return n;
}

static void test_sessions_league_orders_the_rooms(void) {
    const char *path = fx_path("league.db");
    struct db *db = fx_open(path);
    REQUIRE(db);
    int64_t a = room(db, "room at 75% (4 scored)", 4, 3, 2);    /* 1 */
    int64_t b = room(db, "room at 83%", 6, 5, 3);               /* 2 */
    int64_t solo = room(db, "a solo game at 100%", 3, 3, 1);     /* 3: fewer than 2 voters */
    int64_t c = room(db, "room at 80% exactly", 5, 4, 2);       /* 4: at 80 % ranks above the reference */
    int64_t d = room(db, "room at 75% (8 scored)", 8, 6, 4);    /* 5 */
    int64_t none = room(db, "nothing scored", 0, 0, 5);          /* 6 */
    int64_t e = room(db, "room at 79%", 14, 11, 2);             /* 7: 78.6 % ranks below */
    REQUIRE(a > 0 && b > 0 && solo > 0 && c > 0 && d > 0 && none > 0 && e > 0);
    db_close(db);

    char args[512], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "sessions --league --db '%s'", path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    long ids[16];
    int n = ranked_ids(out, ids, 16);
    long want[] = {b, c, 0, e, d, a};
    CHECK_INT(n, 6);
    for (int i = 0; i < n && i < 6; i++) CHECK_INT(ids[i], want[i]);
    CHECK_CONTAINS(out, "   1     83%");
    CHECK_CONTAINS(out, "   2     80%");
    CHECK_CONTAINS(out, "   -    <80%");
    CHECK_CONTAINS(out, "   3     79%");
    CHECK_CONTAINS(out, "Not ranked: 1 session with no scored question, 1 with fewer than 2 voters");
    CHECK(!strstr(out, "a solo game"));
    free(out);
    free(errs);

    /* The plain list is unchanged by the league: every session, oldest first. */
    snprintf(args, sizeof args, "sessions --db '%s'", path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "a solo game");
    free(out);
    free(errs);
}

static void test_exports_carry_the_league_line(void) {
    const char *path = fx_path("league-export.db");
    struct db *db = fx_open(path);
    REQUIRE(db);
    int64_t sid = room(db, "84 percent", 25, 21, 2); /* 21/25 = 84 % */
    int64_t none = room(db, "nothing scored", 0, 0, 2);
    REQUIRE(sid > 0 && none > 0);
    db_close(db);
    static const char *const formats[] = {"markdown", "json", "csv", "svg"};
    for (int f = 0; f < 4; f++) {
        char args[512], *out = NULL, *errs = NULL;
        snprintf(args, sizeof args, "export %lld --format %s --db '%s'", (long long)sid, formats[f], path);
        CHECK_INT(fx_run(args, &out, &errs), 0);
        /* SVG is XML: the apostrophe is escaped there */
        CHECK_CONTAINS(out, f == 3 ? "This room: 84 % \xe2\x80\x94 RIPE 87&apos;s network engineers: just under 80 %"
                                   : LINE_84);
        free(out);
        free(errs);
        snprintf(args, sizeof args, "export %lld --format %s --db '%s'", (long long)none, formats[f], path);
        CHECK_INT(fx_run(args, &out, &errs), 0);
        CHECK(out && !strstr(out, "RIPE 87"));
        free(out);
        free(errs);
    }
    char args[512], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "export %lld --format json --db '%s'", (long long)sid, path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "\"league\": \"" LINE_84 "\"");
    free(out);
    free(errs);
    snprintf(args, sizeof args, "export %lld --format markdown --db '%s'", (long long)sid, path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "\n- League: " LINE_84 "\n");
    free(out);
    free(errs);
}

int main(void) {
    RUN(test_line_and_rank_are_pure);
    RUN(test_sessions_league_orders_the_rooms);
    RUN(test_exports_carry_the_league_line);
    return check_summary_and_clean();
}
