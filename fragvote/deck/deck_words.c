/* A test's words: the question and the test's summary in English, as the
 * terminal shows them (console, play, export), and the same as parts, for
 * the pages to word in their reader's language (deck_ask.h,
 * docs/LANGUAGES.md). Pure. */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "deck.h"
#include "deck_ask.h"

static const char *proto_words(enum probe_proto p) {
    switch (p) {
    case PROBE_UDP4: return "UDP/IPv4";
    case PROBE_TCP4: return "TCP/IPv4";
    case PROBE_UDP6: return "UDP/IPv6";
    case PROBE_TCP6: return "TCP/IPv6";
    case PROBE_ICMP4: return "ping (ICMP echo/IPv4)";
    case PROBE_ICMP6: return "ping (ICMPv6 echo/IPv6)";
    }
    return "?";
}

/* "IP_PMTUDISC_DO" / "IPV6_PMTUDISC_DO", or "default socket options". */
static void mode_words(const struct probe_spec *s, char *buf, size_t buflen) {
    if (s->mode == PROBE_MODE_DEFAULT) {
        snprintf(buf, buflen, "default socket options");
        return;
    }
    char up[16];
    const char *m = probe_mode_name(s->mode);
    size_t i = 0;
    for (; m[i] && i < sizeof up - 1; i++) up[i] = (char)toupper((unsigned char)m[i]);
    up[i] = 0;
    snprintf(buf, buflen, "%s_PMTUDISC_%s", probe_proto_is_v6(s->proto) ? "IPV6" : "IP", up);
}

/* Test t's lab as planned, with the default lab of as many routers beside
 * it; 0, or -1 when t names no scenario (or it does not plan). */
static int lab_of(const struct deck_test *t, struct probe_lab *lab, int *own_mtus) {
    struct probe_lab plain;
    struct probe_lab_config def;
    char e[256];
    probe_lab_config_default(&def);
    def.routers = t->lab.routers;
    if (!t->has_lab || probe_lab_plan(&t->lab, lab, e, sizeof e) < 0 || probe_lab_plan(&def, &plain, e, sizeof e) < 0)
        return -1;
    *own_mtus = memcmp(lab->cfg.mtu, plain.cfg.mtu, sizeof lab->cfg.mtu) != 0;
    return 0;
}

/* " (on a path where r2 drops every fragment that reaches it)" for a test
 * with a lab scenario (its MTUs when they are not the lab's defaults), "" without. */
static void lab_words(const struct deck_test *t, char *buf, size_t buflen) {
    struct probe_lab lab;
    char does[512];
    int own_mtus;
    buf[0] = 0;
    if (lab_of(t, &lab, &own_mtus) < 0) return;
    size_t n = 0;
    if (own_mtus) {
        n += (size_t)snprintf(buf, buflen, " (on a path of MTUs");
        for (int i = 0; i < lab.nlinks && n < buflen; i++)
            n += (size_t)snprintf(buf + n, buflen - n, "%s %d", i ? "," : "", lab.link[i].mtu);
    }
    probe_lab_behaviours_text(&lab, 1, does, sizeof does);
    if (does[0] && n < buflen) n += (size_t)snprintf(buf + n, buflen - n, "%s %s", n ? " where" : " (on a path where", does);
    if (n && n < buflen) snprintf(buf + n, buflen - n, ")");
}

void deck_question_text(const struct deck_test *t, enum qkind kind, char *buf, size_t buflen) {
    char mode[40], where[600];
    mode_words(&t->spec, mode, sizeof mode);
    lab_words(t, where, sizeof where);
    const char *q = kind == QKIND_SENT ? "is it sent?"
                    : kind == QKIND_DF ? "is the DF bit set on the wire?"
                                      : "is it fragmented on the way?";
    /* The question before the path: a long scenario is what a short buffer cuts. */
    snprintf(buf, buflen, "A %d-byte %s packet, %s: %s%s", t->spec.size, proto_words(t->spec.proto), mode, q, where);
}

const char *deck_mode_plain(enum probe_mode m) {
    switch (m) {
    case PROBE_MODE_DEFAULT: return "the app asked nothing: Linux's default";
    case PROBE_MODE_WANT: return "the app asked: follow the route's path MTU";
    case PROBE_MODE_DONT: return "the app asked: never set DF";
    case PROBE_MODE_DO: return "the app asked: always set DF";
    case PROBE_MODE_PROBE: return "the app asked: ignore the learned path MTU";
    case PROBE_MODE_INTERFACE: return "the app asked: only the interface MTU counts, no DF";
    case PROBE_MODE_OMIT: return "the app asked: ignore the path's MTU, fragment at the interface's";
    }
    return "";
}

void deck_test_summary(const struct deck_test *t, char *buf, size_t buflen) {
    char mode[40], ttl[16] = "TTL auto";
    mode_words(&t->spec, mode, sizeof mode);
    if (t->spec.ttl != PROBE_TTL_AUTO) snprintf(ttl, sizeof ttl, "TTL %d", t->spec.ttl);
    snprintf(buf, buflen, "%s \xc2\xb7 %s (%s) \xc2\xb7 %d bytes \xc2\xb7 %s", probe_proto_name(t->spec.proto), mode,
             deck_mode_plain(t->spec.mode), t->spec.size, ttl);
}

json_t *deck_ask_json(const struct deck_test *t) {
    const struct probe_spec *s = &t->spec;
    json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "proto", probe_proto_name(s->proto), "mode", probe_mode_name(s->mode),
                          "size", s->size, "ttl", s->ttl == PROBE_TTL_AUTO ? 0 : s->ttl);
    struct probe_lab lab;
    int own_mtus;
    if (!o || lab_of(t, &lab, &own_mtus) < 0) return o;
    if (own_mtus) {
        json_t *m = json_array();
        for (int i = 0; i < lab.nlinks; i++) json_array_append_new(m, json_integer(lab.link[i].mtu));
        json_object_set_new(o, "mtus", m);
    }
    /* the routers that do something, in path order, as probe_lab_behaviours_text words them */
    json_t *routers = json_array();
    for (int k = 1; k + 1 < lab.nnodes; k++) {
        json_t *does = json_array();
        for (int b = 0; b < PROBE_LAB_BEHAVIOURS; b++)
            if (lab.cfg.behave[k] & (1u << b)) json_array_append_new(does, json_string(probe_lab_behaviour_name(1u << b)));
        int reasm = lab.cfg.reassemble == k;
        if (reasm || json_array_size(does))
            json_array_append_new(routers, json_pack("{s:s, s:o, s:b}", "node", lab.name[k], "does", does, "reassembles", reasm));
        else
            json_decref(does);
    }
    if (json_array_size(routers)) json_object_set_new(o, "lab", routers);
    else json_decref(routers);
    return o;
}
