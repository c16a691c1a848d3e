/* Benchmark (not a ctest test): the group commit's SQL, as the hub's store
 * thread runs it, for a room whose phones all vote for the first time.
 * N phones' first votes on one open question go through the room's three
 * steps (room_write_plan on the loop, room_write_run on the store thread,
 * room_write_apply) in batches of B, with the checkpoints on their own
 * thread as in serve. Prints the time room_write_run took per vote and per
 * commit, and the three steps' total.
 *
 * --token-index adds back the index schema 5 had on the voters' token hash
 * (UNIQUE (session_id, token_hash)), to show what migration 6 removed.
 *
 * Usage: bench_store [--phones N] [--batch B] [--token-index] [--db PATH] */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "deck_fixture.h"
#include "fv_clock.h"
#include "room.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int usage(const char *why) {
    fprintf(stderr, "bench_store: %s\nusage: bench_store [--phones N] [--batch B] [--token-index] [--db PATH]\n", why);
    return 2;
}

int main(int argc, char **argv) {
    int phones = 19900, batch = 70, token_index = 0;
    char path[512];
    snprintf(path, sizeof path, "bench_store.db");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--phones") && i + 1 < argc) phones = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--token-index")) token_index = 1;
        else if (!strcmp(argv[i], "--db") && i + 1 < argc) snprintf(path, sizeof path, "%s", argv[++i]);
        else return usage("unknown argument");
    }
    if (phones < 1 || phones > ROOM_VOTERS_MAX || batch < 1) return usage("--phones and --batch must be positive");
    char side[600];
    const char *sfx[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) snprintf(side, sizeof side, "%s%s", path, sfx[i]), unlink(side);

    char err[256];
    struct db *db = db_open(path, err, sizeof err);
    if (!db) return fprintf(stderr, "bench_store: %s\n", err), 1;
    struct deck d;
    deck_fixture_one(&d, "bench", DECK_FIXTURE_SENT);
    struct room *r = room_create(db, &d, NULL, err, sizeof err);
    if (!r || room_act(r, ROOM_OPEN, err, sizeof err)) return fprintf(stderr, "bench_store: %s\n", err), 1;
    if (token_index) { /* schema 5's index, on a second connection before any voter */
        sqlite3 *h;
        if (sqlite3_open(path, &h) != SQLITE_OK ||
            sqlite3_exec(h, "CREATE UNIQUE INDEX voters_token ON voters(session_id, token_hash)", NULL, NULL, NULL) !=
                SQLITE_OK)
            return fprintf(stderr, "bench_store: %s\n", sqlite3_errmsg(h)), 1;
        sqlite3_close(h);
    }
    if (room_write_checkpoints_apart(r, err, sizeof err)) return fprintf(stderr, "bench_store: %s\n", err), 1;

    char (*tok)[ROOM_TOKEN_HEX + 1] = malloc(sizeof *tok * (size_t)phones);
    struct room_write *w = malloc(sizeof *w * (size_t)batch);
    int nb = (phones + batch - 1) / batch;
    double *t = malloc(sizeof *t * (size_t)nb), run_ms = 0;
    if (!tok || !w || !t) return fprintf(stderr, "bench_store: out of memory\n"), 1;
    for (int i = 0; i < phones; i++)
        if (room_token_new(r, tok[i], err, sizeof err)) return fprintf(stderr, "bench_store: %s\n", err), 1;
    double all0 = fv_clock_ms_frac();
    for (int b = 0; b < nb; b++) {
        int n = 0;
        for (int i = b * batch; i < phones && i < (b + 1) * batch; i++, n++)
            if (room_write_plan(r, &w[n], -1, tok[i], 0, i & 1, CONFIDENCE_NONE, n, err, sizeof err))
                return fprintf(stderr, "bench_store: %s\n", err), 1;
        double t0 = fv_clock_ms_frac();
        if (room_write_run(r, w, n, 5000, err, sizeof err)) return fprintf(stderr, "bench_store: %s\n", err), 1;
        t[b] = fv_clock_ms_frac() - t0;
        run_ms += t[b];
        for (int i = 0; i < n; i++)
            if (w[i].result) return fprintf(stderr, "bench_store: vote %d: %s\n", b * batch + i, w[i].err), 1;
        if (room_write_apply(r, w, n, err, sizeof err)) return fprintf(stderr, "bench_store: %s\n", err), 1;
    }
    double all_ms = fv_clock_ms_frac() - all0;
    int stored = room_voter_count(r);
    room_free(r);
    db_close(db);
    qsort(t, (size_t)nb, sizeof *t, cmp_double);
    printf("bench_store: %d first votes in %d commits of %d%s\n", phones, nb, batch,
           token_index ? ", with schema 5's index on the token hash" : "");
    printf("room_write_run: %.2f us a vote; a commit p50 %.3f ms, p99 %.3f ms, max %.3f ms; all three steps %.1f ms\n",
           run_ms * 1000.0 / phones, t[nb / 2], t[nb * 99 / 100], t[nb - 1], all_ms);
    printf("voters stored: %d\n", stored);
    free(tok);
    free(w);
    free(t);
    return stored == phones ? 0 : 1;
}
