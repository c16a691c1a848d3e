/* Connections on the live hub (hubroom.h): oversized, malformed, binary and
 * flooding clients cut alone, dead connections culled and live ones kept,
 * those beyond the cap refused, the open-files limit raised. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_path.h"
#include "check_probe.h"
#include "db.h"
#include "db_ckpt.h"
#include "hub_fd.h"
#include "hubroom.h"
#include "tcp_client.h"

static int still_served(struct wsc *other, int id) {
    json_t *r = NULL;
    int rc = hubroom_vote(other, id, 0, 1, &r);
    json_decref(r);
    return rc == 0 ? 1 : 0;
}

/* The hub closed w with code (and reason in its words, NULL: not checked)
 * once what it had sent was read; w freed. */
static void closed_with(struct wsc *w, int code, const char *reason) {
    char *m;
    while (wsc_recv(w, &m, T_MS) > 0) free(m);
    CHECK(wsc_closed(w));
    CHECK_INT(wsc_close_code(w), code);
    if (reason) CHECK_CONTAINS(wsc_close_reason(w), reason);
    wsc_free(w);
}

static void test_oversized_malformed_binary_and_flooding_clients_are_cut_alone(void) {
    REQUIRE(hubroom_start(0, 0) == 0);
    struct wsc *good = hubroom_phone(NULL, NULL, NULL);
    struct wsc *p = hubroom_presenter();
    REQUIRE(good && p);
    REQUIRE(hubroom_do(p, "open") == 0);

    struct wsc *big = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(big);
    char msg[HUB_MSG_MAX + 64];
    memset(msg, ' ', sizeof msg - 1);
    msg[sizeof msg - 1] = 0;
    memcpy(msg, "{\"t\":\"ping\",\"pad\":\"", 19);
    msg[sizeof msg - 3] = '"';
    msg[sizeof msg - 2] = '}';
    wsc_send_text(big, msg);
    closed_with(big, 1009, "larger");
    CHECK(still_served(good, 1));

    /* oversized in fragments: each piece small, the whole too big */
    struct wsc *frag = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(frag);
    char piece[400];
    memset(piece, 'x', sizeof piece);
    wsc_send_frame(frag, WSC_TEXT, 0, piece, sizeof piece);
    wsc_send_frame(frag, WSC_CONT, 0, piece, sizeof piece);
    wsc_send_frame(frag, WSC_CONT, 1, piece, sizeof piece);
    closed_with(frag, 1009, NULL);

    struct wsc *bad = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(bad);
    wsc_send_text(bad, "{\"t\": \"vote\", ");
    closed_with(bad, 1007, "malformed");

    struct wsc *bin = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(bin);
    wsc_send_frame(bin, WSC_BINARY, 1, "\x01\x02", 2);
    closed_with(bin, 1003, NULL);

    struct wsc *flood = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(flood);
    for (int i = 0; i < HUB_MSG_BURST * 3; i++)
        if (wsc_send_text(flood, "{\"t\":\"ping\"}")) break;
    closed_with(flood, 1008, "too many");

    CHECK(still_served(good, 2));
    wsc_close_all(good, p);
    hubroom_stop();
}

static void test_dead_connections_are_culled_and_live_ones_kept(void) {
    REQUIRE(hubroom_start_with(&hubroom_opts.keepalive_s, 1) == 0);
    struct wsc *dead = hubroom_phone(NULL, NULL, NULL);  /* stops reading: never answers a ping */
    struct wsc *alive = hubroom_phone(NULL, NULL, NULL); /* keeps reading: answers pings */
    REQUIRE(dead && alive);
    long long t0 = check_mono_ms();
    char *m;
    do {
        if (wsc_recv(alive, &m, 200) > 0) free(m);
    } while (check_mono_ms() - t0 < 5000 && !wsc_closed(alive));
    if (wsc_closed(alive)) fprintf(stderr, "alive closed: %d %s\n", wsc_close_code(alive), wsc_close_reason(alive));
    CHECK(!wsc_closed(alive));
    /* the dead one has been hung up on by now */
    while (wsc_recv(dead, &m, 1000) > 0) free(m);
    CHECK(wsc_closed(dead));
    struct hub_status st;
    WAIT_STATUS(st, st.connections == 1);
    CHECK_INT(st.connections, 1);
    wsc_close_all(dead, alive);
    hubroom_stop();
}

static void test_connections_beyond_the_cap_are_refused_others_unaffected(void) {
    REQUIRE(hubroom_start_with(&hubroom_opts.conn_max, 3) == 0);
    struct wsc *a = hubroom_phone(NULL, NULL, NULL), *b = hubroom_connect("fragvote-screen"), *c = hubroom_phone(NULL, NULL, NULL);
    REQUIRE(a && b && c);
    char err[256];
    struct wsc *d = wsc_connect("127.0.0.1", hubroom.fx.port, "/", "fragvote-audience", NULL, T_MS, err, sizeof err);
    CHECK(d == NULL);
    wsc_free(d);
    wsc_send_text(a, "{\"t\":\"ping\"}");
    json_t *m = wsc_recv_type(a, "pong", T_MS);
    CHECK(m != NULL); /* the ones inside the cap carry on */
    json_decref(m);
    wsc_close(c, 1000); /* a place frees up */
    usleep(300000);
    d = wsc_connect("127.0.0.1", hubroom.fx.port, "/", "fragvote-audience", NULL, T_MS, err, sizeof err);
    CHECK(d != NULL);
    wsc_free(d);
    wsc_close_all(a, b);
    hubroom_stop();
}

static void test_open_files_limit_is_raised_to_the_hard_limit_up_to_a_cap(void) {
    CHECK(hub_fd_nofile_target(20000) == 20000);
    CHECK(hub_fd_nofile_target(HUB_NOFILE_MAX) == HUB_NOFILE_MAX);
    CHECK(hub_fd_nofile_target(524288) == HUB_NOFILE_MAX);  /* Debian 12's systemd default */
    CHECK(hub_fd_nofile_target(1048576) == HUB_NOFILE_MAX); /* docker's */
    CHECK(hub_fd_nofile_target((unsigned long long)RLIM_INFINITY) == HUB_NOFILE_MAX);
    struct rlimit rl;
    REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024; /* the usual default soft limit */
    REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    REQUIRE(hubroom_start(0, 0) == 0);
    struct rlimit now;
    getrlimit(RLIMIT_NOFILE, &now);
    CHECK(now.rlim_cur == (rl.rlim_max < HUB_NOFILE_MAX ? rl.rlim_max : HUB_NOFILE_MAX));
    printf("    hard limit %llu: soft limit set to %llu%s\n", (unsigned long long)rl.rlim_max,
           (unsigned long long)now.rlim_cur, rl.rlim_max > HUB_NOFILE_MAX ? " (capped)" : " (the cap is not reached here)");
    hubroom_stop();
}

int main(void) {
    RUN(test_oversized_malformed_binary_and_flooding_clients_are_cut_alone);
    RUN(test_dead_connections_are_culled_and_live_ones_kept);
    RUN(test_connections_beyond_the_cap_are_refused_others_unaffected);
    RUN(test_open_files_limit_is_raised_to_the_hard_limit_up_to_a_cap);
    return check_summary();
}
