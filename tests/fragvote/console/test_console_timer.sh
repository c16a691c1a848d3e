#!/usr/bin/env bash
# Voting timers from the console, on a real serve (no lab, no root needed):
# a scripted "open 2" closes the question by itself about 2 s later with no
# close command; the screen counts the seconds down; the 't' key on a
# terminal opens with --timer's countdown; bad timers are usage errors.
set -u
. "$(dirname "$0")/../../support/lib.sh"
fv_tmp console-timer
serve() { timeout 60 "$bin" serve --target 127.0.0.1 --port 0 --bind 127.0.0.1 --no-qr "$@"; }
q1() { sqlite3 "$1" "SELECT $2 FROM questions WHERE position = 0"; }
# seconds between opening and closing question 1, as the store recorded them
took() { sqlite3 "$1" "SELECT printf('%.2f', closed_at - opened_at) FROM questions WHERE position = 0"; }
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# A scripted timed open: no close command, the hub closes voting itself.
cat >"$tmp/talk.script" <<'EOF'
open 2
show
wait-state closed 8000
show
quit
EOF
serve --db "$tmp/s.db" --script "$tmp/talk.script" >"$tmp/s.out" 2>&1
rc=$?
check script_exits_0 test "$rc" -eq 0
check open_logged grep -q "> open 2: question 1/38 voting" "$tmp/s.out"
check q1_closed_by_itself test "$(q1 "$tmp/s.db" state)" = closed
check closed_after_2s between "$(took "$tmp/s.db")" 1.8 4
check countdown_on_screen grep -Eq "^State: voting   \(closes in [12] s\)$" "$tmp/s.out"
check no_countdown_once_closed grep -q "^State: closed$" "$tmp/s.out"
[ $fail -ne 0 ] && cat "$tmp/s.out"

# Piped lines: a bad timer is reported with its line and the talk goes on.
printf 'open 0\nopen 3601\nopen soon\nopen 1\nwait-state closed 8000\nquit\n' |
  serve --db "$tmp/p.db" >"$tmp/p.out" 2>&1
rc=$?
check pipe_exits_0 test "$rc" -eq 0
check pipe_bad_zero grep -q "stdin:1: open: SECONDS (the voting timer) must be a number 1..3600, not '0'" "$tmp/p.out"
check pipe_bad_big grep -q "stdin:2: open: SECONDS (the voting timer) must be a number 1..3600, not '3601'" "$tmp/p.out"
check pipe_bad_word grep -q "stdin:3: open: SECONDS" "$tmp/p.out"
check pipe_q1_closed_by_itself test "$(q1 "$tmp/p.db" state)" = closed
check pipe_closed_after_1s between "$(took "$tmp/p.db")" 0.8 3
[ $fail -ne 0 ] && cat "$tmp/p.out"

# In a script a bad timer fails the run before anything is carried out.
printf 'open 0\n' >"$tmp/bad.script"
serve --db "$tmp/b.db" --script "$tmp/bad.script" >"$tmp/b.out" 2>&1
rc=$?
check bad_script_exits_1 test "$rc" -eq 1
check bad_script_line grep -q "bad.script:1: open: SECONDS (the voting timer) must be a number 1..3600" "$tmp/b.out"
check bad_script_q1_pending test "$(q1 "$tmp/b.db" state)" = pending

# --timer is checked before anything starts: usage error, exit 2, no store.
for v in 0 3601 -1 30s ''; do
  serve --timer "$v" --db "$tmp/u.db" </dev/null >/dev/null 2>"$tmp/u.err"
  rc=$?
  check "timer_${v:-empty}_exit_2" test "$rc" -eq 2
  check "timer_${v:-empty}_said" grep -q "fragvote serve: --timer wants 1..3600 seconds, not '$v'" "$tmp/u.err"
  check "timer_${v:-empty}_no_db" test ! -e "$tmp/u.db"
done
"$bin" serve --help >"$tmp/help"
check help_timer grep -q -- "--timer SECONDS" "$tmp/help"
check help_t_key grep -q "t open with the --timer countdown" "$tmp/help"

# The 't' key on a terminal (a pty from script(1)) opens with --timer's countdown.
if command -v script >/dev/null; then
  keys() { sleep 2; printf t; sleep 3; printf q; sleep 2; }
  keys | timeout 60 script -qfec \
    "'$bin' serve --target 127.0.0.1 --port 0 --bind 127.0.0.1 --no-qr --timer 1 --db '$tmp/t.db'" /dev/null \
    >"$tmp/t.screen" 2>&1
  rc=$?
  check key_exits_0 test "$rc" -eq 0
  check key_q1_closed_by_itself test "$(q1 "$tmp/t.db" state)" = closed
  check key_closed_after_1s between "$(took "$tmp/t.db")" 0.8 3
  check key_help_on_screen grep -q "\[t\]imed open" "$tmp/t.screen"
  check key_countdown_on_screen grep -q "State: voting   (closes in 1 s)" "$tmp/t.screen"
  [ $fail -ne 0 ] && tail -c 2000 "$tmp/t.screen"
else
  echo "note: script(1) from util-linux is missing: the 't' key on a terminal is not tested"
fi
exit $fail
