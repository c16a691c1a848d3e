#!/usr/bin/env bash
# Console commands piped on stdin (no terminal): one command per line, a bad
# line is reported with its line number and the talk goes on; quit ends serve.
set -u
. "$(dirname "$0")/../../support/lib.sh"
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
prefix="fvp$$"
fv_tmp console-pipe

printf 'open\n# a comment\ndance\nclose\nmeasure\nwait-measured 20000\nshow\nreveal\nshow\nnext\nskip\nshow\nopen 1\nsleep 1800\nsecret\nquit\n' |
  FRAGVOTE_LAB_PREFIX=$prefix timeout 60 "$bin" serve --db "$tmp/p.db" --port 0 --bind 127.0.0.1 --no-qr \
  >"$tmp/out" 2>&1
rc=$?
check exits_0 test "$rc" -eq 0
check bad_line_reported grep -q "stdin:3: unknown command 'dance'" "$tmp/out"
check q1_revealed test "$(sqlite3 "$tmp/p.db" "SELECT state FROM questions WHERE position = 0")" = revealed
check q2_skipped test "$(sqlite3 "$tmp/p.db" "SELECT state FROM questions WHERE position = 1")" = skipped
check show_prints_q3 grep -q "Question 3/38" "$tmp/out"
# The result appears on the console after the reveal, never before it.
truth=$(sqlite3 "$tmp/p.db" "SELECT m.answer FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.position = 0")
check result_after_reveal grep -q "^Truth: $truth   Majority: - (unscored)" "$tmp/out"
check result_shown_once test "$(grep -c '^Truth: ' "$tmp/out")" -eq 1
first_truth=$(grep -n '^Truth: ' "$tmp/out" | head -1 | cut -d: -f1)
first_revealed=$(grep -n '^State: revealed' "$tmp/out" | head -1 | cut -d: -f1)
first_measured=$(grep -n '^State: measured' "$tmp/out" | head -1 | cut -d: -f1)
check measured_frame_shown test -n "$first_measured"
check truth_only_in_revealed_frame test -n "$first_truth" -a -n "$first_revealed" -a "${first_truth:-0}" -gt "${first_revealed:-0}" -a "${first_measured:-0}" -lt "${first_revealed:-0}"
# Between commands the log says what changed by itself: the 1 s timer closed voting.
check timer_close_logged grep -q "^status: question 3/38 closed, 0 votes, 0 voters (0 online)" "$tmp/out"
# The secret only when asked for ('secret'), never in the screen printed at start.
check secret_hidden grep -q "^Presenter: http://[^/]*/presenter/   (secret hidden: type 'secret')" "$tmp/out"
check secret_on_request grep -q "^Presenter: http://[^/]*/presenter/#secret=[a-z0-9]\{20\}$" "$tmp/out"
check secret_once test "$(grep -c "secret=" "$tmp/out")" -eq 1
check no_ansi_without_tty bash -c "! grep -q $'\033' '$tmp/out'"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
[ $fail -ne 0 ] && cat "$tmp/out"
exit $fail
