/* The WAL's checkpoints on a thread of their own (db/ckpt.c).
 *
 * SQLite checkpoints a WAL database from inside the COMMIT that passes
 * 1000 pages of log: that one commit copies ~4 MB into the database file
 * and syncs it, 8-15 ms on the reference machine, every ~25 commits while
 * a large room votes, and every vote of the batch waits for its ack. With
 * the checkpointer started, the store's commits only append to the log: a
 * thread with its own connection runs a PASSIVE checkpoint (it never
 * blocks the writer, nor waits for it) each time a commit leaves the log
 * past DB_CKPT_FRAMES pages. Durability is unchanged: a commit is in the
 * log either way (WAL + synchronous=NORMAL). If a checkpoint fails (other
 * than busy), the thread hands the job back to SQLite's own automatic
 * checkpoint and ends; db_ckpt_status says why. */
#ifndef FRAGVOTE_DB_CKPT_H
#define FRAGVOTE_DB_CKPT_H

#include <stddef.h>

#include "db.h"

#define DB_CKPT_FRAMES 1000        /* log pages after a commit that call for a checkpoint (SQLite's default) */

/* Opens the checkpointer's connection (once; again is a no-op) and reads
 * through it, so its -wal is open from now on; no thread yet. For a
 * process that opens every file before it drops privileges
 * (db_hold_files). 0, or -1 with err. */
int db_ckpt_open(struct db *db, char *err, size_t errlen);
/* Starts db's checkpointer (its connection opened first if db_ckpt_open was
 * not called; once; again is a no-op). It ends with
 * db_close, which then checkpoints and removes the log as before.
 * 0, or -1 with err (nothing started: SQLite keeps checkpointing). */
int db_ckpt_start(struct db *db, char *err, size_t errlen);
/* Stops it (db_close does this): SQLite checkpoints in its commits again. */
void db_ckpt_stop(struct db *db);
/* Checkpoints the thread ran to the end; 1 if it is running. err: why it
 * gave up ("" if it did not). */
int db_ckpt_status(struct db *db, unsigned long *done, char *err, size_t errlen);

#endif
