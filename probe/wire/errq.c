/* Pure decoder of the MSG_ERRQUEUE control messages (IP_RECVERR /
 * IPV6_RECVERR). No I/O: tests feed it canned control buffers, a fuzzer
 * feeds it garbage. The kernel layout is struct cmsghdr, then
 * struct sock_extended_err, then the offender sockaddr (SO_EE_OFFENDER). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "probe_wire.h"

/* Bytes of one control message's data we look at: the error plus the
 * largest offender address. Anything longer is ignored, never copied. */
#define ERRQ_DATA_MAX (sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))

static void errq_offender(const uint8_t *data, size_t dlen, struct probe_errq *out) {
    size_t off = sizeof(struct sock_extended_err);
    if (dlen < off + sizeof(sa_family_t)) return;
    sa_family_t fam;
    memcpy(&fam, data + off, sizeof fam);
    if (fam == AF_INET && dlen >= off + sizeof(struct sockaddr_in)) {
        struct sockaddr_in sin;
        memcpy(&sin, data + off, sizeof sin);
        inet_ntop(AF_INET, &sin.sin_addr, out->offender, sizeof out->offender);
    } else if (fam == AF_INET6 && dlen >= off + sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 sin6;
        memcpy(&sin6, data + off, sizeof sin6);
        inet_ntop(AF_INET6, &sin6.sin6_addr, out->offender, sizeof out->offender);
    }
}

int probe_errq_parse(const uint8_t *control, size_t len, struct probe_errq *out) {
    memset(out, 0, sizeof *out);
    if (!control) return len ? -1 : 0;
    size_t off = 0;
    while (off < len) {
        struct cmsghdr h;
        if (len - off < sizeof h) return -1;
        memcpy(&h, control + off, sizeof h);
        if (h.cmsg_len < CMSG_LEN(0) || h.cmsg_len > len - off) return -1;
        const uint8_t *data = control + off + CMSG_LEN(0);
        size_t dlen = h.cmsg_len - CMSG_LEN(0);
        int v4 = h.cmsg_level == SOL_IP && h.cmsg_type == IP_RECVERR;
        int v6 = h.cmsg_level == SOL_IPV6 && h.cmsg_type == IPV6_RECVERR;
        if (v4 || v6) {
            struct sock_extended_err ee;
            if (dlen < sizeof ee) return -1;
            memcpy(&ee, data, sizeof ee);
            out->family = v4 ? AF_INET : AF_INET6;
            out->ee_errno = (int)ee.ee_errno;
            out->origin = ee.ee_origin;
            out->type = ee.ee_type;
            out->code = ee.ee_code;
            out->info = ee.ee_info;
            errq_offender(data, dlen < ERRQ_DATA_MAX ? dlen : ERRQ_DATA_MAX, out);
            return 1;
        }
        size_t step = CMSG_ALIGN(h.cmsg_len);
        if (step > len - off) break; /* last message without trailing padding */
        off += step;
    }
    return 0;
}

const char *probe_errq_kind(const struct probe_errq *e) {
    switch (e->origin) {
    case SO_EE_ORIGIN_LOCAL:
        return e->ee_errno == EMSGSIZE ? "local-emsgsize" : "local";
    case SO_EE_ORIGIN_ICMP:
        if (e->type == 3 && e->code == 4) return "frag-needed";
        if (e->type == 11) return "time-exceeded";
        if (e->type == 3) return "unreachable";
        return "other";
    case SO_EE_ORIGIN_ICMP6:
        if (e->type == 2) return "packet-too-big";
        if (e->type == 3) return "time-exceeded";
        if (e->type == 1) return "unreachable";
        return "other";
    default:
        return "other";
    }
}

int probe_errq_mtu(const struct probe_errq *e) {
    const char *k = probe_errq_kind(e);
    if (!strcmp(k, "frag-needed") || !strcmp(k, "packet-too-big") || !strcmp(k, "local-emsgsize"))
        return e->info > 0 && e->info <= 65535 ? (int)e->info : 0;
    return 0;
}
