/* fragvote replay --remeasure: run a recorded session's tests again now and
 * store the results as a new 'remeasure' measurement set of that session
 * (scores keep using the live set). See replay.h. */
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quiz.h"
#include "export_text.h"
#include "probe_json.h"
#include "replay.h"
#include "fv_err.h"


int replay_spec_from_json(const char *spec_json, struct probe_spec *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    json_error_t jerr;
    json_t *j = spec_json ? json_loads(spec_json, 0, &jerr) : NULL;
    const char *proto = json_string_value(json_object_get(j, "proto"));
    const char *mode = json_string_value(json_object_get(j, "mode"));
    json_t *size = json_object_get(j, "size"), *ttl = json_object_get(j, "ttl"), *port = json_object_get(j, "port");
    const char *host = json_string_value(json_object_get(j, "host"));
    int rc = -1;
    if (!proto || probe_proto_parse(proto, &out->proto) < 0) {
        fv_seterr(err, errlen, "stored test has no known protocol: %s", spec_json ? spec_json : "(none)");
        goto done;
    }
    out->mode = PROBE_MODE_DEFAULT;
    if (mode && probe_mode_parse(mode, &out->mode) < 0) {
        fv_seterr(err, errlen, "stored test has an unknown mode \"%s\"", mode);
        goto done;
    }
    if (!json_is_integer(size) || json_integer_value(size) < 68 || json_integer_value(size) > PROBE_SIZE_MAX) {
        fv_seterr(err, errlen, "stored test has no valid size: %s", spec_json);
        goto done;
    }
    out->size = (int)json_integer_value(size);
    out->ttl = json_is_integer(ttl) && json_integer_value(ttl) >= 0 && json_integer_value(ttl) <= 255
                   ? (int)json_integer_value(ttl) : PROBE_TTL_AUTO;
    out->port = json_is_integer(port) && json_integer_value(port) >= 0 && json_integer_value(port) <= 65535
                    ? (int)json_integer_value(port) : 0;
    snprintf(out->host, sizeof out->host, "%s", host ? host : "");
    rc = 0;
done:
    json_decref(j);
    return rc;
}

int64_t replay_remeasure(struct db *db, const struct db_report_session *s, const struct replay_remeasure_opts *o,
                         volatile sig_atomic_t *stop, char *err, size_t errlen) {
    int ntests = 0;
    for (int i = 0; i < s->nquestions; i++)
        if (s->questions[i].test_index + 1 > ntests) ntests = s->questions[i].test_index + 1;
    struct probe_result *res = calloc(ntests ? (size_t)ntests : 1, sizeof *res);
    int *done = calloc(ntests ? (size_t)ntests : 1, sizeof *done);
    char **why = calloc(ntests ? (size_t)ntests : 1, sizeof *why);
    int64_t set = -1;
    char *labjs = NULL;
    if (!res || !done || !why) {
        fv_seterr(err, errlen, "out of memory");
        goto out;
    }
    struct probe_run_opts run = {.observer = o->observer, .timeout_ms = o->timeout_ms, .lab = o->lab,
                                 .flush_pmtu = !o->keep_pmtu_cache};
    /* Run each test once, in the order the session asked its questions. */
    for (int i = 0; i < s->nquestions; i++) {
        const struct db_report_question *q = &s->questions[i];
        int t = q->test_index;
        if (t < 0 || done[t]) continue;
        if (stop && *stop) {
            fv_seterr(err, errlen, "interrupted");
            goto out;
        }
        struct probe_spec spec;
        char e[512];
        done[t] = 1;
        if (replay_spec_from_json(q->spec_json, &spec, e, sizeof e) == 0) {
            if (o->lab) spec.host[0] = '\0';
            else if (o->host_override && *o->host_override) snprintf(spec.host, sizeof spec.host, "%s", o->host_override);
            int rc = probe_run(&run, &spec, &res[t], e, sizeof e);
            if (rc == PROBE_E_PERM) {
                fv_seterr(err, errlen, "%s", e);
                set = PROBE_E_PERM;
                goto out;
            }
            if (rc == 0) continue;
        }
        /* The test could not run: every question of it is "unknown", with why. */
        done[t] = 2;
        why[t] = strdup(e);
    }
    if (o->lab) labjs = probe_lab_json(o->lab);
    if (db_begin(db, err, errlen)) goto out;
    set = db_measurement_set_add(db, s->row.id, "remeasure", o->host, o->kernel, o->target, labjs, err, errlen);
    for (int i = 0; set > 0 && i < s->nquestions; i++) {
        const struct db_report_question *q = &s->questions[i];
        int t = q->test_index;
        if (t < 0 || !done[t]) continue;
        int64_t id;
        if (done[t] == 2) {
            id = db_measurement_add(db, set, q->id, "unknown", "unknown", why[t] ? why[t] : "the test could not run",
                                    "{}", "none", err, errlen);
        } else {
            enum qkind kind;
            if (qkind_parse(q->kind, &kind)) kind = QKIND_SENT;
            struct quiz_truth tr;
            quiz_truth_from_probe(&res[t], kind, &tr);
            char *obs = probe_observation_json(&res[t]);
            const char *ev = tr.evidence[0] ? tr.evidence : tr.why[0] ? tr.why : "(no evidence)";
            id = db_measurement_add(db, set, q->id, probe_answer_name(tr.answer), probe_basis_name(tr.basis), ev,
                                    obs ? obs : "{}", res[t].egress.observer[0] ? res[t].egress.observer : "unknown", err, errlen);
            free(obs);
        }
        if (id < 0) set = -1;
    }
    if (set > 0 && db_commit(db, err, errlen)) set = -1;
    if (set < 0) db_rollback(db);
out:
    for (int t = 0; why && t < ntests; t++) free(why[t]);
    free(why);
    free(done);
    free(res);
    free(labjs);
    return set;
}

int replay_print_remeasure(FILE *out, struct db_report *r, const struct db_report_session *s, int64_t set_id,
                           int *changed, int *unchanged, char *err, size_t errlen) {
    const struct db_report_set *live = NULL, *now = NULL;
    for (int i = 0; i < s->nsets; i++) {
        if (!live && !strcmp(s->sets[i].kind, "live")) live = &s->sets[i];
        if (s->sets[i].id == set_id) now = &s->sets[i];
    }
    if (!live || !now) {
        fv_seterr(err, errlen, "session %lld has no measurement set %lld", (long long)s->row.id, (long long)set_id);
        return -1;
    }
    char lab[64];
    *changed = *unchanged = 0;
    int other = 0;
    fprintf(out, "Remeasure of session %lld: %s (measurement set %lld)\n", (long long)s->row.id, s->row.title,
            (long long)set_id);
    replay_lab_summary(live->lab_json, lab, sizeof lab);
    fprintf(out, "  then  host %s · kernel %s · target %s%s%s%s\n", live->host, live->kernel, live->target,
            *lab ? " (" : "", lab, *lab ? ")" : "");
    replay_lab_summary(now->lab_json, lab, sizeof lab);
    fprintf(out, "  now   host %s · kernel %s · target %s%s%s%s\n", now->host, now->kernel, now->target,
            *lab ? " (" : "", lab, *lab ? ")" : "");
    for (int i = 0; i < s->nquestions; i++) {
        const struct db_report_question *q = &s->questions[i];
        struct db_report_measure m;
        if (db_report_measure_get(r, set_id, q->id, &m, err, errlen)) return -1;
        struct replay_diff d;
        replay_diff_explain(&q->live, live, &m, now, &d);
        char test[EXPORT_TEST_SUMMARY_MAX];
        export_test_summary(q->spec_json, test, sizeof test);
        fprintf(out, "\nQ%d  %s · %s\n", q->position + 1, test, q->kind);
        fprintf(out, "    then %s · now %s · ", *d.then_answer ? d.then_answer : "-", *d.now_answer ? d.now_answer : "-");
        if (!d.comparable) {
            other++;
            fprintf(out, "not comparable: %s\n", d.reason);
        } else if (d.changed) {
            (*changed)++;
            fprintf(out, "CHANGED: %s\n", d.reason);
        } else {
            (*unchanged)++;
            fprintf(out, "unchanged%s%s%s\n", *d.reason ? " (though: " : "", d.reason, *d.reason ? ")" : "");
        }
        db_report_measure_free(&m);
    }
    fprintf(out, "\n%d unchanged, %d changed, %d not comparable\n", *unchanged, *changed, other);
    return 0;
}
