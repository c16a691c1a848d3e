/* The FragCreates counter parsers on canned /proc/net/snmp(6) text, and the
 * reader against the live file (it must move when the kernel fragments). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "check.h"
#include "fragprobe.h"
#include "probe_wire.h"
#include "snmp_read.h"

static const char snmp4[] =
    "Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos "
    "InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs "
    "ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
    "Ip: 2 64 473 0 0 0 0 0 473 368 0 0 0 0 0 0 7 0 18446744073709551615 368\n"
    "Icmp: InMsgs InErrors FragCreates\n"
    "Icmp: 1 0 99\n";

static const char snmp6[] =
    "Ip6InReceives                   \t12\n"
    "Ip6FragOKs                      \t3\n"
    "Ip6FragFails                    \t0\n"
    "Ip6FragCreates                  \t42\n"
    "Icmp6InMsgs                     \t0\n";

static void test_ipv4_counter_is_taken_from_ip_line_by_name(void) {
    uint64_t v = 0;
    CHECK_INT(probe_snmp_parse_frag_creates(snmp4, 0, &v), 0);
    CHECK(v == UINT64_MAX);
}

static void test_ipv6_counter(void) {
    uint64_t v = 0;
    CHECK_INT(probe_snmp_parse_frag_creates(snmp6, 1, &v), 0);
    CHECK_INT(v, 42);
}

static void test_missing_or_malformed_is_an_error(void) {
    uint64_t v;
    CHECK_INT(probe_snmp_parse_frag_creates("", 0, &v), -1);
    CHECK_INT(probe_snmp_parse_frag_creates(snmp6, 0, &v), -1);
    CHECK_INT(probe_snmp_parse_frag_creates(snmp4, 1, &v), -1);
    CHECK_INT(probe_snmp_parse_frag_creates("Ip: FragCreates\n", 0, &v), -1);           /* no values */
    CHECK_INT(probe_snmp_parse_frag_creates("Ip: FragCreates\nIp: x\n", 0, &v), -1);    /* not a number */
    CHECK_INT(probe_snmp_parse_frag_creates("Ip: A FragCreates\nIp: 1\n", 0, &v), -1);  /* short values */
    CHECK_INT(probe_snmp_parse_frag_creates("Ip6FragCreates -3\n", 1, &v), -1);
    CHECK_INT(probe_snmp_parse_frag_creates(NULL, 1, &v), -1);
}

/* A 3000-byte UDP datagram to loopback (MTU 65536) is not fragmented; with
 * a datagram bigger than lo's MTU is impossible, so we only check the reader
 * works and is monotonic. The fragmenting case is checked in the lab test. */
static void test_reader_reads_live_counters(void) {
    char err[256];
    uint64_t a = 0, b = 0;
    CHECK_INT(probe_snmp_read_frag_creates(0, &a, err, sizeof err), 0);
    CHECK_INT(probe_snmp_read_frag_creates(0, &b, err, sizeof err), 0);
    CHECK(b >= a);
    int rc = probe_snmp_read_frag_creates(1, &a, err, sizeof err);
    CHECK(rc == 0 || rc == PROBE_E_NOV6);
}

int main(void) {
    RUN(test_ipv4_counter_is_taken_from_ip_line_by_name);
    RUN(test_ipv6_counter);
    RUN(test_missing_or_malformed_is_an_error);
    RUN(test_reader_reads_live_counters);
    return check_summary();
}
