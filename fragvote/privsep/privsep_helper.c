/* The privileged helper's loop (see privsep_helper.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "privsep_helper.h"
#include "privsep_wire.h"

/* Sends r; 0, or -1 when the hub is gone. A reply too long to send goes as
 * an "err" instead. */
static int helper_send(int fd, const struct privsep_reply *r) {
    char *msg = privsep_reply_format(r);
    if (!msg && r->kind == PRIVSEP_OK) {
        struct privsep_reply e = {.kind = PRIVSEP_ERR, .seq = r->seq};
        snprintf(e.why, sizeof e.why, "the result did not fit in a reply of %d bytes", PRIVSEP_REPLY_MAX);
        msg = privsep_reply_format(&e);
    }
    if (!msg) return -1;
    ssize_t n;
    while ((n = send(fd, msg, strlen(msg), MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    free(msg);
    return n < 0 ? -1 : 0;
}

int privsep_helper_hello(int fd, const char *lab, const char *why) {
    struct privsep_reply r = {.kind = why ? PRIVSEP_FAIL : PRIVSEP_READY, .lab = why ? NULL : (char *)lab};
    if (why) snprintf(r.why, sizeof r.why, "%s", why);
    return helper_send(fd, &r);
}

int privsep_helper_serve(int fd, const struct privsep_helper_ops *ops) {
    struct privsep_reply *r = malloc(sizeof *r);
    if (!r) return -1;
    int rc = -1;
    for (;;) {
        char buf[PRIVSEP_REQ_MAX + 1];
        ssize_t n = recv(fd, buf, sizeof buf, MSG_TRUNC);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            rc = n == 0 ? 1 : -1; /* 0: the hub's end is closed */
            break;
        }
        struct privsep_req req;
        memset(r, 0, sizeof *r);
        char err[PRIVSEP_WHY_MAX - 16];
        if (privsep_req_parse(buf, (size_t)n, ops->ntests, &req, err, sizeof err) < 0) {
            r->kind = PRIVSEP_ERR;
            snprintf(r->why, sizeof r->why, "refused: %s", err);
        } else if (req.kind == PRIVSEP_QUIT) {
            rc = 0;
            break;
        } else {
            r->kind = PRIVSEP_OK;
            r->seq = req.seq;
            ops->run(ops->ctx, req.test, &r->result);
        }
        if (helper_send(fd, r) < 0) {
            rc = 1;
            break;
        }
    }
    free(r);
    return rc;
}
