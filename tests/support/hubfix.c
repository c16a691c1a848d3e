/* See hubfix.h. */
#include "hubfix.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *hubfix_web_root(void) {
    static char path[1024];
    const char *src = getenv("FRAGVOTE_SRC");
    snprintf(path, sizeof path, "%s/audience-web", src ? src : "..");
    return path;
}

static void *hub_thread(void *arg) {
    hub_run(arg);
    return NULL;
}

int hubfix_start(struct hubfix *f, const char *dbpath, const struct deck *deck, const char *code, int64_t resume,
                 const struct hub_config *cfg, char *err, size_t errlen) {
    return hubfix_start_probed(f, dbpath, deck, code, resume, cfg, NULL, err, errlen);
}

struct room *hubfix_room(const char *dbpath, const struct deck *deck, const struct room_info *info, struct db **db) {
    char err[512];
    *db = db_open(dbpath, err, sizeof err);
    struct room *r = *db ? room_create(*db, deck, info, err, sizeof err) : NULL;
    if (r) return r;
    fprintf(stderr, "%s: %s\n", dbpath, err);
    if (*db) db_close(*db);
    *db = NULL;
    return NULL;
}

struct hub_config hubfix_config(const char *secret) {
    return (struct hub_config){.bind_addr = "127.0.0.1", .port = 0, .secret = secret, .use_poll = 1};
}

int hubfix_start_yes_yes_no(struct hubfix *f, const char *dbpath, const struct deck *deck, const char *code,
                            int64_t resume, const char *secret, const struct hub_config *cfg) {
    char err[512];
    struct hub_config def = hubfix_config(secret);
    struct prober p = {hubfix_measure_yes_yes_no, f};
    if (hubfix_start_probed(f, dbpath, deck, code, resume, cfg ? cfg : &def, &p, err, sizeof err) == 0) return 0;
    fprintf(stderr, "%s\n", err);
    return -1;
}

int hubfix_start_probed(struct hubfix *f, const char *dbpath, const struct deck *deck, const char *code,
                        int64_t resume, const struct hub_config *cfg, const struct prober *p, char *err,
                        size_t errlen) {
    char why[512];
    memset(f, 0, sizeof *f);
    if (!(f->db = db_open(dbpath, why, sizeof why))) {
        snprintf(err, errlen, "db_open: %s", why);
        return -1;
    }
    f->room = resume > 0 ? room_resume(f->db, resume, deck, why, sizeof why)
                         : room_create(f->db, deck, &(struct room_info){.code = code}, why, sizeof why);
    if (!f->room) {
        snprintf(err, errlen, "room: %s", why);
        hubfix_stop(f);
        return -1;
    }
    struct hub_config c = *cfg;
    if (!c.web_root) c.web_root = hubfix_web_root();
    if (!(f->hub = hub_new(&c, f->room, why, sizeof why))) {
        snprintf(err, errlen, "hub_new: %s", why);
        hubfix_stop(f);
        return -1;
    }
    if (!cfg->prober_remote) { /* remote: the hub is the room's prober (a laptop's connection) */
        room_set_prefetch(f->room, 0);
        room_set_prober(f->room, p);
    }
    f->port = hub_port(f->hub);
    if (f->port <= 0 || pthread_create(&f->thread, NULL, hub_thread, f->hub)) {
        snprintf(err, errlen, "the hub has no port or no thread");
        hubfix_stop(f);
        return -1;
    }
    f->running = 1;
    return 0;
}

void hubfix_join(struct hubfix *f) {
    if (!f->running) return;
    pthread_join(f->thread, NULL);
    f->running = 0;
}

void hubfix_stop(struct hubfix *f) {
    if (f->hub) {
        hub_stop(f->hub);
        hubfix_join(f);
        hub_free(f->hub);
    }
    room_free(f->room);
    db_close(f->db);
    memset(f, 0, sizeof *f);
}

int hubfix_measure_yes_yes_no(void *ctx, const struct prober_ask *a) {
    struct hubfix *f = ctx;
    struct hub_cmd c = {.kind = HUB_CMD_MEASURED, .rid = a->rid};
    c.result.spec = *a->spec;
    c.result.sent.answer = PROBE_ANS_YES;
    c.result.df.answer = PROBE_ANS_YES;
    c.result.fragmented.answer = PROBE_ANS_NO;
    snprintf(c.result.egress.observer, sizeof c.result.egress.observer, "raw");
    snprintf(c.result.evidence, sizeof c.result.evidence, "DF=1 seen on the wire");
    return hub_post(f->hub, &c);
}

int hubfix_wait_state(struct hubfix *f, enum quiz_state s) {
    for (int i = 0; i < 200; i++) {
        struct hub_status st;
        hub_snapshot(f->hub, &st);
        if (st.current.state == s) return 0;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* The first column of sql's first row as an integer (*i) and a real (*d);
 * untouched when there is none. */
static void sql_first(const char *dbpath, const char *sql, long long *i, double *d) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st;
    if (sqlite3_open_v2(dbpath, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            *i = sqlite3_column_int64(st, 0);
            *d = sqlite3_column_double(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
}

long long hubfix_sql_int(const char *dbpath, const char *sql) {
    long long i = -1;
    double d;
    sql_first(dbpath, sql, &i, &d);
    return i;
}

double hubfix_sql_double(const char *dbpath, const char *sql) {
    long long i;
    double d = -1;
    sql_first(dbpath, sql, &i, &d);
    return d;
}
