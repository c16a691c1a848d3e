/* fv_room_server: the live room (store + quiz + hub) as a process of its own,
 * for the crash tests: it can be killed with SIGKILL mid-burst and started
 * again on the same database file, resuming the session the way a restart of
 * the presenter's laptop must.
 *
 *   fv_room_server DB              new session (built-in deck, room CRASH2)
 *   fv_room_server DB SESSION_ID   resume that session from DB
 *
 * Prints "port P session S" on stdout once listening; SIGTERM/SIGINT stop it
 * cleanly (pending votes committed and acked first). Web pages from
 * $FRAGVOTE_SRC/audience-web; presenter secret $FV_SECRET (default below). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "deck.h"
#include "hub.h"
#include "room.h"

#define ROOM_CODE "CRASH2"
#define DEFAULT_SECRET "reliability-secret"

static void *sig_main(void *arg) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int sig;
    sigwait(&set, &sig);
    hub_stop(arg);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: fv_room_server DB [SESSION_ID]\n");
        return 2;
    }
    char err[512], web[1024];
    const char *src = getenv("FRAGVOTE_SRC");
    const char *secret = getenv("FV_SECRET");
    snprintf(web, sizeof web, "%s/audience-web", src ? src : ".");
    int rc = 1;
    struct deck deck;
    memset(&deck, 0, sizeof deck);
    struct room *room = NULL;
    struct hub *hub = NULL;
    struct db *db = db_open(argv[1], err, sizeof err);
    if (!db) {
        fprintf(stderr, "fv_room_server: %s\n", err);
        return 1;
    }
    if (argc == 3) {
        struct db_session_row row;
        int64_t sid = strtoll(argv[2], NULL, 10);
        if (db_session_get(db, sid, &row, err, sizeof err)) goto out;
        int lr = deck_load_string(row.deck_json, "stored deck", &deck, err, sizeof err);
        db_session_row_free(&row);
        if (lr) goto out;
        room = room_resume(db, sid, &deck, err, sizeof err);
    } else {
        if (deck_load_builtin(&deck, err, sizeof err)) goto out;
        room = room_create(db, &deck, &(struct room_info){.code = ROOM_CODE, .target = "none"}, err, sizeof err);
    }
    if (!room) goto out;
    /* Signals go to the signal thread only. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct hub_config cfg = {.bind_addr = "127.0.0.1", .port = 0, .web_root = web,
                             .secret = secret && secret[0] ? secret : DEFAULT_SECRET,
                             .public_url = "http://192.0.2.10:8080/"};
    hub = hub_new(&cfg, room, err, sizeof err);
    if (!hub) goto out;
    pthread_t st;
    pthread_create(&st, NULL, sig_main, hub);
    pthread_detach(st);
    printf("port %d session %lld\n", hub_port(hub), (long long)room_session_id(room));
    fflush(stdout);
    rc = hub_run(hub) ? 1 : 0;
    err[0] = 0;
out:
    if (rc && err[0]) fprintf(stderr, "fv_room_server: %s\n", err);
    hub_free(hub);
    room_free(room);
    deck_free(&deck);
    db_close(db);
    return rc;
}
