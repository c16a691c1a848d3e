/* The export rendezvous of `fragvote present` (present_export.h). */
#include "present_export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fv_file.h"
#include "present_frame.h"

void present_export_init(struct present_export *e) {
    *e = (struct present_export){.fd = -1};
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
}

void present_export_destroy(struct present_export *e) {
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cond);
}

int present_export_waiting(struct present_export *e) {
    pthread_mutex_lock(&e->lock);
    int waiting = e->waiting;
    pthread_mutex_unlock(&e->lock);
    return waiting;
}

void present_export_answer(struct present_export *e, int ok, const char *msg) {
    pthread_mutex_lock(&e->lock);
    if (e->waiting) {
        e->waiting = 0;
        e->ok = ok;
        snprintf(e->msg, sizeof e->msg, "%s", msg);
        pthread_cond_broadcast(&e->cond);
    }
    pthread_mutex_unlock(&e->lock);
}

/* data (n bytes) into to: through fd when it was opened at start, else as
 * fv_file writes (0600, whole or not at all). 0, or -1 with err. */
static int export_write(const char *to, int fd, const char *data, size_t n, char *err, size_t errlen) {
    if (fd >= 0) return fv_file_write_fd(fd, to, data, n, err, errlen);
    char tmp[PATH_MAX + 16];
    FILE *f = fv_file_begin(to, tmp, sizeof tmp, err, errlen);
    if (!f) return -1;
    if (fwrite(data, 1, n, f) != n) {
        snprintf(err, errlen, "writing %s failed: %s", to, strerror(errno));
        fv_file_abort(f, tmp);
        return -1;
    }
    return fv_file_commit(f, tmp, to, err, errlen);
}

void present_export_received(struct present_export *e, const char *text, size_t len) {
    char err[200], msg[300];
    size_t n = 0;
    char *data = present_frame_export_data(text, len, &n, err, sizeof err);
    pthread_mutex_lock(&e->lock);
    const char *to = e->waiting ? e->to : NULL;
    int fd = to ? e->fd : -1;
    if (to) e->fd = -1; /* written (or failed) once: this thread closes it */
    pthread_mutex_unlock(&e->lock);
    if (!to) {
        free(data);
        return;
    }
    int ok = data && export_write(to, fd, data, n, err, sizeof err) == 0;
    if (!data && fd >= 0) close(fd);
    if (ok) snprintf(msg, sizeof msg, "%s: %zu bytes", to, n);
    else if (!data) snprintf(msg, sizeof msg, "%s: %s", to, err);
    else snprintf(msg, sizeof msg, "%s", err);
    free(data);
    present_export_answer(e, ok, msg);
}

int present_export_one(struct present_export *e, struct present_link *link, const char *file, int fd,
                       const char *format) {
    char *req = present_frame_export(format);
    pthread_mutex_lock(&e->lock);
    e->waiting = 1;
    e->to = file;
    e->fd = fd;
    e->msg[0] = 0;
    pthread_mutex_unlock(&e->lock);
    if (!req || present_link_send(link, req) < 0) {
        free(req);
        present_export_answer(e, 0, "the hub is unreachable");
    } else {
        free(req);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += PRESENT_EXPORT_MS / 1000;
    pthread_mutex_lock(&e->lock);
    while (e->waiting && pthread_cond_timedwait(&e->cond, &e->lock, &until) == 0) {
    }
    int timed_out = e->waiting, ok = e->ok;
    e->waiting = 0;
    if (e->fd >= 0) close(e->fd); /* never written: the file stays as it was (created empty at start) */
    e->fd = -1;
    char msg[300];
    snprintf(msg, sizeof msg, "%s", e->msg);
    pthread_mutex_unlock(&e->lock);
    if (timed_out) {
        fprintf(stderr, "fragvote present: export %s: no answer from the hub within %d s\n", file,
                PRESENT_EXPORT_MS / 1000);
        return -1;
    }
    if (!ok) {
        fprintf(stderr, "fragvote present: export %s: %s\n", file, msg);
        return -1;
    }
    printf("Export: %s\n", msg);
    return 0;
}
