/* The real `fragvote serve --prober remote` (issue 17), hub side, as any
 * user: no lab, no privilege. A scripted laptop (a websocket client that
 * speaks docs/PROTOCOL.md "The remote prober" with a canned observation)
 * connects with its own one-question deck, which the hub adopts; a phone
 * votes; the laptop measures, the reveal shows its answer, the talk ends;
 * the laptop downloads the export over its connection (refused before the
 * end), and it equals `fragvote export` run on the hub's database. The
 * console prints the prober's connect and disconnect; no namespace of the
 * test's lab prefix ever appears; SIGTERM ends serve with 0. SIGKILLed and
 * resumed, the hub asks the laptop again for what was asked before the
 * crash: a question's prefetch, and a measure that was waiting. */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_probe.h"
#include "serve_proc.h"
#include "fv_roles.h"
#include "probe_json.h"

#define SECRET "remote-e2e-secret"
#define ROOM "RMTE2E"
#define T_MS 5000
#define DECK "{\"title\":\"laptop deck\",\"target\":\"lab\",\"tests\":[{\"proto\":\"udp4\",\"mode\":\"do\"," \
             "\"size\":1400,\"ask\":[\"sent\"]}]}"

/* One test, two questions: its measurement answers both. */
#define DECK2 "{\"title\":\"laptop deck, two questions\",\"target\":\"lab\",\"tests\":[{\"proto\":\"udp4\"," \
              "\"mode\":\"do\",\"size\":1400,\"ask\":[\"sent\",\"df\"]}]}"
static const char *bin;
static pid_t serve_pid = -1;
static char outpath[300], dbpath[300];

static void cleanup(void) { serve_proc_stop(&serve_pid, SIGKILL); }

static char *slurp(const char *path) {
    size_t n;
    return check_read_file(path, &n);
}

/* Waits until serve's console output holds needle (up to T_MS). */
static int console_says(const char *needle) {
    if (serve_proc_wait_output(outpath, needle, T_MS)) return 1;
    fprintf(stderr, "the console never said \"%s\":\n", needle);
    serve_proc_dump(outpath);
    return 0;
}

static json_t *recv_t(struct wsc *w, const char *a, const char *b) { return wsc_recv_types(w, a, b, T_MS); }

/* SIGTERM to serve (a talk's normal end); its exit status, -1 if it died. */
static int serve_stop(void) {
    int status = -1;
    kill(serve_pid, SIGTERM);
    waitpid(serve_pid, &status, 0);
    serve_pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Starts `serve --prober remote` on dbpath (resume > 0: --resume that
 * session, else a new one in room ROOM); returns its port, or -1. */
static int serve_remote(const char *name, long long resume) {
    snprintf(outpath, sizeof outpath, "%s/%s.out", check_tmpdir(), name);
    char id[24];
    snprintf(id, sizeof id, "%lld", resume);
    char *argv[] = {(char *)bin, "serve", "--prober", "remote", "--db", dbpath, "--port", "0", "--bind", "127.0.0.1",
                    "--secret", SECRET, resume > 0 ? "--resume" : "--room", resume > 0 ? id : ROOM, "--no-qr", NULL};
    return serve_proc_start(argv, outpath, NULL, &serve_pid);
}

/* The laptop: presenter, then prober with DECK; returns the connection and
 * the prober_ok (or error) in *ok. */
static struct wsc *laptop_with(int port, const char *deck, json_t **ok) {
    char err[256];
    struct wsc *lap = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    if (!lap) return NULL;
    if (wsc_send_json(lap, "{s:s, s:i, s:o, s:s, s:s, s:s, s:s}", "t", "prober", "v", 1, "deck",
                      json_loads(deck, 0, NULL), "host", "e2e-laptop", "observer", "raw", "target", "lab", "instance",
                      "e2e") < 0) {
        wsc_free(lap);
        return NULL;
    }
    *ok = recv_t(lap, "prober_ok", "error");
    return lap;
}

static struct wsc *laptop(int port, json_t **ok) { return laptop_with(port, DECK, ok); }

/* The canned observation of DECK's one test, its texts tagged. */
static json_t *observation(const char *tag) {
    char evidence[96];
    snprintf(evidence, sizeof evidence, "%s-evidence: DF=1 on the laptop's wire", tag);
    struct probe_result r = check_probe_result(PROBE_ANS_YES, PROBE_ANS_YES, PROBE_ANS_NO, evidence);
    r.spec = (struct probe_spec){.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = 1400, .ttl = 2};
    snprintf(r.sent.why, sizeof r.sent.why, "%s-why: it left the laptop", tag);
    return probe_result_to_json(&r);
}

/* Answers measure m with the observation tagged tag; returns the hub's answer's type or code. */
static const char *answer(struct wsc *lap, json_t *m, const char *epoch, const char *tag) {
    static char got[32];
    snprintf(got, sizeof got, "(nothing)");
    if (wsc_send_json(lap, "{s:s, s:s, s:O, s:o}", "t", "result", "epoch",
                      epoch ? epoch : json_string_value(json_object_get(m, "epoch")), "rid",
                      json_object_get(m, "rid"), "observation", observation(tag)) < 0)
        return got;
    json_t *a = recv_t(lap, "result_ok", "error");
    const char *c = json_string_value(json_object_get(a, "code"));
    snprintf(got, sizeof got, "%s", c ? c : json_string_value(json_object_get(a, "t")));
    json_decref(a);
    return got;
}

static void test_a_talk_with_a_remote_prober(void) {
    char err[256];
    snprintf(dbpath, sizeof dbpath, "%s/hub.db", check_tmpdir());
    int port = serve_remote("serve", 0);
    REQUIRE(port > 0);
    CHECK(console_says("Prober: remote"));

    json_t *ok = NULL;
    struct wsc *lap = laptop(port, &ok);
    REQUIRE(lap && ok);
    CHECK_STR(json_string_value(json_object_get(ok, "t")), "prober_ok");
    CHECK_STR(json_string_value(json_object_get(ok, "deck")), "adopted");
    long long session = json_integer_value(json_object_get(ok, "session"));
    json_decref(ok);
    CHECK(console_says("prober connected from 127.0.0.1 (e2e-laptop, observer raw, target lab); deck adopted"));

    struct wsc *phone = fvr_phone("127.0.0.1", port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    /* the presenter's page drives the quiz (the laptop's own cmds work too, see test_hub_prober) */
    struct wsc *page = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    REQUIRE(phone && page);
    REQUIRE(fvr_cmd(page, "open", T_MS, err, sizeof err) == 0);
    json_t *m = recv_t(lap, "measure", NULL);
    REQUIRE(m);
    CHECK_INT(fvr_vote(phone, 1, 0, 1, T_MS, NULL), 0);
    REQUIRE(fvr_cmd(page, "close", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "measure", T_MS, err, sizeof err) == 0);
    CHECK_STR(answer(lap, m, NULL, "E2E"), "result_ok");
    json_decref(m);
    /* the export is the presenter's only after the end */
    REQUIRE(wsc_send_json(lap, "{s:s, s:s}", "t", "export", "format", "json") == 0);
    json_t *e = recv_t(lap, "export_ok", "error");
    CHECK(e != NULL);
    if (e) CHECK_STR(json_string_value(json_object_get(e, "code")), "not_ended");
    json_decref(e);
    CHECK(!strstr(wsc_transcript(phone), "E2E-"));
    REQUIRE(fvr_cmd(page, "reveal", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "next", T_MS, err, sizeof err) == 0);
    json_t *fin = fvr_final_state(phone, T_MS);
    CHECK(fin != NULL);
    json_decref(fin);
    CHECK_CONTAINS(wsc_transcript(phone), "E2E-why: it left the laptop");
    REQUIRE(wsc_send_json(lap, "{s:s, s:s}", "t", "export", "format", "json") == 0);
    e = recv_t(lap, "export_ok", "error");
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "t")), "export_ok");
    CHECK_INT(json_integer_value(json_object_get(e, "session")), session);
    const char *data = json_string_value(json_object_get(e, "data"));
    char cmd[900];
    snprintf(cmd, sizeof cmd, "'%s' export %lld --format json --db '%s' > '%s/cli.json'", bin, session, dbpath,
             check_tmpdir());
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/cli.json", check_tmpdir());
    char *cli = slurp(cmd);
    CHECK(data && cli && !strcmp(data, cli));
    CHECK_CONTAINS(data, "E2E-evidence");
    CHECK_CONTAINS(data, "\"host\": \"e2e-laptop\""); /* the measuring machine is the laptop */
    CHECK_CONTAINS(data, "\"observer\": \"raw\"");
    free(cli);
    json_decref(e);

    wsc_close(lap, 1000);
    CHECK(console_says("prober at 127.0.0.1 disconnected"));
    wsc_close_all(phone, page);
    CHECK_INT(serve_stop(), 0);
    /* serve built no lab: no namespace of this test's prefix */
    const char *prefix = getenv("FRAGVOTE_LAB_PREFIX");
    FILE *p = popen("ip netns list 2>/dev/null", "r");
    char line[256];
    while (p && prefix && fgets(line, sizeof line, p)) CHECK(strncmp(line, prefix, strlen(prefix)) != 0);
    if (p) pclose(p);
}

/* Issue 36 item 3: "next" may pass a pending question, and one measurement
 * answers every question of its test; so with the talk at its end a
 * question can hold its answer unrevealed, and "back" could still open it.
 * The export (every measured answer) waits until every question is
 * revealed or skipped. */
static void test_no_export_while_a_question_can_still_be_opened(void) {
    char err[256];
    snprintf(dbpath, sizeof dbpath, "%s/hub-open.db", check_tmpdir());
    int port = serve_remote("serve-open", 0);
    REQUIRE(port > 0);
    json_t *ok = NULL;
    struct wsc *lap = laptop_with(port, DECK2, &ok);
    REQUIRE(lap && ok);
    CHECK_STR(json_string_value(json_object_get(ok, "t")), "prober_ok");
    json_decref(ok);
    struct wsc *page = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    REQUIRE(page);
    REQUIRE(fvr_cmd(page, "open", T_MS, err, sizeof err) == 0);
    json_t *m = recv_t(lap, "measure", NULL); /* the test measured while "sent?" votes */
    REQUIRE(m);
    REQUIRE(fvr_cmd(page, "close", T_MS, err, sizeof err) == 0);
    CHECK_STR(answer(lap, m, NULL, "OPEN"), "result_ok");
    json_decref(m);
    REQUIRE(fvr_cmd(page, "measure", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "reveal", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "next", T_MS, err, sizeof err) == 0); /* "DF set?": pending, its answer held */
    REQUIRE(fvr_cmd(page, "next", T_MS, err, sizeof err) == 0); /* past it: the end */
    REQUIRE(wsc_send_json(lap, "{s:s, s:s}", "t", "export", "format", "json") == 0);
    json_t *e = recv_t(lap, "export_ok", "error");
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "t")), "error");
    CHECK_STR(json_string_value(json_object_get(e, "code")), "not_ended");
    CHECK_CONTAINS(json_string_value(json_object_get(e, "message")), "question 2 is not");
    char *dump = json_dumps(e, 0);
    CHECK(dump && !strstr(dump, "OPEN-evidence"));
    free(dump);
    json_decref(e);
    /* back, skip it: every question settled, the export is the presenter's */
    REQUIRE(fvr_cmd(page, "back", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "skip", T_MS, err, sizeof err) == 0);
    REQUIRE(wsc_send_json(lap, "{s:s, s:s}", "t", "export", "format", "json") == 0);
    e = recv_t(lap, "export_ok", "error");
    REQUIRE(e);
    CHECK_STR(json_string_value(json_object_get(e, "t")), "export_ok");
    CHECK_CONTAINS(json_string_value(json_object_get(e, "data")), "OPEN-evidence");
    json_decref(e);
    wsc_close_all(lap, page);
    CHECK_INT(serve_stop(), 0);
}

/* A new hosted session on dbpath in which the laptop (answering nothing)
 * gets the prefetch *m1 when voting opens, a phone votes yes and, with
 * then_measure, the presenter closes and measures; then the hub is
 * SIGKILLed. Returns the session (its first epoch in *epoch), or -1. */
static long long crash_mid_question(const char *name, int then_measure, json_t **m1, json_t **epoch) {
    char err[256];
    int port = serve_remote(name, 0);
    if (port <= 0) return -1;
    json_t *ok = NULL;
    struct wsc *lap = laptop(port, &ok);
    if (!lap || !ok) return -1;
    long long session = json_integer_value(json_object_get(ok, "session"));
    *epoch = json_incref(json_object_get(ok, "epoch"));
    json_decref(ok);
    struct wsc *page = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    struct wsc *phone = fvr_phone("127.0.0.1", port, ROOM, 1, NULL, T_MS, NULL, err, sizeof err);
    int bad = !page || !phone || fvr_cmd(page, "open", T_MS, err, sizeof err) != 0;
    *m1 = bad ? NULL : recv_t(lap, "measure", NULL);
    bad = bad || !*m1;
    if (!bad) CHECK_INT(fvr_vote(phone, 1, 0, 1, T_MS, NULL), 0);
    if (!bad && then_measure) /* the measure waits for the prefetch's answer */
        bad = fvr_cmd(page, "close", T_MS, err, sizeof err) != 0 || fvr_cmd(page, "measure", T_MS, err, sizeof err) != 0;
    serve_proc_stop(&serve_pid, SIGKILL);
    wsc_free(lap);
    wsc_free(page);
    wsc_free(phone);
    return bad ? -1 : session;
}

/* `serve --prober remote --resume session` and the laptop connecting to
 * it: the same session and deck, a new epoch, one ask pending (the laptop,
 * or NULL; the port in *port). */
static struct wsc *resumed_laptop(const char *name, long long session, json_t *epoch1, int *port) {
    *port = serve_remote(name, session);
    if (*port <= 0) return NULL;
    json_t *ok = NULL;
    struct wsc *lap = laptop(*port, &ok);
    if (!lap || !ok) return NULL;
    CHECK_STR(json_string_value(json_object_get(ok, "t")), "prober_ok");
    CHECK_STR(json_string_value(json_object_get(ok, "deck")), "kept");
    CHECK_INT(json_integer_value(json_object_get(ok, "session")), session);
    CHECK(!json_equal(json_object_get(ok, "epoch"), epoch1));
    CHECK_INT(json_integer_value(json_object_get(ok, "pending")), 1);
    json_decref(ok);
    return lap;
}

/* `fragvote export` of session in JSON from the hub's database (to free). */
static char *export_json(long long session) {
    char cmd[900];
    snprintf(cmd, sizeof cmd, "'%s' export %lld --format json --db '%s'", bin, session, dbpath);
    FILE *p = popen(cmd, "r");
    char *out = calloc(1, 1 << 16);
    if (p && out) out[fread(out, 1, (1 << 16) - 1, p)] = 0;
    if (p) pclose(p);
    return out;
}

/* The hub crashes (SIGKILL) while the room votes and the laptop has not
 * answered the prefetch; `serve --prober remote --resume ID` continues the
 * session: the laptop reconnects (a new epoch: the old rid's answer is
 * refused), the ask is there again, the question is measured and revealed.
 * Resuming a hosted session without --prober remote is refused. */
static void test_resume_continues_with_the_laptop(void) {
    char err[256];
    snprintf(dbpath, sizeof dbpath, "%s/resume.db", check_tmpdir());
    json_t *m1 = NULL, *epoch1 = NULL;
    long long session = crash_mid_question("before", 0, &m1, &epoch1);
    REQUIRE(session > 0);

    /* a hosted session resumes only hosted */
    char cmd[900];
    snprintf(cmd, sizeof cmd, "'%s' serve --db '%s' --resume %lld --port 0 --no-qr </dev/null >'%s/local.out' 2>&1",
             bin, dbpath, session, check_tmpdir());
    int st = system(cmd);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(cmd, sizeof cmd, "%s/local.out", check_tmpdir());
    char *o = slurp(cmd);
    CHECK_CONTAINS(o, "was measured by a remote laptop; resume it with --prober remote");
    free(o);

    int port = -1;
    struct wsc *lap = resumed_laptop("after", session, epoch1, &port); /* the question still votes: asked again */
    REQUIRE(lap);
    json_t *m2 = recv_t(lap, "measure", NULL);
    REQUIRE(m2);
    CHECK_STR(answer(lap, m1, json_string_value(epoch1), "OLDEPOCH"), "unknown_rid");
    CHECK_STR(answer(lap, m2, NULL, "RESUMED"), "result_ok");
    struct wsc *page = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    REQUIRE(page);
    REQUIRE(fvr_cmd(page, "close", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "measure", T_MS, err, sizeof err) == 0);
    REQUIRE(fvr_cmd(page, "reveal", T_MS, err, sizeof err) == 0);
    char *out = export_json(session);
    CHECK_CONTAINS(out, "RESUMED-evidence");
    CHECK(out && !strstr(out, "OLDEPOCH"));
    CHECK_CONTAINS(out, "\"total\": 1"); /* the vote from before the crash */
    free(out);
    json_decref(m1);
    json_decref(m2);
    json_decref(epoch1);
    wsc_close_all(lap, page);
    CHECK_INT(serve_stop(), 0);
}

/* The hub crashes while a measure the presenter asked for waits for the
 * laptop (the prefetch's answer never came); after `--resume` the laptop is
 * asked again at once and its answer measures the question: the presenter
 * reveals without pressing m again. */
static void test_resume_asks_again_for_the_measure_in_flight(void) {
    char err[256];
    snprintf(dbpath, sizeof dbpath, "%s/inflight.db", check_tmpdir());
    json_t *m1 = NULL, *epoch1 = NULL;
    long long session = crash_mid_question("inflight-before", 1, &m1, &epoch1);
    json_decref(m1);
    REQUIRE(session > 0);

    int port = -1;
    struct wsc *lap = resumed_laptop("inflight-after", session, epoch1, &port); /* the measure, asked again */
    REQUIRE(lap);
    json_t *m2 = recv_t(lap, "measure", NULL);
    REQUIRE(m2);
    CHECK_STR(answer(lap, m2, NULL, "INFLIGHT"), "result_ok");
    json_decref(m2);
    struct wsc *page = fvr_presenter("127.0.0.1", port, SECRET, T_MS, err, sizeof err);
    REQUIRE(page);
    int rc = fvr_cmd(page, "reveal", T_MS, err, sizeof err); /* measured: no m pressed after the crash */
    if (rc) fprintf(stderr, "  reveal: %s\n", err);
    CHECK_INT(rc, 0);
    char *out = export_json(session);
    CHECK_CONTAINS(out, "INFLIGHT-evidence");
    json_decref(epoch1);
    CHECK_CONTAINS(out, "\"total\": 1"); /* the vote from before the crash */
    free(out);
    wsc_close_all(lap, page);
    CHECK_INT(serve_stop(), 0);
}

int main(void) {
    bin = serve_proc_bin();
    static char prefix[32];
    snprintf(prefix, sizeof prefix, "fvrm%d", (int)(getpid() % 100000));
    setenv("FRAGVOTE_LAB_PREFIX", prefix, 1);
    atexit(cleanup);
    RUN(test_a_talk_with_a_remote_prober);
    RUN(test_no_export_while_a_question_can_still_be_opened);
    RUN(test_resume_continues_with_the_laptop);
    RUN(test_resume_asks_again_for_the_measure_in_flight);
    return check_summary_and_clean();
}
