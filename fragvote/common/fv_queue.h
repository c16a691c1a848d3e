/* A bounded FIFO of fixed-size items shared between threads: pushed from any
 * thread, taken in push order by one consumer (a worker thread, fv_qthread.h,
 * or an event loop that polls it, present_link.c's send queue).
 *
 * Items are copied in and out by value (item_size bytes); an item that owns
 * memory names it in its bytes, and the queue's drop function releases what
 * it discards. A queue can be closed: pushes are refused until it is opened
 * again, and a closing that discards drops what is queued.
 *
 * A taken item counts as busy until fv_queue_done(), so fv_queue_wait_idle()
 * tells "nothing queued and nothing being worked on" -- the end of a job
 * handed to a thread, not only its start. */
#ifndef FRAGVOTE_FV_QUEUE_H
#define FRAGVOTE_FV_QUEUE_H

#include <stddef.h>

struct fv_queue;

/* max items queued at most (> 0); drop (may be NULL) releases an item the
 * queue discards. Returns the queue (fv_queue_free), or NULL with err. */
struct fv_queue *fv_queue_new(size_t item_size, int max, void (*drop)(void *item), char *err, size_t errlen);
/* Drops what is still queued and frees the queue (NULL: nothing). No thread
 * may use it any more. */
void fv_queue_free(struct fv_queue *q);

/* Copies item in: 0, or -1 when the queue is full or closed (the caller still
 * owns what the item names). */
int fv_queue_push(struct fv_queue *q, const void *item);
/* Copies the oldest item out without waiting: 1, or 0 when none is queued. */
int fv_queue_pop(struct fv_queue *q, void *item);
/* Waits for the oldest item and copies it out: 1 (busy until fv_queue_done),
 * or 0 once the queue is closed and empty. */
int fv_queue_take(struct fv_queue *q, void *item);
/* The item taken last is finished: counted, and idle waiters wake. */
void fv_queue_done(struct fv_queue *q);
/* Waits until nothing is queued or busy: 1, or 0 when still not idle after
 * wait_ms (0: do not wait; < 0: as long as it takes). */
int fv_queue_wait_idle(struct fv_queue *q, int wait_ms);

/* Items queued now. */
int fv_queue_count(struct fv_queue *q);
/* Items taken and done so far. */
unsigned long fv_queue_finished(struct fv_queue *q);

/* Refuses pushes from now on and wakes a waiting taker; discard: drops what is
 * queued (else the taker still gets it, then 0). */
void fv_queue_close(struct fv_queue *q, int discard);
/* Takes pushes again. */
void fv_queue_open(struct fv_queue *q);
int fv_queue_is_open(struct fv_queue *q);

#endif
