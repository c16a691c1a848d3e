/* Test-only ground truth: a small pcap reader and a tcpdump launcher.
 * Deliberately independent of the engine's parsers (probe/wire/parse.c): it reads
 * Ethernet + IPv4/IPv6 straight from the capture file. */
#ifndef FRAGVOTE_TEST_PCAP_TRUTH_H
#define FRAGVOTE_TEST_PCAP_TRUTH_H
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRUTH_PKTS_MAX 20000

struct truth_pkt {
    double ts;          /* seconds (CLOCK_REALTIME, as tcpdump stamps) */
    int v6;
    int len;            /* IP total length */
    int df, mf, off;    /* IPv4 flags; IPv6: df 0, mf/off from the Fragment header */
    int frag;           /* 1 if a fragment (MF, offset or IPv6 Fragment header) */
    long long id;       /* IPv4 ID or IPv6 fragment id, -1 none */
    int l4;             /* transport protocol of a first fragment / whole packet, -1 later fragment */
    int sport, dport;   /* -1 if not present; an ICMP echo request: dport = identifier, sport = sequence */
    int l4_payload;     /* transport payload bytes in this packet (first fragments: what is there), -1 n/a */
    int icmp_type, icmp_code; /* an ICMP / ICMPv6 message's, -1 otherwise */
    int q_dport;        /* an ICMP error's quoted UDP/TCP destination port, -1 none */
    char saddr[48], daddr[48]; /* as inet_ntop writes them */
};

struct truth_cap {
    int n;
    struct truth_pkt p[TRUTH_PKTS_MAX];
};

static inline unsigned t16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }
static inline uint32_t t32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static inline void truth_l4(struct truth_pkt *k, int proto, const uint8_t *p, size_t caplen, int l4len) {
    k->l4 = proto;
    if ((proto == 1 || proto == 58) && caplen >= 2) {
        k->icmp_type = p[0];
        k->icmp_code = p[1];
        /* An error quotes the packet it is about from byte 8 on. */
        int err = proto == 1 ? (p[0] == 3 || p[0] == 11 || p[0] == 12) : p[0] < 128;
        const uint8_t *q = p + 8;
        size_t qlen = caplen > 8 ? caplen - 8 : 0;
        if (err && proto == 1 && qlen >= 20 && (q[9] == 6 || q[9] == 17) && qlen >= (q[0] & 15) * 4u + 4)
            k->q_dport = (int)t16(q + (q[0] & 15) * 4 + 2);
        if (err && proto == 58 && qlen >= 44 && (q[6] == 6 || q[6] == 17)) k->q_dport = (int)t16(q + 42);
    }
    if ((proto == 1 || proto == 58) && caplen >= 8 && p[0] == (proto == 1 ? 8 : 128)) { /* echo request */
        k->dport = (int)t16(p + 4);
        k->sport = (int)t16(p + 6);
        k->l4_payload = l4len - 8;
        return;
    }
    if ((proto == 6 || proto == 17) && caplen >= 4) {
        k->sport = (int)t16(p);
        k->dport = (int)t16(p + 2);
    }
    if (proto == 17) k->l4_payload = l4len - 8;
    if (proto == 6 && caplen >= 13) k->l4_payload = l4len - (p[12] >> 4) * 4;
}

/* Reads a whole pcap (Ethernet link type, either timestamp precision). */
static inline int truth_read(const char *path, struct truth_cap *cap) {
    cap->n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint8_t gh[24];
    if (fread(gh, 1, 24, f) != 24) { fclose(f); return -1; }
    uint32_t magic;
    memcpy(&magic, gh, 4);
    double frac = magic == 0xa1b23c4d ? 1e-9 : 1e-6;
    if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) { fclose(f); return -1; }
    uint32_t linktype;
    memcpy(&linktype, gh + 20, 4);
    static uint8_t buf[262144];
    for (;;) {
        uint32_t rh[4];
        if (fread(rh, 4, 4, f) != 4) break;
        if (rh[2] > sizeof buf) break;
        if (fread(buf, 1, rh[2], f) != rh[2]) break;
        size_t caplen = rh[2];
        const uint8_t *ip = buf;
        if (linktype == 1) {
            if (caplen < 14) continue;
            unsigned et = t16(buf + 12);
            if (et != 0x0800 && et != 0x86dd) continue;
            ip = buf + 14;
            caplen -= 14;
        }
        if (cap->n >= TRUTH_PKTS_MAX || caplen < 20) continue;
        struct truth_pkt *k = &cap->p[cap->n];
        memset(k, 0, sizeof *k);
        k->ts = rh[0] + rh[1] * frac;
        k->id = -1;
        k->l4 = k->sport = k->dport = k->l4_payload = k->icmp_type = k->icmp_code = k->q_dport = -1;
        if (ip[0] >> 4 == 4) {
            inet_ntop(AF_INET, ip + 12, k->saddr, sizeof k->saddr);
            inet_ntop(AF_INET, ip + 16, k->daddr, sizeof k->daddr);
            unsigned ihl = (ip[0] & 15) * 4u, fo = t16(ip + 6);
            k->len = (int)t16(ip + 2);
            k->df = (fo >> 14) & 1;
            k->mf = (fo >> 13) & 1;
            k->off = (int)(fo & 0x1fff) * 8;
            k->frag = k->mf || k->off;
            k->id = t16(ip + 4);
            if (k->off == 0 && caplen > ihl)
                truth_l4(k, ip[9], ip + ihl, caplen - ihl, k->len - (int)ihl);
        } else if (ip[0] >> 4 == 6 && caplen >= 40) {
            k->v6 = 1;
            inet_ntop(AF_INET6, ip + 8, k->saddr, sizeof k->saddr);
            inet_ntop(AF_INET6, ip + 24, k->daddr, sizeof k->daddr);
            k->len = 40 + (int)t16(ip + 4);
            int nh = ip[6];
            size_t off = 40;
            if (nh == 44 && caplen >= 48) {
                unsigned fo = t16(ip + 42);
                k->frag = 1;
                k->off = (int)(fo & 0xfff8);
                k->mf = (int)(fo & 1);
                k->id = t32(ip + 44);
                nh = ip[40];
                off = 48;
            }
            if (k->off == 0 && caplen > off) truth_l4(k, nh, ip + off, caplen - off, k->len - (int)off);
        } else {
            continue;
        }
        cap->n++;
    }
    fclose(f);
    return cap->n;
}

/* This test's packets in one capture: first fragments / whole packets of the
 * flow (TCP: with data; ICMP: echo requests with identifier `port`), then
 * later fragments with their IDs, inside [t0, t1). */
static inline void truth_flow(const struct truth_cap *c, double t0, double t1, int v6, int l4, int port, int *count,
                         int *frags, int *first_df) {
    long long ids[256];
    int nids = 0;
    *count = *frags = 0;
    *first_df = -1;
    for (int i = 0; i < c->n; i++) {
        const struct truth_pkt *k = &c->p[i];
        if (k->ts < t0 || k->ts >= t1 || k->v6 != v6) continue;
        int mine = 0;
        if (k->l4 == l4 && k->dport == port && (l4 != IPPROTO_TCP || k->l4_payload > 0)) {
            mine = 1;
            if (k->id >= 0 && nids < 256) ids[nids++] = k->id;
        } else if (k->l4 < 0) {
            for (int j = 0; j < nids; j++)
                if (ids[j] == k->id) mine = 1;
        }
        if (!mine) continue;
        if (*first_df < 0) *first_df = k->df;
        (*count)++;
        if (k->frag) (*frags)++;
    }
}

/* The IP protocol number of the flow a test of this kind sends. */
static inline int truth_l4_of(int tcp, int icmp, int v6) { return tcp ? 6 : icmp ? (v6 ? 58 : 1) : 17; }

struct truth_dump {
    pid_t pid;
    char path[256];
};

/* Starts tcpdump in namespace ns on ifname writing to path (its stderr goes
 * to path.log) and waits until it says it is listening (max 5 s). */
static inline int truth_dump_start(struct truth_dump *d, const char *ns, const char *ifname, const char *path) {
    char log[sizeof d->path + 8];
    if (snprintf(d->path, sizeof d->path, "%s", path) >= (int)sizeof d->path) return -1;
    snprintf(log, sizeof log, "%s.log", d->path);
    unlink(log);
    d->pid = fork();
    if (d->pid < 0) return -1;
    if (d->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 2);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        execlp("ip", "ip", "netns", "exec", ns, "tcpdump", "-i", ifname, "-n", "-U", "--immediate-mode",
               "-s", "256", "-w", path, "ip or ip6", (char *)NULL);
        _exit(127);
    }
    char buf[1024] = "";
    for (int i = 0; i < 500; i++) {
        FILE *f = fopen(log, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            fclose(f);
            if (strstr(buf, "listening on")) return 0;
        }
        if (waitpid(d->pid, NULL, WNOHANG) == d->pid) break;
        usleep(10 * 1000);
    }
    fprintf(stderr, "tcpdump in %s on %s did not start: %s\n", ns, ifname, buf);
    kill(d->pid, SIGKILL);
    waitpid(d->pid, NULL, 0);
    d->pid = -1;
    return -1;
}

/* Bytes in the capture file so far (the 24-byte header counts). */
static inline long truth_dump_bytes(const struct truth_dump *d) {
    FILE *f = fopen(d->path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static inline void truth_dump_stop(struct truth_dump *d) {
    if (d->pid <= 0) return;
    usleep(200 * 1000); /* let the last packets reach the file */
    kill(d->pid, SIGINT);
    int st;
    waitpid(d->pid, &st, 0);
    d->pid = -1;
}

static inline double truth_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
#endif
