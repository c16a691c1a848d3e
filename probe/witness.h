/* Internal to libfragprobe: the witness daemon's parts (probe/witness.c runs
 * the loop and UDP, witness_tcp.c the TCP listener, witness_tap.c the
 * CAP_NET_RAW packet tap that sees the exact pieces). The prober's side is
 * witness_probe.h. */
#ifndef FRAGPROBE_WITNESS_H
#define FRAGPROBE_WITNESS_H
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "base.h"
#include "fragprobe.h"

#define WITNESS_PIECES 64   /* recent arrivals the tap remembers */
#define WITNESS_READ_MAX 65536 /* one datagram or tapped packet (longer ones are truncated) */

/* One arrival (a datagram's fragments, or a TCP connection's data segments)
 * as the tap saw it. */
struct witness_piece {
    int used, family, l4;
    uint8_t src[16];
    int sport;
    int64_t id;              /* IP ID / fragment id; -1 for TCP and whole datagrams */
    int has_nonce;
    uint8_t nonce[PROBE_WITNESS_NONCE_BYTES];
    int count;               /* packets: fragments (UDP), data segments and their fragments (TCP) */
    int later;               /* of which non-first fragments */
    int fragments;           /* of which IP fragments */
    int max_len, min_len;    /* IP lengths */
    int df, ttl;             /* of the first one */
};
struct witness_tap {
    int fd;                  /* -1 without CAP_NET_RAW */
    int port;
    int next;
    uint8_t buf[WITNESS_READ_MAX];
    struct witness_piece p[WITNESS_PIECES];
};
/* Opens the tap (fd -1 when not allowed; not an error). */
void witness_tap_open(struct witness_tap *t, int port);
void witness_tap_close(struct witness_tap *t);
/* Reads what arrived so far. */
void witness_tap_drain(struct witness_tap *t);
/* Pure: records one received IP packet (IPv4 or IPv6 header first). */
void witness_tap_record(struct witness_tap *t, const uint8_t *pkt, size_t len);
/* Fills the raw fields of r for the UDP datagram with this nonce, or for the
 * TCP connection from src:sport. Returns 1 found, 0 not seen. */
int witness_tap_udp(const struct witness_tap *t, const uint8_t *nonce, struct probe_witness_report *r);
int witness_tap_tcp(const struct witness_tap *t, int family, const uint8_t *src, int sport,
                    struct probe_witness_report *r);

struct witness_tcp_conn {
    int fd, family, sport;
    uint8_t src[16];
    double deadline;
    uint8_t head[PROBE_WITNESS_PROBE_BYTES];
    size_t got;
};
struct witness_tcp {
    int lfd[2];
    struct witness_tcp_conn c[PROBE_WITNESS_TCP_CONNS];
};
struct witness_ctx {
    const struct probe_witness_opts *o;
    struct probe_witness_stats st;
    struct probe_witness_guard guard;
    struct witness_tap tap;
    struct witness_tcp tcp;
    uint8_t buf[WITNESS_READ_MAX];   /* UDP and TCP reads */
};
/* The caps and replay memory (witness_guard.c, counted in w->st): 1 and *r
 * initialised (nonce set, everything unseen) when a report may go to src,
 * else 0. */
int witness_admit(struct witness_ctx *w, const uint8_t src[16], const struct probe_witness_probe *pr,
                  struct probe_witness_report *r);
int witness_tcp_open(struct witness_ctx *w, int port, char *err, size_t errlen);
void witness_tcp_close(struct witness_ctx *w);
/* pollfds for the listeners and connections; returns how many were added. */
int witness_tcp_pollfds(struct witness_ctx *w, struct pollfd *pf, int max);
/* Accepts, reads and answers what is ready; ends connections past their deadline. */
void witness_tcp_service(struct witness_ctx *w);

#endif
