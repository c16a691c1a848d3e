/* The MSG_ERRQUEUE decoder on canned control buffers laid out exactly as the
 * kernel writes them (cmsghdr + sock_extended_err + offender sockaddr). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "check.h"
#include "fragprobe.h"
#include "probe_wire.h"

static union { struct cmsghdr align; uint8_t b[512]; } buf;

/* Appends one control message at *off; returns the new offset. */
static size_t put_cmsg(size_t off, int level, int type, const void *data, size_t dlen) {
    struct cmsghdr h = {.cmsg_len = CMSG_LEN(dlen), .cmsg_level = level, .cmsg_type = type};
    memcpy(buf.b + off, &h, sizeof h);
    memcpy(buf.b + off + CMSG_LEN(0), data, dlen);
    return off + CMSG_SPACE(dlen);
}

static size_t put_err4(size_t off, uint8_t origin, uint8_t type, uint8_t code, uint32_t info,
                       int errnum, const char *offender) {
    uint8_t d[sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in)] = {0};
    struct sock_extended_err ee = {.ee_errno = (uint32_t)errnum, .ee_origin = origin,
                                   .ee_type = type, .ee_code = code, .ee_info = info};
    memcpy(d, &ee, sizeof ee);
    size_t dlen = sizeof ee;
    if (offender) {
        struct sockaddr_in sin = {.sin_family = AF_INET};
        inet_pton(AF_INET, offender, &sin.sin_addr);
        memcpy(d + sizeof ee, &sin, sizeof sin);
        dlen += sizeof sin;
    }
    return put_cmsg(off, SOL_IP, IP_RECVERR, d, dlen);
}

/* IPv4 errors as the kernel queues them, and what the decoder makes of
 * each: its kind, the MTU it carries, the offender's address. */
static void test_ipv4_errors_decode(void) {
    static const struct {
        uint8_t origin, type, code;
        uint32_t info;
        int errnum;
        const char *offender, *kind;
        int mtu;
        const char *offender_read;
    } cases[] = {
        /* Frag Needed: the next hop's MTU and the router that sent it */
        {SO_EE_ORIGIN_ICMP, 3, 4, 1280, EMSGSIZE, "198.51.100.1", "frag-needed", 1280, "198.51.100.1"},
        /* Time Exceeded: no MTU */
        {SO_EE_ORIGIN_ICMP, 11, 0, 0, EHOSTUNREACH, "192.0.2.1", "time-exceeded", 0, "192.0.2.1"},
        /* the local EMSGSIZE: no offender */
        {SO_EE_ORIGIN_LOCAL, 0, 0, 1500, EMSGSIZE, NULL, "local-emsgsize", 1500, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = put_err4(0, cases[i].origin, cases[i].type, cases[i].code, cases[i].info, cases[i].errnum,
                            cases[i].offender);
        struct probe_errq e;
        CHECK_INT(probe_errq_parse(buf.b, n, &e), 1);
        if (i == 0) { /* (the family and errno read back: checked once) */
            CHECK_INT(e.family, AF_INET);
            CHECK_INT(e.ee_errno, EMSGSIZE);
        }
        CHECK_STR(probe_errq_kind(&e), cases[i].kind);
        CHECK_INT(probe_errq_mtu(&e), cases[i].mtu);
        CHECK_STR(e.offender, cases[i].offender_read);
    }
}

static void test_packet_too_big_v6(void) {
    uint8_t d[sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6)] = {0};
    struct sock_extended_err ee = {.ee_errno = EMSGSIZE, .ee_origin = SO_EE_ORIGIN_ICMP6,
                                   .ee_type = 2, .ee_code = 0, .ee_info = 1400};
    struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, "2001:db8:2::1", &sin6.sin6_addr);
    memcpy(d, &ee, sizeof ee);
    memcpy(d + sizeof ee, &sin6, sizeof sin6);
    /* A hop-limit message first, as IPV6_RECVHOPLIMIT would add: skipped. */
    int hops = 63;
    size_t n = put_cmsg(0, SOL_IPV6, IPV6_HOPLIMIT, &hops, sizeof hops);
    n = put_cmsg(n, SOL_IPV6, IPV6_RECVERR, d, sizeof d);
    struct probe_errq e;
    CHECK_INT(probe_errq_parse(buf.b, n, &e), 1);
    CHECK_INT(e.family, AF_INET6);
    CHECK_STR(probe_errq_kind(&e), "packet-too-big");
    CHECK_INT(probe_errq_mtu(&e), 1400);
    CHECK_STR(e.offender, "2001:db8:2::1");
}

static void test_no_error_message_is_zero(void) {
    int ttl = 64;
    size_t n = put_cmsg(0, SOL_IP, IP_TTL, &ttl, sizeof ttl);
    struct probe_errq e;
    CHECK_INT(probe_errq_parse(buf.b, n, &e), 0);
    CHECK_INT(probe_errq_parse(NULL, 0, &e), 0);
}

static void test_truncated_and_lying_lengths_are_rejected(void) {
    size_t n = put_err4(0, SO_EE_ORIGIN_ICMP, 3, 4, 1280, EMSGSIZE, "198.51.100.1");
    struct probe_errq e;
    CHECK_INT(probe_errq_parse(buf.b, sizeof(struct cmsghdr) - 1, &e), -1);
    CHECK_INT(probe_errq_parse(buf.b, CMSG_LEN(4), &e), -1);   /* cmsg_len beyond the buffer */
    struct cmsghdr h;
    memcpy(&h, buf.b, sizeof h);
    h.cmsg_len = CMSG_LEN(4);                                   /* too short for the error */
    memcpy(buf.b, &h, sizeof h);
    CHECK_INT(probe_errq_parse(buf.b, n, &e), -1);
    h.cmsg_len = 3;                                             /* shorter than a header */
    memcpy(buf.b, &h, sizeof h);
    CHECK_INT(probe_errq_parse(buf.b, n, &e), -1);
}

static void test_garbage_never_crashes(void) {
    uint32_t x = 12345;
    struct probe_errq e;
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(x % sizeof buf.b);
        for (size_t i = 0; i < len; i++) {
            x = x * 1103515245u + 12345u;
            buf.b[i] = (uint8_t)(x >> 16);
        }
        int rc = probe_errq_parse(buf.b, len, &e);
        CHECK(rc >= -1 && rc <= 1);
        (void)probe_errq_kind(&e);
    }
}

int main(void) {
    RUN(test_ipv4_errors_decode);
    RUN(test_packet_too_big_v6);
    RUN(test_no_error_message_is_zero);
    RUN(test_truncated_and_lying_lengths_are_rejected);
    RUN(test_garbage_never_crashes);
    return check_summary();
}
