#!/usr/bin/env bash
# The console on a real terminal (a pty from script(1)): single keys drive the
# quiz in raw mode, a refused key shows the quiz's reason on the screen, and
# q ends serve cleanly (terminal restored, lab removed).
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
command -v script >/dev/null || { echo "SKIP: script(1) from util-linux is missing"; exit 77; }
prefix="fvt$$"
tmp=$(mktemp -d /tmp/fragvote-console-tty-XXXXXX)
cleanup() { "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi; }

# Keys typed on the terminal, with pauses a person would make. 'r' before
# the measurement is refused; 'x' means nothing; the rest is one full question.
keys() {
  sleep 2
  for k in r o c m; do printf '%s' "$k"; sleep 0.4; done
  sleep 0.6
  for k in x r n; do printf '%s' "$k"; sleep 0.4; done
  printf q
  sleep 2
}
keys | FRAGVOTE_LAB_PREFIX=$prefix timeout 60 script -qfec \
  "'$bin' serve --db '$tmp/tty.db' --port 0 --bind 127.0.0.1 --no-qr" /dev/null >"$tmp/screen" 2>&1
rc=$?
check exits_0 test "$rc" -eq 0
state() { sqlite3 "$tmp/tty.db" "SELECT state FROM questions WHERE position = $1"; }
check q1_revealed test "$(state 0)" = revealed
check q2_pending test "$(state 1)" = pending
check cursor_on_q2 test "$(sqlite3 "$tmp/tty.db" "SELECT cursor FROM sessions")" = 1
check q1_measured test "$(sqlite3 "$tmp/tty.db" "SELECT count(*) FROM measurements")" -ge 1
check refusal_on_screen grep -q "Last refused: cannot reveal" "$tmp/screen"
check screen_redrawn grep -q $'\033\[H\033\[2J' "$tmp/screen"
check question_on_screen grep -q "Question 2/38" "$tmp/screen"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
[ $fail -ne 0 ] && tail -c 2000 "$tmp/screen"
exit $fail
