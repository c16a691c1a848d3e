/* The privileged helper of serve and present: the fork, the helper's life,
 * the network-facing process's drop (see engine_helper.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_scenario.h"
#include "fv_clock.h"
#include "privsep_helper.h"
#include "probe_json.h"
#include "engine_helper.h"
#include "worker.h"

#define ENGINE_HELPER_FD 3 /* the helper's end of the socket, after its fds are closed */
#define ENGINE_HELPER_LOCK_MS 30000 /* how long a helper waits for another one's lab of the same prefix */

/* The helper process's state. */
struct helper {
    const struct engine_helper_config *cfg;
    struct cli_scenario scenario;
    struct worker_config wc;      /* run options and the scenario switch: worker_measure, as serve's worker */
};

int engine_helper_wanted(int keep_root) { return !keep_root && geteuid() == 0; }

/* Before each test: the lab scenario it names (docs/DECKS.md). */
static int helper_before(void *ctx, int test, char *err, size_t errlen) {
    struct helper *h = ctx;
    double ms;
    int rebuilt;
    return cli_scenario_enter(&h->scenario, deck_test_lab(h->cfg->deck, test), &ms, &rebuilt, err, errlen);
}

/* A request "run TEST" (TEST checked against the deck): the deck's own spec. */
static void helper_run(void *ctx, int test, struct probe_result *out) {
    struct helper *h = ctx;
    worker_measure(&h->wc, test, &h->cfg->deck->tests[test].spec, out);
}

/* Only stdio and the socket stay open: nothing of the hub's (a database a
 * resume opened, its stdin). fd 3 is the socket afterwards. */
static int helper_fds(int fd) {
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0 && null != 0) dup2(null, 0);
    if (fd != ENGINE_HELPER_FD && (dup3(fd, ENGINE_HELPER_FD, O_CLOEXEC) < 0)) return -1;
    return close_range(ENGINE_HELPER_FD + 1, ~0U, 0) == 0 ? ENGINE_HELPER_FD : -1;
}

/* A lab this helper builds or switches is its own until it has put it
 * back or taken it down: an flock on /run/fragvote-lab-PREFIX.lock, held
 * (the descriptor open) for the helper's life and removed at its end. A
 * serve restarted after a crash then waits for the old helper's teardown
 * instead of racing it (using the old lab as it is, then seeing it
 * removed). The descriptor, or -1 (no lab; or it cannot be locked: said,
 * and the lab is set up anyway); path gets the file's name. */
static int helper_lab_lock(const char *cmd, const struct cli_engine *e, char *path, size_t pathlen) {
    path[0] = 0;
    if (!e->use_lab) return -1;
    struct probe_lab_config cfg;
    probe_lab_config_default(&cfg);
    snprintf(path, pathlen, "/run/fragvote-lab-%s.lock", cfg.prefix);
    long long until = fv_clock_ms() + ENGINE_HELPER_LOCK_MS;
    for (int said = 0;; usleep(50000)) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        struct stat held, now;
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
            /* the file the previous holder removed is not the lock any more */
            if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_ino == now.st_ino) return fd;
        } else if (fd >= 0 && errno == EWOULDBLOCK && fv_clock_ms() < until) {
            if (!said++) printf("Waiting for the lab \"%s\": another privileged helper still has it.\n", cfg.prefix);
            fflush(stdout);
        } else {
            fprintf(stderr, "fragvote %s: cannot lock the lab \"%s\" (%s); going on\n", cmd, cfg.prefix,
                    fd >= 0 && errno == EWOULDBLOCK ? "another helper did not let go" : strerror(errno));
            if (fd >= 0) close(fd);
            path[0] = 0;
            return -1;
        }
        close(fd);
    }
}

/* The helper's life, in the child; never returns. */
static void helper_main(int fd, const struct engine_helper_config *cfg) {
    struct helper h = {.cfg = cfg};
    struct cli_engine *e = cfg->engine;
    if ((fd = helper_fds(fd)) < 0) _exit(FV_EXIT_FAIL);
    /* Only the hub ends the helper (quit, or its end closing): a Ctrl-C at
     * the terminal reaches the whole process group, and a helper it killed
     * would leave the lab up. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    e->helper = 1;
    e->lab_switches = cfg->scenarios > 0;
    char lock_path[160];
    int lock = helper_lab_lock(cfg->cmd, e, lock_path, sizeof lock_path);
    int code = cli_engine_up(cfg->cmd, e, cfg->witness, cfg->witness_key, 0, cfg->user);
    if (lock >= 0 && code == FV_EXIT_OK && !e->lab_built && !e->lab_switches) {
        close(lock); /* a lab used as it is stays someone else's (the file stays: /run is root's) */
        lock = -1;
    }
    if (code != FV_EXIT_OK) {
        fflush(NULL);
        privsep_helper_hello(fd, NULL, "the probe engine could not be set up (said above)");
        cli_engine_down(cfg->cmd, e);
        if (lock >= 0) unlink(lock_path);
        _exit(code);
    }
    cli_engine_opts(e, cfg->keep_pmtu_cache, &h.wc.opts);
    if (cfg->scenarios) {
        cli_scenario_init(&h.scenario, &e->lab, &e->witness);
        h.wc.steps = (struct worker_steps){.before = helper_before, .ctx = &h};
    }
    char *lab = e->use_lab ? probe_lab_json(&e->lab) : NULL;
    fflush(NULL);
    struct privsep_helper_ops ops = {.ntests = cfg->deck->ntests, .run = helper_run, .ctx = &h};
    int rc = privsep_helper_hello(fd, lab, NULL) < 0 ? 1 : privsep_helper_serve(fd, &ops);
    free(lab);
    if (rc != 0)
        fprintf(stderr, "fragvote %s: the %s process has gone; the privileged helper takes the lab down\n", cfg->cmd,
                strcmp(cfg->cmd, "serve") ? cfg->cmd : "hub");
    char line[160], err[512];
    cli_scenario_summary(&h.scenario, line, sizeof line);
    if (line[0]) printf("Lab scenarios: %s.\n", line);
    if (!e->lab_built && cli_scenario_restore(&h.scenario, err, sizeof err) < 0)
        fprintf(stderr, "fragvote %s: could not put the lab back as it was: %s\n", cfg->cmd, err);
    cli_engine_down(cfg->cmd, e);
    if (lock >= 0) unlink(lock_path); /* the lab is no longer this helper's; exit lets go of it */
    fflush(NULL);
    _exit(rc < 0 ? FV_EXIT_FAIL : FV_EXIT_OK);
}

int engine_helper_start(const struct engine_helper_config *cfg, struct privsep_client **out) {
    *out = NULL;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        fprintf(stderr, "fragvote %s: socketpair for the privileged helper: %s\n", cfg->cmd, strerror(errno));
        return FV_EXIT_FAIL;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fragvote %s: cannot start the privileged helper: %s\n", cfg->cmd, strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return FV_EXIT_FAIL;
    }
    if (pid == 0) {
        close(sv[0]);
        helper_main(sv[1], cfg);
    }
    close(sv[1]);
    char err[256];
    struct privsep_client_config pc = {.fd = sv[0], .pid = pid, .cmd = cfg->cmd, .note = cfg->note, .ctx = cfg->ctx};
    struct privsep_client *c = privsep_client_new(&pc, err, sizeof err);
    if (!c) {
        close(sv[0]); /* the helper sees EOF and ends */
        fprintf(stderr, "fragvote %s: %s\n", cfg->cmd, err);
        return FV_EXIT_FAIL;
    }
    char kept[96];
    snprintf(kept, sizeof kept, "no capability (the privileged helper, pid %ld, measures)", (long)pid);
    int code = cli_engine_drop_all(cfg->cmd, 0, cfg->user, kept);
    if (code != FV_EXIT_OK) {
        privsep_client_free(c);
        return code;
    }
    *out = c;
    return FV_EXIT_OK;
}

int engine_helper_ready(const char *cmd, struct privsep_client **c, char **lab_json) {
    char err[512];
    if (privsep_client_ready(*c, PRIVSEP_READY_MS, lab_json, err, sizeof err) == 0) return FV_EXIT_OK;
    int st = privsep_client_free(*c);
    *c = NULL;
    if (st <= 0) fprintf(stderr, "fragvote %s: the privileged helper did not start: %s\n", cmd, err);
    return st > 0 ? st : FV_EXIT_FAIL;
}
