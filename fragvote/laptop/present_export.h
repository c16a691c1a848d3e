/* `fragvote present --export FILE`: the rendezvous of one export between
 * the console thread, which asks the hub for it and waits, and the link's
 * thread, which receives the hub's answer (an export_ok frame with the data,
 * or an error) and writes the file (docs/PROTOCOL.md). */
#ifndef FRAGVOTE_PRESENT_EXPORT_H
#define FRAGVOTE_PRESENT_EXPORT_H

#include <pthread.h>
#include <stddef.h>

#include "present_link.h"

#define PRESENT_EXPORT_MS 15000    /* the hub's answer to an export, at most this long */

/* One export at a time; its own lock. */
struct present_export {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int waiting, ok;                   /* an export waits for the hub's answer; how it ended */
    const char *to;                    /* the file it goes to */
    int fd;                            /* to, opened at start (fv_file_open_early), or -1: written as fv_file does */
    char msg[300];                     /* "FILE: N bytes", or why it failed */
};

void present_export_init(struct present_export *e);
void present_export_destroy(struct present_export *e);

/* Console thread: asks the hub over link for the session's export in format
 * and waits (at most PRESENT_EXPORT_MS) until it is written to file (through
 * fd when file was opened at start, fv_file_open_early; else -1). fd is
 * closed either way. 0, and "Export: FILE: N bytes" on stdout; or -1, and
 * why on stderr. */
int present_export_one(struct present_export *e, struct present_link *link, const char *file, int fd,
                       const char *format);

/* Link's thread: 1 while an export waits for the hub's answer. */
int present_export_waiting(struct present_export *e);
/* Link's thread: the hub's export_ok frame (text as received): its data is
 * written to the waiting export's file (0600, whole or not at all). Ignored
 * when no export waits. */
void present_export_received(struct present_export *e, const char *text, size_t len);
/* Link's thread: the waiting export ends (ok 0 or 1) with msg; nothing when
 * none waits. */
void present_export_answer(struct present_export *e, int ok, const char *msg);

#endif
