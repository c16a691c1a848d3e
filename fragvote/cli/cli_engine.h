/* The local probe engine as the subcommands that measure for a room set it
 * up (serve, present): the observer (auto -> raw with CAP_NET_RAW, else
 * recverr), the target ("lab", or a host that must resolve now), the
 * namespace lab (a running one is used as it is and left up; one built here
 * is removed at the end), the far-end witness, and, started as root, the
 * drop to the invoking user (or nobody) keeping only what the probe needs
 * (docs/PRIVILEGES.md). Each step prints what the speaker must know, as
 * "fragvote CMD: ..." on stderr for errors, and returns an exit code. */
#ifndef FRAGVOTE_CLI_ENGINE_H
#define FRAGVOTE_CLI_ENGINE_H

#include "fragprobe.h"
#include "witness_cli.h"

struct cli_engine {
    enum probe_observer_kind observer;  /* raw or recverr (auto resolved) */
    char observer_name[16];
    char target[256];                   /* "lab" or the host */
    int use_lab, lab_built;
    int lab_switches;                   /* set before up: the deck switches the lab (keep what that needs) */
    int helper;                         /* set before up: the privileged helper of serve or present
                                           (fragvote/engine_helper.c): what it prints of its drop goes to stderr */
    struct probe_lab lab;               /* use_lab: the lab in use */
    struct witness_cli witness;
};

/* The observer (name NULL or "auto": auto) and the target (the deck's after
 * --target; "" = the lab). A host that does not resolve is an error now, not
 * every answer "unknown" later. FV_EXIT_OK or the exit code (printed). */
int cli_engine_pick(const char *cmd, const char *observer, const char *target, struct cli_engine *e);
/* The lab (with use_lab), then the witness (spec as witness_cli_setup; it
 * enters the lab, so before the drop), then, as root and not keep_root, the
 * drop to user (--user NAME; NULL: the user sudo, doas or pkexec ran us for,
 * docs/PRIVILEGES.md). FV_EXIT_OK or the exit code (printed); on failure
 * what was set up stays for cli_engine_down. */
int cli_engine_up(const char *cmd, struct cli_engine *e, const char *witness, const char *witness_key, int keep_root,
                  const char *user);
/* The capabilities the engine needs while it measures, which are those
 * the drop keeps: CAP_NET_RAW (raw observer sockets per test, TTL
 * discovery), CAP_NET_ADMIN (the PMTU flush) and, with the lab,
 * CAP_SYS_ADMIN (setns into it per test) plus CAP_DAC_OVERRIDE when this
 * run builds or switches the lab (lab_built, lab_switches: /run/netns is
 * root's). Fills caps; returns how many. */
#define CLI_ENGINE_CAPS_MAX 4
int cli_engine_caps(const struct cli_engine *e, int caps[CLI_ENGINE_CAPS_MAX]);
/* Whether the drop of a process started as root (not keep_root) goes to
 * nobody because no invoking user is known (no --user, SUDO_UID, DOAS_USER
 * or PKEXEC_UID: a root shell, su, CI). Its files are then root's, in
 * root's directories: open every one before the drop (docs/PRIVILEGES.md). */
int cli_engine_to_nobody(int keep_root, const char *user);
/* No engine in this process (serve --prober remote: the laptop measures;
 * serve's hub beside its privileged helper): as root and not keep_root, the
 * same drop keeping no capability (kept says so: "no capability (the laptop
 * measures)"), to nobody when no invoking user is known. Call it before any
 * thread starts. FV_EXIT_OK or FV_EXIT_PERM (printed as "fragvote CMD: why"). */
int cli_engine_drop_all(const char *cmd, int keep_root, const char *user, const char *kept);
/* A server whose sockets are all open and that writes no file (fragvote
 * witness): as root, become the invoking user (SUDO_UID, DOAS_USER,
 * PKEXEC_UID) or else nobody, keeping no capability. 0, or -1 with err. */
int cli_engine_drop_sockets_open(char *err, size_t errlen);
/* The run options of the probe worker: observer, lab, witness, and the PMTU
 * cache flush unless keep_pmtu_cache or without CAP_NET_ADMIN (both said). */
void cli_engine_opts(const struct cli_engine *e, int keep_pmtu_cache, struct probe_run_opts *opts);
/* Stops the witness and removes a lab this run built. */
void cli_engine_down(const char *cmd, struct cli_engine *e);

#endif
