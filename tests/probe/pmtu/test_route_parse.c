/* probe_pmtu_parse_route on canned RTM_NEWROUTE messages laid out as the
 * kernel answers RTM_GETROUTE: a learned PMTU is RTAX_MTU inside RTA_METRICS
 * plus an expiry in RTA_CACHEINFO (clock ticks, USER_HZ 100). */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>

#include "check.h"
#include "fragprobe.h"
#include "pmtu_cache.h"
#include "probe_wire.h"

static union { struct nlmsghdr align; uint8_t b[1024]; } msg;
static size_t len;

static void start(int family) {
    memset(&msg, 0, sizeof msg);
    struct nlmsghdr *nh = &msg.align;
    nh->nlmsg_type = RTM_NEWROUTE;
    struct rtmsg *rtm = NLMSG_DATA(nh);
    rtm->rtm_family = (unsigned char)family;
    rtm->rtm_dst_len = family == AF_INET ? 32 : 128;
    len = NLMSG_LENGTH(sizeof *rtm);
    nh->nlmsg_len = (uint32_t)len;
}

static struct rtattr *attr(int type, const void *data, size_t dlen) {
    struct rtattr *ra = (struct rtattr *)(msg.b + NLMSG_ALIGN(len));
    ra->rta_type = (unsigned short)type;
    ra->rta_len = (unsigned short)RTA_LENGTH(dlen);
    if (data) memcpy(RTA_DATA(ra), data, dlen);
    len = NLMSG_ALIGN(len) + RTA_ALIGN(ra->rta_len);
    msg.align.nlmsg_len = (uint32_t)len;
    return ra;
}

static void put_cached(uint32_t mtu, uint32_t expires_ticks) {
    struct rta_cacheinfo ci = {.rta_expires = expires_ticks};
    attr(RTA_CACHEINFO, &ci, sizeof ci);
    uint8_t m[8];
    struct rtattr *inner = (struct rtattr *)m;
    inner->rta_type = RTAX_MTU;
    inner->rta_len = RTA_LENGTH(4);
    memcpy(RTA_DATA(inner), &mtu, 4);
    attr(RTA_METRICS, m, sizeof m);
}

static void test_ipv4_cached_pmtu_and_expiry(void) {
    start(AF_INET);
    uint8_t a[4];
    inet_pton(AF_INET, "203.0.113.2", a);
    attr(RTA_DST, a, 4);
    uint32_t oif = 7;
    attr(RTA_OIF, &oif, 4);
    put_cached(1280, 59950); /* 599.5 s */
    struct probe_pmtu_entry e;
    CHECK_INT(probe_pmtu_parse_route(msg.b, len, &e), 0);
    CHECK_INT(e.family, AF_INET);
    CHECK_STR(e.addr, "203.0.113.2");
    CHECK_INT(e.oif, 7);
    CHECK_INT(e.mtu, 1280);
    CHECK_INT(e.expires_s, 600);
}

static void test_ipv6_route_without_exception_has_no_mtu(void) {
    start(AF_INET6);
    uint8_t a[16];
    inet_pton(AF_INET6, "2001:db8:3::2", a);
    attr(RTA_DST, a, 16);
    struct rta_cacheinfo ci = {0};
    attr(RTA_CACHEINFO, &ci, sizeof ci);
    struct probe_pmtu_entry e;
    CHECK_INT(probe_pmtu_parse_route(msg.b, len, &e), 0);
    CHECK_STR(e.addr, "2001:db8:3::2");
    CHECK_INT(e.mtu, 0);
    CHECK_INT(e.expires_s, 0);
}

static void test_configured_route_mtu_is_not_a_cached_one(void) {
    start(AF_INET);
    put_cached(1400, 0); /* an MTU metric but no expiry: `ip route add ... mtu 1400` */
    struct probe_pmtu_entry e;
    CHECK_INT(probe_pmtu_parse_route(msg.b, len, &e), 0);
    CHECK_INT(e.mtu, 0);
}

static void test_malformed_messages_are_rejected(void) {
    struct probe_pmtu_entry e;
    start(AF_INET);
    put_cached(1280, 100);
    CHECK_INT(probe_pmtu_parse_route(msg.b, len - 1, &e), -1);         /* nlmsg_len beyond the buffer */
    CHECK_INT(probe_pmtu_parse_route(msg.b, 8, &e), -1);
    CHECK_INT(probe_pmtu_parse_route(NULL, 0, &e), -1);
    struct rtattr *ra = (struct rtattr *)(msg.b + NLMSG_LENGTH(sizeof(struct rtmsg)));
    ra->rta_len = 2;                                                    /* attribute shorter than its header */
    CHECK_INT(probe_pmtu_parse_route(msg.b, len, &e), -1);
    start(AF_INET);
    msg.align.nlmsg_type = NLMSG_ERROR;
    CHECK_INT(probe_pmtu_parse_route(msg.b, len, &e), -1);
    start(AF_UNIX);
    CHECK_INT(probe_pmtu_parse_route(msg.b, len, &e), -1);
}

int main(void) {
    RUN(test_ipv4_cached_pmtu_and_expiry);
    RUN(test_ipv6_route_without_exception_has_no_mtu);
    RUN(test_configured_route_mtu_is_not_a_cached_one);
    RUN(test_malformed_messages_are_rejected);
    return check_summary();
}
