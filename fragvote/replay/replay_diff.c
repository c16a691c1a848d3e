/* Remeasure comparison: did a question's answer change between two
 * measurement sets, and which difference of host, kernel, target, path or
 * PMTU cache explains it (see replay.h). Pure: parses stored JSON only. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"

void replay_lab_summary(const char *lab_json, char *buf, size_t len) {
    if (!len) return;
    buf[0] = '\0';
    json_error_t jerr;
    json_t *j = lab_json ? json_loads(lab_json, 0, &jerr) : NULL;
    json_t *links = json_object_get(j, "links");
    size_t n = 0, i;
    json_t *l;
    json_array_foreach(links, i, l) {
        json_t *mtu = json_object_get(l, "mtu");
        if (!json_is_integer(mtu) || n >= len) continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", n ? "/" : "", (long long)json_integer_value(mtu));
    }
    /* serve writes "reassemble": N, probe_lab_to_json "reassembling": "rN" | null */
    json_t *re = json_object_get(j, "reassemble");
    const char *ring = json_string_value(json_object_get(j, "reassembling"));
    if (n && n < len && json_is_integer(re) && json_integer_value(re) > 0)
        n += (size_t)snprintf(buf + n, len - n, " reassembling at r%lld", (long long)json_integer_value(re));
    else if (n && n < len && ring && *ring)
        n += (size_t)snprintf(buf + n, len - n, " reassembling at %s", ring);
    /* probe_lab_to_json's routers' behaviours, in words */
    const char *does = json_string_value(json_object_get(j, "behaviours_text"));
    if (n && n < len && does && *does) snprintf(buf + n, len - n, "; %s", does);
    json_decref(j);
}

/* An integer field of an observation: its value, 0 when present as null
 * ("none", as probe_result_to_json writes it), -1 when absent (a field the
 * older flat live rows lack, probe_json.h: not compared). */
static long long obs_int(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v)) return json_integer_value(v);
    return json_is_null(v) ? 0 : -1;
}

static const char *obs_str(json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

struct why {
    char *buf;
    size_t len, n;
};

static void add(struct why *w, const char *fmt, ...) {
    if (w->n >= w->len) return;
    if (w->n) w->n += (size_t)snprintf(w->buf + w->n, w->len - w->n, "; ");
    if (w->n >= w->len) return;
    va_list ap;
    va_start(ap, fmt);
    w->n += (size_t)vsnprintf(w->buf + w->n, w->len - w->n, fmt, ap);
    va_end(ap);
}

static int differ(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") != 0; }

void replay_diff_explain(const struct db_report_measure *then, const struct db_report_set *then_set,
                         const struct db_report_measure *now, const struct db_report_set *now_set,
                         struct replay_diff *out) {
    memset(out, 0, sizeof *out);
    if (then->measured) snprintf(out->then_answer, sizeof out->then_answer, "%s", then->answer);
    if (now->measured) snprintf(out->now_answer, sizeof out->now_answer, "%s", now->answer);
    struct why w = {out->reason, sizeof out->reason, 0};
    if (!then->measured || !now->measured) {
        add(&w, "%s", !then->measured && !now->measured ? "measured neither then nor now"
                      : !then->measured                 ? "not measured during the talk"
                                                        : "could not be measured now");
        return;
    }
    out->comparable = 1;
    out->changed = strcmp(then->answer, now->answer) != 0;

    /* What differs in the setting. */
    if (differ(then_set->host, now_set->host))
        add(&w, "different host (%s then, %s now)", *then_set->host ? then_set->host : "?",
            *now_set->host ? now_set->host : "?");
    if (differ(then_set->kernel, now_set->kernel))
        add(&w, "different kernel (%s then, %s now)", *then_set->kernel ? then_set->kernel : "?",
            *now_set->kernel ? now_set->kernel : "?");
    if (differ(then_set->target, now_set->target))
        add(&w, "different target (%s then, %s now)", then_set->target, now_set->target);
    char lab_then[64], lab_now[64];
    replay_lab_summary(then_set->lab_json, lab_then, sizeof lab_then);
    replay_lab_summary(now_set->lab_json, lab_now, sizeof lab_now);
    if (*lab_then && *lab_now && strcmp(lab_then, lab_now))
        add(&w, "different path MTU (lab links %s then, %s now)", lab_then, lab_now);

    /* What the probe saw differently. */
    json_error_t jerr;
    json_t *ot = json_loads(then->observation_json ? then->observation_json : "", 0, &jerr);
    json_t *on = json_loads(now->observation_json ? now->observation_json : "", 0, &jerr);
    long long ct = obs_int(ot, "cached_pmtu_before"), cn = obs_int(on, "cached_pmtu_before");
    /* A "cached" value that is not below the device MTU was not learned from
     * the path (the probe reports 65535 on loopback): not a cache at all. */
    long long dt = obs_int(ot, "dev_mtu"), dn = obs_int(on, "dev_mtu");
    if (dt > 0 && ct >= dt) ct = 0;
    if (dn > 0 && cn >= dn) cn = 0;
    if (ct >= 0 && cn >= 0 && ct != cn) {
        if (ct > 0 && cn == 0)
            add(&w, "a cached PMTU of %lld was in effect then (learned earlier), none now", ct);
        else if (ct == 0 && cn > 0)
            add(&w, "a cached PMTU of %lld is in effect now, none then", cn);
        else
            add(&w, "cached PMTU %lld then, %lld now", ct, cn);
    }
    long long pt = obs_int(ot, "path_mtu_before"), pn = obs_int(on, "path_mtu_before");
    if (pt > 0 && pn > 0 && pt != pn) add(&w, "route MTU before the send %lld then, %lld now", pt, pn);
    long long it = obs_int(json_object_get(ot, "icmp"), "mtu"), in = obs_int(json_object_get(on, "icmp"), "mtu");
    if ((it > 0 || in > 0) && it >= 0 && in >= 0 && it != in) {
        if (it > 0 && in > 0) add(&w, "a router reported MTU %lld then, %lld now", it, in);
        else if (it > 0) add(&w, "a router reported MTU %lld then, none now", it);
        else add(&w, "a router reports MTU %lld now, none then", in);
    }
    long long kt = obs_int(ot, "kernel_mtu"), kn = obs_int(on, "kernel_mtu");
    if (kt >= 0 && kn >= 0 && kt != kn) add(&w, "the kernel reported MTU %lld then, %lld now", kt, kn);
    if (*obs_str(ot, "fragmenter") && *obs_str(on, "fragmenter") &&
        strcmp(obs_str(ot, "fragmenter"), obs_str(on, "fragmenter")))
        add(&w, "fragmented by %s then, by %s now", obs_str(ot, "fragmenter"), obs_str(on, "fragmenter"));
    if (differ(then->observer, now->observer))
        add(&w, "observer %s then, %s now", *then->observer ? then->observer : "?",
            *now->observer ? now->observer : "?");
    json_decref(ot);
    json_decref(on);

    if (out->changed && !w.n)
        add(&w, "same host, kernel and target: the network answered differently (evidence now: %s)",
            now->evidence && *now->evidence ? now->evidence : "none");
    else if (out->changed)
        add(&w, "evidence now: %s", now->evidence && *now->evidence ? now->evidence : "none");
}
