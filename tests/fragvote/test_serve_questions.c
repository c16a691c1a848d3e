/* A 30-minute talk, not the whole deck (issue 37, item 6), against the real
 * `fragvote serve` on loopback (--target 127.0.0.1, no lab):
 *   - `--questions 1-2,38` plays three of the built-in deck's 38 questions:
 *     serve says "Talk: 3 questions, about N minutes", the screen's state
 *     lists three, the database keeps the three-question deck (a resume or
 *     an export sees what was played);
 *   - `end` from the console script at the first question goes to the final
 *     state at once, every question skipped, the session ended in the
 *     store. */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "deck.h"
#include "serve_proc.h"
#include "fv_roles.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 10000

static const char *bin;
static pid_t serve_pid = -1;
static char dbpath[300], outpath[300], scriptpath[300];


/* One integer from the database, or -1. */
static long long db_int(const char *sql) { return hubfix_sql_int(dbpath, sql); }

static void test_questions_pick_the_talk_and_end_finishes_it(void) {
    const char *dir = check_tmpdir();
    snprintf(dbpath, sizeof dbpath, "%s/questions.db", dir);
    snprintf(outpath, sizeof outpath, "%s/questions.out", dir);
    snprintf(scriptpath, sizeof scriptpath, "%s/talk.script", dir);
    /* the talk ends at its first question, once the screen has seen it */
    REQUIRE(check_write_file(scriptpath, "sleep 1500\nend\nsleep 600000\n") == 0);
    char *argv[] = {(char *)bin, "serve", "--questions", "1-2,38", "--db", dbpath, "--port", "0", "--bind", "127.0.0.1",
                    "--target", "127.0.0.1", "--no-witness", "--script", scriptpath, "--no-qr", NULL};
    int port = serve_proc_start(argv, outpath, NULL, &serve_pid);
    REQUIRE(port > 0);
    char err[256];
    struct wsc *s = fvr_connect("127.0.0.1", port, "fragvote-screen", T_MS, err, sizeof err);
    REQUIRE(s);
    json_t *st = wsc_recv_type(s, "state", T_MS);
    REQUIRE(st);
    CHECK_INT(json_integer_value(json_object_get(st, "n")), 3);
    json_decref(st);
    int minutes = (3 * DECK_QUESTION_S + 59) / 60;
    char want[96];
    snprintf(want, sizeof want, "Talk: 3 questions, about %d minutes", minutes);
    CHECK(serve_proc_output_has(outpath, want));
    /* the deck the session keeps asks the three */
    CHECK_INT(db_int("SELECT COUNT(*) FROM questions"), 3);
    /* end: the final state, every question skipped */
    json_t *fin = fvr_final_state(s, T_MS);
    REQUIRE(fin);
    CHECK_INT(json_array_size(json_object_get(fin, "questions")), 3);
    CHECK_INT(fvr_questions_in(fin, "skipped"), 3);
    json_decref(fin);
    for (int t = 0; t < 50 && db_int("SELECT COUNT(*) FROM sessions WHERE ended_at IS NOT NULL AND ended_at > 0") != 1; t++)
        usleep(100000);
    CHECK_INT(db_int("SELECT COUNT(*) FROM sessions WHERE ended_at IS NOT NULL AND ended_at > 0"), 1);
    wsc_close(s, 1000);
    serve_proc_cleanup(&serve_pid, bin, "");
}

int main(void) {
    bin = serve_proc_bin();
    RUN(test_questions_pick_the_talk_and_end_finishes_it);
    serve_proc_cleanup(&serve_pid, bin, "");
    return check_summary();
}
