/* probe_result_from_json(): the reader of a remote prober's observation
 * (issue 17). Whatever probe_observation_json() writes reads back to a
 * result that writes the very same text (with a witness, far-end facts,
 * an ICMP answer, and with everything unseen); canned hostile objects are
 * refused with the field named. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "probe_json.h"

static struct probe_result unseen(void) {
    struct probe_result r;
    memset(&r, 0, sizeof r);
    r.spec = (struct probe_spec){.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = 1400, .ttl = 2, .port = 33434};
    r.sent = r.df = r.fragmented = (struct probe_fact){.answer = PROBE_ANS_UNKNOWN, .basis = PROBE_BASIS_UNKNOWN, .why = "not run"};
    r.fragmenter = PROBE_FRAG_UNKNOWN;
    r.icmp.quoted_len = r.icmp.quoted_df = r.icmp.quoted_mf = r.icmp.quoted_offset = r.icmp.quoted_frag_hdr = -1;
    r.icmp.type = r.icmp.code = -1;
    r.egress.dev_mtu = r.egress.path_mtu_before = -1;
    r.egress.packets = r.egress.fragments = r.egress.first_len = -1;
    r.witness.raw = r.witness.ttl = r.witness.df = r.witness.bytes = r.witness.fragments = -1;
    r.witness.frag_max = r.witness.frag_min = r.witness.segments = r.witness.seg_max = -1;
    snprintf(r.egress.observer, sizeof r.egress.observer, "recverr");
    snprintf(r.evidence, sizeof r.evidence, "not measured");
    return r;
}

static struct probe_result full(void) {
    struct probe_result r = unseen();
    r.spec = (struct probe_spec){.proto = PROBE_TCP6, .mode = PROBE_MODE_WANT, .size = 2000, .ttl = 3,
                                 .host = "fd00:2::2", .port = 8080};
    r.sent = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "it left the host"};
    r.df = (struct probe_fact){.answer = PROBE_ANS_NO, .basis = PROBE_BASIS_INFERRED, .why = "IPv6 has no DF \"bit\""};
    r.fragmented = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "the far end got 2 fragments"};
    r.fragmenter = PROBE_FRAG_HOST;
    r.egress.send_errno = 90;
    r.egress.kernel_mtu = 1280;
    r.egress.cached_pmtu_before = 1400;
    r.egress.path_mtu_before = 1400;
    r.egress.dev_mtu = 1500;
    r.icmp.quoted_len = 1280, r.icmp.quoted_df = 1, r.icmp.quoted_mf = 0, r.icmp.quoted_offset = 0, r.icmp.quoted_frag_hdr = 1;
    r.icmp.type = 2, r.icmp.code = 0, r.icmp.mtu = 1280;
    snprintf(r.icmp.hop, sizeof r.icmp.hop, "fd00:1::1");
    snprintf(r.icmp.hop_name, sizeof r.icmp.hop_name, "r1");
    r.egress.packets = 2, r.egress.fragments = 2, r.egress.first_len = 1280;
    r.icmp.answers = 1;
    snprintf(r.route.reassembling, sizeof r.route.reassembling, "r2");
    snprintf(r.route.ttl_basis, sizeof r.route.ttl_basis, "lab topology");
    snprintf(r.egress.observer, sizeof r.egress.observer, "raw");
    snprintf(r.evidence, sizeof r.evidence, "r1 said Packet Too Big, MTU 1280 \xc3\xa9");
    r.elapsed_ms = 12.25;
    snprintf(r.egress.sock, sizeof r.egress.sock, "tcp");
    snprintf(r.witness.target, sizeof r.witness.target, "[fd00:2::2]:4000");
    r.witness.heard = 1;
    r.witness.raw = 1, r.witness.ttl = 62, r.witness.df = 0, r.witness.bytes = 2000, r.witness.fragments = 2, r.witness.frag_max = 1280;
    r.witness.frag_min = 720, r.witness.segments = 0, r.witness.seg_max = 0;
    r.witness.far_end = 4u;
    snprintf(r.witness.note, sizeof r.witness.note, "the witness saw 2 fragments");
    fv_msg_set(&r.df.msg[0], "why.df_rule", "mode=%s df=%d @answer=%s", "want", 0, "answer.no"); /* why as a message */
    r.df.nmsg = 1;
    /* a why and the evidence as messages in a row (the far end's words after the judge's) */
    fv_msg_set(&r.fragmented.msg[0], "why.rule_fits", "len=%d", 1400);
    fv_msg_set(&r.fragmented.msg[1], "why.far_cleared_at", "node=%s router=%s", "dst", "r1");
    r.fragmented.nmsg = 2;
    fv_msg_set(&r.ev[0], "ev.went_whole", " ");
    fv_msg_set(&r.ev[1], "ev.arrived_whole_at", "node=%s len=%d", "dst", 1428);
    r.nev = 2;
    return r;
}

/* r -> text -> result -> text: the same text. */
static void round_trip(const struct probe_result *r) {
    char *a = probe_observation_json(r), err[256] = "";
    REQUIRE(a);
    json_t *o = json_loads(a, 0, NULL);
    struct probe_result back;
    int rc = probe_result_from_json(o, &back, err, sizeof err);
    if (rc) fprintf(stderr, "refused: %s\n", err);
    CHECK_INT(rc, 0);
    char *b = probe_observation_json(&back);
    CHECK_STR(b, a);
    CHECK_INT(back.witness.far_end, r->witness.far_end);
    CHECK_INT(back.icmp.answers, r->icmp.answers);
    CHECK_STR(back.df.msg[0].key, r->df.msg[0].key);
    CHECK_INT(back.df.msg[0].nargs, r->df.msg[0].nargs);
    CHECK_INT(back.df.nmsg, r->df.nmsg);
    CHECK_INT(back.fragmented.nmsg, r->fragmented.nmsg);
    CHECK_INT(back.nev, r->nev);
    json_decref(o);
    free(a);
    free(b);
}

static void test_what_the_writer_writes_reads_back_the_same(void) {
    struct probe_result u = unseen(), f = full();
    round_trip(&u);
    round_trip(&f);
}

/* obs with key (a dotted path of one level at most) set to the JSON value text. */
static int refused_with(const char *key, const char *value, const char *named) {
    struct probe_result f = full(), back;
    char *a = probe_observation_json(&f), err[256] = "";
    json_t *o = json_loads(a, 0, NULL), *parent = o;
    free(a);
    char k[64];
    snprintf(k, sizeof k, "%s", key);
    char *dot = strchr(k, '.');
    if (dot) {
        *dot = 0;
        parent = json_object_get(o, k);
    }
    const char *leaf = dot ? dot + 1 : k;
    if (value) json_object_set_new(parent, leaf, json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL));
    else json_object_del(parent, leaf);
    int rc = probe_result_from_json(o, &back, err, sizeof err);
    json_decref(o);
    if (rc == 0) fprintf(stderr, "%s = %s was accepted\n", key, value ? value : "(deleted)");
    else if (!strstr(err, named)) fprintf(stderr, "%s = %s: \"%s\" does not name %s\n", key, value, err, named);
    return rc == -1 && strstr(err, named) != NULL;
}

static void test_hostile_observations_are_refused_by_name(void) {
    static const struct {
        const char *key, *value, *named;
    } bad[] = {
        {"spec", NULL, "spec"},
        {"spec.proto", "\"udp5\"", "spec.proto"},
        {"spec.mode", "7", "spec.mode"},
        {"spec.size", "67", "size"},
        {"spec.size", "65001", "size"},
        {"spec.ttl", "256", "ttl"},
        {"spec.port", "1.5", "port"},
        {"sent", "\"yes\"", "sent"},
        {"df.answer", "\"maybe\"", "df"},
        {"fragmented.basis", "\"guessed\"", "fragmented"},
        {"df.why_msg", "{\"args\": {}}", "df"},
        {"sent.why", NULL, "why"},
        {"df.observed_at", "\"near end\"", "df"},
        {"fragmenter", "\"kernel\"", "fragmenter"},
        {"evidence", NULL, "evidence"},
        {"evidence", "42", "evidence"},
        {"observer", "\"a-very-long-observer-name\"", "observer"},
        {"hop", "\"0123456789012345678901234567890123456789012345678901234567890123456789\"", "hop"},
        {"quote", "[1]", "quote"},
        {"quote.df", "2", "df"},
        {"icmp.type", "-1", "type"},
        {"icmp.code", NULL, "icmp"},
        {"kernel_mtu", "\"1280\"", "kernel_mtu"},
        {"elapsed_ms", "\"fast\"", "elapsed_ms"},
        {"elapsed_ms", "-1", "elapsed_ms"},
        {"witness.heard", "1", "witness.heard"},
        {"witness.target", NULL, "target"},
        {"witness", "\"none\"", "witness"},
        {"evidence", "\"a\\u0000b\"", "evidence"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK(refused_with(bad[i].key, bad[i].value, bad[i].named));
    struct probe_result back;
    char err[128] = "";
    json_t *arr = json_loads("[1,2]", 0, NULL);
    CHECK_INT(probe_result_from_json(arr, &back, err, sizeof err), -1);
    CHECK_CONTAINS(err, "not a JSON object");
    json_decref(arr);
}

int main(void) {
    RUN(test_what_the_writer_writes_reads_back_the_same);
    RUN(test_hostile_observations_are_refused_by_name);
    return check_summary();
}
