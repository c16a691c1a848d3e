#!/usr/bin/env bash
# CLI contract: --help on stdout exit 0, --version, misuse on stderr exit 2.
set -u
bin=${FRAGVOTE_BIN:?FRAGVOTE_BIN not set}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$bin" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^Usage: fragvote' "$tmp/out" && [ ! -s "$tmp/err" ] && ok "--help on stdout, exit 0" || bad "--help (rc=$rc)"

"$bin" --version >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -Eq '^fragvote [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" && ok "--version" || bad "--version (rc=$rc)"

"$bin" no-such-command >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown command 'no-such-command'" "$tmp/err" && [ ! -s "$tmp/out" ] \
  && ok "unknown subcommand: exit 2, message on stderr" || bad "unknown subcommand (rc=$rc)"

for cmd in serve play probe lab pmtu sessions replay export; do
  "$bin" "$cmd" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 0 ] && grep -q "fragvote $cmd" "$tmp/out" && ok "$cmd --help" || bad "$cmd --help (rc=$rc)"
done

# Misuse names the option and the value, on stderr, exit 2 (no root needed: all refused before any work).
misuse() { # name expected-stderr-substring args...
  local name=$1 want=$2; shift 2
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ] && ok "$name" || { bad "$name (rc=$rc)"; cat "$tmp/err"; }
}
misuse "probe -p names the option" "bad value for -p: 'udp9'" probe -p udp9
misuse "probe --mode names the option" "bad value for --mode: 'foo'" probe --mode foo
misuse "lab --prefix checked as usage" "--prefix must be 1..16" lab up --prefix 'bad prefix!'
misuse "play refuses unknown options" "unknown option '--bogus'" play --bogus
misuse "play --observer names the value" "not 'bogus'" play --observer bogus
misuse "pmtu flush refuses options" "unknown option '--bogus'" pmtu flush --bogus

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
