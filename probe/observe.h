/* Internal to libfragprobe: the observer plug-in interface, what the sender
 * tells observers, and the judges that turn it into the facts.
 *
 * How an observer plugs in: probe_run() resolves the target, creates the
 * sending socket, then drives one struct probe_observer chosen by
 * probe_run_opts.observer:
 *   open()    before anything is sent (raw: ICMP socket + egress tap;
 *             recverr: counters before),
 *   arm(fd)   on the sending socket before the send (recverr: IP_RECVERR),
 *   collect() after the send, until a decisive answer or the deadline,
 *             filling a struct probe_observation (ICMP answers as
 *             struct probe_icmp, quote fields -1 where unseen; what left
 *             the host, -1 where unseen),
 *   close().
 * The judges (probe_judge and its refinements) alone turn spec + send
 * outcome + observation into the three facts; an observer never writes
 * answers itself, so both observers are judged by the same rules.
 * PROBE_OBS_AUTO = raw when the process has CAP_NET_RAW, else recverr. A new
 * observer: implement the ops in probe/observe_<name>*.c as `const struct
 * probe_observer probe_observer_<name>` and list it in probe/run.c
 * (observer_for). */
#ifndef FRAGPROBE_OBSERVE_H
#define FRAGPROBE_OBSERVE_H

#include <netinet/in.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <time.h>

#include "base.h"
#include "fragprobe.h"
#include "probe_wire.h"

/* Sets one of the judge's facts: its answer, basis and the why line, as a
 * message (fv_msg_set: a catalog key "why.*" and the spec of its arguments)
 * whose English is the why. The one writer of a struct probe_fact's verdict
 * (judge.c); the refinements use it too. */
void probe_fact_set(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *key, const char *spec,
                    ...) __attribute__((format(printf, 5, 6)));
/* Adds message m after the fact's why (the far end's words after the
 * judge's: witness_merge.c), the why their English (fv_msg_row_put). */
void probe_fact_add(struct probe_fact *f, const struct fv_msg *m);
/* Sets the fact with a why made of the messages m[0..n) in a row (the far
 * end's arrival, witness_merge.c). */
void probe_fact_set_row(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const struct fv_msg *m, int n);
/* The same with a why worded elsewhere: English only, no message (tests
 * and results stored before the messages). */
void probe_fact_set_text(struct probe_fact *f, enum probe_answer a, enum probe_basis b, const char *why);

/* The catalog key that says what errno code of send() means
 * ("errno.emsgsize"; its English is strerror's), NULL for one outside the
 * table of probe/send_errno.c (the why then carries strerror's English). */
const char *probe_errno_key(int code);

/* The evidence line as messages in a row and its English (probe/evidence.c):
 * clear it, add a part (a catalog key "ev.*" and its arguments, as
 * fv_msg_set), a row of them, or a fact's why (its messages, or its English
 * alone when it has none: the row is lost then, nev -1, and the pages show
 * the English). check: the row is lost unless its English is the line. */
void probe_ev_clear(struct probe_result *r);
void probe_ev_add(struct probe_result *r, const char *key, const char *spec, ...) __attribute__((format(printf, 3, 4)));
void probe_ev_add_row(struct probe_result *r, const struct fv_msg *m, int n);
void probe_ev_add_fact(struct probe_result *r, const struct probe_fact *f);
void probe_ev_add_text(struct probe_result *r, const char *english); /* English no message says: the row is lost */
void probe_ev_check(struct probe_result *r);
/* " [the witness ... did not answer within 1000 ms: ...]", a silent
 * witness's note after the line, as m: 0, or -1 when no message says the
 * note (English alone then). */
int probe_ev_silence(const struct probe_result *r, struct fv_msg *m);

/* What the sender did, so an observer can match answers to this test. */
struct probe_sendinfo {
    const struct probe_spec *spec;
    int family;                      /* AF_INET / AF_INET6 */
    int l4;                          /* IPPROTO_UDP / IPPROTO_TCP / IPPROTO_ICMP / IPPROTO_ICMPV6 */
    int fd;                          /* the sending socket */
    struct sockaddr_storage local, remote;
    int sport, dport;                /* ICMP echo: the identifier and the sequence number */
    char sock[8];                    /* "udp" "tcp" "ping" "raw" */
    int ttl;                         /* as sent */
    int sent;                        /* 1 send()/write() succeeded, 0 refused (send_errno) */
    int send_errno;
    int64_t tcp_seq0;                /* first data sequence number (TCP), -1 unknown */
    int udp_check;                   /* UDP: the checksum the datagram carries, -1 unknown */
    int udp_check_partial;           /* the same before a device completes it (a local answer quotes that) */
    int route_mtu;                   /* IP_MTU when connected: a longer TCP packet at the tap is a GSO
                                        one the device cuts into segments, -1 unknown */
    /* With a witness the probe header starts the payload, and the
     * observers end their wait when the report is readable on fd. */
    const uint8_t *witness_key;      /* NULL: no witness */
    uint8_t witness_nonce[PROBE_WITNESS_NONCE_BYTES];
    struct timespec t_sent;
};

/* The packet a test's question is about, as it left the host
 * (docs/PROBE.md, "Which packet an answer is about"): TCP its first data
 * segment, UDP the datagram, ICMP the echo request. The raw observer's tap
 * fills it; -1 / 0 where unseen. */
#define PROBE_PACKET_IDS_MAX 8
struct probe_packet_seen {
    int64_t tcp_seq;                 /* TCP: the first data segment's sequence number */
    int len;                         /* TCP: its IP length */
    int nids;                        /* the IP IDs (IPv6: fragment IDs) it left with: a TCP */
    int64_t ids[PROBE_PACKET_IDS_MAX]; /* resend of it has its own; a fragment carries its packet's */
};
void probe_packet_seen_init(struct probe_packet_seen *p);
void probe_packet_seen_add_id(struct probe_packet_seen *p, int64_t id);

/* What an observer saw. -1 = this observer cannot see it. */
struct probe_observation {
    int egress_packets;              /* packets of this test seen leaving the host */
    int egress_fragments;            /* of which IP fragments */
    int egress_df;                   /* DF of the first one (IPv4), -1 unknown/IPv6 */
    int egress_first_len;            /* its total length */
    int egress_max_len;              /* the longest one */
    int64_t frag_creates;            /* FragCreates / Ip6FragCreates delta around the send */
    int echo_replies;                /* ICMP tests: Echo Replies from the target to our request,
                                        -1 when not looked for */
    struct probe_packet_seen pkt;    /* the packet the question is about */
    int nanswers;                    /* kept in answers[] */
    int answers_dropped;             /* matched but not kept (array full) */
    struct probe_icmp answers[PROBE_ANSWERS_MAX];
};
void probe_observation_init(struct probe_observation *obs);
/* Keeps an answer matched to this test (at most PROBE_ANSWERS_MAX; more are
 * only counted in answers_dropped). */
void probe_observation_add(struct probe_observation *obs, const struct probe_icmp *a);

/* How long a collect loop still waits: until the deadline, or, once a
 * decisive answer came (probe_wait_decided), a short grace for the rest of
 * it -- never past the deadline. */
struct probe_wait {
    const struct timespec *deadline;
    int decided;
    struct timespec grace_end;
};
/* The first call starts the grace of grace_ms; later calls change nothing. */
void probe_wait_decided(struct probe_wait *w, int grace_ms);
int probe_wait_left_ms(const struct probe_wait *w); /* 0: stop waiting */

/* One observer. state is the observer's own (allocated by open, freed by close). */
struct probe_observer {
    const char *name;                /* "raw" / "recverr": goes into probe_result.observer */
    /* Before the socket sends: open listening resources for this family. */
    int (*open)(void **state, int family, char *err, size_t errlen);
    /* On the sending socket, before it sends. May be NULL. */
    int (*arm)(void *state, int fd, char *err, size_t errlen);
    /* After the send: gather until a decisive answer or deadline (CLOCK_MONOTONIC). */
    int (*collect)(void *state, const struct probe_sendinfo *si, const struct timespec *deadline,
                   struct probe_observation *obs, char *err, size_t errlen);
    void (*close)(void *state);
};

/* An observer's zeroed state of size bytes (open allocates it, close frees
 * it), or NULL with "out of memory for the NAME observer" in err. */
void *probe_observer_state_new(size_t size, const char *name, char *err, size_t errlen);

extern const struct probe_observer probe_observer_raw;     /* observe_raw.c: root */
extern const struct probe_observer probe_observer_recverr; /* observe_recverr.c: unprivileged */

/* Judge: the three facts from what was sent and seen (probe/judge.c). Pure:
 * everything it knows comes in here -- the path's node names, addresses,
 * link MTUs and reassembling router in topo (probe_path_topology_lab of the
 * lab; NULL off the lab: hop names and link MTUs unknown). */
void probe_judge(const struct probe_sendinfo *si, const struct probe_observation *obs,
                 const struct probe_path_topology *topo, struct probe_result *r);

/* The rules of IP where nothing observed "fragmented?" (probe/rules.c):
 * DF=1 or IPv6 and seen leaving whole gives "no" with basis
 * rule; a silent witness adds "dropped on the way". Runs after the witness
 * merge. Pure. */
void probe_rules_apply(const struct probe_path_topology *topo, struct probe_result *r);

/* "fragmented?" on a path of known link MTUs for a packet of len bytes that
 * left the host whole with DF=0, up to node last (probe/judge_links.c): yes,
 * by the router before the first smaller link, or no; basis b
 * (PROBE_BASIS_RULE: the rules' whys, else the recverr refinement's). Pure. */
void probe_judge_links(const struct probe_path_topology *topo, int last, int len, enum probe_basis b,
                       struct probe_result *r);

/* The judge's rule (ip(7)): 1 when the kernel fragments this UDP datagram
 * itself, given the device's and the route's MTU. Pure. */
int probe_judge_host_frags(const struct probe_spec *s, int dev_mtu, int path_mtu);

/* Which packet of the test a quote is about (probe/quote_about.c, pure): an
 * observer keeps every answer of the test's flow (probe_answer_matches); the
 * judges answer only from those about the packet the question is about. */
enum probe_about { PROBE_ABOUT_OTHER = 0, PROBE_ABOUT_THIS = 1, PROBE_ABOUT_UNSURE = 2 };
/* THIS, OTHER (what it is goes into what, e.g. "another segment (seq +2896,
 * 104 bytes)"), or UNSURE when nothing ties it to either (what says why);
 * the same as a message into msg (ev.quote_*) when msg is not NULL. */
enum probe_about probe_quote_about(const struct probe_sendinfo *si, const struct probe_packet_seen *pkt,
                                   const struct probe_quote *q, char *what, size_t len, struct fv_msg *msg);

/* True when answer a quotes a packet of this test (addresses, ports / IP ID). */
int probe_answer_matches(const struct probe_sendinfo *si, const struct probe_quote *q,
                         const int64_t *known_ids, int nids);

/* True when an Echo Reply with this identifier and sequence, from the
 * address at `from` (4 or 16 bytes), answers this ICMP test. */
int probe_echo_reply_matches(const struct probe_sendinfo *si, const void *from, int id, int seq);

#endif
