/* The hub's open-files budget (hub_fd.c; see HUB_FD_SPARE in hub.h), on the
 * loop's thread but hub_fd_lws_log. Knows nothing of struct hub. Internal to
 * fragvote/hub. */
#ifndef FRAGVOTE_HUB_FD_H
#define FRAGVOTE_HUB_FD_H

struct hub_fd {
    long nofile;                   /* RLIMIT_NOFILE soft limit after setting it (hub_fd_nofile_target) */
    int fd_budget;                 /* lws's own descriptors at most (its accept stops there) */
    int conn_cap;                  /* websockets at most */
    int listen_fd;                 /* lws's listening socket, -1: not found */
    int reserve_fd;                /* kept open to accept-and-close at EMFILE, -1: none */
    unsigned long shed;            /* connections accepted and closed at once since the last report */
    long long shed_report_ms;      /* when the shedding was last reported */
};

void hub_fd_init(struct hub_fd *f, int conn_max); /* sets the limit, derives fd_budget and conn_cap */
/* The soft open-files limit the hub sets itself under this hard one: the
 * hard limit (ours to take), but at most HUB_NOFILE_MAX (a higher soft
 * limit is lowered to it). lws 4.1.6 (Debian's, built without
 * NDEBUG) sizes its descriptor table from the soft limit and reads all of
 * it at every close (sanity_assert_no_sockfd_traces): under Debian's
 * usual hard limit of 524,288 that is 4 MB read per closed connection,
 * where the room never needs more than ~20,000. */
unsigned long long hub_fd_nofile_target(unsigned long long hard);
void hub_fd_listening(struct hub_fd *f, int port); /* after lws listens on port: finds its socket, opens the reserve */
int hub_fd_filter(struct hub_fd *f, int fd);    /* an accepted socket: 1 to refuse it (fd at the ceiling) */
void hub_fd_shed(struct hub_fd *f);             /* after a loop turn: at EMFILE, accept-and-close the queue */
void hub_fd_close(struct hub_fd *f);
void hub_fd_lws_log(int level, const char *line); /* lws's log emitter: rate-limited, notices EMFILE */

#endif
