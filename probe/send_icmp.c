/* The ICMP echo sender (icmp4/icmp6): what `ping -M MODE -s SIZE` sends.
 * Unprivileged it uses a ping socket (SOCK_DGRAM + IPPROTO_ICMP/ICMPV6; the
 * kernel sets the identifier -- the socket's "port" -- and the checksum, and
 * net.ipv4.ping_group_range decides who may open one, for both families);
 * with the raw observer a raw socket, for which we write both ourselves
 * (ICMPv6 raw sockets always have the kernel compute the checksum). Either
 * way the kernel's ip_append_data sizes, fragments and refuses it exactly as
 * it does a UDP datagram of that socket's PMTUD mode. */
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base.h"
#include "fragprobe.h"
#include "send.h"

#define ICMP_ECHO_REQUEST4 8
#define ICMP_ECHO_REQUEST6 128
#define ICMP_PAYLOAD_BYTE 'f'

/* Identifiers and sequence numbers of raw-socket tests: distinct per test
 * in this process (tests run concurrently), different across processes. */
static atomic_uint icmp_counter;

/* RFC 1071's sum of len bytes added to sum (len even but for the last part). */
static uint32_t inet_sum(const uint8_t *p, size_t len, uint32_t sum) {
    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
        sum = (sum & 0xffff) + (sum >> 16);
    }
    if (len & 1) sum += (uint32_t)p[len - 1] << 8;
    return sum;
}
static uint16_t inet_fold(uint32_t sum) {
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

uint16_t probe_icmp_checksum(const uint8_t *p, size_t len) { return inet_fold(inet_sum(p, len, 0)); }

int probe_udp_checksum(const struct probe_sendinfo *si, const uint8_t *payload, size_t len, int *partial) {
    int v6 = si->family == AF_INET6;
    size_t alen = v6 ? 16 : 4, ulen = len + 8;
    uint8_t pseudo[40], hdr[8];
    memcpy(pseudo, probe_sockaddr_addr(&si->local), alen);
    memcpy(pseudo + alen, probe_sockaddr_addr(&si->remote), alen);
    uint32_t sum = inet_sum(pseudo, 2 * alen, 0);
    sum += IPPROTO_UDP + (uint32_t)(ulen & 0xffff) + (uint32_t)(ulen >> 16); /* both pseudo headers' protocol and length */
    *partial = (uint16_t)~inet_fold(sum); /* what a checksum left to the device holds meanwhile */
    hdr[0] = (uint8_t)(si->sport >> 8), hdr[1] = (uint8_t)si->sport;
    hdr[2] = (uint8_t)(si->dport >> 8), hdr[3] = (uint8_t)si->dport;
    hdr[4] = (uint8_t)(ulen >> 8), hdr[5] = (uint8_t)ulen, hdr[6] = hdr[7] = 0;
    sum = inet_sum(hdr, sizeof hdr, sum);
    uint16_t c = inet_fold(inet_sum(payload, len, sum));
    return c ? c : 0xffff;
}

void probe_icmp_echo_build(uint8_t *buf, size_t len, int v6, int raw, int ident, int seq) {
    if (len < 8) return;
    memset(buf, ICMP_PAYLOAD_BYTE, len);
    buf[0] = v6 ? ICMP_ECHO_REQUEST6 : ICMP_ECHO_REQUEST4;
    buf[1] = 0;
    buf[2] = buf[3] = 0;
    buf[4] = (uint8_t)(ident >> 8);
    buf[5] = (uint8_t)ident;
    buf[6] = (uint8_t)(seq >> 8);
    buf[7] = (uint8_t)seq;
    if (raw && !v6) {
        uint16_t c = probe_icmp_checksum(buf, len);
        buf[2] = (uint8_t)(c >> 8);
        buf[3] = (uint8_t)c;
    }
}

int probe_icmp_socket(int v6, int want_raw, int ident, struct probe_sendinfo *si, char *err, size_t errlen) {
    int family = v6 ? AF_INET6 : AF_INET, proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
    unsigned n = atomic_fetch_add(&icmp_counter, 1);
    si->dport = (int)((n + 1) & 0xffff); /* the sequence number */
    if (!want_raw) {
        int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, proto);
        if (fd >= 0) {
            if (ident > 0) {
                struct sockaddr_storage a;
                memset(&a, 0, sizeof a);
                a.ss_family = (sa_family_t)family;
                probe_sockaddr_set_port(&a, ident);
                if (bind(fd, (struct sockaddr *)&a, probe_sockaddr_len(family))) {
                    snprintf(err, errlen, "cannot use echo identifier %d on a ping socket: %s", ident,
                             strerror(errno));
                    close(fd);
                    return PROBE_E_FAIL;
                }
            }
            snprintf(si->sock, sizeof si->sock, "ping");
            return fd;
        }
        int e = errno;
        if (e == EAFNOSUPPORT) {
            snprintf(err, errlen, "IPv6 is not available on this host");
            return PROBE_E_NOV6;
        }
        if ((e != EACCES && e != EPERM) || !(geteuid() == 0 || probe_priv_has(CAP_NET_RAW))) {
            if (e == EACCES || e == EPERM)
                snprintf(err, errlen,
                         "ping sockets are not allowed for group %u here (net.ipv4.ping_group_range); allow them "
                         "with `sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"`, or run as root",
                         (unsigned)getgid());
            else
                snprintf(err, errlen, "cannot open a ping socket: %s", strerror(e));
            return e == EACCES || e == EPERM ? PROBE_E_PERM : PROBE_E_FAIL;
        }
        /* Not allowed a ping socket, but allowed a raw one: use that. */
    }
    int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, proto);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open a raw %s socket: %s%s", v6 ? "ICMPv6" : "ICMP", strerror(e),
                 e == EPERM ? " (needs root or CAP_NET_RAW; or use --observer recverr for a ping socket)" : "");
        return e == EPERM ? PROBE_E_PERM : e == EAFNOSUPPORT ? PROBE_E_NOV6 : PROBE_E_FAIL;
    }
    si->sport = ident > 0 ? ident : (int)(((unsigned)getpid() * 31u + n) & 0xffff);
    snprintf(si->sock, sizeof si->sock, "raw");
    return fd;
}
