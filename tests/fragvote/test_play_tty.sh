#!/usr/bin/env bash
# fragvote play on a real terminal (a pty from script(1)): each answer is one
# key without Enter (raw mode: the key is not echoed, the word is), a key
# that means nothing gets a hint and the question stays, and the game's
# answers, score line and grid match what was typed and the store's truths.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
src=${FRAGVOTE_SRC:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
command -v script >/dev/null || { echo "SKIP: script(1) from util-linux is missing"; exit 77; }
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 is missing"; exit 77; }
prefix="fvpt$$"
tmp=$(mktemp -d /tmp/fragvote-play-tty-XXXXXX)
cleanup() { "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }

# Keys as a person types them, with pauses; no Enter anywhere. 'x' means nothing.
keys() {
  sleep 2
  for k in y x n y; do printf '%s' "$k"; sleep 0.5; done
  sleep 2
}
keys | FRAGVOTE_LAB_PREFIX=$prefix timeout 60 script -qfec \
  "'$bin' play --deck '$src/tests/fragvote/play_deck.json' --db '$tmp/t.db'" /dev/null >"$tmp/screen" 2>&1
rc=$?
tr -d '\r' <"$tmp/screen" >"$tmp/s"
check exits_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && tail -c 2000 "$tmp/s"
votes=$(sqlite3 "$tmp/t.db" "SELECT group_concat(v.answer) FROM votes v JOIN questions q ON q.id = v.question_id ORDER BY q.position")
check keys_are_the_votes test "$votes" = "1,0,1"
check hint_for_x grep -q "answer y or n; q quits" "$tmp/s"
# Cooked mode would echo the key before the word (and wait for an Enter that never comes).
check key_not_echoed sh -c "! grep -Eq 'yyes|nno|x *\(' '$tmp/s'"
check words_echoed test "$(grep -E '\[y/n\]|q quits\)' "$tmp/s" | grep -Eo '(yes|no)$' | tr '\n' ,)" = "yes,no,yes,"
want=$(sqlite3 "$tmp/t.db" "SELECT correct || '/' || scored FROM voter_score")
check score_line grep -qx "My fragvote score: $want" "$tmp/s"
grid=$(sed -n '/^My fragvote score:/,/^$/p' "$tmp/s" | grep -E '^[-+.]+$' | tr '\n' ' ')
marks=$(sqlite3 "$tmp/t.db" "SELECT group_concat(CASE WHEN qt.truth NOT IN ('yes','no') OR v.answer IS NULL THEN '.' WHEN (v.answer = 1) = (qt.truth = 'yes') THEN '+' ELSE '-' END, '')
  FROM questions q JOIN question_truth qt ON qt.question_id = q.id LEFT JOIN votes v ON v.question_id = q.id GROUP BY q.test_index ORDER BY q.test_index" | tr '\n' ' ')
check grid_from_store test "$grid" = "$marks"
check all_revealed test "$(sqlite3 "$tmp/t.db" "SELECT count(*) FROM questions WHERE state = 'revealed'")" -eq 3
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
