#!/usr/bin/env bash
# The reader-challenge deck through fragvote serve: udp4, tcp4, udp4 with
# default options on the lab. With the deck's keep_pmtu_cache the first udp4
# send fills the PMTU cache, so the third (same command) is measured
# differently from the first; with the cache flushed before each test (the
# same deck, keep_pmtu_cache false) the first and third agree.
set -u
. "$(dirname "$0")/../support/lib.sh"
src=${FRAGVOTE_SRC:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
prefix="fvr$$"
fv_tmp serve-rc

# Every question: open, close, measure, reveal, next (no phones: nothing scored).
{
  for _ in $(seq 1 9); do
    printf 'open\nclose\nmeasure\nwait-measured 20000\nreveal\nnext\nquit-at-end\n'
  done
  printf 'quit\n'
} >"$tmp/talk.script"

run_deck() { # deck db [extra serve options]
  local deck=$1 db=$2
  shift 2
  FRAGVOTE_LAB_PREFIX=$prefix "$bin" serve --deck "$deck" --db "$db" --port 0 --bind 127.0.0.1 --no-qr \
    --script "$tmp/talk.script" "$@" </dev/null >"$db.out" 2>&1
}
fact() { # db test_index kind field -> the live measurement's answer, or an observation field
  if [ "$4" = answer ]; then
    sqlite3 "$1" "SELECT m.answer FROM measurements m JOIN questions q ON q.id = m.question_id
                  WHERE q.test_index = $2 AND q.kind = '$3' ORDER BY m.id DESC LIMIT 1"
  else
    sqlite3 "$1" "SELECT json_extract(m.observation, '\$.$4') FROM measurements m JOIN questions q ON q.id = m.question_id
                  WHERE q.test_index = $2 AND q.kind = '$3' ORDER BY m.id DESC LIMIT 1"
  fi
}

run_deck "$src/decks/reader-challenge.json" "$tmp/keep.db"; rc=$?
check keep_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/keep.db.out"
first=$(fact "$tmp/keep.db" 0 fragmented answer)
third=$(fact "$tmp/keep.db" 2 fragmented answer)
echo "cache kept:    run 1 fragmented=$first ($(fact "$tmp/keep.db" 0 fragmented fragmenter)), run 3 fragmented=$third ($(fact "$tmp/keep.db" 2 fragmented fragmenter)), run 3 cached PMTU before: $(fact "$tmp/keep.db" 2 sent cached_pmtu_before)"
check keep_both_measured test -n "$first" -a -n "$third"
check keep_run3_differs test "$first" != "$third"
check keep_run3_host_fragmented test "$(fact "$tmp/keep.db" 2 fragmented fragmenter)" = host
check keep_run3_saw_cached_pmtu test "$(fact "$tmp/keep.db" 2 sent cached_pmtu_before)" -gt 0

sed 's/"keep_pmtu_cache": true/"keep_pmtu_cache": false/' "$src/decks/reader-challenge.json" >"$tmp/flush.json"
check flush_deck_differs grep -q '"keep_pmtu_cache": false' "$tmp/flush.json"
run_deck "$tmp/flush.json" "$tmp/flush.db"; rc=$?
check flush_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/flush.db.out"
f1=$(fact "$tmp/flush.db" 0 fragmented answer)
f3=$(fact "$tmp/flush.db" 2 fragmented answer)
echo "cache flushed: run 1 fragmented=$f1, run 3 fragmented=$f3"
check flush_run3_same_as_run1 test -n "$f1" -a "$f1" = "$f3"
check flush_run1_same_as_keep_run1 test "$f1" = "$first"
# --keep-pmtu-cache on the command line does what the deck's field does.
run_deck "$tmp/flush.json" "$tmp/flag.db" --keep-pmtu-cache; rc=$?
check flag_exit_0 test "$rc" -eq 0
g1=$(fact "$tmp/flag.db" 0 fragmented answer)
g3=$(fact "$tmp/flag.db" 2 fragmented answer)
echo "--keep-pmtu-cache: run 1 fragmented=$g1, run 3 fragmented=$g3"
check flag_run3_like_keep test -n "$g3" -a "$g1" = "$first" -a "$g3" = "$third"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
exit $fail
