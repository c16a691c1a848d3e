/* Moving one thread into a named network namespace. setns(CLONE_NEWNET)
 * changes only the calling thread, so a probe worker can send from the lab's
 * src while the rest of the process stays where it was. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fragprobe.h"

int probe_netns_enter(const char *name, int *saved, char *err, size_t errlen) {
    char path[128];
    if (!name || !*name || strchr(name, '/')) {
        snprintf(err, errlen, "bad namespace name \"%s\"", name ? name : "");
        return PROBE_E_FAIL;
    }
    snprintf(path, sizeof path, "/run/netns/%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "network namespace %s not found (%s): is the lab up? try `fragvote lab up`",
                 name, strerror(errno));
        return PROBE_E_FAIL;
    }
    int old = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (old < 0) {
        snprintf(err, errlen, "cannot open this thread's network namespace: %s", strerror(errno));
        close(fd);
        return PROBE_E_FAIL;
    }
    if (setns(fd, CLONE_NEWNET) < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot enter network namespace %s: %s%s", name, strerror(e),
                 e == EPERM ? " (needs CAP_SYS_ADMIN: run as root)" : "");
        close(fd);
        close(old);
        return e == EPERM ? PROBE_E_PERM : PROBE_E_FAIL;
    }
    close(fd);
    *saved = old;
    return 0;
}

int probe_netns_leave(int saved) {
    if (saved < 0) return 0;
    int rc = setns(saved, CLONE_NEWNET);
    close(saved);
    return rc < 0 ? PROBE_E_FAIL : 0;
}

struct netns_job {
    const char *name;
    int (*fn)(void *);
    void *arg;
    int rc;
    char *err;
    size_t errlen;
};

static void *netns_thread(void *p) {
    struct netns_job *j = p;
    int saved;
    j->rc = probe_netns_enter(j->name, &saved, j->err, j->errlen);
    if (j->rc == 0) {
        j->rc = j->fn(j->arg);
        probe_netns_leave(saved); /* the thread ends anyway; keep fds balanced */
    }
    return NULL;
}

int probe_netns_run(const char *name, int (*fn)(void *arg), void *arg, char *err, size_t errlen) {
    struct netns_job j = {name, fn, arg, PROBE_E_FAIL, err, errlen};
    pthread_t t;
    int e = pthread_create(&t, NULL, netns_thread, &j);
    if (e) {
        snprintf(err, errlen, "cannot start a thread for namespace %s: %s", name, strerror(e));
        return PROBE_E_FAIL;
    }
    pthread_join(t, NULL);
    return j.rc;
}
