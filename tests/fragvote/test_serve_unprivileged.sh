#!/usr/bin/env bash
# A normal user (no capabilities) runs a quiz against a real target: serve
# says once what it cannot do (no PMTU flush, recverr observer), and the
# measured answers are yes/no with their basis, not "unknown" for want of
# privileges. Loopback only (target 127.0.0.1). Needs root only to become
# the unprivileged user with setpriv.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then echo "SKIP: needs root and setpriv to run as nobody"; exit 77; fi
tmp=$(mktemp -d /tmp/fragvote-unpriv-serve-XXXXXX)
chmod 0777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; pass=$((pass+1)); else echo "FAIL $name"; fail=$((fail+1)); fi; }
# Question 1 (sent?) and question 2 of the built-in deck's first test.
printf 'open\nclose\nmeasure\nwait-measured 10000\nreveal\nnext\nopen\nclose\nmeasure\nwait-measured 10000\nreveal\nquit\n' \
  >"$tmp/talk.script"
(cd "$tmp" && setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" serve --target 127.0.0.1 --bind 127.0.0.1 \
   --port 0 --no-qr --db "$tmp/u.db" --script "$tmp/talk.script" </dev/null >"$tmp/out" 2>&1); rc=$?
check exit_0 test "$rc" -eq 0
[ "$rc" -ne 0 ] && cat "$tmp/out"
check banner_no_flush grep -q "without CAP_NET_ADMIN the PMTU cache is not flushed" "$tmp/out"
check banner_observer grep -q "Observer: recverr" "$tmp/out"
sqlite3 "$tmp/u.db" "SELECT q.kind, m.answer, m.basis, m.observer FROM measurements m JOIN questions q ON q.id = m.question_id" \
  >"$tmp/m.txt"
cat "$tmp/m.txt"
check two_measurements test "$(wc -l <"$tmp/m.txt")" -eq 2
check sent_observed grep -qx "sent|yes|observed|recverr" "$tmp/m.txt"
check none_unknown sh -c "! grep -q '|unknown|' '$tmp/m.txt'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
