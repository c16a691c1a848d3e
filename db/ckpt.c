/* The WAL's checkpointer thread (see db_ckpt.h). Its own connection to the
 * file; the store's connection only pokes it from its WAL hook, which runs
 * in whatever thread commits. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "db_ckpt.h"
#include "db_internal.h"
#include "db_sql.h"

struct db_ckpt {
    sqlite3 *writer;               /* the store's connection (its hook pokes us) */
    sqlite3 *h;                    /* ours: the checkpoints run on it */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int due, stop, running;        /* under mu */
    int started;                   /* the thread was started (db_ckpt_start) */
    unsigned long done;            /* under mu */
    char err[256];                 /* under mu: why the thread gave up */
};

/* The store's connection committed and its log holds frames pages. */
static int wal_hook(void *arg, sqlite3 *writer, const char *schema, int frames) {
    (void)writer, (void)schema;
    struct db_ckpt *k = arg;
    if (frames < DB_CKPT_FRAMES) return SQLITE_OK;
    pthread_mutex_lock(&k->mu);
    k->due = 1;
    pthread_cond_signal(&k->cv);
    pthread_mutex_unlock(&k->mu);
    return SQLITE_OK;
}

static void *ckpt_main(void *arg) {
    struct db_ckpt *k = arg;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (!k->due && !k->stop) pthread_cond_wait(&k->cv, &k->mu);
        if (k->stop) break;
        k->due = 0; /* pokes during the checkpoint ask for one more */
        pthread_mutex_unlock(&k->mu);
        int rc = sqlite3_wal_checkpoint_v2(k->h, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&k->mu);
        if (rc == SQLITE_OK) {
            k->done++;
        } else if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) {
            /* The writer checkpoints itself again (thread-safe: the
             * connection is serialized by SQLite's own mutex). */
            snprintf(k->err, sizeof k->err, "checkpoint of the log failed (SQLite checkpoints in its commits "
                     "again): %s", sqlite3_errmsg(k->h));
            sqlite3_wal_autocheckpoint(k->writer, DB_CKPT_FRAMES);
            break;
        }
    }
    k->running = 0;
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

int db_ckpt_open(struct db *db, char *err, size_t errlen) {
    struct db_ckpt **slot = db_ckpt_slot(db);
    if (*slot) return 0;
    struct db_ckpt *k = calloc(1, sizeof *k);
    if (!k) return db_seterr(err, errlen, "out of memory for the checkpointer"), -1;
    k->writer = db_sql_handle(db_conn(db));
    struct db_sql_conn c = {.path = (char *)db_path(db)};
    if (sqlite3_open_v2(db_path(db), &k->h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(k->h, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
        db_seterr(err, errlen, "cannot open %s for the checkpointer: %s", db_path(db),
                  k->h ? sqlite3_errmsg(k->h) : "out of memory");
        goto fail;
    }
    c.h = k->h;
    if (db_sql_touch(&c, err, errlen) < 0) goto fail; /* its -wal open now, as it stays */
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    *slot = k;
    return 0;
fail:
    sqlite3_close(k->h);
    free(k);
    return -1;
}

int db_ckpt_start(struct db *db, char *err, size_t errlen) {
    if (db_ckpt_open(db, err, errlen) < 0) return -1;
    struct db_ckpt *k = *db_ckpt_slot(db);
    if (k->started) return 0;
    k->running = 1;
    if (pthread_create(&k->thread, NULL, ckpt_main, k)) {
        k->running = 0;
        return db_seterr(err, errlen, "cannot start the checkpointer thread"), -1;
    }
    k->started = 1;
    sqlite3_wal_hook(k->writer, wal_hook, k); /* replaces SQLite's automatic checkpoint */
    return 0;
}

void db_ckpt_stop(struct db *db) {
    struct db_ckpt **slot = db_ckpt_slot(db), *k = *slot;
    if (!k) return;
    if (k->started) {
        sqlite3_wal_autocheckpoint(k->writer, DB_CKPT_FRAMES); /* the hook no longer points at k */
        pthread_mutex_lock(&k->mu);
        k->stop = 1;
        pthread_cond_signal(&k->cv);
        pthread_mutex_unlock(&k->mu);
        pthread_join(k->thread, NULL);
    }
    pthread_mutex_destroy(&k->mu);
    pthread_cond_destroy(&k->cv);
    sqlite3_close(k->h);
    free(k);
    *slot = NULL;
}

int db_ckpt_status(struct db *db, unsigned long *done, char *err, size_t errlen) {
    struct db_ckpt *k = *db_ckpt_slot(db);
    if (done) *done = 0;
    if (err && errlen) err[0] = 0;
    if (!k) return 0;
    pthread_mutex_lock(&k->mu);
    int running = k->running;
    if (done) *done = k->done;
    if (err && errlen) snprintf(err, errlen, "%s", k->err);
    pthread_mutex_unlock(&k->mu);
    return running;
}
