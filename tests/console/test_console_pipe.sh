#!/usr/bin/env bash
# Console commands piped on stdin (no terminal): one command per line, a bad
# line is reported with its line number and the talk goes on; quit ends serve.
set -u
bin=${FRAGVOTE_BIN:?run through ctest}
if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (the lab)"; exit 77; fi
prefix="fvp$$"
tmp=$(mktemp -d /tmp/fragvote-console-pipe-XXXXXX)
cleanup() { "$bin" lab down --prefix "$prefix" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0
check() { local name=$1; shift; if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi; }

printf 'open\n# a comment\ndance\nclose\nmeasure\nwait-measured 20000\nreveal\nnext\nskip\nshow\nquit\n' |
  FRAGVOTE_LAB_PREFIX=$prefix timeout 60 "$bin" serve --db "$tmp/p.db" --port 0 --bind 127.0.0.1 --no-qr \
  >"$tmp/out" 2>&1
rc=$?
check exits_0 test "$rc" -eq 0
check bad_line_reported grep -q "stdin:3: unknown command 'dance'" "$tmp/out"
check q1_revealed test "$(sqlite3 "$tmp/p.db" "SELECT state FROM questions WHERE position = 0")" = revealed
check q2_skipped test "$(sqlite3 "$tmp/p.db" "SELECT state FROM questions WHERE position = 1")" = skipped
check show_prints_q3 grep -q "Question 3/32" "$tmp/out"
check no_ansi_without_tty bash -c "! grep -q $'\033' '$tmp/out'"
check lab_removed test "$(ip netns list | grep -c "^$prefix-")" -eq 0
[ $fail -ne 0 ] && cat "$tmp/out"
exit $fail
