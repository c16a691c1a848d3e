/* The store off the event loop: another process (the sqlite3 CLI) holds the
 * database locked; a phone's vote waits for its COMMIT on the hub's store
 * thread, while another phone's ping is answered at once (before that vote
 * is answered: the order of the two is the check, not a time bound); once
 * the lock is gone the vote is acked and in the file. A presenter action
 * meanwhile is refused after DB_BUSY_LIVE_MS ("busy"), and works after. On
 * a store that ran on the loop the ping waited for the batch. The real hub on a free loopback port, a real SQLite file,
 * a real second process. */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_sqlite.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 3000
#define SECRET "store-test-secret"
#define LOCK_HELD_MS 1000

static struct hubfix F;
static struct deck D;
static char dbpath[256];

static void test_a_locked_database_holds_up_only_the_votes_waiting_for_it(void) {
    if (system("command -v sqlite3 >/dev/null 2>&1") != 0) {
        CHECK(!"sqlite3 CLI missing (scripts/apt-packages.txt)");
        return;
    }
    char err[512];
    deck_fixture_one(&D, "store test", DECK_FIXTURE_DF);
    snprintf(dbpath, sizeof dbpath, "%s/store.db", check_tmpdir());
    int libev = getenv("HUB_TEST_LIBEV") && *getenv("HUB_TEST_LIBEV");
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .secret = SECRET, .use_poll = !libev};
    REQUIRE(hubfix_start(&F, dbpath, &D, "STORE1", 0, &cfg, err, sizeof err) == 0);
    struct wsc *p = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    struct wsc *a = fvr_phone("127.0.0.1", F.port, "STORE1", 1, NULL, T_MS, NULL, err, sizeof err);
    struct wsc *b = fvr_phone("127.0.0.1", F.port, "STORE1", 1, NULL, T_MS, NULL, err, sizeof err);
    REQUIRE(p && a && b);
    REQUIRE(fvr_cmd(p, "open", T_MS, err, sizeof err) == 0);
    CHECK_INT(fvr_vote(a, 1, 0, 1, T_MS, NULL), 0); /* a voter before the lock */

    FILE *holder = NULL;
    pid_t pid = check_sqlite_lock_hold(dbpath, &holder);
    REQUIRE(pid > 0 && holder);
    long long t_lock = check_mono_ms();
    wsc_send_json(a, "{s:s, s:i, s:i, s:b}", "t", "vote", "id", 2, "q", 0, "yes", 0);
    usleep(50000); /* its batch is with the store thread, waiting for the lock */
    wsc_send_json(b, "{s:s}", "t", "ping");
    json_t *pong = wsc_recv_type(b, "pong", T_MS);
    long long pong_ms = check_mono_ms() - t_lock;
    CHECK(pong != NULL);
    json_decref(pong);
    /* the vote is not answered yet: its COMMIT has not happened (a tally of
     * the earlier vote may reach this phone meanwhile: the rotation is free
     * to send it; an ack or an error is not) */
    char *m = NULL;
    long n;
    while ((n = wsc_recv(a, &m, 0)) > 0) {
        int answer = !strstr(m, "\"t\":\"tally\"");
        if (answer) fprintf(stderr, "answered while locked: %s\n", m);
        CHECK(!answer);
        free(m);
        m = NULL;
    }
    free(m);
    /* a presenter action waits for that batch only as long as its own write
     * would wait (DB_BUSY_LIVE_MS), then is refused: the loop does not freeze */
    long long c0 = check_mono_ms();
    int closed = fvr_cmd(p, "close", T_MS, err, sizeof err);
    long long close_ms = check_mono_ms() - c0;
    CHECK_INT(closed, -1);
    CHECK_CONTAINS(err, "busy");
    long long held = check_mono_ms() - t_lock;
    if (held < LOCK_HELD_MS) usleep((useconds_t)(LOCK_HELD_MS - held) * 1000);
    long long t_release = check_mono_ms();
    check_sqlite_lock_release(pid, holder);
    json_t *reply = NULL;
    int answer = fvr_vote_answer(a, 2, 10000, &reply);
    long long ack_ms = check_mono_ms() - t_lock;
    if (answer) fprintf(stderr, "the vote's answer: %s\n", reply ? json_dumps(reply, 0) : "none");
    CHECK_INT(answer, 0); /* acked, not refused */
    json_decref(reply);
    printf("lock held %lld ms: the other phone's pong after %lld ms, the vote's ack after %lld ms\n",
           t_release - t_lock, pong_ms, ack_ms);
    printf("the presenter's close refused after %lld ms while locked\n", close_ms);
    CHECK_INT(hubfix_sql_int(dbpath, "SELECT answer FROM votes"), 0); /* the acked answer is in the file */
    CHECK_INT(fvr_cmd(p, "close", T_MS, err, sizeof err), 0); /* and works once it is gone */
    wsc_close_all(a, b, p);
    hubfix_stop(&F);
}

int main(void) {
    RUN(test_a_locked_database_holds_up_only_the_votes_waiting_for_it);
    return check_summary();
}
