/* Another process holding a test database's write lock, as a second
 * program on the same file would: the sqlite3 CLI inside BEGIN EXCLUSIVE
 * with a write pending. For tests that link sqlite3. */
#ifndef FRAGVOTE_CHECK_SQLITE_H
#define FRAGVOTE_CHECK_SQLITE_H
#include <sqlite3.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

/* Starts the holder on dbpath; *in is its stdin. Returns its pid once a
 * write of ours is refused at once (or after 2 s of trying), -1 if it could
 * not start. */
static inline pid_t check_sqlite_lock_hold(const char *dbpath, FILE **in) {
    char *argv[] = {"sqlite3", (char *)dbpath, NULL};
    pid_t pid = check_spawn_fed(argv, NULL, in);
    if (pid < 0 || !*in) return -1;
    fprintf(*in, "BEGIN EXCLUSIVE;\nINSERT INTO schema_version SELECT version FROM schema_version LIMIT 0;\n");
    fflush(*in);
    /* held once a write of ours is refused at once */
    for (int i = 0; i < 200; i++) {
        sqlite3 *h;
        int busy = 0;
        if (sqlite3_open(dbpath, &h) == SQLITE_OK) {
            busy = sqlite3_exec(h, "BEGIN IMMEDIATE; ROLLBACK;", NULL, NULL, NULL) == SQLITE_BUSY;
            sqlite3_close(h);
        }
        if (busy) break;
        usleep(10000);
    }
    return pid;
}

/* Rolls the holder's transaction back and waits for it to end. */
static inline void check_sqlite_lock_release(pid_t pid, FILE *in) {
    fprintf(in, "ROLLBACK;\n.quit\n");
    fclose(in);
    waitpid(pid, NULL, 0);
}
#endif
