/* fragvote export and sessions on a real SQLite file recorded through the
 * db_* API: the numbers of every format equal the store's scores and the
 * hand-worked numbers of fixture.h; the SVG is XML with one bar per question. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "deck.h"
#include "export.h"
#include "session_fixture.h"
#include "session_fixture_paths.h"
#include "probe_json.h"
#include "report.h"
#include "room.h"

static char dbfile[256];
static int64_t sid, sid2;
static int64_t qids[FX_NQ], qids2[FX_NQ];

static int setup(void) {
    snprintf(dbfile, sizeof dbfile, "%s", fx_path("talk.db"));
    char err[512];
    struct db *db = db_open(dbfile, err, sizeof err);
    if (!db) { fprintf(stderr, "%s\n", err); return -1; }
    sid = fx_record(db, FX_TITLE, qids);
    sid2 = fx_record(db, "Second talk, same deck", qids2);
    db_close(db);
    return sid > 0 && sid2 > 0 ? 0 : -1;
}

/* The fixture's store, a report reader on it, and session id loaded: 0; or
 * -1 with why on stderr and nothing left open. */
static int open_session(int64_t id, struct db **db, struct db_report **r, struct db_report_session *s) {
    char err[512];
    *r = NULL;
    if (!(*db = db_open(dbfile, err, sizeof err)) || !(*r = db_report_open(*db, err, sizeof err)) ||
        db_report_session_load(*db, *r, id, s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        db_report_close(*r);
        db_close(*db);
        return -1;
    }
    return 0;
}

/* The report's session score equals the store's db_session_score(). */
static void check_score_equals_store(struct db *db, const struct db_report_session *s) {
    char err[256];
    struct db_sscore st;
    REQUIRE(db_session_score(db, s->row.id, &st, err, sizeof err) == 0);
    CHECK_INT(s->score.questions, st.questions);
    CHECK_INT(s->score.scored, st.scored);
    CHECK(s->score.collective == st.collective);
    CHECK_INT(s->score.votes_scored, st.votes_scored);
    CHECK_INT(s->score.votes_correct, st.votes_correct);
    CHECK(s->score.vote_accuracy == st.vote_accuracy);
    CHECK_INT(s->score.voters, st.voters);
    CHECK(s->row.collective == st.collective);
}

/* export_session_text (the hub's `export` answer to the laptop) is what
 * `fragvote export --format F ID` prints, for every format; a wrong format
 * or session is refused with a reason. */
static void test_session_text_equals_the_command(void) {
    static const char *const fmts[] = {"csv", "json", "markdown", "md", "svg"};
    char err[256];
    struct db *db = db_open(dbfile, err, sizeof err);
    REQUIRE(db);
    for (int i = 0; i < 5; i++) {
        char args[512], *out = NULL, *errs = NULL, *text = NULL;
        snprintf(args, sizeof args, "export %lld -f %s --db '%s'", (long long)sid, fmts[i], dbfile);
        CHECK_INT(fx_run(args, &out, &errs), 0);
        CHECK_INT(export_session_text(db, sid, fmts[i], &text, err, sizeof err), 0);
        CHECK(text && out && strlen(out) > 100 && !strcmp(text, out));
        free(text);
        free(out);
        free(errs);
    }
    char *text = NULL;
    CHECK_INT(export_session_text(db, sid, "pdf", &text, err, sizeof err), -1);
    CHECK_CONTAINS(err, "unknown export format 'pdf'");
    CHECK(text == NULL);
    CHECK_INT(export_session_text(db, sid + 1000, "json", &text, err, sizeof err), -1);
    CHECK(text == NULL);
    db_close(db);
}

/* The report reader returns exactly the store's scores and the hand numbers. */
static void test_report_equals_store_and_hand_numbers(void) {
    char err[512];
    struct db *db;
    struct db_report *r;
    struct db_report_session s;
    REQUIRE(open_session(sid, &db, &r, &s) == 0);
    CHECK_STR(s.row.title, FX_TITLE);
    CHECK_INT(s.nquestions, FX_NQ);
    CHECK(s.score.collective == FX_COLLECTIVE);
    CHECK(s.score.vote_accuracy == FX_VOTE_ACCURACY);
    CHECK_INT(s.score.votes_scored, FX_VOTES_SCORED);
    CHECK_INT(s.score.votes_correct, FX_VOTES_CORRECT);
    CHECK_INT(s.score.voters, FX_VOTERS);
    CHECK_INT(s.score.scored, FX_SCORED);
    check_score_equals_store(db, &s);
    for (int i = 0; i < FX_NQ && i < s.nquestions; i++) {
        const struct db_report_question *q = &s.questions[i];
        struct db_qscore qs;
        REQUIRE(db_question_score(db, qids[i], &qs, err, sizeof err) == 0);
        CHECK_INT(q->position, i);
        CHECK_INT(q->yes, fx_q[i].yes);
        CHECK_INT(q->no, fx_q[i].no);
        CHECK_STR(q->truth, fx_q[i].truth);
        CHECK_STR(q->majority, fx_q[i].majority);
        CHECK(q->correct == fx_q[i].correct);
        CHECK(export_question_accuracy(q) == fx_q[i].accuracy);
        /* and the store agrees */
        CHECK_INT(q->yes, qs.yes);
        CHECK_INT(q->no, qs.no);
        CHECK_STR(q->truth, qs.truth);
        CHECK(q->correct == qs.correct);
    }
    CHECK_INT(s.questions[0].changes, 1);
    CHECK_STR(s.questions[0].live.evidence, FX_EVIDENCE_Q1);
    CHECK_STR(s.questions[1].live.evidence, FX_EVIDENCE_Q2); /* live set only, not the newer remeasure */
    CHECK_STR(s.questions[2].live.basis, "observed"); /* the newest live measurement, not the first */
    CHECK_STR(s.questions[4].state, "skipped");
    CHECK(!s.questions[4].live.measured);
    CHECK_INT(s.dist.max_correct, 3);
    for (int k = 0; k <= 3 && k <= s.dist.max_correct; k++) CHECK_INT(s.dist.voters[k], fx_dist[k]);
    CHECK_INT(s.dist.voters_unscored, FX_UNSCORED_VOTERS);
    CHECK_INT(s.nsets, 2);
    if (s.nsets == 2) {
        CHECK_STR(s.sets[0].kind, "live");
        CHECK_STR(s.sets[1].kind, "remeasure");
        CHECK_INT(s.sets[1].measurements, 1);
    }
    db_report_session_free(&s);
    /* An unknown session is an error with a sentence. */
    CHECK(db_report_session_load(db, r, 9999, &s, err, sizeof err) < 0);
    CHECK_CONTAINS(err, "no session 9999");
    db_report_close(r);
    db_close(db);
}

/* ---- CSV ---- */

/* Splits one CSV record (RFC 4180 quoting) into at most max fields, in place. */
static int csv_split(char *line, char **f, int max) {
    int n = 0;
    char *w = line, *p = line;
    while (n < max) {
        f[n++] = w;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '"' && p[1] == '"') { *w++ = '"'; p += 2; }
                else if (*p == '"') { p++; break; }
                else if (!*p) break;
                else *w++ = *p++;
            }
        } else {
            while (*p && *p != ',') *w++ = *p++;
        }
        if (*p == ',') { *w++ = '\0'; p++; w = p; continue; }
        *w = '\0';
        break;
    }
    return n;
}

static int col_index(char **hdr, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(hdr[i], name)) return i;
    return -1;
}

static void test_csv_numbers_equal_the_store(void) {
    char args[512];
    snprintf(args, sizeof args, "export %lld --format csv -o '%s' --db '%s'", (long long)sid, fx_path("s.csv"),
             dbfile);
    char *out, *errs;
    int rc = fx_run(args, &out, &errs);
    CHECK_INT(rc, 0);
    CHECK_STR(out, ""); /* -o: nothing on stdout */
    free(out);
    free(errs);
    char *csv = fx_slurp(fx_path("s.csv"));
    REQUIRE(csv);
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    REQUIRE(line);
    char hdrbuf[1024];
    snprintf(hdrbuf, sizeof hdrbuf, "%s", line);
    char *hdr[40];
    int nh = csv_split(hdrbuf, hdr, 40);
    int c_rec = col_index(hdr, nh, "record"), c_col = col_index(hdr, nh, "collective"),
        c_acc = col_index(hdr, nh, "vote_accuracy"), c_voters = col_index(hdr, nh, "voters"),
        c_pos = col_index(hdr, nh, "position"), c_yes = col_index(hdr, nh, "yes"), c_no = col_index(hdr, nh, "no"),
        c_truth = col_index(hdr, nh, "truth"), c_maj = col_index(hdr, nh, "majority"),
        c_cor = col_index(hdr, nh, "correct"), c_qacc = col_index(hdr, nh, "accuracy"),
        c_title = col_index(hdr, nh, "title"), c_ev = col_index(hdr, nh, "evidence"),
        c_score = col_index(hdr, nh, "score"), c_vws = col_index(hdr, nh, "voters_with_score");
    REQUIRE(c_rec == 0 && c_col > 0 && c_acc > 0 && c_voters > 0 && c_pos > 0 && c_yes > 0 && c_no > 0 &&
            c_truth > 0 && c_maj > 0 && c_cor > 0 && c_qacc > 0 && c_title > 0 && c_ev > 0 && c_score > 0 &&
            c_vws > 0);
    int sessions = 0, questions = 0, dist = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *f[40];
        int n = csv_split(line, f, 40);
        CHECK_INT(n, nh);
        if (n != nh) continue;
        if (!strcmp(f[0], "session")) {
            sessions++;
            CHECK_STR(f[c_title], FX_TITLE);
            CHECK(strtod(f[c_col], NULL) == FX_COLLECTIVE);
            CHECK(strtod(f[c_acc], NULL) == FX_VOTE_ACCURACY);
            CHECK_INT(atoi(f[c_voters]), FX_VOTERS);
        } else if (!strcmp(f[0], "question")) {
            int i = atoi(f[c_pos]);
            REQUIRE(i >= 0 && i < FX_NQ);
            questions++;
            CHECK_INT(atoi(f[c_yes]), fx_q[i].yes);
            CHECK_INT(atoi(f[c_no]), fx_q[i].no);
            CHECK_STR(f[c_truth], fx_q[i].truth);
            CHECK_STR(f[c_maj], fx_q[i].majority);
            if (fx_q[i].correct < 0) CHECK_STR(f[c_cor], "");
            else CHECK(strtod(f[c_cor], NULL) == fx_q[i].correct);
            if (fx_q[i].accuracy < 0) CHECK_STR(f[c_qacc], "");
            else CHECK(strtod(f[c_qacc], NULL) == fx_q[i].accuracy);
            if (i == 0) CHECK_STR(f[c_ev], FX_EVIDENCE_Q1);
        } else if (!strcmp(f[0], "distribution")) {
            int k = atoi(f[c_score]);
            REQUIRE(k >= 0 && k <= 3);
            dist++;
            CHECK_INT(atoi(f[c_vws]), fx_dist[k]);
        } else {
            CHECK(!"unknown record type");
        }
    }
    CHECK_INT(sessions, 1);
    CHECK_INT(questions, FX_NQ);
    CHECK_INT(dist, 4);
    free(csv);
}

/* ---- JSON ---- */

static double jnum(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : (json_is_null(v) ? -1 : -99);
}

static void check_json_session(json_t *s, int64_t id, const char *title) {
    CHECK_INT(json_integer_value(json_object_get(s, "id")), id);
    CHECK_STR(json_string_value(json_object_get(s, "title")), title);
    CHECK_INT(json_integer_value(json_object_get(s, "voters")), FX_VOTERS);
    json_t *sc = json_object_get(s, "score");
    CHECK(jnum(sc, "collective") == FX_COLLECTIVE);
    CHECK(jnum(sc, "vote_accuracy") == FX_VOTE_ACCURACY);
    CHECK_INT(json_integer_value(json_object_get(sc, "votes_scored")), FX_VOTES_SCORED);
    CHECK_INT(json_integer_value(json_object_get(sc, "votes_correct")), FX_VOTES_CORRECT);
    CHECK_INT(json_integer_value(json_object_get(sc, "questions_scored")), FX_SCORED);
    json_t *qs = json_object_get(s, "questions");
    CHECK_INT(json_array_size(qs), FX_NQ);
    for (size_t i = 0; i < json_array_size(qs) && i < FX_NQ; i++) {
        json_t *q = json_array_get(qs, i);
        CHECK_INT(json_integer_value(json_object_get(q, "position")), i);
        CHECK_INT(json_integer_value(json_object_get(q, "yes")), fx_q[i].yes);
        CHECK_INT(json_integer_value(json_object_get(q, "no")), fx_q[i].no);
        const char *truth = json_string_value(json_object_get(q, "truth"));
        CHECK_STR(truth ? truth : "", fx_q[i].truth);
        const char *maj = json_string_value(json_object_get(q, "majority"));
        CHECK_STR(maj ? maj : "", fx_q[i].majority);
        CHECK(jnum(q, "correct") == fx_q[i].correct);
        CHECK(jnum(q, "accuracy") == fx_q[i].accuracy);
        CHECK(json_is_object(json_object_get(q, "test")));
    }
    json_t *q0 = json_array_get(qs, 0);
    CHECK_STR(json_string_value(json_object_get(q0, "evidence")), FX_EVIDENCE_Q1);
    CHECK_STR(json_string_value(json_object_get(q0, "test_summary")), "udp4 do 1400 B TTL 2");
    json_t *by = json_object_get(json_object_get(s, "distribution"), "by_correct");
    CHECK_INT(json_array_size(by), 4);
    for (size_t k = 0; k < json_array_size(by) && k < 4; k++) {
        CHECK_INT(json_integer_value(json_object_get(json_array_get(by, k), "correct")), k);
        CHECK_INT(json_integer_value(json_object_get(json_array_get(by, k), "voters")), fx_dist[k]);
    }
    CHECK_INT(json_integer_value(json_object_get(json_object_get(s, "distribution"), "voters_unscored")),
              FX_UNSCORED_VOTERS);
    CHECK_INT(json_array_size(json_object_get(s, "measurement_sets")), 2);
}

static void test_json_numbers_equal_the_store(void) {
    char args[512];
    snprintf(args, sizeof args, "export %lld --format json --db '%s'", (long long)sid, dbfile);
    char *out, *errs;
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    json_error_t jerr;
    json_t *root = json_loads(out, 0, &jerr);
    if (!root) fprintf(stderr, "JSON: %s at line %d\n", jerr.text, jerr.line);
    REQUIRE(root);
    CHECK_STR(json_string_value(json_object_get(root, "format")), "fragvote-export");
    CHECK_INT(json_integer_value(json_object_get(root, "version")), EXPORT_JSON_VERSION);
    json_t *ss = json_object_get(root, "sessions");
    CHECK_INT(json_array_size(ss), 1);
    check_json_session(json_array_get(ss, 0), sid, FX_TITLE);
    /* Anonymous: no voter token or its hash anywhere. */
    char hash[65];
    char tok[40];
    snprintf(tok, sizeof tok, "%032x", 0xabc00 + (unsigned)(sid * 16));
    db_token_hash(tok, hash);
    CHECK(!strstr(out, hash));
    CHECK(!strstr(out, tok));
    json_decref(root);
    free(out);
    free(errs);
}

/* ---- SVG ---- */

static int xmllint_count_bars(const char *file) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "xmllint --xpath \"count(//*[local-name()='rect'][@class='bar'])\" '%s' 2>/dev/null", file);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char buf[64] = "";
    if (!fgets(buf, sizeof buf, p)) buf[0] = '\0';
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
    return atoi(buf);
}

static int xmllint_ok(const char *file) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", file);
    return system(cmd) == 0;
}

static void test_svg_is_xml_with_one_bar_per_question(void) {
    REQUIRE(system("command -v xmllint >/dev/null") == 0); /* scripts/apt-packages.txt: libxml2-utils */
    char args[512];
    const char *file = fx_path("s.svg");
    snprintf(args, sizeof args, "export %lld --format svg -o '%s' --db '%s'", (long long)sid, file, dbfile);
    char *out, *errs;
    CHECK_INT(fx_run(args, &out, &errs), 0);
    free(out);
    free(errs);
    CHECK(xmllint_ok(file));
    CHECK_INT(xmllint_count_bars(file), FX_NQ);
    char *svg = fx_slurp(file);
    REQUIRE(svg);
    CHECK_CONTAINS(svg, "Fragmentation &lt;quiz&gt; &amp; &quot;friends&quot;");
    CHECK_CONTAINS(svg, "data-accuracy=\"60%\"");
    CHECK_CONTAINS(svg, "data-accuracy=\"20%\"");
    /* Readable on a slide: no text smaller than 24 px with 5 questions. */
    for (const char *p = svg; (p = strstr(p, "font-size=\"")); p++) CHECK(atoi(p + 11) >= 24);
    free(svg);
}

/* ---- --all, -o, stdout ---- */

static void test_all_exports_every_session(void) {
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "export --all --format json --db '%s'", dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    json_t *root = json_loads(out ? out : "", 0, NULL);
    REQUIRE(root);
    json_t *ss = json_object_get(root, "sessions");
    CHECK_INT(json_array_size(ss), 2);
    check_json_session(json_array_get(ss, 0), sid, FX_TITLE);
    check_json_session(json_array_get(ss, 1), sid2, "Second talk, same deck");
    json_decref(root);
    free(out);
    free(errs);

    const char *file = fx_path("all.svg");
    snprintf(args, sizeof args, "export --all --format svg -o '%s' --db '%s'", file, dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    free(out);
    free(errs);
    CHECK(xmllint_ok(file));
    CHECK_INT(xmllint_count_bars(file), 2 * FX_NQ);

    snprintf(args, sizeof args, "export --all --format csv --db '%s'", dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    int sessions = 0;
    for (const char *p = out; p && (p = strstr(p, "\nsession,")); p++) sessions++;
    CHECK_INT(sessions, 2);
    free(out);
    free(errs);

    snprintf(args, sizeof args, "export --all --format markdown --db '%s'", dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "# Session 1: Fragmentation &lt;quiz&gt; &amp; \"friends\""); /* shown as typed, never HTML */
    CHECK_CONTAINS(out, "# Session 2: Second talk, same deck");
    CHECK_CONTAINS(out, "| 1 | udp4 do 1400 B TTL 2 | A 1400-byte UDP/IPv4 packet, IP\\_PMTUDISC\\_DO: is it sent? | 3 | 2 | yes | yes | right |");
    CHECK_CONTAINS(out, "- Collective score: 50% (0.5 over 3 scored of 5 questions)");
    free(out);
    free(errs);
}

static void test_file_output_equals_stdout(void) {
    static const char *const fmts[] = {"csv", "json", "markdown", "svg"};
    for (int i = 0; i < 4; i++) {
        char args[512], *out, *errs;
        const char *file = fx_path("same.out");
        snprintf(args, sizeof args, "export %lld -f %s --db '%s'", (long long)sid, fmts[i], dbfile);
        CHECK_INT(fx_run(args, &out, &errs), 0);
        snprintf(args, sizeof args, "export %lld -f %s -o '%s' --db '%s'", (long long)sid, fmts[i], file, dbfile);
        char *out2, *errs2;
        CHECK_INT(fx_run(args, &out2, &errs2), 0);
        char *disk = fx_slurp(file);
        CHECK(disk && out && strlen(out) > 100 && !strcmp(disk, out));
        free(disk);
        free(out);
        free(errs);
        free(out2);
        free(errs2);
    }
}

static void test_misuse_and_missing_things(void) {
    static const struct fx_misuse misuse[] = {
        {"export", 2, "which session"},     {"export 1 --format pdf", 2, "unknown format 'pdf'"},
        {"export 1 --all", 2, NULL},        {"export abc", 2, NULL},
        {"export 42", 1, "no session 42"},
    };
    fx_check_misuse(misuse, sizeof misuse / sizeof *misuse, dbfile);
    char args[512], *out, *errs;
    /* A missing database is reported and not created. */
    const char *missing = fx_path("missing.db");
    snprintf(args, sizeof args, "export 1 --db '%s'", missing);
    CHECK_INT(fx_run(args, &out, &errs), 7);
    CHECK_CONTAINS(errs, "no database");
    CHECK(access(missing, F_OK) != 0);
    free(out); free(errs);
    /* An unwritable -o leaves no file and says why. */
    snprintf(args, sizeof args, "export 1 -o '%s/no/such/dir/x.csv' --db '%s'", check_tmpdir(), dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 1);
    CHECK_CONTAINS(errs, "cannot write");
    free(out); free(errs);
}

static void test_sessions_lists_every_session(void) {
    char args[512], *out, *errs;
    snprintf(args, sizeof args, "sessions --db '%s'", dbfile);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    REQUIRE(out);
    CHECK_CONTAINS(out, "QUESTIONS");
    /* One line per session: id, title, 5 questions, 6 voters, 50 %. */
    int lines = 0;
    char *save = NULL;
    for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        long long id;
        if (sscanf(l, "%lld", &id) != 1) continue;
        lines++;
        CHECK(id == sid || id == sid2);
        CHECK_CONTAINS(l, id == sid ? "Fragmentation <quiz> & \"friend" : "Second talk, same deck");
        int q = -1, v = -1, pct = -1;
        /* the last three columns */
        char *end = l + strlen(l);
        int fields = 0;
        char *p = end;
        while (p > l && fields < 3) {
            while (p > l && p[-1] == ' ') p--;
            while (p > l && p[-1] != ' ') p--;
            fields++;
        }
        CHECK_INT(sscanf(p, "%d %d %d%%", &q, &v, &pct), 3);
        CHECK_INT(q, FX_NQ);
        CHECK_INT(v, FX_VOTERS);
        CHECK_INT(pct, 50);
    }
    CHECK_INT(lines, 2);
    free(out);
    free(errs);
    /* Empty database: a friendly line, exit 0. */
    char err[512];
    struct db *db = db_open(fx_path("empty.db"), err, sizeof err);
    REQUIRE(db);
    db_close(db);
    snprintf(args, sizeof args, "sessions --db '%s'", fx_path("empty.db"));
    CHECK_INT(fx_run(args, &out, &errs), 0);
    CHECK_CONTAINS(out, "No sessions");
    free(out);
    free(errs);
}

/* Histogram of db_voter_score() (the store's voter_score view) over voters. */
static void store_histogram(struct db *db, const int64_t *voters, int n, int *hist, int slots, int *unscored) {
    char err[256];
    *unscored = 0;
    for (int i = 0; i < slots; i++) hist[i] = 0;
    for (int i = 0; i < n; i++) {
        struct db_vscore vs;
        if (db_voter_score(db, voters[i], &vs, err, sizeof err)) {
            hist[0] = -999;
            return;
        }
        if (vs.scored == 0) (*unscored)++;
        else if (vs.correct < slots) hist[vs.correct]++;
        else hist[0] = -998;
    }
}

/* The report's distribution (its own faster query) equals the store's
 * voter_score view voter by voter: on the fixture, and on a random session
 * of 300 voters x 12 questions with random truths, abstentions and changes. */
static void test_distribution_equals_the_voter_score_view(void) {
    char err[512];
    struct db *db;
    struct db_report *r;
    struct db_report_session s;
    int hist[64], unscored;
    REQUIRE(open_session(sid2, &db, &r, &s) == 0);
    store_histogram(db, fx_last_voters, 6, hist, s.dist.max_correct + 1, &unscored);
    for (int k = 0; k <= s.dist.max_correct; k++) CHECK_INT(s.dist.voters[k], hist[k]);
    CHECK_INT(s.dist.voters_unscored, unscored);
    db_report_session_free(&s);

    /* random session */
    enum { NV = 300, NQ = 12 };
    srand(42);
    struct db_session_info info = {.title = "random", .deck_json = "{}"};
    int64_t rs = db_session_create(db, &info, err, sizeof err);
    REQUIRE(rs > 0);
    int64_t live = db_session_live_set(db, rs, err, sizeof err);
    static int64_t voters[NV];
    REQUIRE(db_begin(db, err, sizeof err) == 0);
    for (int v = 0; v < NV; v++) {
        char tok[40];
        snprintf(tok, sizeof tok, "random-voter-%d", v);
        voters[v] = db_voter_join(db, rs, tok, err, sizeof err);
        REQUIRE(voters[v] > 0);
    }
    static const char *const truths[] = {"yes", "no", "unknown", NULL};
    int yes_votes[NQ] = {0}, no_votes[NQ] = {0};
    int64_t q[NQ];
    for (int i = 0; i < NQ; i++) {
        q[i] = db_question_add(db, rs, i, i, "{}", (enum qkind)(i % 3), "random question", err, sizeof err);
        REQUIRE(q[i] > 0);
        REQUIRE(db_question_set_state(db, q[i], "voting", err, sizeof err) == 0);
        for (int v = 0; v < NV; v++) {
            int pick = rand() % 5; /* 0-1 yes, 2-3 no, 4 abstain */
            if (pick == 4) continue;
            if (rand() % 7 == 0) REQUIRE(db_vote_put(db, q[i], voters[v], pick >= 2, CONFIDENCE_NONE, err, sizeof err) == DB_VOTE_OK);
            REQUIRE(db_vote_put(db, q[i], voters[v], pick < 2, CONFIDENCE_NONE, err, sizeof err) == DB_VOTE_OK);
            if (pick < 2) yes_votes[i]++;
            else no_votes[i]++;
        }
        REQUIRE(db_question_set_state(db, q[i], "closed", err, sizeof err) == 0);
        const char *t = truths[rand() % 4];
        if (t) REQUIRE(db_measurement_add(db, live, q[i], t, "observed", "random", "{}", "raw", err, sizeof err) > 0);
    }
    REQUIRE(db_commit(db, err, sizeof err) == 0);
    REQUIRE(db_report_session_load(db, r, rs, &s, err, sizeof err) == 0);
    store_histogram(db, voters, NV, hist, s.dist.max_correct + 1, &unscored);
    int total = 0;
    for (int k = 0; k <= s.dist.max_correct; k++) {
        CHECK_INT(s.dist.voters[k], hist[k]);
        total += s.dist.voters[k];
    }
    CHECK_INT(s.dist.voters_unscored, unscored);
    CHECK_INT(total + s.dist.voters_unscored, NV);
    check_score_equals_store(db, &s);
    CHECK(s.score.scored > 0 && s.score.scored < NQ); /* the random truths left some unscored */
    CHECK(s.dist.voters_scored > 0);
    for (int i = 0; i < NQ && i < s.nquestions; i++) {
        struct db_qscore qs;
        REQUIRE(db_question_score(db, q[i], &qs, err, sizeof err) == 0);
        CHECK_INT(s.questions[i].yes, yes_votes[i]);
        CHECK_INT(s.questions[i].no, no_votes[i]);
        CHECK_INT(s.questions[i].yes, qs.yes);
        CHECK_STR(s.questions[i].truth, qs.truth);
        CHECK(s.questions[i].correct == qs.correct);
    }
    db_report_session_free(&s);
    db_report_close(r);
    db_close(db);
}

/* A title that is not UTF-8 (e.g. typed on a Latin-1 terminal) and has
 * control characters still gives XML that parses, and valid JSON. */
static void test_hostile_title_still_gives_valid_svg_and_json(void) {
    int64_t q[FX_NQ];
    const char *path = fx_path("latin1.db");
    struct db *db = fx_open(path);
    REQUIRE(db);
    int64_t id = fx_record(db, "Caf\xe9 \x01<talk> \xc3\xa9t\xc3\xa9 \xed\xa0\x80 \xf0\x9f\x93\xa6", q);
    db_close(db);
    REQUIRE(id > 0);
    char args[512], *out, *errs;
    const char *svg = fx_path("latin1.svg");
    snprintf(args, sizeof args, "export %lld -f svg -o '%s' --db '%s'", (long long)id, svg, path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    free(out); free(errs);
    CHECK(xmllint_ok(svg));
    char *text = fx_slurp(svg);
    CHECK_CONTAINS(text, "Caf? &lt;talk&gt; \xc3\xa9t\xc3\xa9 ??? \xf0\x9f\x93\xa6");
    free(text);
    snprintf(args, sizeof args, "export %lld -f json --db '%s'", (long long)id, path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    json_error_t jerr;
    json_t *root = json_loads(out ? out : "", 0, &jerr);
    CHECK(root != NULL);
    json_decref(root);
    free(out); free(errs);
}

/* ---- Markdown with hostile deck text ---- */

/* Deck text that a Markdown or HTML renderer would run or reinterpret:
 * raw HTML, a javascript: link and image, an autolink, entities, a code
 * span, emphasis, a pipe that would split the table cell, a heading's
 * closing marks, a backslash that would eat the next escape. */
#define HOSTILE "<script>alert(1)</script> [x](javascript:alert(2)) ![i](javascript:alert(3)) " \
                "<javascript:alert(4)> <img src=x onerror=alert(5)> &#60;b&#62; `co|de` a|b *em* _u_ ~~s~~ \\ end ##"

/* Records a real room on a deck titled HOSTILE, one question revealed with
 * HOSTILE as the probe's evidence; returns the session id or -1. */
static int64_t record_hostile(const char *path) {
    char err[512], deck_json[1024];
    json_t *title = json_string(HOSTILE);
    char *t = json_dumps(title, JSON_ENCODE_ANY);
    json_decref(title);
    snprintf(deck_json, sizeof deck_json,
             "{\"title\":%s,\"tests\":[{\"proto\":\"udp4\",\"mode\":\"do\",\"size\":1400,\"ask\":[\"sent\"]}]}", t);
    free(t);
    struct deck d;
    if (deck_load_string(deck_json, "hostile deck", &d, err, sizeof err) < 0) return fprintf(stderr, "%s\n", err), -1;
    struct db *db = db_open(path, err, sizeof err);
    struct room *room = db ? room_create(db, &d, &(struct room_info){.code = "MDMD42"}, err, sizeof err) : NULL;
    int64_t id = room ? room_session_id(room) : -1;
    struct probe_result res;
    memset(&res, 0, sizeof res);
    res.sent.answer = PROBE_ANS_YES;
    snprintf(res.evidence, sizeof res.evidence, "%s", HOSTILE);
    snprintf(res.egress.observer, sizeof res.egress.observer, "raw");
    int m = 0;
    if (!room || room_act(room, ROOM_OPEN, err, sizeof err) || room_act(room, ROOM_CLOSE, err, sizeof err) ||
        (m = room_act(room, ROOM_MEASURE, err, sizeof err)) != QUIZ_MEASURE_PROBE ||
        room_measured(room, 0, &res, err, sizeof err) || room_act(room, ROOM_REVEAL, err, sizeof err)) {
        fprintf(stderr, "recording the hostile session: %s (measure %d)\n", err, m);
        id = -1;
    }
    room_free(room);
    db_close(db);
    deck_free(&d);
    return id;
}

/* Issue 15: the Markdown export wrote deck text raw, so a title with
 * <script> or [x](javascript:...) ran in whatever rendered the report. It is
 * rendered here by cmark-gfm (GitHub's renderer, tables on, raw HTML let
 * through as --unsafe does): no tag, no link, the table keeps its 9 cells,
 * and the text reads as it was typed. */
static void test_markdown_shows_hostile_deck_text_literally(void) {
    REQUIRE(system("command -v cmark-gfm >/dev/null") == 0); /* scripts/apt-packages.txt: cmark-gfm */
    const char *path = fx_path("hostile-md.db");
    int64_t id = record_hostile(path);
    REQUIRE(id > 0);
    const char *md = fx_path("hostile.md"), *html = fx_path("hostile.html");
    char args[1024], *out, *errs;
    snprintf(args, sizeof args, "export %lld -f markdown -o '%s' --db '%s'", (long long)id, md, path);
    CHECK_INT(fx_run(args, &out, &errs), 0);
    free(out);
    free(errs);
    snprintf(args, sizeof args, "cmark-gfm --unsafe -e table '%s' > '%s'", md, html);
    REQUIRE(system(args) == 0);
    char *h = fx_slurp(html);
    REQUIRE(h);
    static const char *const never[] = {"<script", "<img", "<a ", "href=", "<code", "<em", "<strong", "<del", "<b>"};
    for (size_t i = 0; i < sizeof never / sizeof *never; i++)
        if (strstr(h, never[i])) {
            fprintf(stderr, "rendered Markdown has %s:\n%s\n", never[i], h);
            CHECK(!strstr(h, never[i]));
        }
    /* the heading and both cells (question row: 9 cells) read as typed */
    static const char *const shown =
        "&lt;script&gt;alert(1)&lt;/script&gt; [x](javascript:alert(2)) ![i](javascript:alert(3)) "
        "&lt;javascript:alert(4)&gt; &lt;img src=x onerror=alert(5)&gt; &amp;#60;b&amp;#62; `co|de` a|b *em* _u_ "
        "~~s~~ \\ end ##";
    const char *h1 = strstr(h, "<h1>");
    REQUIRE(h1);
    CHECK(!strncmp(strstr(h1, ": ") ? strstr(h1, ": ") + 2 : "", shown, strlen(shown)));
    CHECK_CONTAINS(h, "<td>" "&lt;script&gt;"); /* the evidence cell */
    const char *row = strstr(h, "<tbody>");
    REQUIRE(row);
    const char *end = strstr(row, "</tr>");
    REQUIRE(end);
    int cells = 0;
    for (const char *c = row; (c = strstr(c, "<td")) && c < end; c++) cells++;
    CHECK_INT(cells, 9);
    char *text = fx_slurp(md);
    CHECK(text && !strstr(text, "<script"));
    free(text);
    free(h);
}

static void test_fmt_double_round_trips(void) {
    char buf[40];
    double vals[] = {0, 0.5, 1, 6.0 / 14, 2.0 / 3, 0.1, 1e-9};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        export_fmt_double(buf, sizeof buf, vals[i]);
        CHECK(strtod(buf, NULL) == vals[i]);
    }
    export_fmt_double(buf, sizeof buf, 0.5);
    CHECK_STR(buf, "0.5");
}

/* ---- issue 20: each test's path picture ---- */

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}

static void test_each_tests_path_is_tabled_and_drawn(void) {
    char file[256], args[600], *out, *errs;
    int64_t id = fx_paths_run("export", "--format markdown", file, sizeof file, &out, &errs);
    REQUIRE(id > 0);
    CHECK_CONTAINS(out, "\n## Paths\n");
    CHECK_CONTAINS(out, "### Test 1: ");
    CHECK_CONTAINS(out, "### Test 2: ");
    CHECK(!strstr(out, "### Test 3")); /* no path stored: nothing drawn */
    CHECK_CONTAINS(out, "| Hop | Node | Address | MTU | Seen there |");
    CHECK_CONTAINS(out, "| 0 | src | 192.0.2.1 | 1500 | sent 1400 bytes whole, DF=0 \\[capture\\] |");
    CHECK_CONTAINS(out, "| 1 | r1 | 192.0.2.2 | 1280 | fragmented into 2 pieces: 1276 + 144 (next link MTU 1280) \\[icmp\\] |");
    CHECK_CONTAINS(out, "| 2 | r2 | 198.51.100.2 | 1500 | Time Exceeded quoting a first fragment of 1276 bytes \\[icmp\\] |");
    CHECK_CONTAINS(out, "| 1 | r1 | 192.0.2.2 | 1280 | dropped: Frag Needed, MTU 1280 \\[icmp\\] |");
    CHECK_INT(count(out, "| 3 | dst | 203.0.113.2 | — |"), 2);
    free(out);
    free(errs);
    const char *svgfile = fx_path("paths.svg");
    snprintf(args, sizeof args, "export %lld --format svg -o '%s' --db '%s'", (long long)id, svgfile, file);
    REQUIRE(fx_run(args, &out, &errs) == 0);
    free(out);
    free(errs);
    CHECK(xmllint_ok(svgfile));
    char *svg = fx_slurp(svgfile);
    REQUIRE(svg);
    CHECK_INT(count(svg, "<g class=\"path\""), 2);
    CHECK_CONTAINS(svg, "<g class=\"path\" data-test=\"1\"");
    CHECK_CONTAINS(svg, "<g class=\"path\" data-test=\"2\"");
    /* every node, link MTU and event of both pictures is there, with its words */
    CHECK_INT(count(svg, "<g class=\"node\""), 8);
    CHECK_INT(count(svg, "<g class=\"link\""), 6);
    CHECK_INT(count(svg, ">MTU 1280<"), 2);
    CHECK_INT(count(svg, ">MTU 1500<"), 4);
    CHECK_INT(count(svg, "<g class=\"event\""), 3);
    CHECK_CONTAINS(svg, "data-what=\"fragmented\"");
    CHECK_CONTAINS(svg, "data-what=\"expired\"");
    CHECK_CONTAINS(svg, "data-what=\"dropped\"");
    CHECK_CONTAINS(svg, "data-what=\"fragmented\" data-pieces=\"1276 144\"");
    CHECK_CONTAINS(svg, "Frag Needed, MTU 1280");
    /* the words, wherever a line was wrapped (each line is a <tspan>) */
    char *words = strdup(svg);
    REQUIRE(words);
    for (char *w = words; (w = strstr(w, "</tspan><tspan"));) {
        char *end = strchr(w, '>');
        end = end ? strchr(end + 1, '>') : NULL;
        if (!end) break;
        *w = ' ';
        memmove(w + 1, end + 1, strlen(end + 1) + 1);
    }
    CHECK_CONTAINS(words, "left: 1400 bytes, DF=0, whole");
    CHECK_CONTAINS(words, "left: 1400 bytes, DF=1, whole");
    free(words);
    /* links the packet never reached are dashed: after r2 where TTL 2 expired
     * (test 1), after r1 where it was dropped (test 2); the others solid */
    const char *t2 = strstr(svg, "<g class=\"path\" data-test=\"2\"");
    REQUIRE(t2);
    for (int t = 0; t < 2; t++) {
        const char *from = t ? t2 : strstr(svg, "<g class=\"path\" data-test=\"1\"");
        for (int l = 0; l < 3; l++) {
            char key[40];
            snprintf(key, sizeof key, "data-link=\"%d\"", l);
            const char *g = strstr(from, key);
            REQUIRE(g && (t || g < t2));
            const char *gend = strstr(g, "</g>");
            int dashed = gend && strstr(g, "stroke-dasharray") && strstr(g, "stroke-dasharray") < gend;
            CHECK_INT(dashed, t == 0 ? l >= 2 : l >= 1);
        }
    }
    /* black on white (shapes and words carry the meaning), large type, nothing external */
    const char *band = strstr(svg, "<g class=\"path\"");
    REQUIRE(band);
    for (const char *p = band; (p = strstr(p, "font-size=\"")); p++) CHECK(atoi(p + 11) >= 24);
    for (const char *p = band; (p = strstr(p, "stroke=\"#")); p++) CHECK(!strncmp(p + 8, "#000\"", 5));
    CHECK(!strstr(svg, "href") && !strstr(svg, "url("));
    free(svg);
}

int main(void) {
    if (setup()) {
        fprintf(stderr, "could not record the fixture session\n");
        return 1;
    }
    RUN(test_report_equals_store_and_hand_numbers);
    RUN(test_csv_numbers_equal_the_store);
    RUN(test_json_numbers_equal_the_store);
    RUN(test_svg_is_xml_with_one_bar_per_question);
    RUN(test_each_tests_path_is_tabled_and_drawn);
    RUN(test_all_exports_every_session);
    RUN(test_file_output_equals_stdout);
    RUN(test_misuse_and_missing_things);
    RUN(test_sessions_lists_every_session);
    RUN(test_fmt_double_round_trips);
    RUN(test_hostile_title_still_gives_valid_svg_and_json);
    RUN(test_markdown_shows_hostile_deck_text_literally);
    RUN(test_distribution_equals_the_voter_score_view);
    RUN(test_session_text_equals_the_command);
    return check_summary_and_clean();
}
