/* Internal to libfragprobe: the bottom layer every other file may use -- the
 * monotonic clock (probe/clock.c) and socket addresses (probe/sockaddr.c).
 * These two call nothing else of the library. */
#ifndef FRAGPROBE_BASE_H
#define FRAGPROBE_BASE_H
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "fv_clock.h" /* the program's one monotonic clock (clock/), below this library */

/* CLOCK_MONOTONIC, read through fv_clock (fv_clock_after: a deadline after t0). */
double probe_clock_s(void);                           /* seconds since an arbitrary point */
double probe_ms_since(const struct timespec *t0);
void probe_deadline_in(struct timespec *out, int ms);
int probe_ms_until(const struct timespec *deadline);  /* >= 0 */

/* An AF_INET / AF_INET6 address in a sockaddr_storage. */
socklen_t probe_sockaddr_len(int family);             /* sizeof sockaddr_in / sockaddr_in6 */
int probe_sockaddr_port(const struct sockaddr_storage *ss);
void probe_sockaddr_set_port(struct sockaddr_storage *ss, int port);
const void *probe_sockaddr_addr(const struct sockaddr_storage *ss);       /* its 4 or 16 address bytes */
void probe_sockaddr_addr16(const struct sockaddr_storage *ss, uint8_t out[16]); /* IPv4 in the first 4 */
/* Binds fd to the family's any-address (0.0.0.0 / ::) and port; bind()'s result. */
int probe_sockaddr_bind_any(int fd, int family, int port);
#endif
