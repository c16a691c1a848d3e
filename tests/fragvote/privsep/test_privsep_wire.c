/* serve's privileged helper and its hub (fragvote/privsep/, issue 36 item
 * 11): the messages' parsers on canned bytes (every malformed request is
 * refused, nothing else than "run SEQ TEST" of the deck and "quit" is
 * understood); the helper's real loop on a real socketpair (a refused
 * request runs nothing, a valid one runs the deck's test, EOF ends it); and
 * the hub's side against a real helper process that hangs, answers another
 * test, or is killed: an error with the reason within the deadline, never a
 * result. */
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fv_clock.h"
#include "privsep_client.h"
#include "privsep_helper.h"
#include "privsep_wire.h"
#include "probe_json.h"
#include "prober.h"

#define NTESTS 38

static int req_ok(const char *bytes, size_t len, struct privsep_req *r) {
    char err[200] = "";
    int rc = privsep_req_parse(bytes, len, NTESTS, r, err, sizeof err);
    if (rc < 0 && !err[0]) fprintf(stderr, "refused without a reason\n");
    return rc == 0;
}

static void test_requests_parsed_strictly(void) {
    struct privsep_req r;
    CHECK(req_ok("quit", 4, &r));
    CHECK_INT(r.kind, PRIVSEP_QUIT);
    CHECK(req_ok("run 1 0", 7, &r));
    CHECK_INT(r.kind, PRIVSEP_RUN);
    CHECK_INT(r.seq, 1);
    CHECK_INT(r.test, 0);
    CHECK(req_ok("run 2000000000 37", 17, &r));
    CHECK_INT(r.seq, 2000000000L);
    CHECK_INT(r.test, 37);
    static const char *bad[] = {
        "", "quit\n", "QUIT", "quit ", "run", "run ", "run 1", "run 1 ", "run 1 38", "run 1 99999999999",
        "run 0 1", "run 01 1", "run 1 01", "run -1 1", "run +1 1", "run 1 -1", "run 1  1", "run  1 1", "run 1 1 ",
        " run 1 1", "run 1 1\n", "run 2000000001 1", "run 1 1x", "run\t1 1", "run 1 0x1", "flush", "lab down",
        "lab up", "scenario 1", "run 1 1;ip netns del x", "run 1 1 /bin/sh", "spec udp4 1400",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (req_ok(bad[i], strlen(bad[i]), &r)) fprintf(stderr, "accepted: \"%s\"\n", bad[i]);
        CHECK(!req_ok(bad[i], strlen(bad[i]), &r));
    }
    CHECK(!req_ok("run 1 1\0", 8, &r));            /* a NUL */
    CHECK(!req_ok("quit\0", 5, &r));
    char big[PRIVSEP_REQ_MAX + 8];
    memset(big, '1', sizeof big);
    memcpy(big, "run 1 ", 6);
    CHECK(!req_ok(big, sizeof big, &r));           /* longer than the cap */
    char err[200];
    CHECK_INT(privsep_req_parse("run 1 0", 7, 0, &r, err, sizeof err), -1); /* a deck without tests */
    /* The writer's text reads back. */
    char msg[PRIVSEP_REQ_MAX + 1];
    struct privsep_req w = {.kind = PRIVSEP_RUN, .seq = 42, .test = 7};
    int n = privsep_req_format(&w, msg, sizeof msg);
    CHECK_STR(msg, "run 42 7");
    CHECK(n > 0 && req_ok(msg, (size_t)n, &r) && r.seq == 42 && r.test == 7);
}

/* A result as the helper would send it: a udp4 DO test of size bytes. */
static struct probe_result a_result(int size) {
    struct probe_result r;
    struct probe_spec spec = {.proto = PROBE_UDP4, .mode = PROBE_MODE_DO, .size = size, .ttl = 2, .port = 33434};
    snprintf(spec.host, sizeof spec.host, "10.99.2.2");
    prober_result_unknown(&spec, "nothing seen yet", &r);
    r.sent = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "r1 forwarded it"};
    r.df = (struct probe_fact){.answer = PROBE_ANS_YES, .basis = PROBE_BASIS_OBSERVED, .why = "quoted header: DF=1"};
    r.fragmented = (struct probe_fact){.answer = PROBE_ANS_NO, .basis = PROBE_BASIS_OBSERVED, .why = "whole"};
    r.fragmenter = PROBE_FRAG_NONE;
    snprintf(r.egress.observer, sizeof r.egress.observer, "raw");
    snprintf(r.evidence, sizeof r.evidence, "sent whole with DF");
    return r;
}

static int reply_ok(const char *bytes, size_t len, struct privsep_reply *r) {
    char err[200] = "";
    int rc = privsep_reply_parse(bytes, len, r, err, sizeof err);
    return rc == 0;
}

static void test_replies_parsed_strictly(void) {
    struct privsep_reply *r = calloc(1, sizeof *r);
    REQUIRE(r);
    CHECK(reply_ok("ready", 5, r) && r->kind == PRIVSEP_READY && !r->lab);
    const char *lab = "ready {\"routers\":2}";
    CHECK(reply_ok(lab, strlen(lab), r) && r->kind == PRIVSEP_READY);
    CHECK_STR(r->lab, "{\"routers\":2}");
    free(r->lab);
    CHECK(reply_ok("fail the lab could not be built", 31, r) && r->kind == PRIVSEP_FAIL);
    CHECK_STR(r->why, "the lab could not be built");
    CHECK(reply_ok("err 0 refused: x", 16, r) && r->kind == PRIVSEP_ERR && r->seq == 0);
    /* An "ok" carries the result that probe_result_to_json wrote, read back the same. */
    struct privsep_reply w = {.kind = PRIVSEP_OK, .seq = 9, .result = a_result(1400)};
    char *msg = privsep_reply_format(&w);
    REQUIRE(msg);
    CHECK(strncmp(msg, "ok 9 {", 6) == 0);
    CHECK(reply_ok(msg, strlen(msg), r) && r->kind == PRIVSEP_OK && r->seq == 9);
    char *a = probe_observation_json(&w.result), *b = probe_observation_json(&r->result);
    CHECK_STR(b, a);
    free(a);
    free(b);
    static const char *bad[] = {
        "", "ready ", "ready []", "ready {", "ready {\"a\":1,\"a\":2}", "READY", "fail", "fail ", "fail a\nb",
        "ok 9", "ok 9 ", "ok 0 {}", "ok 09 {}", "ok 9 [1]", "ok 9 {\"sent\":\"yes\"}", "ok x {}", "err 1",
        "err 1 ", "err 1 a\tb", "okay 9 {}", "result 9 {}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (reply_ok(bad[i], strlen(bad[i]), r)) fprintf(stderr, "accepted: \"%s\"\n", bad[i]);
        CHECK(!reply_ok(bad[i], strlen(bad[i]), r));
        if (r->lab) free(r->lab), r->lab = NULL;
    }
    CHECK(!reply_ok(msg, strlen(msg) - 1, r));    /* cut JSON */
    char *big = malloc(PRIVSEP_REPLY_MAX + 2);
    REQUIRE(big);
    memset(big, ' ', PRIVSEP_REPLY_MAX + 1);
    memcpy(big, msg, strlen(msg));
    CHECK(!reply_ok(big, PRIVSEP_REPLY_MAX + 1, r)); /* over the cap, even with valid JSON and blanks */
    free(big);
    free(msg);
    free(r);
}

/* The helper's loop on a real socketpair; its "deck" runs a_result(1400 + test). */
struct fake_deck {
    int runs, last;
    int hang_ms, wrong;
};

static void deck_run(void *ctx, int test, struct probe_result *out) {
    struct fake_deck *d = ctx;
    d->runs++;
    d->last = test;
    if (d->hang_ms) usleep((useconds_t)d->hang_ms * 1000);
    *out = a_result(d->wrong ? 600 : 1400 + test);
}

struct loop_arg {
    int fd, rc;
    struct fake_deck deck;
};

static void *loop_main(void *p) {
    struct loop_arg *a = p;
    struct privsep_helper_ops ops = {.ntests = NTESTS, .run = deck_run, .ctx = &a->deck};
    a->rc = privsep_helper_serve(a->fd, &ops);
    return NULL;
}

/* Sends bytes, returns the reply as text (static). */
static const char *ask(int fd, const char *bytes, size_t len) {
    static char buf[PRIVSEP_REPLY_MAX + 1];
    if (send(fd, bytes, len, 0) != (ssize_t)len) return "(send failed)";
    ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
    if (n < 0) return "(recv failed)";
    buf[n] = 0;
    return buf;
}

static void test_the_helper_refuses_malformed_requests_and_runs_nothing(void) {
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
    struct loop_arg a = {.fd = sv[1]};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, loop_main, &a) == 0);
    CHECK_CONTAINS(ask(sv[0], "run 1 38", 8), "err 0 refused: run: TEST");
    CHECK_CONTAINS(ask(sv[0], "run 1 1 ", 8), "err 0 refused");
    CHECK_CONTAINS(ask(sv[0], "flush", 5), "err 0 refused: an unknown request");
    char big[4096];
    memset(big, 'A', sizeof big);
    memcpy(big, "run 1 1", 7);
    CHECK_CONTAINS(ask(sv[0], big, sizeof big), "err 0 refused: a request of 4096 bytes");
    CHECK_INT(a.deck.runs, 0);
    const char *ok = ask(sv[0], "run 5 3", 7);
    CHECK(strncmp(ok, "ok 5 {", 6) == 0);
    CHECK_INT(a.deck.runs, 1);
    CHECK_INT(a.deck.last, 3);
    struct privsep_reply *r = calloc(1, sizeof *r);
    char err[200];
    CHECK_INT(privsep_reply_parse(ok, strlen(ok), r, err, sizeof err), 0);
    CHECK_INT(r->result.spec.size, 1403);
    free(r);
    close(sv[0]); /* the hub's end closes: the loop ends with 1 (EOF) */
    pthread_join(t, NULL);
    CHECK_INT(a.rc, 1);
    close(sv[1]);
    /* "quit" ends it with 0. */
    REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
    a = (struct loop_arg){.fd = sv[1]};
    REQUIRE(pthread_create(&t, NULL, loop_main, &a) == 0);
    CHECK(send(sv[0], "quit", 4, 0) == 4);
    pthread_join(t, NULL);
    CHECK_INT(a.rc, 0);
    close(sv[0]);
    close(sv[1]);
}

/* ---- the hub's side against a helper process ---- */

static char noted[512];
static int notes;
static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;
static void on_note(void *ctx, const char *line) {
    (void)ctx;
    pthread_mutex_lock(&note_lock);
    snprintf(noted, sizeof noted, "%s", line);
    notes++;
    pthread_mutex_unlock(&note_lock);
}

/* A helper process serving a fake deck; the client for it (run_ms deadline). */
static struct privsep_client *helper_process(struct fake_deck deck, int run_ms, long *pid) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return NULL;
    pid_t p = fork();
    if (p == 0) {
        close(sv[0]);
        struct privsep_helper_ops ops = {.ntests = NTESTS, .run = deck_run, .ctx = &deck};
        privsep_helper_hello(sv[1], NULL, NULL);
        _exit(privsep_helper_serve(sv[1], &ops) == 0 ? 0 : 7);
    }
    close(sv[1]);
    *pid = p;
    char err[200], *lab = NULL;
    struct privsep_client_config cfg = {.fd = sv[0], .pid = p, .note = on_note, .run_ms = run_ms};
    struct privsep_client *c = privsep_client_new(&cfg, err, sizeof err);
    if (c && privsep_client_ready(c, 5000, &lab, err, sizeof err) < 0) {
        fprintf(stderr, "not ready: %s\n", err);
        privsep_client_free(c);
        return NULL;
    }
    free(lab);
    return c;
}

static void test_the_hub_gets_results_or_a_reason_never_a_wrong_one(void) {
    struct probe_spec s1401 = a_result(1401).spec;
    struct probe_result out;
    char err[300];
    long pid;
    /* A helper that works: the result of the test asked; quit ends it with 0. */
    struct privsep_client *c = helper_process((struct fake_deck){0}, 5000, &pid);
    REQUIRE(c);
    CHECK_INT(privsep_client_run(c, 1, &s1401, &out, err, sizeof err), 0);
    CHECK_INT(out.spec.size, 1401);
    CHECK_INT(out.sent.answer, PROBE_ANS_YES);
    CHECK_INT(privsep_client_free(c), 0);
    /* A helper that answers another test's result: refused, and not asked again. */
    c = helper_process((struct fake_deck){.wrong = 1}, 5000, &pid);
    REQUIRE(c);
    CHECK_INT(privsep_client_run(c, 1, &s1401, &out, err, sizeof err), -1);
    CHECK_CONTAINS(err, "another test's result");
    CHECK_INT(privsep_client_run(c, 1, &s1401, &out, err, sizeof err), -1);
    CHECK_CONTAINS(err, "another test's result");
    privsep_client_free(c);
    /* A helper that hangs: the deadline, not a hang. */
    c = helper_process((struct fake_deck){.hang_ms = 3000}, 400, &pid);
    REQUIRE(c);
    long long t0 = fv_clock_ms();
    CHECK_INT(privsep_client_run(c, 1, &s1401, &out, err, sizeof err), -1);
    long long took = fv_clock_ms() - t0;
    CHECK(took >= 350 && took < 1500);
    CHECK_CONTAINS(err, "did not answer");
    CHECK_CONTAINS(noted, "did not answer");
    privsep_client_free(c);
    /* A helper killed: said once on the console, every run an error at once. */
    c = helper_process((struct fake_deck){0}, 5000, &pid);
    REQUIRE(c);
    int before = notes;
    kill((pid_t)pid, SIGKILL);
    for (int i = 0; i < 100 && notes == before; i++) usleep(20000);
    CHECK_INT(notes, before + 1);
    CHECK_CONTAINS(noted, "was killed by signal 9");
    CHECK_CONTAINS(noted, "\"unknown\"");
    t0 = fv_clock_ms();
    CHECK_INT(privsep_client_run(c, 1, &s1401, &out, err, sizeof err), -1);
    CHECK(fv_clock_ms() - t0 < 200);
    CHECK_CONTAINS(err, "the privileged helper");
    CHECK_INT(privsep_client_free(c), -1);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    RUN(test_requests_parsed_strictly);
    RUN(test_replies_parsed_strictly);
    RUN(test_the_helper_refuses_malformed_requests_and_runs_nothing);
    RUN(test_the_hub_gets_results_or_a_reason_never_a_wrong_one);
    return check_summary();
}
