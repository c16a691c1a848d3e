/* probe_run: one test, start to finish. Resolves the target, picks the TTL,
 * opens the observer, sends, collects, and lets the judge answer. With a lab
 * it runs on a worker thread inside the lab's src namespace.
 * The top of the prober: it calls ttl.c, send*.c, the observers and the
 * pure judges below it; nothing below calls back up (tests/layers). */
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base.h"
#include "evidence.h"
#include "fragprobe.h"
#include "judge.h"
#include "judge_fact.h"
#include "observe.h"
#include "probe_pace.h"
#include "rules.h"
#include "send.h"
#include "witness_probe.h"

struct run_ctx {
    int witness_on;                    /* this test goes to opts->witness */
    const struct probe_run_opts *opts;
    struct probe_result *r;
    char *err;
    size_t errlen;
    int discovered;                    /* disc holds what TTL discovery found */
    struct probe_ttl_discovery disc;
};

/* The observer for kind (AUTO resolved by privilege), or NULL with err. */
static const struct probe_observer *observer_for(enum probe_observer_kind kind, char *err, size_t errlen) {
    if (kind == PROBE_OBS_AUTO)
        kind = (geteuid() == 0 || probe_priv_has(CAP_NET_RAW)) ? PROBE_OBS_RAW : PROBE_OBS_RECVERR;
    if (kind == PROBE_OBS_RAW) return &probe_observer_raw;
    if (kind == PROBE_OBS_RECVERR) return &probe_observer_recverr;
    snprintf(err, errlen, "the %s observer is not built into this fragvote", probe_observer_name(kind));
    return NULL;
}

struct listener {
    const struct sockaddr_storage *addr;
    int fd, port;
};

/* Runs in the lab's dst: a listener for one TCP test. The kernel completes
 * the handshake; the data (sent with a small TTL) never arrives. */
static int listener_open(void *p) {
    struct listener *l = p;
    int fam = l->addr->ss_family;
    l->fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->fd < 0) return PROBE_E_FAIL;
    struct sockaddr_storage a = *l->addr;
    probe_sockaddr_set_port(&a, 0);
    socklen_t al = probe_sockaddr_len(fam);
    if (bind(l->fd, (struct sockaddr *)&a, al) < 0 || listen(l->fd, 4) < 0) {
        close(l->fd);
        l->fd = -1;
        return PROBE_E_FAIL;
    }
    getsockname(l->fd, (struct sockaddr *)&a, &al);
    l->port = probe_sockaddr_port(&a);
    return 0;
}

static int choose_ttl(struct run_ctx *c, int on_lab_dst, int *ttl) {
    struct probe_result *r = c->r;
    const struct probe_lab *lab = c->opts->lab;
    if (r->spec.ttl > 0) {
        *ttl = r->spec.ttl;
        snprintf(r->route.ttl_basis, sizeof r->route.ttl_basis, "given");
        return 0;
    }
    if (c->witness_on) {
        /* The witness sees only what reaches it. */
        *ttl = 64;
        snprintf(r->route.ttl_basis, sizeof r->route.ttl_basis, "witness: TTL 64, so the probe reaches the witness");
        return 0;
    }
    if (lab && on_lab_dst) {
        *ttl = lab->auto_ttl;
        snprintf(r->route.ttl_basis, sizeof r->route.ttl_basis, "lab topology: expires at r2, one hop past the bottleneck r1");
        return 0;
    }
    if (!probe_priv_has(CAP_NET_RAW)) {
        /* Discovery reads Time Exceeded quotes from a raw socket. Without it,
         * send with a full TTL: the packet reaches the destination, whose
         * answer the unprivileged observer still sees; what routers did is
         * then inferred (and each answer says so). */
        *ttl = 64;
        snprintf(r->route.ttl_basis, sizeof r->route.ttl_basis,
                 "TTL 64: no CAP_NET_RAW for TTL discovery, so the packet goes all the way");
        return 0;
    }
    struct probe_ttl_discovery d;
    struct probe_run_opts o = *c->opts;
    o.topology = o.lab ? o.lab : o.topology; /* the same path's pacer */
    o.lab = NULL;                            /* already inside the namespace */
    int rc = probe_ttl_discover(&o, probe_proto_is_v6(r->spec.proto), r->spec.host, &d, c->err, c->errlen);
    if (rc < 0) return rc;
    c->disc = d;
    c->discovered = 1;
    size_t n = 0;
    for (int i = 0; i < d.nreassembled && n + 2 < sizeof r->route.reassembling; i++)
        n += (size_t)snprintf(r->route.reassembling + n, sizeof r->route.reassembling - n, "%s%s", i ? " " : "", d.reassembled[i]);
    if (d.ttl <= 0 && d.reached_dst) {
        /* No router quotes a fragment before the destination: send to it;
         * its own answer (port unreachable) still shows DF and size. */
        *ttl = d.tried;
        snprintf(r->route.ttl_basis, sizeof r->route.ttl_basis, "discovery: the destination answered at TTL %d", d.tried);
        return 0;
    }
    if (d.ttl <= 0) {
        snprintf(c->err, c->errlen, "TTL discovery: %s; give a TTL (--ttl N)", d.why);
        return PROBE_E_SILENT;
    }
    *ttl = d.ttl;
    snprintf(r->route.ttl_basis, sizeof r->route.ttl_basis, "discovery: %.80s", d.why);
    return 0;
}

/* The evidence ends with what the lab's routers do (a scenario of a deck,
 * `fragvote lab up --dropfrag r2`...): the line the room reads says why. */
/* Ends the evidence with tail, cutting the evidence (not the tail) to fit,
 * and its row with the messages m[0..k) that say tail (the row is lost when
 * they do not, or when the English had to be cut: probe_ev_check). */
static void evidence_ends_with(struct probe_result *r, const char *tail, const struct fv_msg *m, int k) {
    size_t keep = strlen(r->evidence), n = strlen(tail);
    if (n >= sizeof r->evidence) return;
    if (keep + n >= sizeof r->evidence) keep = sizeof r->evidence - 1 - n;
    memcpy(r->evidence + keep, tail, n + 1);
    char said[300];
    fv_msg_row_text(m, k, said, sizeof said);
    fv_msg_row_append(r->ev, &r->nev, PROBE_EVIDENCE_PARTS, m, strcmp(said, tail) ? -1 : k);
    probe_ev_check(r);
}

/* " (on this lab r2 drops every fragment that reaches it)" */
static void lab_does_said(struct probe_result *r, const struct probe_lab *lab) {
    if (!r->route.lab_does[0]) return;
    struct fv_msg m[PROBE_EVIDENCE_PARTS];
    int n = 0;
    fv_msg_row_add(m, &n, PROBE_EVIDENCE_PARTS, "ev.on_lab_open", " ");
    if (lab) probe_lab_behaviours_msgs(lab, m, &n, PROBE_EVIDENCE_PARTS);
    fv_msg_row_add(m, &n, PROBE_EVIDENCE_PARTS, "ev.on_lab_close", " ");
    /* the English: the sentence as lab_does keeps it (the row's, but cut to its size) */
    const char *open = fv_msg_en("ev.on_lab_open"), *close = fv_msg_en("ev.on_lab_close");
    char tail[300];
    snprintf(tail, sizeof tail, "%s%s%s", open ? open : " (", r->route.lab_does, close ? close : ")");
    evidence_ends_with(r, tail, m, lab ? n : -1);
}

/* The witness, when asked for: its address in the result, and whether this
 * test can reach it (c->witness_on, the test then goes to its host), else
 * why not in the witness's note. */
static void witness_setup(struct run_ctx *c, int v6, int tcp, int icmp) {
    struct probe_result *r = c->r;
    const struct probe_run_opts *o = c->opts;
    const struct probe_lab *lab = o->lab;
    const struct probe_witness_target *wt = o->witness;
    const struct probe_lab *wl = lab ? lab : o->topology;
    const char *wh = wt->host[0] ? wt->host : wl ? probe_lab_dst_addr(wl, v6) : "?";
    snprintf(r->witness.target, sizeof r->witness.target, strchr(wh, ':') ? "[%s]:%d" : "%s:%d", wh, wt->port);
    int room = r->spec.size - probe_header_bytes(r->spec.proto) - (tcp ? 12 : 0);
    int same_host = !r->spec.host[0] || !strcmp(r->spec.host, wh);
    if (!same_host) {
        snprintf(r->witness.note, sizeof r->witness.note, "this test goes to %.60s, not to the witness's host",
                 r->spec.host);
    } else if (icmp) {
        snprintf(r->witness.note, sizeof r->witness.note, "the witness does not answer ICMP echo tests");
    } else if (room < PROBE_WITNESS_PROBE_BYTES) {
        snprintf(r->witness.note, sizeof r->witness.note,
                 "%d bytes are too small to carry the witness's %d-byte header: near end only", r->spec.size,
                 PROBE_WITNESS_PROBE_BYTES);
    } else {
        c->witness_on = 1;
        snprintf(r->spec.host, sizeof r->spec.host, "%s", wt->host);
        r->spec.port = wt->port;
    }
}

/* What was seen, judged: the pure judges and refinements, then the path
 * hop by hop, into c->r. */
static void judge_all(struct run_ctx *c, const struct probe_sendinfo *si, const struct probe_observation *obs,
                      int on_lab_dst, int v6) {
    struct probe_result *r = c->r;
    const struct probe_run_opts *o = c->opts;
    const struct probe_lab *lab = o->lab;
    /* The judges are pure: what they know of the lab's path comes in as
     * data (the topology the path picture starts from too). */
    const struct probe_lab *known = lab ? lab : o->topology;
    struct probe_path_topology topo;
    if (known) probe_path_topology_lab(known, v6, &topo);
    probe_judge(si, obs, known ? &topo : NULL, r);
    /* The recverr observer sees no quoted header: its "fragmented?" comes
     * from the kernel's rules (no-op for the raw observer). Done here so
     * every caller gets it. */
    probe_recverr_refine(known ? &topo : NULL, r);
    probe_witness_merge(known ? &topo : NULL, r);
    /* Where nothing observed "fragmented?", the rules of IP decide what they can. */
    probe_rules_apply(known ? &topo : NULL, r);
    /* The path, hop by hop: the lab's topology on the lab's own path, else
     * what TTL discovery heard (issue 20). */
    struct probe_path_topology pt;
    const struct probe_lab *path_lab = lab ? (on_lab_dst ? lab : NULL) : o->topology;
    if (path_lab && strcmp(r->spec.host, probe_lab_dst_addr(path_lab, v6))) path_lab = NULL;
    if (path_lab) probe_path_topology_lab(path_lab, v6, &pt);
    else probe_path_topology_real(c->discovered ? &c->disc : NULL, r, &pt);
    probe_path_build(r, &pt, &r->path);
}

static int run_inner(void *p) {
    struct run_ctx *c = p;
    struct probe_result *r = c->r;
    const struct probe_run_opts *o = c->opts;
    const struct probe_lab *lab = o->lab;
    int v6 = probe_proto_is_v6(r->spec.proto), tcp = probe_proto_is_tcp(r->spec.proto);
    int icmp = probe_proto_is_icmp(r->spec.proto);
    int on_lab_dst = 0, rc;
    struct probe_sendinfo si = {.fd = -1};
    struct listener lst = {.fd = -1};
    const struct probe_observer *ob = NULL;
    void *obstate = NULL;
    struct sockaddr_storage dst;

    if (o->witness) witness_setup(c, v6, tcp, icmp);
    if (!r->spec.host[0]) {
        const struct probe_lab *where = lab ? lab : o->topology;
        if (!where) {
            snprintf(c->err, c->errlen, "no target: give -a HOST:PORT or use the lab");
            return PROBE_E_HOST;
        }
        snprintf(r->spec.host, sizeof r->spec.host, "%s", probe_lab_dst_addr(where, v6));
    }
    if (lab) {
        on_lab_dst = !strcmp(r->spec.host, probe_lab_dst_addr(lab, v6));
        if (lab->cfg.reassemble)
            snprintf(r->route.reassembling, sizeof r->route.reassembling, "%s", lab->name[lab->cfg.reassemble]);
        probe_lab_behaviours_text(lab, 0, r->route.lab_does, sizeof r->route.lab_does);
    }
    if ((rc = probe_resolve(r->spec.host, v6, 0, &dst, c->err, c->errlen)) < 0) return rc;
    if (o->flush_pmtu && (rc = probe_pmtu_flush(NULL, c->err, c->errlen)) < 0) return rc;
    int ttl;
    if ((rc = choose_ttl(c, on_lab_dst, &ttl)) < 0) return rc;
    r->spec.ttl = ttl;

    int port = r->spec.port;
    if (!port && tcp && on_lab_dst) {
        lst.addr = &dst;
        char e[256];
        if (probe_netns_run(probe_lab_dst_ns(lab), listener_open, &lst, e, sizeof e) < 0 || lst.fd < 0) {
            snprintf(c->err, c->errlen, "cannot open a TCP listener in %s: %s", probe_lab_dst_ns(lab), e);
            return PROBE_E_FAIL;
        }
        port = lst.port;
    } else if (!port && tcp) {
        snprintf(c->err, c->errlen, "a TCP test needs a port with a listener: -a HOST:PORT");
        return PROBE_E_FAIL;
    } else if (!port && !icmp) {
        port = PROBE_UDP_PORT_DEFAULT;
    }
    r->spec.port = port;
    probe_sockaddr_set_port(&dst, port);

    if (!(ob = observer_for(o->observer, c->err, c->errlen))) {
        rc = PROBE_E_FAIL;
        goto cleanup;
    }
    snprintf(r->egress.observer, sizeof r->egress.observer, "%s", ob->name);
    if ((rc = ob->open(&obstate, v6 ? AF_INET6 : AF_INET, c->err, c->errlen)) < 0) goto cleanup;
    int timeout = o->timeout_ms > 0 ? o->timeout_ms : PROBE_TIMEOUT_MS_DEFAULT;
    struct probe_route rt;
    /* ICMP: the raw observer (it holds CAP_NET_RAW) sends over a raw socket,
     * the unprivileged one over a ping socket. */
    int icmp_raw = ob == &probe_observer_raw;
    if ((rc = probe_send_open(&r->spec, &dst, ttl, timeout, icmp_raw, &si, &rt, c->err, c->errlen)) < 0) goto cleanup;
    snprintf(r->egress.sock, sizeof r->egress.sock, "%s", si.sock);
    if (icmp) r->spec.port = si.sport; /* the echo identifier, to find it in a capture */
    r->egress.path_mtu_before = rt.path_mtu;
    r->egress.dev_mtu = rt.dev_mtu;
    r->egress.cached_pmtu_before = rt.path_mtu > 0 && rt.dev_mtu > 0 && rt.path_mtu < rt.dev_mtu ? rt.path_mtu : 0;
    if (ob->arm && (rc = ob->arm(obstate, si.fd, c->err, c->errlen)) < 0) goto cleanup;
    if (c->witness_on && (rc = witness_probe_begin(&si, o->witness, c->err, c->errlen)) < 0) goto cleanup;
    if ((rc = probe_send_payload(&si, &r->egress.kernel_mtu)) < 0) {
        snprintf(c->err, c->errlen, "out of memory");
        goto cleanup;
    }
    r->egress.send_errno = si.sent ? 0 : si.send_errno;
    if (!si.sent && si.send_errno != EMSGSIZE) {
        snprintf(c->err, c->errlen, "send to %s failed: %s", r->spec.host, strerror(si.send_errno));
        rc = si.send_errno == ENETUNREACH || si.send_errno == EHOSTUNREACH ? PROBE_E_NOROUTE : PROBE_E_FAIL;
        goto cleanup;
    }
    struct timespec deadline;
    fv_clock_after(&si.t_sent, timeout, &deadline);
    struct probe_observation obs;
    probe_observation_init(&obs);
    if ((rc = ob->collect(obstate, &si, &deadline, &obs, c->err, c->errlen)) < 0) goto cleanup;
    if (c->witness_on) witness_probe_collect(&si, &obs, &deadline, timeout, r);
    judge_all(c, &si, &obs, on_lab_dst, v6);
    lab_does_said(r, lab);
    rc = 0;
cleanup:
    probe_send_close(&si);
    if (ob && obstate) ob->close(obstate);
    if (lst.fd >= 0) close(lst.fd);
    return rc;
}

static void result_init(struct probe_result *r, const struct probe_spec *spec) {
    memset(r, 0, sizeof *r);
    r->spec = *spec;
    struct probe_fact unk;
    probe_fact_set(&unk, PROBE_ANS_UNKNOWN, PROBE_BASIS_UNKNOWN, "why.not_run_yet", " ");
    r->sent = r->df = r->fragmented = unk;
    r->fragmenter = PROBE_FRAG_UNKNOWN;
    r->icmp.quoted_len = r->icmp.quoted_df = r->icmp.quoted_mf = r->icmp.quoted_offset = r->icmp.quoted_frag_hdr = -1;
    r->icmp.type = r->icmp.code = -1;
    r->egress.dev_mtu = r->egress.path_mtu_before = -1;
    r->egress.packets = r->egress.fragments = r->egress.first_len = -1;
    r->icmp.echo_replies = -1;
    r->witness.raw = r->witness.ttl = r->witness.df = r->witness.bytes = r->witness.fragments = -1;
    r->witness.frag_max = r->witness.frag_min = r->witness.segments = r->witness.seg_max = -1;
}

/* One run of out->spec (result_init put it there). */
static int run_once(const struct probe_run_opts *opts, struct probe_result *out, char *err, size_t errlen) {
    struct run_ctx c = {.opts = opts, .r = out, .err = err, .errlen = errlen};
    return opts->lab ? probe_netns_run(opts->lab->ns[PROBE_LAB_SRC], run_inner, &c, err, errlen) : run_inner(&c);
}

/* Real routers rate-limit; the lab's only with --ratelimit (probe_pace_path). */
static int may_rate_limit(const struct probe_run_opts *o, const struct probe_result *r) {
    char key[320];
    return probe_pace_path(key, sizeof key, o->lab ? o->lab : o->topology, r->spec.host);
}

/* The evidence of a test run again after a pause says so. */
static void paced_said(struct probe_result *r) {
    char tail[200], secs[16];
    snprintf(secs, sizeof secs, "%.1f", PROBE_PACE_REFILL_MS / 1000.0);
    struct fv_msg m;
    fv_msg_set(&m, r->icmp.answers ? "ev.paced_answered" : "ev.paced", "secs=%s", secs);
    fv_msg_text(&m, tail, sizeof tail);
    evidence_ends_with(r, tail, &m, 1);
}

int probe_run(const struct probe_run_opts *opts, const struct probe_spec *spec, struct probe_result *out,
              char *err, size_t errlen) {
    struct probe_run_opts defaults = {0};
    if (!opts) opts = &defaults;
    result_init(out, spec);
    if (probe_spec_check(spec, err, errlen) < 0) return PROBE_E_FAIL;
    if (opts->timeout_ms < 0 || opts->timeout_ms > PROBE_TIMEOUT_MS_MAX) {
        snprintf(err, errlen, "timeout %d ms out of range 0..%d", opts->timeout_ms, PROBE_TIMEOUT_MS_MAX);
        return PROBE_E_FAIL;
    }
    struct timespec t0;
    fv_clock_now(&t0);
    int rc = run_once(opts, out, err, errlen);
    if (rc == 0 && probe_pace_retry_wanted(out, may_rate_limit(opts, out))) {
        /* No ICMP answer at all to a TTL-limited test: a router whose budget
         * earlier probes spent answers again a second later. Once more. */
        probe_pace_sleep(PROBE_PACE_REFILL_MS);
        result_init(out, spec);
        rc = run_once(opts, out, err, errlen);
        paced_said(out);
    }
    out->elapsed_ms = probe_ms_since(&t0);
    return rc;
}
