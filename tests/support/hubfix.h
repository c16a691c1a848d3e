/* The in-process hub for tests: a real SQLite file, a room on a caller's
 * deck, the real hub on a free loopback port, run on its own thread. The
 * tests that talk to it use the websocket client (tests/support/wsclient). */
#ifndef FRAGVOTE_TESTS_HUBFIX_H
#define FRAGVOTE_TESTS_HUBFIX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "hub.h"
#include "room.h"

struct hubfix {
    struct db *db;
    struct room *room;
    struct hub *hub;
    pthread_t thread;
    int running;                       /* the thread runs hub_run (hubfix_join not yet called) */
    int port;
};

/* <FRAGVOTE_SRC or "..">/audience-web: the pages, for cfg.web_root. */
const char *hubfix_web_root(void);

/* Opens dbpath, creates room `code` on deck (resume > 0: resumes that
 * session instead), starts the hub with cfg (web_root NULL: the source
 * tree's pages) and runs it on a thread. deck must outlive the fixture.
 * Returns 0, or -1 with err (whatever was opened is closed again). */
int hubfix_start(struct hubfix *f, const char *dbpath, const struct deck *deck, const char *code, int64_t resume,
                 const struct hub_config *cfg, char *err, size_t errlen);
/* The same with prober p set on the room (prefetch off: every measurement
 * is asked when the presenter measures, as the tests expect). */
int hubfix_start_probed(struct hubfix *f, const char *dbpath, const struct deck *deck, const char *code,
                        int64_t resume, const struct hub_config *cfg, const struct prober *p, char *err,
                        size_t errlen);

/* The hub config most tests start with: 127.0.0.1, a free port, secret,
 * the poll loop; the rest zero (the defaults). */
struct hub_config hubfix_config(const char *secret);

/* hubfix_start_probed with hubfix_measure_yes_yes_no answering every
 * measurement and cfg (NULL: hubfix_config(secret)); a failure's reason on
 * stderr. Returns 0 or -1. */
int hubfix_start_yes_yes_no(struct hubfix *f, const char *dbpath, const struct deck *deck, const char *code,
                            int64_t resume, const char *secret, const struct hub_config *cfg);

/* A room without a hub: dbpath opened (*db) and a room created on deck
 * with info (NULL: none). The room, or NULL after printing why (*db NULL
 * too). The caller room_free's and db_close's. */
struct room *hubfix_room(const char *dbpath, const struct deck *deck, const struct room_info *info, struct db **db);

/* Waits for the hub's thread (after hub_stop or a posted QUIT). */
void hubfix_join(struct hubfix *f);

/* Stops the hub, joins its thread, frees hub, room and database; f is zeroed. */
void hubfix_stop(struct hubfix *f);

/* A struct prober ask (ctx: the struct hubfix) that answers every
 * measurement at once through hub_post: sent yes, DF yes, fragmented no,
 * raw observer, evidence "DF=1 seen on the wire". */
int hubfix_measure_yes_yes_no(void *ctx, const struct prober_ask *a);

/* The first column of the first row of sql on the file at dbpath, read
 * through a read-only connection of its own; -1 when there is none. */
long long hubfix_sql_int(const char *dbpath, const char *sql);
/* The same as a real number; -1 when there is none. */
double hubfix_sql_double(const char *dbpath, const char *sql);

/* Polls until the current question is in state s (up to 2 s): 0, or -1. */
int hubfix_wait_state(struct hubfix *f, enum quiz_state s);

#endif
