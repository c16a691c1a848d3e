/* The hub's cross-thread mailbox (hub_mailbox.h): a ring of posted
 * commands and the status copy, both under one mutex. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fv_clock.h"
#include "hub.h"
#include "hub_mailbox.h"

struct hub_mailbox {
    pthread_mutex_t lock;
    struct hub_cmd *posted;        /* ring of HUB_POST_MAX */
    struct hub_cmd *taken;         /* loop's thread: the command being run (hub_mailbox_take) */
    int head, len;
    struct hub_status status;      /* copy for hub_snapshot, under lock */
    long long close_due;           /* under lock: close_due while it applies to the current question, else 0 */
};

struct hub_mailbox *hub_mailbox_new(void) {
    struct hub_mailbox *mb = calloc(1, sizeof *mb);
    if (!mb) return NULL;
    if (!(mb->posted = calloc(HUB_POST_MAX, sizeof *mb->posted)) || !(mb->taken = calloc(1, sizeof *mb->taken))) {
        free(mb->posted);
        free(mb);
        return NULL;
    }
    pthread_mutex_init(&mb->lock, NULL);
    return mb;
}

void hub_mailbox_free(struct hub_mailbox *mb) {
    if (!mb) return;
    free(mb->posted);
    free(mb->taken);
    pthread_mutex_destroy(&mb->lock);
    free(mb);
}

int hub_mailbox_post(struct hub_mailbox *mb, const struct hub_cmd *cmd) {
    pthread_mutex_lock(&mb->lock);
    if (mb->len == HUB_POST_MAX) {
        pthread_mutex_unlock(&mb->lock);
        return -1;
    }
    mb->posted[(mb->head + mb->len) % HUB_POST_MAX] = *cmd;
    mb->len++;
    pthread_mutex_unlock(&mb->lock);
    return 0;
}

const struct hub_cmd *hub_mailbox_take(struct hub_mailbox *mb) {
    pthread_mutex_lock(&mb->lock);
    if (!mb->len) {
        pthread_mutex_unlock(&mb->lock);
        return NULL;
    }
    *mb->taken = mb->posted[mb->head];
    mb->head = (mb->head + 1) % HUB_POST_MAX;
    mb->len--;
    pthread_mutex_unlock(&mb->lock);
    return mb->taken;
}

struct hub_status *hub_mailbox_lock(struct hub_mailbox *mb) {
    pthread_mutex_lock(&mb->lock);
    return &mb->status;
}

void hub_mailbox_unlock(struct hub_mailbox *mb) { pthread_mutex_unlock(&mb->lock); }

/* hub_status.closes_in_ms for a deadline (0: none): at least 1 while it runs. */
static long long closes_in(long long due) {
    if (!due) return 0;
    long long left = due - fv_clock_ms();
    return left > 1 ? left : 1;
}

long long hub_mailbox_close_due(struct hub_mailbox *mb, long long due) {
    mb->close_due = due;
    return closes_in(due);
}

void hub_mailbox_read(struct hub_mailbox *mb, struct hub_status *out) {
    pthread_mutex_lock(&mb->lock);
    *out = mb->status;
    out->closes_in_ms = closes_in(mb->close_due);
    pthread_mutex_unlock(&mb->lock);
}

void hub_mailbox_commit(struct hub_mailbox *mb, int ops) {
    pthread_mutex_lock(&mb->lock);
    mb->status.commits++;
    mb->status.ops_committed += (unsigned long)ops;
    pthread_mutex_unlock(&mb->lock);
}

void hub_mailbox_prober(struct hub_mailbox *mb, const char *line, int connected) {
    pthread_mutex_lock(&mb->lock);
    snprintf(mb->status.prober_line, sizeof mb->status.prober_line, "%s", line);
    mb->status.prober_events++;
    mb->status.prober = connected;
    pthread_mutex_unlock(&mb->lock);
}
