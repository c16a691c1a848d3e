#!/usr/bin/env bash
# bench_store (tests/bench/bench_store.c, a benchmark) still builds, runs and
# stores every vote, with and without schema 5's token index; the numbers
# themselves are docs/BENCHMARKS.md's business, not this test's.
set -euo pipefail
bench=$FRAGVOTE_BUILD/tests/bench/bench_store
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for extra in "" --token-index; do
    out=$("$bench" --phones 500 --batch 7 --db "$tmp/b.db" $extra)
    echo "$out"
    grep -q '^room_write_run: [0-9.]* us a vote' <<<"$out"
    grep -qx 'voters stored: 500' <<<"$out"
done
echo PASS
