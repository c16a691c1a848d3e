/* The lab's router behaviours (issue 34) are really there, judged by
 * tcpdump on the links with the test's own pcap reader, never by the
 * engine: --dropfrag (a fragment reaches the router, none leaves it),
 * --ratelimit (20 TTL-limited datagrams at once draw about 6 Time Exceeded,
 * a router without it answers all 20), --silent (no Time Exceeded, yet it
 * forwards), --blackhole (the Frag Needed / Packet Too Big of the next
 * router never reaches src; its own Time Exceeded still does), --nat (the
 * far link sees the router's address, and the answer comes back), --cleardf
 * (DF=1 leaves src, r1 cuts the packet with DF=0 and sends no Frag Needed),
 * and a three-router lab with four MTUs. Each case builds its own lab (prefix
 * fvb<pid><letter>) and sends its datagrams from src with plain sockets.
 * Needs root (namespaces, tcpdump, nft). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "check.h"
#include "check_lab.h"
#include "fragprobe.h"
#include "probe/pcap_truth.h"
#include "probe/truth_lab.h"

#define LINKS_MAX PROBE_LAB_LINKS_MAX

static char prefix[24];
static struct truth_dump dumps[LINKS_MAX];
static char paths[LINKS_MAX][512];
static int ndumps;
static struct truth_cap cap[LINKS_MAX];

static void cleanup(void) { truth_lab_teardown(NULL, dumps, ndumps, prefix); }

/* Builds the case's lab from the `fragvote lab up` options it names (as the
 * command line would take them: the test parses nothing itself) and starts
 * a capture on every link, at its end nearer src. */
static int lab_start(char tag, struct probe_lab_config *cfg, struct probe_lab *lab) {
    snprintf(cfg->prefix, sizeof cfg->prefix, "fvb%d%c", (int)getpid() % 100000, tag);
    if (check_lab_up_cfg(cfg, lab, prefix, sizeof prefix) < 0) return -1;
    char desc[2048];
    probe_lab_describe(lab, desc, sizeof desc);
    printf("  %s\n", desc);
    ndumps = lab->nlinks;
    return truth_lab_capture_links(lab, prefix, dumps, paths);
}

/* lab_start on the default lab with routers (0: the default count), link
 * MTUs (NULL: the default ones) and one router's behaviour (router NULL:
 * none), as `lab up --routers N --mtu M --BEHAVIOUR ROUTER` takes them. */
static int lab_with(char tag, int routers, const char *mtus, unsigned behaviour, const char *router,
                    struct probe_lab *lab) {
    struct probe_lab_config cfg;
    char err[256];
    probe_lab_config_default(&cfg);
    if (routers) cfg.routers = routers;
    if ((mtus && probe_lab_parse_mtus(mtus, &cfg, err, sizeof err) < 0) ||
        (router && probe_lab_config_add(&cfg, behaviour, router, err, sizeof err) < 0)) {
        fprintf(stderr, "lab options: %s\n", err);
        return -1;
    }
    return lab_start(tag, &cfg, lab);
}

static int lab_stop(void) {
    int rc = 0;
    for (int i = 0; i < ndumps; i++) truth_dump_stop(&dumps[i]);
    for (int i = 0; i < ndumps; i++)
        if (truth_read(paths[i], &cap[i]) < 0) {
            fprintf(stderr, "cannot read %s\n", paths[i]);
            rc = -1;
        }
    cleanup();
    return rc;
}

/* Datagrams from src: n of them at once, size bytes of IP each, to dst's
 * port .. port + n - 1, with this TTL and DF (IPv4) or, for IPv6, the
 * host's fragmentation allowed (df 0) or not. */
struct burst {
    const struct probe_lab *lab;
    int v6, n, size, ttl, df, port;
    int sent;
};

static int burst_send(void *p) {
    struct burst *b = p;
    int fd = socket(b->v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int ttl = b->ttl, pmtu = b->df ? IP_PMTUDISC_PROBE : IP_PMTUDISC_DONT;
    if (b->v6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof ttl);
        pmtu = b->df ? IPV6_PMTUDISC_PROBE : IPV6_PMTUDISC_DONT;
        setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof pmtu);
        /* Routers never fragment IPv6: the host's pieces must fit every link. */
        int mtu = 1280;
        if (!b->df) setsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, sizeof mtu);
    } else {
        setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof ttl);
        setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
    }
    static char payload[65536];
    int len = b->size - (b->v6 ? 48 : 28);
    for (int i = 0; i < b->n; i++) {
        struct sockaddr_storage ss;
        memset(&ss, 0, sizeof ss);
        socklen_t sl;
        if (b->v6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            s6->sin6_family = AF_INET6;
            s6->sin6_port = htons((uint16_t)(b->port + i));
            inet_pton(AF_INET6, probe_lab_dst_addr(b->lab, 1), &s6->sin6_addr);
            sl = sizeof *s6;
        } else {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            s4->sin_family = AF_INET;
            s4->sin_port = htons((uint16_t)(b->port + i));
            inet_pton(AF_INET, probe_lab_dst_addr(b->lab, 0), &s4->sin_addr);
            sl = sizeof *s4;
        }
        if (sendto(fd, payload, (size_t)len, 0, (struct sockaddr *)&ss, sl) == len) b->sent++;
    }
    close(fd);
    return 0;
}

static int send_burst(const struct probe_lab *lab, int v6, int n, int size, int ttl, int df, int port) {
    struct burst b = {lab, v6, n, size, ttl, df, port, 0};
    char err[256];
    if (probe_netns_run(lab->ns[0], burst_send, &b, err, sizeof err) < 0) {
        fprintf(stderr, "send from src: %s\n", err);
        return -1;
    }
    usleep(300 * 1000); /* the answers */
    return b.sent;
}

/* One call of send_burst: count datagrams of size bytes with TTL ttl and DF
 * (1) or not (0), to ports port, port + 1, ... */
struct sends {
    int count, size, ttl, df, port;
};

/* Sends each (up to one with count 0) on lab, IPv4 then (both: 1)
 * IPv6, every datagram sent, then lab_stop. 0, or -1 at the first that
 * failed. */
static int send_bursts(struct probe_lab *lab, int both, const struct sends *b) {
    for (int v6 = 0; v6 <= both; v6++)
        for (const struct sends *x = b; x->count; x++)
            if (send_burst(lab, v6, x->count, x->size, x->ttl, x->df, x->port) != x->count) {
                fprintf(stderr, "burst to port %d (%s) not sent whole\n", x->port, v6 ? "IPv6" : "IPv4");
                return -1;
            }
    return lab_stop();
}

/* On one link: packets of family v6 to ports [port, port + n) (whole or
 * first fragments, and the later fragments of their IDs) and how many of
 * them were fragments. */
static void flow_on(const struct truth_cap *c, int v6, int port, int n, int *pkts, int *frags) {
    long long ids[64];
    int nids = 0;
    *pkts = *frags = 0;
    for (int i = 0; i < c->n; i++) {
        const struct truth_pkt *k = &c->p[i];
        if (k->v6 != v6) continue;
        int mine = k->l4 == 17 && k->dport >= port && k->dport < port + n;
        if (mine && k->id >= 0 && nids < 64) ids[nids++] = k->id;
        for (int j = 0; !mine && k->l4 < 0 && j < nids; j++) mine = ids[j] == k->id;
        if (!mine) continue;
        (*pkts)++;
        *frags += k->frag;
    }
}

/* ICMP errors on one link of family v6, type, from saddr ("" any) to
 * daddr ("" any), about a datagram to [port, port + n). */
static int icmp_on(const struct truth_cap *c, int v6, int type, const char *saddr, const char *daddr, int port, int n) {
    int got = 0;
    for (int i = 0; i < c->n; i++) {
        const struct truth_pkt *k = &c->p[i];
        if (k->v6 == v6 && k->l4 == (v6 ? 58 : 1) && k->icmp_type == type && (!*saddr || !strcmp(k->saddr, saddr)) &&
            (!*daddr || !strcmp(k->daddr, daddr)) && k->q_dport >= port && k->q_dport < port + n)
            got++;
    }
    return got;
}

#define TE(v6) ((v6) ? 3 : 11)
#define TOO_BIG(v6) ((v6) ? 2 : 3)

/* --dropfrag r2: a 3000-byte datagram with DF=0 leaves src in fragments,
 * r1 passes them on (link 1 has them), r2's far link never sees one; a
 * whole datagram still crosses r2. */
static void test_dropfrag_drops_every_fragment_at_r2(void) {
    struct probe_lab lab;
    REQUIRE(lab_with('f', 0, NULL, PROBE_LAB_DROPFRAG, "r2", &lab) == 0);
    REQUIRE(send_bursts(&lab, 1, (const struct sends[]){{1, 3000, 64, 0, 41000}, {1, 200, 64, 0, 41100}, {0}}) == 0);
    for (int v6 = 0; v6 <= 1; v6++) {
        int p[3], f[3], wp[3], wf[3];
        for (int l = 0; l < 3; l++) {
            flow_on(&cap[l], v6, 41000, 1, &p[l], &f[l]);
            flow_on(&cap[l], v6, 41100, 1, &wp[l], &wf[l]);
        }
        printf("  %s 3000 DF=0: fragments per link %d/%d/%d (packets %d/%d/%d); whole 200: %d/%d/%d\n",
               v6 ? "udp6" : "udp4", f[0], f[1], f[2], p[0], p[1], p[2], wp[0], wp[1], wp[2]);
        CHECK(f[0] >= 2);     /* src fragmented it */
        CHECK(f[1] >= 2);     /* r1 passed the fragments to r2 */
        CHECK_INT(p[2], 0);   /* none left r2 */
        CHECK_INT(wp[2], 1);  /* a whole one crosses r2 */
        CHECK_INT(wf[1], 0);
    }
}

/* DF on the packets of a flow on one link: how many carry DF=1 and DF=0. */
static void df_on(const struct truth_cap *c, int port, int *df1, int *df0) {
    *df1 = *df0 = 0;
    for (int i = 0; i < c->n; i++) {
        const struct truth_pkt *k = &c->p[i];
        if (k->v6 || k->l4 != 17 || k->dport != port) continue;
        if (k->df) (*df1)++;
        else (*df0)++;
    }
}

/* --cleardf r1: a 1400-byte UDP datagram with DF=1 leaves src whole with
 * DF=1; r1 clears DF and cuts it onto its 1280-byte link (the rules say it
 * must drop it with Frag Needed: none comes back); a 1200-byte one crosses
 * whole, DF cleared. */
static void test_cleardf_router_clears_df_and_fragments(void) {
    struct probe_lab lab;
    REQUIRE(lab_with('c', 0, NULL, PROBE_LAB_CLEARDF, "r1", &lab) == 0);
    REQUIRE(send_bursts(&lab, 0, (const struct sends[]){{1, 1400, 64, 1, 47000}, {1, 1200, 64, 1, 47100}, {0}}) == 0);
    int p[3], f[3], d1[3], d0[3], wp[3], wf[3], w1[3], w0[3];
    for (int l = 0; l < 3; l++) {
        flow_on(&cap[l], 0, 47000, 1, &p[l], &f[l]);
        df_on(&cap[l], 47000, &d1[l], &d0[l]);
        flow_on(&cap[l], 0, 47100, 1, &wp[l], &wf[l]);
        df_on(&cap[l], 47100, &w1[l], &w0[l]);
    }
    int fn = icmp_on(&cap[0], 0, 3, lab.link[0].b4, "", 47000, 1);
    printf("  udp4 1400 DF=1: packets per link %d/%d/%d, fragments %d/%d/%d, DF=1 on link 0: %d, DF=0 first pieces "
           "on link 1: %d; Frag Needed from r1: %d; 1200 DF=1: DF on link 0 %d, on link 1 %d\n",
           p[0], p[1], p[2], f[0], f[1], f[2], d1[0], d0[1], fn, w1[0], w1[1]);
    CHECK_INT(p[0], 1);  /* left src whole */
    CHECK_INT(f[0], 0);
    CHECK_INT(d1[0], 1); /* with DF=1 */
    CHECK(f[1] >= 2);    /* r1 cut it */
    CHECK(f[2] >= 2);
    CHECK_INT(d0[1], 1); /* the first piece (the one with the UDP header) has DF=0 */
    CHECK_INT(fn, 0);    /* and no Frag Needed came back */
    CHECK_INT(wp[1], 1); /* the small one crossed whole, DF cleared */
    CHECK_INT(wf[1], 0);
    CHECK_INT(w1[0], 1);
    CHECK_INT(w1[1], 0);
}

/* --ratelimit r1: 20 datagrams with TTL 1 at once draw the kernel's burst
 * from r1 (6 per destination host), while r2, limits off, answers all 20
 * sent with TTL 2. */
static void test_ratelimit_keeps_the_kernel_burst_at_r1(void) {
    struct probe_lab lab;
    REQUIRE(lab_with('r', 0, NULL, PROBE_LAB_RATELIMIT, "r1", &lab) == 0);
    REQUIRE(send_bursts(&lab, 1, (const struct sends[]){{20, 100, 1, 0, 42000}, {20, 100, 2, 0, 42100}, {0}}) == 0);
    for (int v6 = 0; v6 <= 1; v6++) {
        const char *src = v6 ? lab.link[0].a6 : lab.link[0].a4;
        int r1 = icmp_on(&cap[0], v6, TE(v6), v6 ? lab.link[0].b6 : lab.link[0].b4, src, 42000, 20);
        int r2 = icmp_on(&cap[0], v6, TE(v6), v6 ? lab.link[1].b6 : lab.link[1].b4, src, 42100, 20);
        int sent = 0, f;
        flow_on(&cap[0], v6, 42000, 20, &sent, &f);
        printf("  %s: 20 with TTL 1 -> %d Time Exceeded from r1 (rate-limited); 20 with TTL 2 -> %d from r2 "
               "(%d datagrams on link 0)\n", v6 ? "udp6" : "udp4", r1, r2, sent);
        CHECK_INT(sent, 20);
        CHECK(r1 >= 5 && r1 <= 8); /* a burst of 6 (IPv6 on new kernels: then 10/s, the sends take < 100 ms) */
        CHECK_INT(r2, 20);
    }
}

/* --silent r2: no Time Exceeded from r2 (TTL 2), r1's still come (TTL 1),
 * and r2 forwards: dst answers port unreachable. */
static void test_silent_router_sends_no_time_exceeded(void) {
    struct probe_lab lab;
    REQUIRE(lab_with('s', 0, NULL, PROBE_LAB_SILENT, "r2", &lab) == 0);
    REQUIRE(send_bursts(&lab, 1, (const struct sends[]){{3, 100, 2, 0, 43000}, {3, 100, 1, 0, 43100}, {1, 100, 64, 0, 43200},
                                                         {0}}) == 0);
    for (int v6 = 0; v6 <= 1; v6++) {
        int at_r2 = 0, f;
        flow_on(&cap[1], v6, 43000, 3, &at_r2, &f);
        int r2 = icmp_on(&cap[1], v6, TE(v6), "", "", 43000, 3) +
                 icmp_on(&cap[0], v6, TE(v6), v6 ? lab.link[1].b6 : lab.link[1].b4, "", 43000, 3);
        int r1 = icmp_on(&cap[0], v6, TE(v6), v6 ? lab.link[0].b6 : lab.link[0].b4, "", 43100, 3);
        int unreach = icmp_on(&cap[0], v6, v6 ? 1 : 3, v6 ? lab.link[2].b6 : lab.link[2].b4, "", 43200, 1);
        printf("  %s: %d reached r2 with TTL 2 -> %d Time Exceeded; r1 answered %d of 3; dst %d port unreachable\n",
               v6 ? "udp6" : "udp4", at_r2, r2, r1, unreach);
        CHECK_INT(at_r2, 3);
        CHECK_INT(r2, 0);
        CHECK_INT(r1, 3);
        CHECK_INT(unreach, 1);
    }
}

/* --blackhole r1 on 1500,1500,1280 (r2 the bottleneck): r2's Frag Needed /
 * Packet Too Big reaches r1 (link 1) and never src (link 0); r1's own Time
 * Exceeded still does. */
static void test_blackhole_swallows_the_next_routers_frag_needed(void) {
    struct probe_lab lab;
    REQUIRE(lab_with('b', 0, "1500,1500,1280", PROBE_LAB_BLACKHOLE, "r1", &lab) == 0);
    REQUIRE(send_bursts(&lab, 1, (const struct sends[]){{1, 1400, 64, 1, 44000}, {1, 100, 1, 0, 44100}, {0}}) == 0);
    for (int v6 = 0; v6 <= 1; v6++) {
        const char *r2 = v6 ? lab.link[1].b6 : lab.link[1].b4, *r1 = v6 ? lab.link[0].b6 : lab.link[0].b4;
        int at_r1 = icmp_on(&cap[1], v6, TOO_BIG(v6), r2, "", 44000, 1);
        int at_src = icmp_on(&cap[0], v6, TOO_BIG(v6), r2, "", 44000, 1);
        int own = icmp_on(&cap[0], v6, TE(v6), r1, "", 44100, 1);
        printf("  %s DF 1400: %s from r2 on link 1: %d, on link 0: %d; r1's own Time Exceeded on link 0: %d\n",
               v6 ? "udp6" : "udp4", v6 ? "Packet Too Big" : "Frag Needed", at_r1, at_src, own);
        CHECK_INT(at_r1, 1);
        CHECK_INT(at_src, 0);
        CHECK_INT(own, 1);
    }
}

/* --nat r1: on the far links the datagram comes from r1's address; dst's
 * port unreachable comes back to src translated. IPv6 is not translated. */
static void test_nat_router_masquerades_ipv4(void) {
    struct probe_lab lab;
    REQUIRE(lab_with('n', 0, NULL, PROBE_LAB_NAT, "r1", &lab) == 0);
    for (int v6 = 0; v6 <= 1; v6++) REQUIRE(send_burst(&lab, v6, 1, 100, 64, 0, 45000) == 1);
    REQUIRE(lab_stop() == 0);
    for (int v6 = 0; v6 <= 1; v6++) {
        const char *want_far = v6 ? lab.link[0].a6 : lab.link[1].a4;
        int near = 0, far = 0;
        for (int l = 0; l < 3; l++)
            for (int i = 0; i < cap[l].n; i++) {
                const struct truth_pkt *k = &cap[l].p[i];
                if (k->v6 != v6 || k->l4 != 17 || k->dport != 45000) continue;
                if (l == 0) near += !strcmp(k->saddr, v6 ? lab.link[0].a6 : lab.link[0].a4);
                else far += !strcmp(k->saddr, want_far);
            }
        const char *dst = probe_lab_dst_addr(&lab, v6), *src = v6 ? lab.link[0].a6 : lab.link[0].a4;
        int back = icmp_on(&cap[0], v6, v6 ? 1 : 3, dst, src, 45000, 1);
        printf("  %s: from src's address on link 0: %d, from %s on links 1-2: %d; port unreachable back at src: %d\n",
               v6 ? "udp6" : "udp4", near, want_far, far, back);
        CHECK_INT(near, 1);
        CHECK_INT(far, 2);
        CHECK_INT(back, 1);
    }
}

/* --routers 3 --mtu 1500,1400,1280,1500: TTL 3 expires at r3; DF=1 1450
 * draws r1's Frag Needed 1400 and 1350 r2's 1280 (seen on link 0). */
static void test_three_routers_four_links(void) {
    struct probe_lab lab;
    char err[256];
    REQUIRE(lab_with('3', 3, "1500,1400,1280,1500", 0, NULL, &lab) == 0);
    CHECK_INT(lab.nnodes, 5);
    CHECK_STR(lab.name[3], "r3");
    CHECK_STR(probe_lab_dst_addr(&lab, 0), "203.0.113.2");
    REQUIRE(send_burst(&lab, 0, 1, 100, 3, 0, 46000) == 1);
    REQUIRE(send_burst(&lab, 0, 1, 1450, 64, 1, 46100) == 1);
    REQUIRE(send_burst(&lab, 0, 1, 1350, 64, 1, 46200) == 1);
    REQUIRE(send_burst(&lab, 1, 1, 100, 3, 0, 46300) == 1);
    struct probe_lab st;
    CHECK_INT(probe_lab_status(prefix, &st, err, sizeof err), 1);
    CHECK_INT(st.cfg.routers, 3);
    CHECK_INT(st.link[2].mtu, 1280);
    REQUIRE(lab_stop() == 0);
    int te3 = icmp_on(&cap[0], 0, 11, lab.link[2].b4, "", 46000, 1);
    int te3v6 = icmp_on(&cap[0], 1, 3, lab.link[2].b6, "", 46300, 1);
    int fn1 = 0, fn2 = 0;
    for (int i = 0; i < cap[0].n; i++) {
        const struct truth_pkt *k = &cap[0].p[i];
        if (k->v6 || k->l4 != 1 || k->icmp_type != 3 || k->icmp_code != 4) continue;
        fn1 += !strcmp(k->saddr, lab.link[0].b4) && k->q_dport == 46100;
        fn2 += !strcmp(k->saddr, lab.link[1].b4) && k->q_dport == 46200;
    }
    printf("  TTL 3: Time Exceeded from r3 (%s) %d, IPv6 %d; Frag Needed from r1 %d, from r2 %d\n", lab.link[2].b4,
           te3, te3v6, fn1, fn2);
    CHECK_INT(te3, 1);
    CHECK_INT(te3v6, 1);
    CHECK_INT(fn1, 1);
    CHECK_INT(fn2, 1);
}

int main(void) {
    check_root_begin("needs root: network namespaces", "ip nft ethtool tcpdump", cleanup);
    RUN(test_dropfrag_drops_every_fragment_at_r2);
    RUN(test_ratelimit_keeps_the_kernel_burst_at_r1);
    RUN(test_silent_router_sends_no_time_exceeded);
    RUN(test_blackhole_swallows_the_next_routers_frag_needed);
    RUN(test_nat_router_masquerades_ipv4);
    RUN(test_three_routers_four_links);
    RUN(test_cleardf_router_clears_df_and_fragments);
    return check_summary_and_clean();
}
