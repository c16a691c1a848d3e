#!/usr/bin/env bash
# A normal user (no capabilities) plays against a real target: play picks
# the recverr observer by itself, says it cannot flush the PMTU cache, and
# sent/DF are measured (yes/no with their basis), and what recverr cannot see
# (a router's fragmenting) is an honest unknown, unscored ('.'). Loopback only. Needs root only to become nobody (setpriv).
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
src=${FRAGVOTE_SRC:?run through ctest}
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then echo "SKIP: needs root and setpriv to run as nobody"; exit 77; fi
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 is missing"; exit 77; }
tmp=$(mktemp -d /tmp/fragvote-play-unpriv-XXXXXX)
chmod 0777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }
printf 'y\ny\nn\n' | (cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups timeout 60 "$bin" play \
  --deck "$src/tests/fragvote/play_deck.json" --target 127.0.0.1 --db "$tmp/u.db") >"$tmp/out" 2>&1; rc=$?
check exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/out"
check says_recverr grep -q "Observer: recverr" "$tmp/out"
check says_no_flush grep -q "without CAP_NET_ADMIN the PMTU cache is not flushed" "$tmp/out"
sqlite3 "$tmp/u.db" "SELECT q.kind, m.answer, m.basis, m.observer FROM measurements m JOIN questions q ON q.id = m.question_id ORDER BY q.position" >"$tmp/m.txt"
cat "$tmp/m.txt"
check three_measurements test "$(wc -l <"$tmp/m.txt")" -eq 3
check sent_observed grep -qx "sent|yes|observed|recverr" "$tmp/m.txt"
check sent_df_measured sh -c "head -n 2 '$tmp/m.txt' | grep -vq '|unknown|'"
# DF=0 across a router cannot be seen without CAP_NET_RAW: an honest unknown, unscored.
check fragmented_unknown_unscored grep -q "truth     unknown (unknown, recverr observer): not scored" "$tmp/out"
check grid_dot_for_unknown test "$(sed -n '/^My fragvote score:/,/^$/p' "$tmp/out" | grep -E '^[-+.]+$' | sed -n 2p)" = "."
check score_line grep -qx "My fragvote score: $(sqlite3 "$tmp/u.db" "SELECT correct || '/' || scored FROM voter_score")" "$tmp/out"
check target_stored test "$(sqlite3 "$tmp/u.db" "SELECT target || ' ' || observer FROM sessions")" = "127.0.0.1 recverr"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
