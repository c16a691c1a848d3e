#!/usr/bin/env bash
# `serve --resume` with the local prober asks again for a measurement that
# was in flight when serve died (issue 17's gap, the local half; the remote
# half is fragvote/test_serve_remote). A real `fragvote serve --target 127.0.0.1`
# opens and closes question 1 and is SIGKILLed; the store is then given the
# mark a crash during `measure` leaves (questions.measuring = 1: a probe to
# 127.0.0.1 answers in milliseconds, too fast to kill serve in between).
# `serve --resume` must measure question 1 by itself: the script waits for
# the measurement and reveals without sending `measure`. Loopback only.
set -u
. "$(dirname "$0")/../support/lib.sh"
fv_tmp serve-resume-measuring
command -v sqlite3 >/dev/null || { echo "SKIP: needs sqlite3"; exit 77; }
db=$tmp/r.db

printf 'open\nclose\nsleep 60000\n' >"$tmp/before.txt"
"$bin" serve --target 127.0.0.1 --db "$db" --port 0 --bind 127.0.0.1 --no-qr --script "$tmp/before.txt" \
  </dev/null >"$tmp/before.out" 2>&1 &
pid=$!
state=
for _ in $(seq 1 100); do
  state=$(sqlite3 "$db" "SELECT state FROM questions WHERE position = 0" 2>/dev/null)
  [ "$state" = closed ] && break
  sleep 0.1
done
check question_1_closed test "$state" = closed
kill -KILL "$pid"; wait "$pid" 2>/dev/null
check not_ended test "$(sqlite3 "$db" "SELECT ended_at IS NULL FROM sessions WHERE id = 1")" = 1
sqlite3 "$db" "UPDATE questions SET measuring = 1 WHERE position = 0"

printf 'wait-measured 20000\nreveal\nquit\n' >"$tmp/after.txt"
timeout 60 "$bin" serve --target 127.0.0.1 --resume 1 --db "$db" --port 0 --bind 127.0.0.1 --no-qr \
  --script "$tmp/after.txt" </dev/null >"$tmp/after.out" 2>&1; rc=$?
grep -a '^\[' "$tmp/after.out" | tail -4
check resumed_serve_exits_0 test "$rc" -eq 0
check revealed_without_measure grep -q '> reveal: question 1/38 revealed' "$tmp/after.out"
check measured_once test "$(sqlite3 "$db" "SELECT count(*) FROM measurements m JOIN questions q ON q.id = m.question_id WHERE q.position = 0")" = 1
check mark_cleared test "$(sqlite3 "$db" "SELECT measuring FROM questions WHERE position = 0")" = 0
exit $fail
