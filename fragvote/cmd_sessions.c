/* fragvote sessions: list the recorded sessions of a database, rank them
 * (--league), or delete their voters (--purge, docs/PRIVACY.md). */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_purge.h"
#include "export.h"
#include "export_text.h"
#include "league.h"

#define SESSIONS_TITLE_COLS 32 /* title bytes shown in the table */

static void usage(FILE *out) {
    fprintf(out,
            "Usage: fragvote sessions [--league] [--db FILE]\n"
            "       fragvote sessions --purge [--older-than DAYS | --session ID] [--db FILE]\n"
            "\n"
            "Lists the sessions recorded in the database: id, date, title, questions,\n"
            "voters and the collective score (share of scored questions the room's\n"
            "majority got right; see docs/SCORING.md).\n"
            "\n"
            "Options:\n"
            "  --league        rank the rooms by collective score instead, with the RIPE 87\n"
            "                  audience (%s) as a reference row; sessions with\n"
            "                  no scored question or fewer than %d voters (solo games of\n"
            "                  fragvote play) are counted but not ranked; BRIER is each\n"
            "                  room's calibration, the Brier score of its votes with a\n"
            "                  confidence (0 perfect, 0.25 guessing; - none)\n"
            "  --purge         delete the voters of every ended session: each phone's token\n"
            "                  hash and the session's token key go, and every vote stays\n"
            "                  without its voter, so scores, tallies, measurements, replay,\n"
            "                  export and the league read as before (docs/PRIVACY.md)\n"
            "  --older-than DAYS\n"
            "                  with --purge: only sessions that started more than DAYS days\n"
            "                  ago (0..%d)\n"
            "  --session ID    with --purge: only session ID\n"
            "  --db FILE       the database (default ./%s); an older schema is\n"
            "                  migrated\n"
            "  -h, --help      show this help\n"
            "\n"
            "A session that has not ended (running, or stopped by a crash) is never\n"
            "purged: `fragvote serve --resume ID`, then quit, ends it.\n"
            "\n"
            "Exit codes: 0 ok, 1 --session ID has not ended, 2 usage error, 7 database\n"
            "missing, unreadable or newer, or no session ID.\n",
            LEAGUE_REF_SCORE, LEAGUE_MIN_VOTERS, CLI_PURGE_DAYS_MAX, EXPORT_DEFAULT_DB);
}

/* Copies at most cols bytes of s without cutting a UTF-8 sequence. */
static void clip(char *dst, size_t dstlen, const char *s, size_t cols) {
    size_t n = strlen(s);
    if (n > cols) {
        n = cols;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    if (n >= dstlen) n = dstlen - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
}

/* What a row of either table shows of a session. */
struct cells {
    char when[40], title[SESSIONS_TITLE_COLS * 2 + 1], score[16];
    int questions, voters;
};

/* Reads session id into *c; 0, or -1 after saying why on stderr. */
static int read_cells(struct db *db, int64_t id, struct cells *c) {
    char err[512];
    struct db_session_row row;
    if (db_session_get(db, id, &row, err, sizeof err)) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        return -1;
    }
    export_local_time(c->when, sizeof c->when, row.started_at);
    clip(c->title, sizeof c->title, row.title ? row.title : "", SESSIONS_TITLE_COLS);
    if (row.collective >= 0) snprintf(c->score, sizeof c->score, "%.0f%%", row.collective * 100);
    else snprintf(c->score, sizeof c->score, "-");
    c->questions = row.questions;
    c->voters = row.voters;
    db_session_row_free(&row);
    return 0;
}

/* Room id's Brier score (docs/SCORING.md "Confidence") into buf, "-" when
 * no vote of it carries a confidence. 0, or -1 after saying why on stderr. */
static int brier_cell(struct db *db, struct db_report *r, int64_t id, char *buf, size_t len) {
    char err[512];
    struct db_report_session s;
    if (db_report_session_load(db, r, id, &s, err, sizeof err)) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        return -1;
    }
    if (confidence_calib_votes(&s.calib) > 0) snprintf(buf, len, "%.3f", confidence_brier(&s.calib));
    else snprintf(buf, len, "-");
    db_report_session_free(&s);
    return 0;
}

/* fragvote sessions --league: the rooms ranked, the reference row in its place. */
static int print_league(struct db *db, const char *path, const int64_t *ids, int n) {
    char err[512];
    struct league_entry *e = calloc((size_t)n + 1, sizeof *e);
    if (!e) {
        fprintf(stderr, "fragvote sessions: out of memory\n");
        return FV_EXIT_FAIL;
    }
    int rooms = 0, unscored = 0, solo = 0;
    for (int i = 0; i < n; i++) {
        struct db_sscore sc;
        if (db_session_score(db, ids[i], &sc, err, sizeof err)) {
            fprintf(stderr, "fragvote sessions: %s\n", err);
            free(e);
            return FV_EXIT_DB;
        }
        if (league_is_room(sc.collective, sc.voters))
            e[rooms++] = (struct league_entry){ids[i], sc.collective, sc.scored, sc.voters};
        else if (sc.collective < 0) unscored++;
        else solo++;
    }
    int ref = league_rank(e, rooms);
    struct db_report *r = db_report_open(db, err, sizeof err);
    if (!r) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        free(e);
        return FV_EXIT_DB;
    }
    printf("League of the rooms in %s by collective score (docs/SCORING.md)\n", path);
    printf("%4s  %6s  %5s  %-16s  %-*s  %6s  %6s  %6s\n", "RANK", "SCORE", "ID", "DATE", SESSIONS_TITLE_COLS, "ROOM",
           "SCORED", "VOTERS", "BRIER");
    int rc = FV_EXIT_OK;
    for (int i = 0; i <= rooms; i++) {
        if (i == ref) /* the reference has no id, date or counts */
            printf("%4s  %6s  %5s  %-16s  %s (reference)\n", "-", "<80%", "", "", LEAGUE_REF_NAME);
        if (i == rooms) break;
        struct cells c;
        char brier[16];
        if (read_cells(db, e[i].id, &c) || brier_cell(db, r, e[i].id, brier, sizeof brier)) {
            rc = FV_EXIT_DB;
            break;
        }
        printf("%4d  %6s  %5lld  %-16s  %-*s  %6d  %6d  %6s\n", i + 1, c.score, (long long)e[i].id, c.when,
               SESSIONS_TITLE_COLS, c.title, e[i].scored, e[i].voters, brier);
    }
    db_report_close(r);
    printf("Reference: fragquiz played by show of hands at RIPE 87, %s collectively.\n", LEAGUE_REF_SCORE);
    if (unscored || solo)
        printf("Not ranked: %d session%s with no scored question, %d with fewer than %d voters (solo games).\n",
               unscored, unscored == 1 ? "" : "s", solo, LEAGUE_MIN_VOTERS);
    free(e);
    return rc;
}

/* What --purge is asked to purge: every ended session (days -1, id 0), those
 * older than days, or session id. */
struct purge_ask {
    int on;
    long days;
    long id;
};

static int purge(struct db *db, const struct purge_ask *pa) {
    if (!pa->id) return cli_purge_older("sessions", db, pa->days < 0 ? 0 : pa->days, stdout);
    char err[512];
    struct db_purge p;
    int rc = db_session_purge(db, pa->id, &p, err, sizeof err);
    if (rc) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        return rc > 0 ? FV_EXIT_FAIL : FV_EXIT_DB;
    }
    cli_purge_line(stdout, pa->id, p.voters);
    cli_purge_log_note(stdout, &p);
    return FV_EXIT_OK;
}

/* The options: 0, 1 (--help), or -1 after saying why. */
static int read_opts(int argc, char **argv, const char **path, int *league, struct purge_ask *pa) {
    enum { O_LEAGUE = 256, O_DB, O_PURGE, O_OLDER, O_SESSION };
    static const struct option opts[] = {{"league", no_argument, NULL, O_LEAGUE},
                                         {"db", required_argument, NULL, O_DB},
                                         {"purge", no_argument, NULL, O_PURGE},
                                         {"older-than", required_argument, NULL, O_OLDER},
                                         {"session", required_argument, NULL, O_SESSION},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    *pa = (struct purge_ask){0, -1, 0};
    cli_opt_begin();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == O_LEAGUE) *league = 1;
        else if (c == O_DB) *path = optarg;
        else if (c == O_PURGE) pa->on = 1;
        else if (c == O_OLDER) {
            if (cli_opt_range("sessions", "older-than", optarg, 0, CLI_PURGE_DAYS_MAX, "days", &pa->days))
                return -1;
        } else if (c == O_SESSION) {
            if (cli_opt_range("sessions", "session", optarg, 1, LONG_MAX, NULL, &pa->id)) return -1;
        } else return cli_opt_other("sessions", c, argv);
    }
    if (cli_opt_no_args("sessions", argc, argv)) return -1;
    const char *bad = NULL;
    if ((pa->days >= 0 || pa->id) && !pa->on) bad = "--older-than and --session go with --purge";
    else if (pa->days >= 0 && pa->id) bad = "--purge takes --older-than DAYS or --session ID, not both";
    else if (pa->on && *league) bad = "--purge and --league do not go together";
    return bad ? cli_opt_fail("sessions", "%s", bad) : 0;
}

int cmd_sessions(int argc, char **argv) {
    if (cli_help(argc, argv, usage)) return FV_EXIT_OK;
    const char *path = EXPORT_DEFAULT_DB;
    int league = 0;
    struct purge_ask pa;
    int orc = cli_opts_end(read_opts(argc, argv, &path, &league, &pa), "sessions", usage);
    if (orc >= 0) return orc;
    char err[512];
    struct db *db;
    struct db_report *r;
    orc = cli_store_read("sessions", path, &db, &r);
    if (orc) return orc;
    int64_t *ids;
    int n, rc = FV_EXIT_OK;
    if (pa.on) {
        rc = purge(db, &pa);
        goto done;
    }
    if (db_report_session_ids(r, &ids, &n, err, sizeof err)) {
        fprintf(stderr, "fragvote sessions: %s\n", err);
        rc = FV_EXIT_DB;
        goto done;
    }
    if (n == 0) {
        printf("No sessions in %s yet: `fragvote serve --db %s` records one.\n", path, path);
        free(ids);
        goto done;
    }
    if (league) {
        rc = print_league(db, path, ids, n);
        free(ids);
        goto done;
    }
    printf("%5s  %-16s  %-*s  %9s  %6s  %5s\n", "ID", "DATE", SESSIONS_TITLE_COLS, "TITLE", "QUESTIONS", "VOTERS",
           "SCORE");
    for (int i = 0; i < n; i++) {
        struct cells c;
        if (read_cells(db, ids[i], &c)) {
            rc = FV_EXIT_DB;
            break;
        }
        printf("%5lld  %-16s  %-*s  %9d  %6d  %5s\n", (long long)ids[i], c.when, SESSIONS_TITLE_COLS, c.title,
               c.questions, c.voters, c.score);
    }
    free(ids);
done:
    db_report_close(r);
    db_close(db);
    return rc;
}
