/* probe_priv_drop: as root, after the drop the process runs as the sudo user
 * (or nobody), holds no capability, cannot open a new raw socket or regain
 * root, and a raw ICMP socket opened before the drop still observes (a real
 * port unreachable from the kernel on loopback, in a private namespace). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "check.h"
#include "fragprobe.h"

/* Child exit codes name what went wrong, so the parent's CHECK says it. */
enum { C_OK = 0, C_SETUP = 10, C_DROP, C_UID, C_CAPS, C_NEWRAW, C_REGAIN, C_GROUPS, C_NOTSEEN };

static int lo_up(void) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    int rc = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
             (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) == 0);
    if (fd >= 0) close(fd);
    return rc ? 0 : -1;
}

/* A UDP datagram to a closed loopback port; returns that port. */
static int send_to_closed_port(void) {
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (u < 0 || bind(u, (struct sockaddr *)&a, sizeof a) || getsockname(u, (struct sockaddr *)&a, &al)) return -1;
    close(u); /* the port is now closed */
    u = socket(AF_INET, SOCK_DGRAM, 0);
    if (sendto(u, "x", 1, 0, (struct sockaddr *)&a, sizeof a) != 1) return -1;
    close(u);
    return ntohs(a.sin_port);
}

/* Waits for an ICMP port unreachable quoting dport on the raw socket. */
static int raw_sees_port_unreachable(int raw, int dport) {
    for (int i = 0; i < 50; i++) {
        struct pollfd p = {.fd = raw, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) continue;
        uint8_t buf[1500];
        ssize_t n = recv(raw, buf, sizeof buf, 0);
        if (n < 20) continue;
        size_t ihl = (size_t)(buf[0] & 15) * 4;
        if ((size_t)n < ihl + 8 + 20 + 4) continue;
        const uint8_t *icmp = buf + ihl, *q = icmp + 8;
        size_t qihl = (size_t)(q[0] & 15) * 4;
        if ((size_t)n < ihl + 8 + qihl + 4) continue;
        int qdport = q[qihl + 2] << 8 | q[qihl + 3];
        if (icmp[0] == 3 && icmp[1] == 3 && qdport == dport) return 1;
    }
    return 0;
}

static int child(long want_uid) {
    if (unshare(CLONE_NEWNET) || lo_up()) return C_SETUP;
    int raw = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    if (raw < 0) return C_SETUP;
    char err[256];
    int uid = probe_priv_drop(err, sizeof err);
    if (uid < 0) {
        fprintf(stderr, "drop: %s\n", err);
        return C_DROP;
    }
    if (uid != want_uid || getuid() != (uid_t)want_uid || geteuid() != (uid_t)want_uid || getuid() == 0)
        return C_UID;
    if (probe_priv_has(CAP_NET_RAW) || probe_priv_has(CAP_NET_ADMIN)) return C_CAPS;
    if (socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) >= 0 || errno != EPERM) return C_NEWRAW;
    if (setuid(0) == 0) return C_REGAIN;
    if (getgroups(0, NULL) != 0) return C_GROUPS;
    int port = send_to_closed_port();
    if (port < 0) return C_SETUP;
    return raw_sees_port_unreachable(raw, port) ? C_OK : C_NOTSEEN;
}

static int run_child(const char *sudo_uid, const char *sudo_gid, long want_uid) {
    pid_t pid = fork();
    if (pid == 0) {
        if (sudo_uid) setenv("SUDO_UID", sudo_uid, 1); else unsetenv("SUDO_UID");
        if (sudo_gid) setenv("SUDO_GID", sudo_gid, 1); else unsetenv("SUDO_GID");
        _exit(child(want_uid));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static void test_drop_to_sudo_user_keeps_raw_socket_observing(void) {
    CHECK_INT(run_child("4242", "4343", 4242), C_OK);
}

static void test_drop_without_sudo_goes_to_nobody(void) {
    struct passwd *pw = getpwnam("nobody");
    long nobody = pw ? (long)pw->pw_uid : 65534;
    CHECK_INT(run_child(NULL, NULL, nobody), C_OK);
}

static void test_sudo_from_root_is_not_kept_as_root(void) {
    struct passwd *pw = getpwnam("nobody");
    long nobody = pw ? (long)pw->pw_uid : 65534;
    CHECK_INT(run_child("0", "0", nobody), C_OK);       /* SUDO_UID=0: still leave root */
    CHECK_INT(run_child("garbage", "1", nobody), C_OK); /* malformed: nobody */
}

/* Keeping CAP_NET_RAW: a new raw socket still opens, nothing else is held. */
static int child_keep(void) {
    int keep[] = {CAP_NET_RAW};
    char err[256];
    setenv("SUDO_UID", "4242", 1);
    setenv("SUDO_GID", "4242", 1);
    int uid = probe_priv_drop_keep(keep, 1, err, sizeof err);
    if (uid < 0) {
        fprintf(stderr, "drop: %s\n", err);
        return C_DROP;
    }
    if (uid != 4242 || getuid() != 4242 || geteuid() != 4242) return C_UID;
    if (!probe_priv_has(CAP_NET_RAW) || probe_priv_has(CAP_NET_ADMIN) || probe_priv_has(CAP_SYS_ADMIN) ||
        probe_priv_has(CAP_SETUID) || probe_priv_has(CAP_DAC_OVERRIDE))
        return C_CAPS;
    int raw = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    if (raw < 0) return C_NEWRAW;
    close(raw);
    if (setuid(0) == 0) return C_REGAIN;
    return C_OK;
}

static void test_drop_keeping_net_raw_keeps_only_that(void) {
    pid_t pid = fork();
    if (pid == 0) _exit(child_keep());
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st), C_OK);
}

static void test_keeping_setuid_is_refused_before_anything_changes(void) {
    int keep[] = {CAP_NET_RAW, CAP_SETUID};
    char err[256] = "";
    CHECK_INT(probe_priv_drop_keep(keep, 2, err, sizeof err), PROBE_E_FAIL);
    CHECK_CONTAINS(err, "CAP_SETUID");
    CHECK_INT(geteuid(), 0);
}

static void test_capabilities_are_reported(void) {
    /* We run as root in CI: both capabilities are held before any drop. */
    CHECK_INT(probe_priv_has(CAP_NET_RAW), 1);
    CHECK_INT(probe_priv_has(CAP_NET_ADMIN), 1);
    CHECK_INT(probe_priv_has(-1), 0);
    CHECK_INT(probe_priv_has(64), 0);
}

int main(void) {
    if (geteuid() != 0) SKIP_ALL("needs root to test dropping it");
    RUN(test_capabilities_are_reported);
    RUN(test_drop_to_sudo_user_keeps_raw_socket_observing);
    RUN(test_drop_without_sudo_goes_to_nobody);
    RUN(test_sudo_from_root_is_not_kept_as_root);
    RUN(test_drop_keeping_net_raw_keeps_only_that);
    RUN(test_keeping_setuid_is_refused_before_anything_changes);
    return check_summary();
}
