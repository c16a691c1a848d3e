#!/usr/bin/env bash
# The console on a real terminal (a pty from script(1), 80x24): single keys
# drive the quiz in raw mode, a refused key shows the quiz's reason on the
# screen, every frame fits 80x24 with the phone, projector and presenter
# URLs and the QR code, the secret appears only after p, and q ends serve
# cleanly (terminal restored, lab removed).
set -u
. "$(dirname "$0")/../../support/lib.sh"
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
command -v script >/dev/null || { echo "SKIP: script(1) from util-linux is missing"; exit 77; }
prefix="fvt$$"
fv_tmp console-tty

# Keys typed on the terminal, with pauses a person would make. 'r' before
# the measurement is refused; 'x' means nothing; the rest is one full question.
keys() {
  sleep 2
  for k in r o c m; do printf '%s' "$k"; sleep 0.4; done
  sleep 0.6
  for k in x r n; do printf '%s' "$k"; sleep 0.4; done
  sleep 0.8
  printf p
  sleep 1.2
  printf q
  sleep 2
}
keys | FRAGVOTE_LAB_PREFIX=$prefix timeout 60 script -qfec \
  "stty cols 80 rows 24; '$bin' serve --db '$tmp/tty.db' --port 0 --bind 127.0.0.1 --secret tty-sesame-42-presenter" /dev/null >"$tmp/screen" 2>&1
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
# The frames (split at the clear-screen sequence): none wider than 79 cells
# or taller than 23 lines; the URLs and the QR code in each; the secret in
# none before p, and in the frames after it.
frames() { perl -CSD -0777 -ne 's/\r//g; my @f = split /\e\[H\e\[2J/; shift @f; pop @f if @f > 1; print scalar(@f), "\n"; for (@f) { my @l = split /\n/; my $w = 0; for (@l) { $w = length if length > $w } printf "%d %d %d %d %d %d\n", scalar(@l), $w, /^Join: http:\S+\?room=\S+$/m ? 1 : 0, (/^Projector: http:\S+\/screen\/$/m && /^Presenter: http:\S+\/presenter\//m) ? 1 : 0, /\x{2588}/ ? 1 : 0, /Last refused/ ? 1 : 0 }' "$tmp/screen"; }
frames >"$tmp/frames"
check frames_seen test "$(head -1 "$tmp/frames")" -ge 5
check frames_fit_80x24 awk 'NR > 1 && ($1 > 23 || $2 > 79) { bad = 1 } END { exit bad }' "$tmp/frames"
# The refusal of the first r was on screen, and is gone once later keys acted.
check refusal_then_gone awk 'NR > 1 && $6 { seen = 1 } END { exit !(seen && !$6) }' "$tmp/frames"
check frames_have_urls_and_qr awk 'NR > 1 && !($3 && $4 && $5) { bad = 1 } END { exit bad }' "$tmp/frames"
before_p=$(perl -0777 -ne 'print index($_, "tty-sesame-42-presenter") < 0 ? 0 : index($_, "tty-sesame-42-presenter")' "$tmp/screen")
check secret_hidden_at_first grep -q "(secret hidden: press p)" "$tmp/screen"
check secret_shown_after_p grep -q "Presenter: http://[^ ]*/presenter/#secret=tty-sesame-42-presenter" "$tmp/screen"
check secret_not_before_p test "$before_p" -gt "$(grep -bo 'Question 2/38' "$tmp/screen" | head -1 | cut -d: -f1)"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
[ $fail -ne 0 ] && tail -c 2000 "$tmp/screen"
exit $fail
