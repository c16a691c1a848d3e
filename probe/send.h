/* Internal to libfragprobe: the sender (probe/send.c). */
#ifndef FRAGPROBE_SEND_H
#define FRAGPROBE_SEND_H
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probe_spec.h"
#include "sendinfo.h"

struct probe_route {
    int path_mtu;   /* IP_MTU / IPV6_MTU of the connected socket: cached PMTU or device MTU */
    int dev_mtu;    /* MTU of the outgoing device, -1 unknown */
};
/* IP + transport header bytes of one packet of this protocol (no options). */
int probe_header_bytes(enum probe_proto p);
/* IP_MTU of a connected socket, -1 on error. */
int probe_route_mtu(int fd, int v6);
/* Opens, configures and connects the socket (TCP: handshake at TTL 64, then
 * the test's TTL). ICMP tests: a raw socket when icmp_raw, else a ping socket
 * (a raw one if ping sockets are refused and we may open raw ones). Fills si
 * and rt. Returns 0 or PROBE_E_*. */
int probe_send_open(const struct probe_spec *spec, const struct sockaddr_storage *dst, int ttl, int timeout_ms,
                    int icmp_raw, struct probe_sendinfo *si, struct probe_route *rt, char *err, size_t errlen);
/* Sends spec->size bytes on the wire's terms (payload = size - headers).
 * A refused send (EMSGSIZE...) is an outcome, recorded in si, not an error. */
int probe_send_payload(struct probe_sendinfo *si, int *kernel_mtu);
void probe_send_close(struct probe_sendinfo *si);
/* Resolves host to the family's first address with port (on top of
 * probe_pmtu_resolve). */
int probe_resolve(const char *host, int v6, int port, struct sockaddr_storage *out, char *err, size_t errlen);
/* ICMP echo (probe/send_icmp.c). probe_icmp_socket opens the socket (ident:
 * the echo identifier, 0 = pick one; a ping socket binds to it) and fills
 * si->sock, si->dport (sequence) and, for raw sockets, si->sport (identifier).
 * Returns the descriptor or PROBE_E_*. */
int probe_icmp_socket(int v6, int want_raw, int ident, struct probe_sendinfo *si, char *err, size_t errlen);
/* Pure: an echo request of len bytes (header + payload) into buf; the
 * checksum only for raw IPv4 (ping sockets and ICMPv6 have the kernel's). */
void probe_icmp_echo_build(uint8_t *buf, size_t len, int v6, int raw, int ident, int seq);
/* Pure: the Internet checksum (RFC 1071) of len bytes. */
uint16_t probe_icmp_checksum(const uint8_t *p, size_t len);
/* Pure: the checksum a UDP datagram from si->local to si->remote (their
 * ports) with this payload carries on the wire (a sum of 0 goes as 0xffff);
 * *partial gets what its checksum field holds while the device is still to
 * complete it (checksum offload, loopback): the pseudo header's sum alone. */
int probe_udp_checksum(const struct probe_sendinfo *si, const uint8_t *payload, size_t len, int *partial);
#endif
