#!/usr/bin/env bash
# fragvote play with answers piped on stdin (one per line): the built-in deck
# answered all-yes and all-no gives the score and share grid the store's own
# truths give (one row per test, + right / - wrong / . unscored); a bad
# answer is asked again; q ends the game early with what was answered stored;
# each game is a session with one voter in `sessions` and `export`; the lab
# built for the game is removed.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
src=${FRAGVOTE_SRC:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 is missing"; exit 77; }
prefix="fvp$$"
export FRAGVOTE_LAB_PREFIX=$prefix
tmp=$(mktemp -d /tmp/fragvote-play-pipe-XXXXXX)
cleanup() { "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }
db="$tmp/p.db"
q() { sqlite3 "$db" "$1"; }

# The store's score of session $1's one voter: "correct/scored".
store_score() {
  q "SELECT vs.correct || '/' || vs.scored FROM voter_score vs JOIN voters v ON v.id = vs.voter_id WHERE v.session_id = $1"
}
# The grid printed after the score line (lines of + - . only).
grid() { sed -n '/^My fragvote score:/,/^$/p' "$1" | grep -E '^[-+.]+$'; }

# 1. All yes, built-in deck.
yes y | head -n 200 | timeout 120 "$bin" play --db "$db" >"$tmp/yes.out" 2>&1; rc=$?
check yes_exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && tail -20 "$tmp/yes.out"
want=$(store_score 1)
check yes_score_matches_store grep -qx "My fragvote score: $want" "$tmp/yes.out"
ntests=$(grep -c '"proto"' "$src/decks/fragquiz.json")
check yes_grid_one_row_per_test test "$(grid "$tmp/yes.out" | wc -l)" -eq "$ntests"
check yes_grid_marks_all_questions test "$(grid "$tmp/yes.out" | tr -d '\n' | wc -c)" -eq "$(q 'SELECT count(*) FROM questions WHERE session_id = 1')"
plus=$(grid "$tmp/yes.out" | tr -cd '+' | wc -c); minus=$(grid "$tmp/yes.out" | tr -cd '-' | wc -c)
check yes_grid_plus_is_correct test "$plus/$((plus + minus))" = "$want"
check yes_every_answer_stored test "$(q 'SELECT count(*) FROM votes v JOIN questions q ON q.id = v.question_id WHERE q.session_id = 1 AND v.answer = 1')" \
  -eq "$(q "SELECT count(*) FROM questions WHERE session_id = 1 AND state = 'revealed'")"
check yes_evidence_shown grep -q "^    evidence  " "$tmp/yes.out"
# issue 37: every reveal explains its fact by the rules, and the built-in deck on the lab holds no surprise
check yes_every_reveal_has_the_rules test "$(grep -c '^    the rules ' "$tmp/yes.out")" \
  -eq "$(q "SELECT count(*) FROM questions WHERE session_id = 1 AND state = 'revealed'")"
check yes_rules_name_the_mode grep -q "^    the rules .*IP_PMTUDISC_DO refuses a datagram larger than the route's MTU" "$tmp/yes.out"
check yes_no_surprise_on_the_lab test "$(grep -c 'Surprise:' "$tmp/yes.out")" -eq 0
grep -m3 "^    the rules " "$tmp/yes.out"
check yes_truth_shown grep -Eq "^    truth     (yes|no) \((observed|inferred), raw observer\): you were (right|wrong)" "$tmp/yes.out"
check yes_session_ended test -n "$(q 'SELECT ended_at FROM sessions WHERE id = 1')"

# 2. All no: every scored mark flips.
yes n | head -n 200 | timeout 120 "$bin" play --db "$db" >"$tmp/no.out" 2>&1; rc=$?
check no_exit_0 test "$rc" -eq 0
check no_score_matches_store grep -qx "My fragvote score: $(store_score 2)" "$tmp/no.out"
flip=$(grid "$tmp/yes.out" | tr '+-' '-+')
check no_grid_is_yes_grid_flipped test "$(grid "$tmp/no.out")" = "$flip"

# 3. A bad answer is asked again; q quits early and the game is stored so far.
printf 'y\nmaybe\nn\nq\n' | timeout 60 "$bin" play --deck "$src/tests/fragvote/play_deck.json" --db "$db" >"$tmp/q.out" 2>&1; rc=$?
check quit_exit_0 test "$rc" -eq 0
check quit_bad_answer_hint grep -q "answer y or n; q quits" "$tmp/q.out"
check quit_two_votes test "$(q 'SELECT group_concat(v.answer) FROM votes v JOIN questions q ON q.id = v.question_id WHERE q.session_id = 3 ORDER BY q.position')" = "1,0"
check quit_third_not_left_open test "$(q 'SELECT state FROM questions WHERE session_id = 3 AND position = 2')" = skipped
check quit_score_printed grep -qx "My fragvote score: $(store_score 3)" "$tmp/q.out"
check quit_grid_third_unscored test "$(grid "$tmp/q.out" | sed -n 2p)" = "."

# 4. sessions and export show the games as sessions with one voter.
"$bin" sessions --db "$db" >"$tmp/sessions.out"
check sessions_lists_three test "$(grep -cE '^ +[0-9]+ ' "$tmp/sessions.out")" -eq 3
check sessions_one_voter test "$(awk '$1 == 3 {print $(NF-1)}' "$tmp/sessions.out")" = 1
"$bin" export 3 --format json --db "$db" >"$tmp/e.json"
check export_one_voter python3 -c "import json,sys; s=json.load(open('$tmp/e.json'))['sessions'][0]; sys.exit(0 if s['voters']==1 and [q['yes'] for q in s['questions']][:2]==[1,0] else 1)"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
