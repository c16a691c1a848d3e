/* One host cannot fill the room (issue 36, item 4), against the real hub on
 * a free loopback port, its cap lowered to ROOM websockets and the
 * per-address share to PER_ADDR. Clients come from 127.0.0.2 and up (the
 * hub's own address, 127.0.0.1, is "this host" and never capped per
 * address):
 *   - one address gets PER_ADDR audience websockets, the next is refused;
 *   - scripts from many addresses holding websockets that never say hello
 *     fill the phones' part of the room; a real phone, a screen and a
 *     presenter page still get in (the silent connection open longest is
 *     closed to make way, 1013);
 *   - when every phone's place is taken by phones that joined, a new phone
 *     is refused, but screens and presenter pages still have their
 *     HUB_CONN_RESERVE places. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fv_roles.h"
#include "deck_fixture.h"
#include "hubfix.h"
#include "wsclient.h"

#define T_MS 5000
#define SECRET "fill-test-presenter-secret"
#define ROOM_CODE "FILL23"
#define ROOM 300     /* websockets in the room (conn_max) */
#define PER_ADDR 50  /* audience websockets per address (ws_per_addr) */
#define MAXC 400

static struct hubfix F;
static struct deck D;
static struct wsc *held[MAXC];
static int nheld;

static int start(void) {
    char path[256];
    deck_fixture_one(&D, "fill test", DECK_FIXTURE_SENT);
    snprintf(path, sizeof path, "%s/fill.db", check_tmpdir());
    struct hub_config cfg = hubfix_config(SECRET);
    cfg.conn_max = ROOM;
    cfg.ws_per_addr = PER_ADDR;
    return hubfix_start_yes_yes_no(&F, path, &D, ROOM_CODE, 0, SECRET, &cfg);
}

/* An audience websocket from 127.0.0.<src> (hello: a phone that joins). */
static struct wsc *audience(int src, int hello, char *err, size_t errlen) {
    char addr[32];
    snprintf(addr, sizeof addr, "127.0.0.%d", src);
    struct wsc *w = wsc_connect("127.0.0.1", F.port, "/", "fragvote-audience", addr, T_MS, err, errlen);
    if (w && hello && fvr_hello(w, ROOM_CODE, 1, NULL, T_MS, NULL, err, errlen)) {
        wsc_free(w);
        return NULL;
    }
    return w;
}

static void hold(struct wsc *w) {
    if (w && nheld < MAXC) held[nheld++] = w;
    else wsc_free(w);
}

static void release_all(void) {
    for (int i = 0; i < nheld; i++) wsc_free(held[i]);
    nheld = 0;
}

/* What the console's "Connections refused" line counts (hub_snapshot). */
static void counted(unsigned long *refused, unsigned long *evicted) {
    struct hub_status st;
    usleep(2 * 1000000 / HUB_TALLY_HZ); /* the status follows at the tally tick's pace */
    hub_snapshot(F.hub, &st);
    *refused = st.conns_refused;
    *evicted = st.conns_evicted;
}

static void test_one_address_gets_its_share_only(void) {
    char err[256];
    int got = 0;
    unsigned long r0, e0, r1, e1;
    counted(&r0, &e0);
    for (int i = 0; i < PER_ADDR + 5; i++) {
        struct wsc *w = audience(2, 0, err, sizeof err);
        if (w) got++;
        hold(w);
    }
    printf("127.0.0.2 asked %d audience websockets: %d accepted\n", PER_ADDR + 5, got);
    CHECK_INT(got, PER_ADDR);
    counted(&r1, &e1);
    CHECK_INT((int)(r1 - r0), 5); /* the refusals reach the console's status */
    CHECK_INT((int)(e1 - e0), 0);
    struct wsc *other = audience(3, 1, err, sizeof err); /* another address: unaffected */
    CHECK(other != NULL);
    wsc_free(other);
    release_all();
    usleep(300000); /* the closes reach the hub */
    struct wsc *again = audience(2, 0, err, sizeof err); /* its share is free again */
    CHECK(again != NULL);
    wsc_free(again);
    usleep(200000);
}

static void test_silent_scripts_make_way(void) {
    char err[256];
    unsigned long r0, e0, r1, e1;
    counted(&r0, &e0);
    /* silent websockets from 7 addresses: more than the phones' part of the room */
    int silent = 0;
    for (int src = 10; src < 17; src++)
        for (int i = 0; i < PER_ADDR; i++) {
            struct wsc *w = audience(src, 0, err, sizeof err);
            if (w) silent++;
            hold(w);
        }
    printf("silent websockets held: %d (the room: %d, of which %d for screens and presenters)\n", silent, ROOM,
           HUB_CONN_RESERVE);
    struct wsc *p = audience(20, 1, err, sizeof err);
    if (!p) fprintf(stderr, "phone: %s\n", err);
    CHECK(p != NULL);
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    CHECK(s != NULL);
    struct wsc *pres = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    if (!pres) fprintf(stderr, "presenter: %s\n", err);
    CHECK(pres != NULL);
    /* the oldest silent one was told why */
    long n;
    do { /* its state frame first, then the close */
        char *m = NULL;
        n = wsc_recv(held[0], &m, T_MS);
        free(m);
    } while (n > 0);
    CHECK_INT(wsc_close_code(held[0]), 1013);
    counted(&r1, &e1);
    CHECK(e1 - e0 >= 1); /* the evictions reach the console's status */
    printf("counted: %lu refused, %lu silent closed\n", r1 - r0, e1 - e0);
    printf("the first silent websocket: closed %d \"%s\"\n", wsc_close_code(held[0]), wsc_close_reason(held[0]));
    wsc_free(p);
    wsc_free(s);
    wsc_free(pres);
    release_all();
    usleep(500000);
}

static void test_joined_phones_keep_their_places_screens_their_reserve(void) {
    char err[256];
    int joined = 0;
    for (int src = 30; src < 40 && joined < ROOM; src++)
        for (int i = 0; i < PER_ADDR; i++) {
            struct wsc *w = audience(src, 1, err, sizeof err);
            if (!w) break;
            joined++;
            hold(w);
        }
    printf("phones that joined: %d (the phones' part: %d)\n", joined, ROOM - HUB_CONN_RESERVE);
    CHECK_INT(joined, ROOM - HUB_CONN_RESERVE);
    struct wsc *late = audience(50, 1, err, sizeof err);
    CHECK(late == NULL); /* nobody to make way */
    wsc_free(late);
    unsigned long r, e;
    counted(&r, &e);
    CHECK(r >= 1);
    struct wsc *s = fvr_connect("127.0.0.1", F.port, "fragvote-screen", T_MS, err, sizeof err);
    struct wsc *pres = fvr_presenter("127.0.0.1", F.port, SECRET, T_MS, err, sizeof err);
    CHECK(s != NULL && pres != NULL);
    wsc_free(s);
    wsc_free(pres);
    release_all();
}

int main(void) {
    if (start() != 0) return 1;
    RUN(test_one_address_gets_its_share_only);
    RUN(test_silent_scripts_make_way);
    RUN(test_joined_phones_keep_their_places_screens_their_reserve);
    hubfix_stop(&F);
    return check_summary();
}
