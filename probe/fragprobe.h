/* libfragprobe: the one public header of the probe engine.
 *
 * A test is protocol x PMTUD mode x size x TTL x target. The engine sends it
 * and answers three questions -- sent? DF set on the wire? fragmented (by
 * whom)? -- each with how it knows (observed on the wire, inferred from the
 * kernel's documented rules, or unknown), plus one line of evidence.
 *
 * This header is the contract with the rest of fragvote (deck, quiz, serve,
 * replay). Extend it; do not change the meaning of what is here. The probe
 * knows nothing of votes, JSON libraries, SQLite or libwebsockets. */
#ifndef FRAGPROBE_H
#define FRAGPROBE_H

#include <stddef.h>
#include <stdint.h>

/* Library version string (static). */
const char *probe_version(void);

/* ---- test spec ---- */
enum probe_proto { PROBE_UDP4, PROBE_TCP4, PROBE_UDP6, PROBE_TCP6 };
/* IP_MTU_DISCOVER / IPV6_MTU_DISCOVER values; PROBE_MODE_DEFAULT leaves the
 * socket option unset (the system default, WANT unless ip_no_pmtu_disc). */
enum probe_mode {
    PROBE_MODE_DEFAULT, PROBE_MODE_DONT, PROBE_MODE_WANT, PROBE_MODE_DO,
    PROBE_MODE_PROBE, PROBE_MODE_INTERFACE, PROBE_MODE_OMIT
};

#define PROBE_SIZE_MAX 65000      /* largest packet size a test may ask for */
#define PROBE_TTL_AUTO 0          /* ttl = 0: discover (real paths) or from the lab topology */

struct probe_spec {
    enum probe_proto proto;
    enum probe_mode mode;
    int size;                     /* IP packet size in bytes (header included), 68..PROBE_SIZE_MAX */
    int ttl;                      /* 1..255, or PROBE_TTL_AUTO */
    char host[256];               /* target address or name; "" = the lab's destination */
    int port;                     /* target port; 0 = default (the lab responder's) */
};

/* Names as decks and the CLI use them: "udp4" "tcp4" "udp6" "tcp6";
 * "default" "dont" "want" "do" "probe" "interface" "omit". Parse returns 0,
 * or -1 for an unknown name. */
const char *probe_proto_name(enum probe_proto p);
const char *probe_mode_name(enum probe_mode m);
int probe_proto_parse(const char *name, enum probe_proto *out);
int probe_mode_parse(const char *name, enum probe_mode *out);
static inline int probe_proto_is_v6(enum probe_proto p) { return p == PROBE_UDP6 || p == PROBE_TCP6; }
static inline int probe_proto_is_tcp(enum probe_proto p) { return p == PROBE_TCP4 || p == PROBE_TCP6; }

/* ---- answers ---- */
enum probe_answer { PROBE_ANS_UNKNOWN = -1, PROBE_ANS_NO = 0, PROBE_ANS_YES = 1 };
enum probe_basis { PROBE_BASIS_OBSERVED, PROBE_BASIS_INFERRED, PROBE_BASIS_UNKNOWN };
enum probe_fragmenter { PROBE_FRAG_NONE, PROBE_FRAG_HOST, PROBE_FRAG_ROUTER, PROBE_FRAG_UNKNOWN };

const char *probe_answer_name(enum probe_answer a);     /* "yes" / "no" / "unknown" */
const char *probe_basis_name(enum probe_basis b);       /* "observed" / "inferred" / "unknown" */
const char *probe_fragmenter_name(enum probe_fragmenter f); /* "none" "host" "router" "unknown" */

struct probe_fact {
    enum probe_answer answer;
    enum probe_basis basis;
    char why[160];                /* the rule or observation behind it */
};

struct probe_result {
    struct probe_spec spec;       /* as run (ttl resolved) */
    struct probe_fact sent, df, fragmented;
    enum probe_fragmenter fragmenter;
    int send_errno;               /* errno of send()/write() (EMSGSIZE...), 0 if none */
    int kernel_mtu;               /* MTU the kernel reported with EMSGSIZE, 0 if none */
    int cached_pmtu_before;       /* PMTU cached for the target before the send, 0 if none */
    /* From the quoted header of the ICMP answer (raw observer), -1 when not seen. */
    int quoted_len, quoted_df, quoted_mf, quoted_offset, quoted_frag_hdr;
    char hop[64];                 /* address of the answering hop, "" if none */
    char observer[16];            /* "raw" / "recverr" */
    char evidence[512];           /* one human line, e.g. "kernel fragmented locally: cached PMTU 1280 < 1400" */
    double elapsed_ms;
};

#endif
