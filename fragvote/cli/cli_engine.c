/* The local probe engine's set-up for serve and present (see cli_engine.h). */
#include <errno.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "cli_engine.h"

int cli_engine_pick(const char *cmd, const char *observer, const char *target, struct cli_engine *e) {
    memset(e, 0, sizeof *e);
    const char *name = observer && *observer ? observer : "auto";
    if (probe_observer_parse(name, &e->observer) < 0) {
        fprintf(stderr, "fragvote %s: --observer wants auto, raw or recverr, not '%s'\n", cmd, name);
        return FV_EXIT_USAGE;
    }
    if (e->observer == PROBE_OBS_AUTO)
        e->observer = probe_priv_has(CAP_NET_RAW) ? PROBE_OBS_RAW : PROBE_OBS_RECVERR;
    snprintf(e->observer_name, sizeof e->observer_name, "%s", probe_observer_name(e->observer));
    e->use_lab = !target || !target[0] || !strcmp(target, "lab");
    snprintf(e->target, sizeof e->target, "%s", e->use_lab ? "lab" : target);
    if (e->use_lab) return FV_EXIT_OK;
    /* An unknown target is a mistake to report now, not 32 "unknown" answers later. */
    struct sockaddr_storage ss;
    char err[256];
    int hr = probe_pmtu_resolve(e->target, AF_UNSPEC, &ss, err, sizeof err);
    if (hr < 0) {
        fprintf(stderr, "fragvote %s: target %s: %s\n", cmd, e->target, err);
        return cli_exit_probe(hr);
    }
    return FV_EXIT_OK;
}

/* A decimal id (> 0) from the environment, or -1. */
static long env_uid(const char *name) {
    const char *s = getenv(name);
    long v;
    return s && *s && !cli_parse_long(s, 1, 0x7fffffffL, &v) ? v : -1;
}

/* Whom root becomes (docs/PRIVILEGES.md): --user NAME, else the user that
 * sudo (SUDO_UID/SUDO_GID), doas (DOAS_USER, a name) or pkexec (PKEXEC_UID)
 * ran us for. 1 with *uid, *gid and who; 0 when none is known (a root
 * shell, su, CI); -1 with err (an unknown --user). */
static int drop_target(const char *user, long *uid, long *gid, char *who, size_t wholen, char *err, size_t errlen) {
    struct passwd *pw = NULL;
    const char *by = "--user";
    if (user) {
        errno = 0;
        if (!(pw = getpwnam(user))) {
            snprintf(err, errlen, "--user %s: no such user", user);
            return -1;
        }
    } else if ((*uid = env_uid("SUDO_UID")) > 0) {
        *gid = env_uid("SUDO_GID");
        snprintf(who, wholen, "SUDO_UID");
        return 1;
    } else if (getenv("DOAS_USER") && *getenv("DOAS_USER")) {
        by = "DOAS_USER";
        if (!(pw = getpwnam(getenv("DOAS_USER")))) {
            snprintf(err, errlen, "DOAS_USER %s: no such user (--keep-root or --user NAME)", getenv("DOAS_USER"));
            return -1;
        }
    } else if ((*uid = env_uid("PKEXEC_UID")) > 0) {
        pw = getpwuid((uid_t)*uid);
        *gid = pw ? (long)pw->pw_gid : *uid;
        snprintf(who, wholen, "PKEXEC_UID");
        return 1;
    } else {
        return 0;
    }
    if (pw->pw_uid == 0) {
        snprintf(err, errlen, "%s names root: nothing would be dropped (--keep-root says so)", by);
        return -1;
    }
    *uid = (long)pw->pw_uid;
    *gid = (long)pw->pw_gid;
    snprintf(who, wholen, "%s %s", by, pw->pw_name);
    return 1;
}

int cli_engine_to_nobody(int keep_root, const char *user) {
    long uid = -1, gid = -1;
    char who[128], err[256];
    return geteuid() == 0 && !keep_root && drop_target(user, &uid, &gid, who, sizeof who, err, sizeof err) == 0;
}

/* Root and not --keep-root: become the user drop_target names or, with
 * none known (a root shell, su, CI), nobody, keeping caps (described by
 * kept). self names this process in what it prints ("Dropped root",
 * "Privileged helper (pid N)") on say. 0 (nothing to do, or dropped and
 * said so), or -1 with err. */
static int drop_root(int keep_root, const char *user, const int *caps, int n, const char *kept, const char *self,
                     FILE *say, char *err, size_t errlen) {
    long uid = -1, gid = -1;
    char who[128];
    if (geteuid() != 0 || keep_root) return 0;
    int t = drop_target(user, &uid, &gid, who, sizeof who, err, errlen);
    if (t < 0) return -1;
    if (t == 0) {
        struct passwd *pw = getpwnam("nobody");
        if (!pw || pw->pw_uid == 0) return fv_fail(err, errlen, "no invoking user known and no user 'nobody' to drop to");
        uid = (long)pw->pw_uid, gid = (long)pw->pw_gid;
        snprintf(who, sizeof who, "nobody: no invoking user known");
    }
    if (probe_priv_drop_to(uid, gid, caps, n, err, errlen) < 0) return -1;
    fprintf(say, "%s: now uid %ld, keeping %s (from %s).\n", self, uid, kept ? kept : "no capability", who);
    return 0;
}

int cli_engine_caps(const struct cli_engine *e, int caps[CLI_ENGINE_CAPS_MAX]) {
    int n = 0;
    caps[n++] = CAP_NET_RAW;
    caps[n++] = CAP_NET_ADMIN;
    if (e->use_lab) caps[n++] = CAP_SYS_ADMIN;
    /* Removing the lab, or rebuilding it for a deck's scenario: files under
     * /run/netns owned by root. */
    if (e->use_lab && (e->lab_built || e->lab_switches)) caps[n++] = CAP_DAC_OVERRIDE;
    return n;
}

/* Started with sudo: the lab is up, so become the invoking user before any
 * file is created (it then belongs to them) and before any network client
 * is served. What the probe still needs stays: CAP_NET_RAW (raw observer
 * sockets per test), CAP_NET_ADMIN (PMTU flush) and, with the lab,
 * CAP_SYS_ADMIN (per-test setns into the lab) plus, when this run built the
 * lab, CAP_DAC_OVERRIDE so `ip netns del` can remove it at the end. Run as
 * root without sudo (a root shell, CI) there is no invoking user to return
 * to: the drop goes to nobody (the caller opened its files before,
 * cli_engine_to_nobody). keep_root (--keep-root) skips the drop. What stays
 * is cli_engine_caps. */
static int drop_privileges(const struct cli_engine *e, int keep_root, const char *user, char *err, size_t errlen) {
    int caps[CLI_ENGINE_CAPS_MAX];
    int n = cli_engine_caps(e, caps);
    int dac = caps[n - 1] == CAP_DAC_OVERRIDE;
    char kept[128];
    snprintf(kept, sizeof kept, "only CAP_NET_RAW, CAP_NET_ADMIN%s",
             !e->use_lab ? "" : dac ? ", CAP_SYS_ADMIN and CAP_DAC_OVERRIDE (lab)" : " and CAP_SYS_ADMIN (lab)");
    char self[64] = "Dropped root";
    if (e->helper) snprintf(self, sizeof self, "Privileged helper (pid %ld)", (long)getpid());
    /* The helper's line is the other process's: on stderr, like a warning, so a serve whose start fails
     * after the fork (its database) still prints nothing on stdout. */
    return drop_root(keep_root, user, caps, n, kept, self, e->helper ? stderr : stdout, err, errlen);
}

int cli_engine_up(const char *cmd, struct cli_engine *e, const char *witness, const char *witness_key, int keep_root,
                  const char *user) {
    char err[1024];
    if (e->use_lab) {
        struct probe_lab_config cfg;
        probe_lab_config_default(&cfg);
        /* A lab someone built by hand (`fragvote lab up`, maybe with other
         * MTUs) is used as it is and left up; one we build, we remove. */
        char serr[256];
        if (probe_lab_status(cfg.prefix, &e->lab, serr, sizeof serr) == 1) {
            printf("Using the running lab \"%s\" as it is; it stays up after the talk.\n", cfg.prefix);
        } else {
            int lr = probe_lab_up(&cfg, &e->lab, err, sizeof err);
            if (lr < 0) {
                fprintf(stderr, "fragvote %s: cannot build the namespace lab: %s\n", cmd, err);
                if (lr == PROBE_E_PERM) fprintf(stderr, "  (run as root, or give --target HOST)\n");
                return cli_exit_probe(lr);
            }
            e->lab_built = 1;
        }
    }
    /* Before the drop: the lab's witness thread enters dst (CAP_SYS_ADMIN). */
    if (witness_cli_setup(witness, witness_key, e->use_lab ? &e->lab : NULL, &e->witness, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote %s: %s\n", cmd, err);
        return FV_EXIT_USAGE;
    }
    if (e->witness.target) printf("Witness: %s (what arrived is observed at the far end)\n", e->witness.label);
    if (drop_privileges(e, keep_root, user, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote %s: %s\n", cmd, err);
        return FV_EXIT_PERM;
    }
    return FV_EXIT_OK;
}

int cli_engine_drop_sockets_open(char *err, size_t errlen) {
    return drop_root(0, NULL, NULL, 0, NULL, "Dropped root", stdout, err, errlen);
}

int cli_engine_drop_all(const char *cmd, int keep_root, const char *user, const char *kept) {
    char err[256];
    if (drop_root(keep_root, user, NULL, 0, kept, "Dropped root", stdout, err, sizeof err) < 0) {
        fprintf(stderr, "fragvote %s: %s\n", cmd, err);
        return FV_EXIT_PERM;
    }
    return FV_EXIT_OK;
}

void cli_engine_opts(const struct cli_engine *e, int keep_pmtu_cache, struct probe_run_opts *opts) {
    /* What this run can see, said once where the speaker reads it. */
    int want_flush = !keep_pmtu_cache;
    if (want_flush && !probe_priv_has(CAP_NET_ADMIN)) {
        want_flush = 0;
        printf("Note: without CAP_NET_ADMIN the PMTU cache is not flushed before each test: an answer may\n"
               "      depend on what earlier tests taught it (each answer records the cached PMTU it saw).\n");
    }
    if (e->observer == PROBE_OBS_RECVERR)
        printf("Observer: recverr (no CAP_NET_RAW). Sent? and local fragmentation are observed; DF and\n"
               "      router fragmentation are inferred from the kernel's rules. Every answer says which.\n");
    memset(opts, 0, sizeof *opts);
    opts->observer = e->observer;
    opts->lab = e->use_lab ? &e->lab : NULL;
    opts->flush_pmtu = want_flush;
    opts->witness = e->witness.target;
}

void cli_engine_down(const char *cmd, struct cli_engine *e) {
    char err[256];
    witness_cli_stop(&e->witness);
    if (e->lab_built && probe_lab_down(e->lab.cfg.prefix, err, sizeof err) < 0)
        fprintf(stderr, "fragvote %s: could not remove the lab '%s': %s\n", cmd, e->lab.cfg.prefix, err);
    e->lab_built = 0;
}
